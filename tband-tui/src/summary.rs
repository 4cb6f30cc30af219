//! The summary pane's text: per-core load, per-task CPU time, ISR counts
//! and worst durations, queue high-water marks — all from the shared
//! [`Analysis`](tband_model::analysis::Analysis).

use tband_model::analysis::load_percent;

use crate::app::App;
use crate::time::short;

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// How many lines [`cpu_lines`] and [`isr_queue_lines`] have in full.
pub fn line_counts(app: &App) -> (usize, usize) {
    let a = app.analysis();
    let headers = |n: usize| usize::from(n > 0);
    (
        2 + a.cores.len() + a.tasks.len(),
        headers(a.isrs.len()) + a.isrs.len() + headers(a.queues.len()) + a.queues.len(),
    )
}

/// Cores and tasks (left half of the pane), at most `limit` lines.
pub fn cpu_lines(app: &App, limit: usize) -> Vec<String> {
    let a = app.analysis();
    let mut out = Vec::new();
    out.push(format!("{:<16}{:>8}{:>10}", "core", "load %", "isr"));
    for c in &a.cores {
        out.push(format!(
            "{:<16}{:>8.2}{:>10}",
            format!("core {}", c.core_id),
            app.analysis().core_load(c.core_id),
            short(c.isr_ns)
        ));
    }
    out.push(format!(
        "{:<16}{:>8}{:>10}{:>10}{:>8}",
        "task", "cpu %", "run", "isr", "slices"
    ));
    for t in a.tasks.iter().take(limit.saturating_sub(out.len())) {
        let name = app.model.tasks.get(t.task as usize).map_or("", |t| &t.name);
        let load = if t.idle {
            format!("({:.2})", load_percent(t.run_ns, a.duration_ns))
        } else {
            format!("{:.2}", a.task_load(t.task))
        };
        out.push(format!(
            "{:<16}{:>8}{:>10}{:>10}{:>8}",
            cut(name, 15),
            load,
            short(t.run_ns),
            short(t.isr_ns),
            t.slices
        ));
    }
    out.truncate(limit);
    out
}

/// ISRs and queues (right half of the pane), at most `limit` lines.
pub fn isr_queue_lines(app: &App, limit: usize) -> Vec<String> {
    let a = app.analysis();
    let m = &app.model;
    let mut out = Vec::new();
    if !a.isrs.is_empty() {
        out.push(format!(
            "{:<18}{:>7}{:>10}{:>10}",
            "isr", "count", "max", "total"
        ));
    }
    for (s, isr) in a.isrs.iter().zip(&m.isrs).take(limit) {
        out.push(format!(
            "{:<18}{:>7}{:>10}{:>10}",
            cut(&format!("c{} {}", isr.core_id, isr.name), 17),
            s.count,
            short(s.max_ns),
            short(s.total_ns)
        ));
    }
    if !a.queues.is_empty() {
        out.push(format!("{:<18}{:>7}{:>11}", "queue", "ops", "high-water"));
    }
    for (q, queue) in a.queues.iter().zip(&m.queues).take(limit) {
        out.push(format!(
            "{:<18}{:>7}{:>11}",
            cut(&queue.name, 17),
            q.ops,
            q.high_water
        ));
    }
    out.truncate(limit);
    out
}
