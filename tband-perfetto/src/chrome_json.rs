//! The model as Chrome's trace event format (JSON), for tools that read only that: Tracy's
//! `import-chrome`, chrome://tracing, speedscope, Perfetto's legacy importer.
//!
//! Written as a stream, row by row from the model tables. Layout:
//!
//! | pid | process | threads (tid) | events |
//! |---|---|---|---|
//! | 1 | `tasks` | one per task (task id) | `X` for each time the task ran |
//! | 2 | `cores` | `core N` (2N) and `core N ISRs` (2N+1) | `X` for who ran; `X` for ISRs (nested by depth); `i` for anomalies |
//! | 3… | a section of the timeline (`markers`, `values`, …) | one per track (its timeline id) | `X` slices, `i` instants, `C` counter values |
//!
//! Times are microseconds with nanosecond precision (three decimals).

use std::io::{self, Write};

use tband_model::json::write_json_str;
use tband_model::timeline::{ArgValue, Item, Section, Shape, Timeline, TrackKind};
use tband_model::Model;

const PID_TASKS: u32 = 1;
const PID_CORES: u32 = 2;
/// The first section's process.
const PID_SECTIONS: u32 = 3;

/// Writes the whole model as one JSON object `{"traceEvents":[...],"displayTimeUnit":"ns"}`.
pub fn write_chrome_json(out: &mut impl Write, model: &Model) -> io::Result<()> {
    let timeline = Timeline::new(model);
    let mut w = EventWriter { out, first: true };
    w.out.write_all(b"{\"traceEvents\":[\n")?;
    w.metadata(model, &timeline)?;
    for s in &model.sched_slices {
        let task = model.tasks.get(s.task as usize);
        let name = task.map_or("task", |t| t.name.as_str());
        w.complete(
            PID_TASKS,
            task.map_or(0, |t| t.task_id).into(),
            name,
            "sched",
            s.start_ns,
            s.end_ns,
        )?;
        let core_tid = u64::from(s.core_id) * 2;
        w.complete(PID_CORES, core_tid, name, "sched", s.start_ns, s.end_ns)?;
    }
    for s in &model.isr_slices {
        let name = (model.isrs.get(s.isr as usize)).map_or("isr", |isr| isr.name.as_str());
        let tid = u64::from(s.core_id) * 2 + 1;
        w.complete(PID_CORES, tid, name, "isr", s.start_ns, s.end_ns)?;
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
    let names: Vec<String> = (timeline.tracks.iter())
        .map(|t| timeline.full_name(model, t))
        .collect();
    for layer in &timeline.layers {
        let mut written = Ok(());
        layer.visit(model, 0..layer.len(model), &mut |_, item| {
            if written.is_ok() {
                written = w.item(&timeline, &names, item);
            }
        });
        written?;
    }
    w.out.write_all(b"\n],\"displayTimeUnit\":\"ns\"}\n")
}

/// The process of a section's tracks.
fn section_pid(section: Section) -> u32 {
    let position = Section::ALL.iter().position(|&s| s == section);
    PID_SECTIONS + position.unwrap_or_default() as u32
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
    fn metadata(&mut self, model: &Model, timeline: &Timeline) -> io::Result<()> {
        self.name_meta("process_name", PID_TASKS, None, "tasks")?;
        self.name_meta("process_name", PID_CORES, None, "cores")?;
        for section in Section::ALL {
            if timeline.tracks.iter().any(|t| t.section() == Some(section)) {
                self.name_meta("process_name", section_pid(section), None, section.title())?;
            }
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
        for (id, track) in timeline.tracks.iter().enumerate() {
            if let TrackKind::Events(section) = track.kind {
                let name = timeline.full_name(model, track);
                self.name_meta("thread_name", section_pid(section), Some(id as u64), &name)?;
            }
        }
        Ok(())
    }

    /// A timeline item: `X`, `i` or `C` on its track's section and thread.
    fn item(&mut self, timeline: &Timeline, names: &[String], item: Item<'_>) -> io::Result<()> {
        let id = item.track as usize;
        let Some(section) = timeline.tracks[id].section() else {
            return Ok(());
        };
        let pid = section_pid(section);
        let tid = Some(id as u64);
        let cat = section.title();
        match item.shape {
            Shape::Slice { start, end, .. } => {
                self.begin(b'X', pid, tid, item.name.text, cat, start)?;
                self.out.write_all(b",\"dur\":")?;
                write_micros(self.out, end.saturating_sub(start))?;
            }
            Shape::Instant(ts) => {
                self.begin(b'i', pid, tid, item.name.text, cat, ts)?;
                self.out.write_all(b",\"s\":\"t\"")?;
            }
            Shape::Counter(ts, value) => {
                self.begin(b'C', pid, None, &names[id], cat, ts)?;
                return write!(self.out, ",\"args\":{{\"value\":{value}}}}}");
            }
        }
        let args = item.args.as_slice();
        if !args.is_empty() {
            self.out.write_all(b",\"args\":{")?;
            for (i, (name, value)) in args.iter().enumerate() {
                if i > 0 {
                    self.out.write_all(b",")?;
                }
                write!(self.out, "\"{}\":", name.as_str())?;
                match value {
                    ArgValue::Uint(v) => write!(self.out, "{v}")?,
                    ArgValue::Int(v) => write!(self.out, "{v}")?,
                    ArgValue::Bool(v) => write!(self.out, "{v}")?,
                    ArgValue::Str(v) => write!(self.out, "\"{v}\"")?,
                }
            }
            self.out.write_all(b"}")?;
        }
        self.out.write_all(b"}")
    }
}

/// Nanoseconds as microseconds with three decimals.
fn write_micros(out: &mut impl Write, ns: u64) -> io::Result<()> {
    write!(out, "{}.{:03}", ns / 1000, ns % 1000)
}
