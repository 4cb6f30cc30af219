//! The model as Chrome's trace event format (JSON), for tools that read only that: Tracy's
//! `import-chrome`, chrome://tracing, speedscope, Perfetto's legacy importer.
//!
//! Written as a stream, row by row from the model tables. Layout:
//!
//! | pid | process | threads (tid) | events |
//! |---|---|---|---|
//! | 1 | `tasks` | one per task (task id) | `X` for each time the task ran |
//! | 2 | `cores` | `core N` (2N) and `core N ISRs` (2N+1) | `X` for who ran; `X` for ISRs (nested by depth); `i` for anomalies |
//! | 3 | `markers` | one per marker track (its index) | `X` spans, `i` instants, `C` values |
//! | 4 | `queues` | one per mutex (queue id) | `X` while a task holds it; `C` fill levels |
//! | 5… | a pool of objects | one per lane of live objects | `X` lifetimes, `i` marks, `C` pool counters (see `objects`) |
//!
//! Times are microseconds with nanosecond precision (three decimals).

use std::collections::HashMap;
use std::io::{self, Write};

use tband_model::json::write_json_str;
use tband_model::{IsrKey, MarkerKind, Model};

mod tracked;

const PID_TASKS: u32 = 1;
const PID_CORES: u32 = 2;
const PID_MARKERS: u32 = 3;
const PID_QUEUES: u32 = 4;

/// Writes the whole model as one JSON object `{"traceEvents":[...],"displayTimeUnit":"ns"}`.
pub fn write_chrome_json(out: &mut impl Write, model: &Model) -> io::Result<()> {
    let mut w = EventWriter { out, first: true };
    let marker_tracks: HashMap<(u32, Option<u32>, MarkerKind), (u64, &str)> = model
        .markers
        .iter()
        .enumerate()
        .map(|(i, m)| {
            (
                (m.marker_id, m.task_id, m.kind),
                (i as u64, m.name.as_str()),
            )
        })
        .collect();
    let marker = |id, task, kind| {
        marker_tracks
            .get(&(id, task, kind))
            .copied()
            .unwrap_or((0, ""))
    };
    w.out.write_all(b"{\"traceEvents\":[\n")?;
    w.metadata(model)?;
    for s in &model.sched_slices {
        let name = task_name(model, s.task_id);
        w.complete(
            PID_TASKS,
            s.task_id.into(),
            name,
            "sched",
            s.start_ns,
            s.end_ns,
        )?;
        let core_tid = u64::from(s.core_id) * 2;
        w.complete(PID_CORES, core_tid, name, "sched", s.start_ns, s.end_ns)?;
    }
    for s in &model.isr_slices {
        let name = model
            .isr(IsrKey {
                core_id: s.core_id,
                isr_id: s.isr_id,
            })
            .map_or("isr", |isr| isr.name.as_str());
        let tid = u64::from(s.core_id) * 2 + 1;
        w.complete(PID_CORES, tid, name, "isr", s.start_ns, s.end_ns)?;
    }
    for span in &model.marker_spans {
        let (tid, track) = marker(span.marker_id, span.task_id, MarkerKind::Event);
        let name = non_empty(model.strings.get(span.msg), track);
        w.complete(PID_MARKERS, tid, name, "marker", span.start_ns, span.end_ns)?;
    }
    for instant in &model.marker_instants {
        let (tid, track) = marker(instant.marker_id, instant.task_id, MarkerKind::Event);
        let name = non_empty(model.strings.get(instant.msg), track);
        w.begin(b'i', PID_MARKERS, Some(tid), name, "marker", instant.ts_ns)?;
        w.out.write_all(b",\"s\":\"t\"}")?;
    }
    for value in &model.marker_values {
        let (_, name) = marker(value.marker_id, value.task_id, MarkerKind::Value);
        w.begin(b'C', PID_MARKERS, None, name, "marker", value.ts_ns)?;
        write!(w.out, ",\"args\":{{\"value\":{}}}}}", value.value)?;
    }
    for hold in &model.mutex_holds {
        let name = task_name(model, hold.task_id);
        w.complete(
            PID_QUEUES,
            hold.queue_id.into(),
            name,
            "mutex",
            hold.start_ns,
            hold.end_ns,
        )?;
    }
    for op in &model.queue_ops {
        if let Some(level) = op.len_after {
            let name = model
                .queue(op.queue_id)
                .map_or("queue", |q| q.name.as_str());
            w.begin(b'C', PID_QUEUES, None, name, "queue", op.ts_ns)?;
            write!(w.out, ",\"args\":{{\"level\":{level}}}}}")?;
        }
    }
    for anomaly in &model.anomalies {
        let tid = u64::from(anomaly.core_id.unwrap_or(0)) * 2;
        w.begin(
            b'i',
            PID_CORES,
            Some(tid),
            anomaly.kind.as_str(),
            "anomaly",
            anomaly.end_ns,
        )?;
        w.out.write_all(b",\"s\":\"g\",\"args\":{\"detail\":")?;
        write_json_str(w.out, anomaly.detail.as_bytes())?;
        write!(w.out, ",\"count\":{}}}}}", anomaly.count)?;
    }
    tracked::write(&mut w, model)?;
    w.out.write_all(b"\n],\"displayTimeUnit\":\"ns\"}\n")
}

