//! Full frames of the conformance recordings, drawn on ratatui's
//! `TestBackend` and compared with the frames in `tests/frames/` (set
//! `UPDATE_FRAMES=1` to rewrite them after a deliberate change). Each frame
//! is also checked against the model: every ISR execution, task slice,
//! running state and marker instant in view is drawn where it happened.

use std::path::PathBuf;

use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use tband_model::TaskStateKind;
use tband_tui::app::{App, Entry};
use tband_tui::load::{open as load, Opened};
use tband_tui::render::{draw, to_text};
use tband_tui::rows::Body;
use tband_tui::time::parse_range;

fn recording(name: &str) -> String {
    format!(
        "{}/../tests/corpus/tband/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn open(inputs: &[&str]) -> App {
    let args: Vec<String> = inputs.iter().map(|i| recording(i)).collect();
    let model = tband_trace::Trace::open(&args, &Default::default())
        .unwrap()
        .model;
    App::new(model, inputs.join(" "))
}

fn render(app: &mut App, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| app.geometry = draw(f, app)).unwrap();
    terminal.draw(|f| app.geometry = draw(f, app)).unwrap();
    terminal.backend().buffer().clone()
}

fn compare(name: &str, buf: &Buffer) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/frames")
        .join(format!("{name}.txt"));
    let text = to_text(buf);
    if std::env::var_os("UPDATE_FRAMES").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_FRAMES=1)", path.display()));
    assert_eq!(
        text,
        expected,
        "frame {name} differs from {}",
        path.display()
    );
}

fn symbol(buf: &Buffer, x: u16, y: u16) -> &str {
    buf.cell((x, y)).map_or("", |c| c.symbol())
}

/// Checks that what the model says happened in view is drawn where it happened.
fn check_against_model(app: &App, buf: &Buffer) -> usize {
    let m = &app.model;
    let cols = app.columns();
    let x0 = app.geometry.timeline_x;
    let entries = app.entries();
    let mut checked = 0;
    let in_view = |s: u64, e: u64| s >= cols.start && e < cols.end;
    let col = |t: u64| x0 + cols.column_of(t) as u16;
    let whole_columns = |s: u64, e: u64| e.saturating_sub(s) >= 2 * cols.column_ns();
    for &(y, index) in &app.geometry.lines {
        let Some(Entry::Row(r)) = entries.get(index) else {
            continue;
        };
        let row = &app.rows.all[*r];
        let Body::Intervals { lines, ticks } = &row.body else {
            continue;
        };
        if let Some(ticks) = ticks {
            for pos in 0..ticks.len() {
                let (_, span) = ticks.get(m, pos).unwrap();
                if in_view(span.start, span.start) {
                    assert_eq!(
                        symbol(buf, col(span.start), y),
                        "|",
                        "{} instant",
                        row.label
                    );
                    checked += 1;
                }
            }
        }
        let Some(track) = lines.first() else {
            continue;
        };
        for pos in 0..track.len() {
            let (i, span) = track.get(m, pos).unwrap();
            if !in_view(span.start, span.end) {
                continue;
            }
            let mid = span.start + (span.end - span.start) / 2;
            let drawn = symbol(buf, col(mid), y);
            use tband_tui::line::IntervalSource::*;
            match track.source {
                IsrSlices => {
                    assert!(
                        ["█", "▄", "|"].contains(&symbol(buf, col(span.start), y)),
                        "{} ISR at {}",
                        row.label,
                        span.start
                    );
                    checked += 1;
                }
                SchedSlices if whole_columns(span.start, span.end) => {
                    assert!(
                        !["", " ", "·"].contains(&drawn),
                        "{}: task {} at {} drawn as {drawn:?}",
                        row.label,
                        span.code,
                        span.start
                    );
                    checked += 1;
                }
                TaskStates if whole_columns(span.start, span.end) => {
                    let state = m.task_states.get(i as usize).unwrap().state;
                    let expected = match state {
                        TaskStateKind::Running => "█",
                        TaskStateKind::Ready => "▒",
                        TaskStateKind::Blocked => "─",
                        TaskStateKind::Suspended => "╌",
                        TaskStateKind::Deleted => " ",
                    };
                    assert!(
                        drawn == expected || drawn == "▌",
                        "{}: {} at {} drawn as {drawn:?}",
                        row.label,
                        state.as_str(),
                        span.start
                    );
                    checked += 1;
                }
                _ => {}
            }
        }
    }
    checked
}

