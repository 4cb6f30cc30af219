//! What the side panel says about a picked item: name, state, times, and
//! for an item of the model's timeline what its layer says of it.

use tband_model::timeline::Shape;
use tband_model::Model;

use crate::app::{App, Item, Pick};
use crate::line::{IntervalSource, LayerSource};
use crate::rows::Body;
use crate::time::{exact, short};

/// `(field, value)` lines describing the picked item.
pub fn details(app: &App, pick: Pick) -> Vec<(&'static str, String)> {
    let m = &app.model;
    let Some(row) = app.rows.all.get(pick.row) else {
        return Vec::new();
    };
    let mut out = vec![("row", row.label.clone())];
    match (&row.body, pick.item) {
        (Body::Intervals { lines, .. }, Item::Interval { line, pos }) => {
            if let Some(track) = lines.get(line) {
                if let Some((i, _)) = track.get(m, pos) {
                    interval(m, &track.source, i as usize, &mut out);
                }
            }
        }
        (
            Body::Intervals {
                ticks: Some(track), ..
            },
            Item::Tick(pos),
        ) => {
            if let Some((i, _)) = track.get(m, pos) {
                interval(m, &track.source, i as usize, &mut out);
            }
        }
        (Body::Samples(track), Item::Sample(pos)) => {
            if let Some((i, _, _)) = track.get(m, pos) {
                layer_item(m, &track.source, i as usize, &mut out);
            }
        }
        _ => {}
    }
    out
}

/// The name of the task at index `task` of the model's tasks.
fn task_name(m: &Model, task: u32) -> String {
    m.tasks
        .get(task as usize)
        .map_or_else(|| "-".to_string(), |t| t.name.clone())
}

fn times(start: u64, end: u64, truncated: bool, out: &mut Vec<(&'static str, String)>) {
    out.push(("start", exact(start)));
    out.push(("end", exact(end)));
    let cut = if truncated { " (trace ended)" } else { "" };
    out.push((
        "duration",
        format!("{}{cut}", short(end.saturating_sub(start))),
    ));
}

/// The stack of the task at `task` in the model's tasks: its size, and
/// the fewest bytes of it left by `at`.
fn stack(m: &Model, task: u32, at: u64, out: &mut Vec<(&'static str, String)>) {
    let Some(task) = m.tasks.get(task as usize) else {
        return;
    };
    let margins = &m.memory.stack_margins;
    let before = margins.partition_point(|s| s.ts_ns <= at);
    let fewest = (margins[..before].iter().rev()).find(|s| s.task_id == task.task_id);
    let size = task.stack_size;
    let text = match (fewest, size) {
        (Some(f), Some(size)) => format!("{} B free of {size} B at the fewest", f.free_bytes),
        (Some(f), None) => format!("{} B free at the fewest", f.free_bytes),
        (None, Some(size)) => format!("{size} B"),
        (None, None) => return,
    };
    out.push(("stack", text));
}

fn interval(m: &Model, source: &IntervalSource, i: usize, out: &mut Vec<(&'static str, String)>) {
    match source {
        IntervalSource::SchedSlices => {
            if let Some(s) = m.sched_slices.get(i) {
                out.push(("task", task_name(m, s.task)));
                out.push(("core", s.core_id.to_string()));
                times(s.start_ns, s.end_ns, s.truncated, out);
                stack(m, s.task, s.end_ns, out);
            }
        }
        IntervalSource::TaskStates => {
            if let Some(s) = m.task_states.get(i) {
                out.push(("task", task_name(m, s.task)));
                out.push(("state", s.state.as_str().to_string()));
                if !s.reason.as_str().is_empty() {
                    out.push(("reason", s.reason.as_str().to_string()));
                }
                if let Some(q) = s.queue.and_then(|q| m.queues.get(q as usize)) {
                    out.push(("queue", q.name.clone()));
                }
                if let Some(c) = s.core_id {
                    out.push(("core", c.to_string()));
                }
                if let Some(isr) = s.woken_by_isr.and_then(|i| m.isrs.get(i as usize)) {
                    out.push(("woken by", isr.name.clone()));
                }
                times(s.start_ns, s.end_ns, s.truncated, out);
                stack(m, s.task, s.end_ns, out);
            }
        }
        IntervalSource::IsrSlices => {
            if let Some(s) = m.isr_slices.get(i) {
                out.push(("core", s.core_id.to_string()));
                if let Some(isr) = m.isrs.get(s.isr as usize) {
                    out.push(("isr id", isr.isr_id.to_string()));
                }
                out.push(("depth", s.depth.to_string()));
                times(s.start_ns, s.end_ns, s.truncated, out);
            }
        }
        IntervalSource::Anomalies => {
            if let Some(a) = m.anomalies.get(i) {
                out.push(("anomaly", a.kind.as_str().to_string()));
                out.push(("count", a.count.to_string()));
                out.push(("detail", a.detail.clone()));
                times(a.start_ns, a.end_ns, false, out);
            }
        }
        IntervalSource::Layer(layer) => layer_item(m, layer, i, out),
    }
}

/// What the item's layer says of it, then its times.
fn layer_item(m: &Model, source: &LayerSource, i: usize, out: &mut Vec<(&'static str, String)>) {
    source.layer.describe(m, i, out);
    match source.item(m, i as u32) {
        Some(Shape::Slice {
            start, end, open, ..
        }) => times(start, end, open, out),
        Some(Shape::Instant(ts) | Shape::Counter(ts, _)) => out.push(("time", exact(ts))),
        None => {}
    }
}
