//! The summary pane shows the model's numbers: CPU % per task (run time
//! without the depth-0 ISR time inside it), ISR counts and worst durations,
//! queue high-water marks. The expected values are recomputed here straight
//! from the model tables, independently of tband-decode's analysis, and
//! compared with both the analysis and the drawn pane.

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use tband_model::Model;
use tband_tui::app::App;
use tband_tui::render::{draw, to_text};
use tband_tui::time::short;

fn open(name: &str) -> App {
    let path = format!(
        "{}/../tests/corpus/tband/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let model = tband_trace::Trace::open(&[path], &Default::default())
        .unwrap()
        .model;
    App::new(model, name.to_string())
}

/// Run time of a task (an index into the model's tasks): its slices minus overlapping depth-0 ISRs on the same core.
fn run_ns(m: &Model, task: u32) -> u64 {
    let mut total = 0;
    for s in m.sched_slices.iter().filter(|s| s.task == task) {
        let isr: u64 = m
            .isr_slices
            .iter()
            .filter(|i| i.depth == 0 && i.core_id == s.core_id)
            .map(|i| {
                i.end_ns
                    .min(s.end_ns)
                    .saturating_sub(i.start_ns.max(s.start_ns))
            })
            .sum();
        total += (s.end_ns - s.start_ns) - isr;
    }
    total
}

fn pane_text(app: &mut App) -> String {
    app.show_summary = true;
    let mut terminal = Terminal::new(TestBackend::new(150, 70)).unwrap();
    terminal.draw(|f| app.geometry = draw(f, app)).unwrap();
    let text = to_text(terminal.backend().buffer());
    let start = text
        .find(" summary (t) ")
        .expect("the summary pane is drawn");
    text[start..].to_string()
}

/// The pane line of the row that starts with `name` (first match), as
/// whitespace-separated columns.
fn columns_of<'a>(pane: &'a str, name: &str, right_half: bool) -> Vec<&'a str> {
    pane.lines()
        .filter_map(|l| {
            let half = if right_half {
                l.get(l.char_indices().nth(75).map_or(l.len(), |(i, _)| i)..)?
            } else {
                l.get(..l.char_indices().nth(75).map_or(l.len(), |(i, _)| i))?
            };
            half.trim_start()
                .strip_prefix(name)
                .filter(|rest| rest.starts_with(' '))
                .map(|rest| rest.split_whitespace().collect())
        })
        .next()
        .unwrap_or_else(|| panic!("no pane line for {name}"))
}

fn check(name: &str) {
    let mut app = open(name);
    let pane = pane_text(&mut app);
    let m = &app.model;
    let duration = m.info.duration_ns;
    let mut seen = std::collections::BTreeSet::new();
    for (i, task) in (0..).zip(&m.tasks) {
        if !seen.insert(task.name.clone()) || task.name.chars().count() > 15 {
            continue; // the pane lists repeated names in order; check the first
        }
        let run = run_ns(m, i);
        let analysed = app.analysis().task(i).unwrap();
        assert_eq!(
            analysed.run_ns, run,
            "{name}: analysis run time of {}",
            task.name
        );
        let cols = columns_of(&pane, &task.name, false);
        let percent = format!("{:.2}", run as f64 * 100.0 / duration as f64);
        let expected = if m.is_idle(i) {
            format!("({percent})")
        } else {
            percent
        };
        assert_eq!(cols[0], expected, "{name}: cpu % of {}", task.name);
        assert_eq!(cols[1], short(run), "{name}: run time of {}", task.name);
    }
    for (i, isr) in (0..).zip(&m.isrs) {
        let slices: Vec<u64> = m
            .isr_slices
            .iter()
            .filter(|s| s.isr == i)
            .map(|s| s.end_ns - s.start_ns)
            .collect();
        let label = format!("c{} {}", isr.core_id, isr.name);
        if label.chars().count() > 17 {
            continue;
        }
        let cols = columns_of(&pane, &label, true);
        assert_eq!(
            cols[0],
            slices.len().to_string(),
            "{name}: count of {label}"
        );
        let max = slices.iter().copied().max().unwrap_or(0);
        assert_eq!(cols[1], short(max), "{name}: worst duration of {label}");
    }
    for (i, q) in (0..).zip(&m.queues) {
        let high_water = m
            .queue_ops
            .iter()
            .filter(|op| op.queue == i)
            .filter_map(|op| op.len_after)
            .max()
            .unwrap_or(0);
        let cols = columns_of(&pane, &q.name, true);
        assert_eq!(
            cols[1],
            high_water.to_string(),
            "{name}: high-water of {}",
            q.name
        );
    }
}

#[test]
fn summary_pane_matches_the_model_small() {
    check("freertos_small.bin");
}

#[test]
fn summary_pane_matches_the_model_lossy() {
    check("freertos_lossy.bin");
}