fn press(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

#[test]
fn freertos_whole_trace() {
    let mut app = open(&["freertos_small.bin"]);
    let buf = render(&mut app, 140, 56);
    compare("freertos_small", &buf);
    assert!(check_against_model(&app, &buf) > 100);
}

#[test]
fn freertos_zoomed_with_details() {
    let mut app = open(&["freertos_small.bin"]);
    render(&mut app, 140, 40);
    let (start, end) = parse_range("36.95ms..37.35ms").unwrap();
    app.set_view(start.unwrap(), end.unwrap());
    // Select the core row and pick the block under the cursor.
    app.cursor = 37_000_000;
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    assert!(app.picked.is_some());
    let buf = render(&mut app, 140, 40);
    compare("freertos_small_zoomed", &buf);
    assert!(check_against_model(&app, &buf) > 5);
    let text = to_text(&buf);
    assert!(
        text.contains("task     consumer"),
        "details panel names the task"
    );
}

#[test]
fn freertos_summary_and_help() {
    let mut app = open(&["freertos_small.bin"]);
    press(&mut app, KeyCode::Char('t'));
    compare("freertos_small_summary", &render(&mut app, 140, 50));
    press(&mut app, KeyCode::Char('?'));
    compare("freertos_small_help", &render(&mut app, 100, 30));
}

#[test]
fn lossy_trace_shows_anomalies_on_the_axis() {
    let mut app = open(&["freertos_lossy.bin"]);
    let buf = render(&mut app, 140, 50);
    compare("freertos_lossy", &buf);
    check_against_model(&app, &buf);
    let axis = to_text(&buf).lines().nth(2).unwrap().to_string();
    assert!(axis.matches('!').count() > 10, "{axis}");
}

#[test]
fn baremetal_recordings() {
    for (name, inputs) in [
        ("baremetal_basic", &["baremetal_basic.bin"][..]),
        (
            "baremetal_2core",
            &["baremetal_2core_c0.bin@0", "baremetal_2core_c1.bin@1"][..],
        ),
        (
            "baremetal_2core_snap",
            &[
                "baremetal_2core_snap_c0.bin@0",
                "baremetal_2core_snap_c1.bin@1",
            ][..],
        ),
    ] {
        let mut app = open(inputs);
        let buf = render(&mut app, 120, 36);
        compare(name, &buf);
        check_against_model(&app, &buf);
    }
    // Both cores' ISRs get rows of their own.
    let app = open(&["baremetal_2core_c0.bin@0", "baremetal_2core_c1.bin@1"]);
    let isr_rows: Vec<_> = app
        .rows
        .all
        .iter()
        .filter(|r| r.group == tband_tui::rows::Group::Isrs)
        .map(|r| r.label.as_str())
        .collect();
    assert!(
        isr_rows.iter().any(|l| l.starts_with("c0 ")),
        "{isr_rows:?}"
    );
    assert!(
        isr_rows.iter().any(|l| l.starts_with("c1 ")),
        "{isr_rows:?}"
    );
}

/// Opens a recording as the viewer opens a large trace: its first
/// `preview_bytes` first, the whole from the background thread.
fn open_progressively(name: &str, preview_bytes: u64) -> (App, tband_tui::load::Loader) {
    let args = [recording(name)];
    match load(&args, &Default::default(), Some(preview_bytes)).unwrap() {
        Opened::Partial { preview, loader } => (App::new(preview, name.into()), loader),
        Opened::Complete(_) => panic!("{name} is larger than {preview_bytes} bytes"),
    }
}

#[test]
fn loading_frame_shows_the_first_part() {
    let (mut app, loader) = open_progressively("freertos_small.bin", 4_000);
    let whole = loader.wait();
    assert!(app.model.info.events > 0);
    assert!(app.model.info.events < whole.model.info.events);
    assert!(app.full_end() < whole.model.info.duration_ns);
    // The progress shown is whatever was read when the frame was drawn.
    app.loading = Some(37);
    let buf = render(&mut app, 140, 45);
    let text = to_text(&buf);
    let title = text.lines().next().unwrap();
    assert!(
        title.contains("partial: the start only, loading 37 %"),
        "{title}"
    );
    // Marker spans open at the cut are drawn up to it, not flagged as
    // damage: this part of the recording has none.
    assert!(app.model.anomalies.is_empty());
    assert!(!text.lines().nth(2).unwrap().contains('!'), "{text}");
    assert!(!text.contains("anomalies"), "{text}");
    assert!(check_against_model(&app, &buf) > 0);
    compare("freertos_small_loading", &buf);
}

#[test]
fn first_part_keeps_its_real_anomalies() {
    let (mut app, loader) = open_progressively("freertos_lossy.bin", 10_000);
    let whole = loader.wait();
    let cut = app.model.info.duration_ns;
    let key = |a: &tband_model::Anomaly| (a.start_ns, a.end_ns, a.kind, a.core_id);
    let found: Vec<_> = app.model.anomalies.iter().map(key).collect();
    let before_cut: Vec<_> = whole
        .model
        .anomalies
        .iter()
        .filter(|a| a.end_ns < cut)
        .map(key)
        .collect();
    assert!(!found.is_empty());
    assert_eq!(found, before_cut);
    assert!(
        app.model
            .marker_spans
            .iter()
            .any(|s| s.truncated && s.end_ns == cut),
        "spans open at the cut are still drawn up to it"
    );
    app.loading = Some(5);
    let text = to_text(&render(&mut app, 140, 45));
    let axis = text.lines().nth(2).unwrap();
    assert!(axis.contains('!'), "{text}");
    assert!(
        text.contains(&format!("! {} anomalies on the axis", found.len())),
        "{text}"
    );
}

#[test]
fn progressive_load_ends_as_a_complete_load() {
    let keys = [
        KeyCode::Down,
        KeyCode::Down,
        KeyCode::Char('n'),
        KeyCode::Char('n'),
        KeyCode::Char('m'),
        KeyCode::Char('t'),
    ];
    let mut complete = open(&["freertos_small.bin"]);
    render(&mut complete, 140, 45);
    let (mut progressive, loader) = open_progressively("freertos_small.bin", 4_000);
    render(&mut progressive, 140, 45);
    for key in keys {
        press(&mut complete, key);
        press(&mut progressive, key);
    }
    assert_eq!(
        progressive.cursor, complete.cursor,
        "the first items are the same"
    );
    progressive.replace(loader.wait());
    assert_eq!(
        to_text(&render(&mut progressive, 140, 45)),
        to_text(&render(&mut complete, 140, 45))
    );
    assert_eq!(progressive.picked, complete.picked);
    assert_eq!(progressive.selected, complete.selected);
}

#[test]
fn replacing_keeps_a_zoomed_view() {
    let (mut app, loader) = open_progressively("freertos_small.bin", 4_000);
    render(&mut app, 140, 45);
    press(&mut app, KeyCode::Char('+'));
    press(&mut app, KeyCode::Char('+'));
    let view = (app.start, app.end);
    app.replace(loader.wait());
    assert_eq!((app.start, app.end), view);
    assert_eq!(app.loading, None);
}

/// The status line of a followed file: no events yet, then following, then
/// held once the view is moved.
#[test]
fn a_followed_file_says_whether_it_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("growing.bin");
    std::fs::File::create(&path).unwrap();
    let args = [path.display().to_string()];
    let mut follower = tband_tui::load::Follower::open(&args, &Default::default()).unwrap();
    let mut app = follower.viewer("growing.bin".into()).unwrap();
    let status = |app: &mut App| {
        let text = to_text(&render(app, 120, 30));
        text.lines().last().unwrap().to_string()
    };
    assert!(status(&mut app).ends_with("following: no events yet"));
    std::fs::write(
        &path,
        std::fs::read(recording("freertos_small.bin")).unwrap(),
    )
    .unwrap();
    assert!(follower.update(&mut app).unwrap().changed);
    let line = status(&mut app);
    assert!(
        line.contains("following: the view keeps to the newest data"),
        "{line}"
    );
    app.on_key(KeyEvent::new(KeyCode::Char('+'), KeyModifiers::NONE));
    let line = status(&mut app);
    assert!(
        line.contains("following: view held, End or f follows again"),
        "{line}"
    );
}
