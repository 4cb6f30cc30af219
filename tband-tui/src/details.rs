//! What the side panel says about a picked item: name, state, times,
//! message, queue.

use tband_model::{MarkerKind, Model, StrId};

use crate::app::{App, Item, Pick};
use crate::rows::Body;
use crate::time::{exact, short};
use crate::track::{IntervalSource, SampleSource};

mod tracked;

/// `(field, value)` lines describing the picked item.
pub fn details(app: &App, pick: Pick) -> Vec<(&'static str, String)> {
    let m = &app.model;
    let Some(row) = app.timeline.rows.get(pick.row) else {
        return Vec::new();
    };
    let mut out = vec![("row", row.label.clone())];
    match (&row.body, pick.item) {
        (Body::Intervals { lines, .. }, Item::Interval { line, pos }) => {
            if let Some(track) = lines.get(line) {
                if let Some((i, _)) = track.get(m, pos) {
                    interval(m, track.source, i as usize, &mut out);
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
                interval(m, track.source, i as usize, &mut out);
            }
        }
        (Body::Samples(track), Item::Sample(pos)) => {
            if let Some((i, _, _)) = track.get(m, pos) {
                sample(m, track.source, i as usize, &mut out);
            }
        }
        _ => {}
    }
    out
}

fn task_name(m: &Model, task_id: Option<u32>) -> String {
    match task_id {
        Some(id) => m.task(id).map_or(format!("task {id}"), |t| t.name.clone()),
        None => "-".to_string(),
    }
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

fn message(m: &Model, msg: StrId) -> String {
    m.strings.get(msg).to_string()
}

fn interval(m: &Model, source: IntervalSource, i: usize, out: &mut Vec<(&'static str, String)>) {
    match source {
        IntervalSource::SchedSlices => {
            if let Some(s) = m.sched_slices.get(i) {
                out.push(("task", task_name(m, Some(s.task_id))));
                out.push(("core", s.core_id.to_string()));
                times(s.start_ns, s.end_ns, s.truncated, out);
            }
        }
        IntervalSource::TaskStates => {
            if let Some(s) = m.task_states.get(i) {
                out.push(("task", task_name(m, Some(s.task_id))));
                out.push(("state", s.state.as_str().to_string()));
                if !s.reason.as_str().is_empty() {
                    out.push(("reason", s.reason.as_str().to_string()));
                }
                if let Some(q) = s.queue_id {
                    let name = m.queue(q).map_or(format!("queue {q}"), |q| q.name.clone());
                    out.push(("queue", name));
                }
                if let Some(c) = s.core_id {
                    out.push(("core", c.to_string()));
                }
                if let Some(isr) = s.woken_by_isr.and_then(|k| m.isr(k)) {
                    out.push(("woken by", isr.name.clone()));
                }
                times(s.start_ns, s.end_ns, s.truncated, out);
            }
        }
        IntervalSource::IsrSlices => {
            if let Some(s) = m.isr_slices.get(i) {
                out.push(("core", s.core_id.to_string()));
                out.push(("isr id", s.isr_id.to_string()));
                out.push(("depth", s.depth.to_string()));
                times(s.start_ns, s.end_ns, s.truncated, out);
            }
        }
        IntervalSource::MarkerSpans => {
            if let Some(s) = m.marker_spans.get(i) {
                marker(m, s.marker_id, s.task_id, out);
                out.push(("message", message(m, s.msg)));
                out.push(("depth", s.depth.to_string()));
                times(s.start_ns, s.end_ns, s.truncated, out);
            }
        }
        IntervalSource::MarkerInstants => {
            if let Some(s) = m.marker_instants.get(i) {
                marker(m, s.marker_id, s.task_id, out);
                out.push(("message", message(m, s.msg)));
                out.push(("time", exact(s.ts_ns)));
            }
        }
        IntervalSource::ObjectLifetimes => {
            if let Some(l) = m.tracked.lifetimes.get(i) {
                tracked::lifetime(m, &l, out);
            }
        }
        IntervalSource::ObjectMarks => {
            if let Some(k) = m.tracked.marks.get(i) {
                tracked::mark(m, &k, out);
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
        IntervalSource::Notifications => {
            if let Some(n) = m.objects.notifications.get(i) {
                let isr = if n.from_isr { " from ISR" } else { "" };
                out.push(("notification", format!("{}{isr}", n.op.as_str())));
                out.push(("task", task_name(m, Some(n.task_id))));
                out.push(("value", n.value.to_string()));
                if n.by_task_id.is_some() {
                    out.push(("by task", task_name(m, n.by_task_id)));
                }
                out.push(("time", exact(n.ts_ns)));
            }
        }
        IntervalSource::EventGroupOps => {
            if let Some(e) = m.objects.event_group_ops.get(i) {
                let name = (m.objects.event_group(e.group_id))
                    .map_or(format!("event group {}", e.group_id), |g| g.name.clone());
                out.push(("event group", name));
                let isr = if e.from_isr { " from ISR" } else { "" };
                out.push(("op", format!("{}{isr}", e.op.as_str())));
                out.push(("bits", format!("{:#x}", e.bits)));
                out.push(("task", task_name(m, e.task_id)));
                out.push(("time", exact(e.ts_ns)));
            }
        }
        IntervalSource::TimerOps => {
            if let Some(t) = m.objects.timer_ops.get(i) {
                let name = (m.objects.timer(t.timer_id))
                    .map_or(format!("timer {}", t.timer_id), |tm| tm.name.clone());
                out.push(("timer", name));
                let isr = if t.from_isr { " from ISR" } else { "" };
                out.push(("op", format!("{}{isr}", t.op.as_str())));
                out.push(("task", task_name(m, t.task_id)));
                out.push(("time", exact(t.ts_ns)));
            }
        }
    }
}

fn marker(m: &Model, marker_id: u32, task_id: Option<u32>, out: &mut Vec<(&'static str, String)>) {
    let name = m
        .marker(marker_id, task_id, MarkerKind::Event)
        .or_else(|| m.marker(marker_id, task_id, MarkerKind::Value))
        .map_or(format!("marker {marker_id}"), |mk| mk.name.clone());
    out.push(("marker", name));
    out.push(("task", task_name(m, task_id)));
}

fn sample(m: &Model, source: SampleSource, i: usize, out: &mut Vec<(&'static str, String)>) {
    match source {
        SampleSource::MarkerValues => {
            if let Some(v) = m.marker_values.get(i) {
                marker(m, v.marker_id, v.task_id, out);
                out.push(("value", v.value.to_string()));
                out.push(("time", exact(v.ts_ns)));
            }
        }
        SampleSource::ObjectCounters => {
            if let Some(v) = m.tracked.counter_values.get(i) {
                tracked::counter_value(m, &v, out);
            }
        }
        SampleSource::QueueLevels => {
            if let Some(op) = m.queue_ops.get(i) {
                let name = m
                    .queue(op.queue_id)
                    .map_or(format!("queue {}", op.queue_id), |q| q.name.clone());
                out.push(("queue", name));
                let isr = if op.from_isr { " from ISR" } else { "" };
                out.push(("op", format!("{}{isr}", op.op.as_str())));
                out.push(("task", task_name(m, op.task_id)));
                if let Some(len) = op.len_after {
                    out.push(("items", len.to_string()));
                }
                out.push(("time", exact(op.ts_ns)));
            }
        }
        SampleSource::StreamBufferLevels => {
            if let Some(op) = m.objects.stream_buffer_ops.get(i) {
                let name = (m.objects.stream_buffer(op.buffer_id))
                    .map_or(format!("stream buffer {}", op.buffer_id), |b| {
                        b.name.clone()
                    });
                out.push(("stream buffer", name));
                let isr = if op.from_isr { " from ISR" } else { "" };
                out.push(("op", format!("{}{isr}", op.op.as_str())));
                out.push(("task", task_name(m, op.task_id)));
                out.push(("bytes", op.bytes_after.to_string()));
                out.push(("time", exact(op.ts_ns)));
            }
        }
    }
}