fn task_name(model: &Model, task_id: u32) -> &str {
    model.task(task_id).map_or("task", |t| t.name.as_str())
}

fn non_empty<'s>(text: &'s str, otherwise: &'s str) -> &'s str {
    if text.is_empty() {
        otherwise
    } else {
        text
    }
}

struct EventWriter<'w, W: Write> {
    out: &'w mut W,
    first: bool,
}

impl<W: Write> EventWriter<'_, W> {
    /// Starts an event object up to its timestamp; the caller adds fields and the closing `}`.
    fn begin(
        &mut self,
        ph: u8,
        pid: u32,
        tid: Option<u64>,
        name: &str,
        cat: &str,
        ts_ns: u64,
    ) -> io::Result<()> {
        if !self.first {
            self.out.write_all(b",\n")?;
        }
        self.first = false;
        self.out.write_all(b"{\"ph\":\"")?;
        self.out.write_all(&[ph])?;
        write!(self.out, "\",\"pid\":{pid},")?;
        if let Some(tid) = tid {
            write!(self.out, "\"tid\":{tid},")?;
        }
        self.out.write_all(b"\"name\":")?;
        write_json_str(self.out, name.as_bytes())?;
        self.out.write_all(b",\"cat\":")?;
        write_json_str(self.out, cat.as_bytes())?;
        self.out.write_all(b",\"ts\":")?;
        write_micros(self.out, ts_ns)
    }

    fn complete(
        &mut self,
        pid: u32,
        tid: u64,
        name: &str,
        cat: &str,
        start_ns: u64,
        end_ns: u64,
    ) -> io::Result<()> {
        self.begin(b'X', pid, Some(tid), name, cat, start_ns)?;
        self.out.write_all(b",\"dur\":")?;
        write_micros(self.out, end_ns.saturating_sub(start_ns))?;
        self.out.write_all(b"}")
    }

    fn name_meta(&mut self, what: &str, pid: u32, tid: Option<u64>, name: &str) -> io::Result<()> {
        if !self.first {
            self.out.write_all(b",\n")?;
        }
        self.first = false;
        write!(self.out, "{{\"ph\":\"M\",\"pid\":{pid},")?;
        if let Some(tid) = tid {
            write!(self.out, "\"tid\":{tid},")?;
        }
        write!(self.out, "\"name\":\"{what}\",\"args\":{{\"name\":")?;
        write_json_str(self.out, name.as_bytes())?;
        self.out.write_all(b"}}")
    }

    /// Process and thread names.
    fn metadata(&mut self, model: &Model) -> io::Result<()> {
        let processes = [
            (PID_TASKS, "tasks"),
            (PID_CORES, "cores"),
            (PID_MARKERS, "markers"),
            (PID_QUEUES, "queues"),
        ];
        for (pid, name) in processes {
            self.name_meta("process_name", pid, None, name)?;
        }
        for task in &model.tasks {
            self.name_meta(
                "thread_name",
                PID_TASKS,
                Some(task.task_id.into()),
                &task.name,
            )?;
        }
        for core in &model.cores {
            let tid = u64::from(core.core_id) * 2;
            self.name_meta(
                "thread_name",
                PID_CORES,
                Some(tid),
                &format!("core {}", core.core_id),
            )?;
            let isrs = format!("core {} ISRs", core.core_id);
            self.name_meta("thread_name", PID_CORES, Some(tid + 1), &isrs)?;
        }
        for (index, marker) in model.markers.iter().enumerate() {
            let name = match marker.task_id {
                Some(task) => format!("{} ({})", marker.name, task_name(model, task)),
                None => marker.name.clone(),
            };
            self.name_meta("thread_name", PID_MARKERS, Some(index as u64), &name)?;
        }
        for queue in model.queues.iter().filter(|q| q.kind.is_mutex()) {
            self.name_meta(
                "thread_name",
                PID_QUEUES,
                Some(queue.queue_id.into()),
                &queue.name,
            )?;
        }
        Ok(())
    }
}

/// Nanoseconds as microseconds with three decimals.
fn write_micros(out: &mut impl Write, ns: u64) -> io::Result<()> {
    write!(out, "{}.{:03}", ns / 1000, ns % 1000)
}
