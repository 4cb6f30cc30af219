//! Loads the export of every recording into Perfetto's own trace processor
//! (`trace_processor_shell`, the engine behind ui.perfetto.dev) and compares
//! what it makes of it, table by table, with the trace model: the `sched`
//! rows of each cpu, the `thread_state` rows of each task, the IRQ slices,
//! every counter track with its points, every slice and instant of the
//! track events on its track, the thread names, and the `stats` entries
//! (nothing skipped, no error or data loss but the losses the model has);
//! and that its raw `ftrace_event` table has no nameless row but those it
//! makes of a full wake-up's `common_flags` (which it reads as an event of
//! its own).
//!
//! The recordings are those of `tests/corpus/` and `samples/` (found as the
//! golden test finds them) and simulated traces of 1, 2 and 4 cores, each
//! exported with both `--sched-format`s by the `tband-perfetto` binary.
//! Every comparison is exact, to the nanosecond, but where Perfetto cannot
//! hold what the model has: counter values are compared as Perfetto stores
//! them, as doubles (a value beyond 2^53 is the nearest double, and
//! i64::MAX is 2^63, which SQLite reads back as i64::MAX); IRQ names are cut
//! to 254 bytes; events more than 2^63 ns after the first are dropped, and
//! counted in `stats` ([`LAST_TIME`]); the depth of instants and of trace
//! health regions is not compared. What the trace's end cut (a task's
//! running slice and state, an ISR, a wait, a marker span, a mutex hold, a
//! region of spans never closed) is open in Perfetto (`dur` -1). The book's
//! Perfetto page has the table.
//!
//! The shell is found as [`shell::trace_processor`] says.

mod common;
#[path = "../../tests/golden/harness.rs"]
mod harness;
#[path = "../../tests/trace_processor/shell.rs"]
mod shell;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use tband_model::{AnomalyKind, Model, NotificationOp, StateReason, TaskKind, TaskStateKind};
use tband_perfetto::events::TRACE_END;
use tband_perfetto::threads::{Threads, IDLE_TID, PID};
use tband_trace::{OpenOptions, Trace};

/// The queries, one result set each, in the order of [`Tables`]' fields.
/// Names come back in hex (columns named `hex_*`): the shell prints strings
/// between quotes without escaping any.
const QUERIES: &str = "
SELECT s.cpu, s.ts, s.dur, t.tid, s.priority, s.end_state
FROM sched s JOIN thread t USING (utid);

SELECT t.tid, s.ts, s.dur, s.state
FROM thread_state s JOIN thread t USING (utid)
WHERE t.tid <> 0;

SELECT tid, hex(name) AS hex_name FROM thread WHERE tid <> 0 AND name IS NOT NULL;

SELECT c.cpu, s.ts, s.dur, hex(s.name) AS hex_name, s.depth
FROM slice s JOIN cpu_track c ON s.track_id = c.id
WHERE c.type = 'cpu_irq';

SELECT coalesce(th.tid, -1) AS tid, hex(coalesce(p.name, '')) AS hex_group,
  hex(coalesce(k.name, '')) AS hex_track, s.ts, s.dur, hex(s.name) AS hex_name, s.depth
FROM slice s JOIN track k ON s.track_id = k.id
LEFT JOIN thread_track tt ON tt.id = k.id
LEFT JOIN thread th ON th.utid = tt.utid
LEFT JOIN track p ON p.id = k.parent_id
WHERE k.type <> 'cpu_irq';

SELECT coalesce(th.tid, -1) AS tid, hex(coalesce(p.name, '')) AS hex_group,
  hex(coalesce(k.name, '')) AS hex_track, c.ts, cast(c.value AS INT) AS value
FROM counter c JOIN counter_track k ON c.track_id = k.id
LEFT JOIN thread_counter_track tt ON tt.id = k.id
LEFT JOIN thread th ON th.utid = tt.utid
LEFT JOIN track p ON p.id = k.parent_id;

SELECT name, coalesce(idx, -1) AS idx, severity, value FROM stats
WHERE value <> 0 AND (severity IN ('error', 'data_loss') OR name GLOB '*_skipped');

SELECT n.cpu, n.ts FROM ftrace_event n
WHERE n.name IS NULL AND NOT EXISTS (
  SELECT 1 FROM ftrace_event w WHERE w.name = 'sched_waking' AND w.cpu = n.cpu AND w.ts = n.ts);
";

/// A row as text: numbers in decimal, names as they are, NULL as `[NULL]`.
type Rows = Vec<Vec<String>>;

/// What trace_processor made of an export (or what it should have made).
#[derive(Default)]
struct Tables {
    /// cpu, ts, dur, tid, priority, end state.
    sched: Rows,
    /// tid, ts, dur, state.
    thread_state: Rows,
    /// tid, name.
    threads: Rows,
    /// cpu, ts, dur, name, depth.
    irqs: Rows,
    /// Track: thread id (-1: none), group, name; then ts, dur, name, depth
    /// (`-` where the model does not say).
    slices: Rows,
    /// Track: thread id (-1: none), group, name; then ts, value.
    counters: Rows,
    /// name, index (-1: none), severity, value.
    stats: Rows,
    /// cpu, ts of each raw ftrace event without a name, but those beside
    /// a wake-up (none expected).
    nameless_raw: Rows,
}

const NULL: &str = "[NULL]";
/// A depth the model does not give (compared as any).
const ANY_DEPTH: &str = "-";

fn row(fields: &[&dyn ToString]) -> Vec<String> {
    fields.iter().map(|f| f.to_string()).collect()
}

/// Runs [`QUERIES`] on `pftrace`.
fn query(shell: &Path, pftrace: &Path) -> Tables {
    let stdout = shell::run_queries(shell, QUERIES, pftrace);
    let mut sets = stdout.trim_end().split("\n\n").map(parse_csv);
    let mut next = || {
        sets.next()
            .unwrap_or_else(|| panic!("a result set is missing for {}", pftrace.display()))
    };
    Tables {
        sched: next(),
        thread_state: next(),
        threads: next(),
        irqs: next(),
        slices: next(),
        counters: next(),
        stats: next(),
        nameless_raw: next(),
    }
}

/// One result set: a header line, then a row per line (no field holds a
/// comma: strings are numbers, short keywords, or hex, which is decoded).
fn parse_csv(set: &str) -> Rows {
    let mut lines = set.lines();
    let header: Vec<bool> = lines
        .next()
        .unwrap_or("")
        .split(',')
        .map(|h| h.trim_matches('"').starts_with("hex_"))
        .collect();
    lines
        .map(|line| {
            line.split(',')
                .zip(&header)
                .map(|(field, &hex)| {
                    let field = field.trim_matches('"');
                    if hex {
                        tband_perfetto::trace_processor::unhex(field)
                    } else {
                        field.to_string()
                    }
                })
                .collect()
        })
        .collect()
}

/// The letter Perfetto shows for the state a task is switched out in.
fn end_state(state: Option<TaskStateKind>, reason: StateReason) -> &'static str {
    match (state, reason) {
        (Some(TaskStateKind::Ready), StateReason::Preempted) => "R+",
        (None | Some(TaskStateKind::Running | TaskStateKind::Ready), _) => "R",
        (Some(TaskStateKind::Blocked), _) => "S",
        (Some(TaskStateKind::Suspended), _) => "T",
        (Some(TaskStateKind::Deleted), _) => "X",
    }
}

/// Each task's RTOS priority changes, by task index, for looking up the
/// priority at a time.
struct Priorities(BTreeMap<u32, Vec<(u64, u32)>>);

impl Priorities {
    fn new(model: &Model) -> Self {
        let mut by_task = BTreeMap::<u32, Vec<(u64, u32)>>::new();
        for p in model.task_priorities.iter() {
            by_task
                .entry(p.task)
                .or_default()
                .push((p.ts_ns, p.priority));
        }
        Priorities(by_task)
    }

    fn at(&self, task: u32, t: u64) -> Option<u32> {
        let changes = self.0.get(&task)?;
        let after = changes.partition_point(|&(ts, _)| ts <= t);
        after.checked_sub(1).map(|i| changes[i].1)
    }
}

/// Perfetto's times are signed 64-bit nanoseconds: it drops the events
/// after this time, and says so in `stats` (kernel events as
/// `trace_sorter_negative_timestamp_dropped`, track events as
/// `track_event_invalid_timestamp`); a slice whose end it drops stays open.
const LAST_TIME: u64 = i64::MAX as u64;

/// The events after [`LAST_TIME`] that Perfetto drops.
#[derive(Default)]
struct Dropped {
    kernel: u64,
    track: u64,
}

/// Whether Perfetto keeps an event at `ts`; counts it in `dropped` if not.
fn kept(ts: u64, dropped: &mut u64) -> bool {
    let kept = ts <= LAST_TIME;
    *dropped += u64::from(!kept);
    kept
}

/// The duration Perfetto shows for a span from `start` to `end`, both
/// events (-1 if there is no end, a span cut by the end of the trace, or if
/// it drops the end), or `None` if it drops the start.
fn span(start: u64, end: Option<u64>, dropped: &mut u64) -> Option<i64> {
    if !kept(start, dropped) {
        *dropped += u64::from(end.is_some());
        return None;
    }
    Some(match end {
        Some(end) if kept(end, dropped) => end as i64 - start as i64,
        _ => -1,
    })
}

/// A track: thread id (-1: none), group, name.
type Track = (String, String, String);

/// The rows trace_processor should make of the export of `model`.
fn expected(model: &Model) -> Tables {
    let threads = Threads::new(model);
    let is_idle = |task: u32| model.is_idle(task);
    let tid = |task: u32| threads.tid(task);
    let mut dropped = Dropped::default();
    let mut t = Tables::default();

    // Each core runs each slice's task from its start to its end (or to the
    // start of the next slice, if that comes first), then the idle thread
    // until the next slice; runs of the same thread that abut are one row.
    // The first row starts with the core's first slice; the last is open.
    let priorities = Priorities::new(model);
    for core in &model.cores {
        // Switches in: time, tid, priority, end state of the run it starts.
        let mut switches: Vec<(u64, i32, i32, &str)> = Vec::new();
        let mut switch =
            |ts: u64, tid: i32, prio: i32, leaves_as: &'static str| match switches.last_mut() {
                Some(last) if last.1 == tid => last.3 = leaves_as,
                _ => switches.push((ts, tid, prio, leaves_as)),
            };
        let slices: Vec<_> = model
            .sched_slices
            .iter()
            .filter(|s| s.core_id == core.core_id)
            .collect();
        for (i, s) in slices.iter().enumerate() {
            let prio = threads.linux_prio(priorities.at(s.task, s.start_ns));
            switch(
                s.start_ns,
                tid(s.task),
                prio,
                end_state(s.end_state, s.end_reason),
            );
            let next_start = slices.get(i + 1).map(|n| n.start_ns);
            if !s.truncated && next_start.is_none_or(|n| n > s.end_ns) {
                switch(s.end_ns, IDLE_TID, threads.linux_prio(None), "R");
            }
        }
        for (i, &(ts, tid, prio, leaves_as)) in switches.iter().enumerate() {
            // Each switch is counted as the start of its row.
            if !kept(ts, &mut dropped.kernel) {
                continue;
            }
            let dur = match switches.get(i + 1) {
                Some(&(end, ..)) if end <= LAST_TIME => (end - ts) as i64,
                _ => -1,
            };
            // An open row has no end state; the idle thread is always
            // switched out runnable.
            let state = match (dur, tid) {
                (-1, _) => NULL,
                (_, IDLE_TID) => "R",
                _ => leaves_as,
            };
            t.sched
                .push(row(&[&core.core_id, &ts, &dur, &tid, &prio, &state]));
        }
    }

    // A task's state after running is the one it is switched out in; a
    // change while it does not run is a wake-up or, for any other state, a
    // generic task-state event, in which a ready task is just runnable and
    // a deleted one a zombie.
    let mut running = BTreeMap::<u32, bool>::new();
    for s in model.task_states.iter().filter(|s| !is_idle(s.task)) {
        let was_running = running.insert(s.task, s.state == TaskStateKind::Running);
        let state = match (s.state, s.reason) {
            (TaskStateKind::Running, _) => "Running",
            (state, reason) if was_running == Some(true) => end_state(Some(state), reason),
            (TaskStateKind::Ready, StateReason::Preempted) => "R",
            (TaskStateKind::Deleted, _) => "Z",
            (state, reason) => end_state(Some(state), reason),
        };
        if s.start_ns > LAST_TIME {
            // Switches are counted above.
            let own_event = state != "Running" && was_running != Some(true);
            dropped.kernel += u64::from(own_event);
            continue;
        }
        let dur = if s.truncated || s.end_ns > LAST_TIME {
            -1
        } else {
            (s.end_ns - s.start_ns) as i64
        };
        t.thread_state
            .push(row(&[&tid(s.task), &s.start_ns, &dur, &state]));
    }

    for (i, task) in (0..).zip(&model.tasks) {
        if task.kind != TaskKind::Idle {
            t.threads.push(row(&[&tid(i), &task.name]));
        }
    }

    // An ISR cut by the end of the trace stays open, unless one it is nested
    // in exits (at the end: the ISRs nested in it end there with it).
    let trace_end = model.info.duration_ns;
    let mut open_isrs = BTreeMap::<u32, Vec<bool>>::new();
    for s in model.isr_slices.iter() {
        let outer = open_isrs.entry(s.core_id).or_default();
        outer.truncate(s.depth as usize);
        let cut = s.truncated && s.end_ns >= trace_end && outer.last().is_none_or(|&open| open);
        outer.push(cut);
        let end = (!cut).then_some(s.end_ns);
        let Some(dur) = span(s.start_ns, end, &mut dropped.kernel) else {
            continue;
        };
        // Perfetto makes the name in a buffer of 255 bytes.
        let name = format!("IRQ ({})", model.isrs[s.isr as usize].name);
        let name = String::from_utf8_lossy(&name.as_bytes()[..name.len().min(254)]);
        t.irqs
            .push(row(&[&s.core_id, &s.start_ns, &dur, &name, &s.depth]));
    }

    let thread_track =
        |task: u32, name: &str| (tid(task).to_string(), String::new(), name.to_string());
    let group_track =
        |group: &str, name: &str| ("-1".to_string(), group.to_string(), name.to_string());
    let marker_track = |task_id: Option<u32>, name: &str| match task_id
        .and_then(|id| model.tasks.iter().position(|t| t.task_id == id))
    {
        Some(i) if model.tasks[i].kind != TaskKind::Idle => thread_track(i as u32, name),
        Some(i) => group_track("Markers", &format!("{}: {name}", model.tasks[i].name)),
        None => group_track("Markers", name),
    };
    // A marker's owner and name.
    let marker = |marker: u32| {
        let marker = &model.markers[marker as usize];
        (marker.task_id, marker.name.clone())
    };
    let message_or = |msg: tband_model::StrId, marker: String| match model.strings.get(msg) {
        "" => marker,
        text => text.to_string(),
    };
    // Slices: (track, start, end: none when cut by the end of the trace)
    // and name and depth; instants end where they start, and their depth is
    // not compared.
    let mut slices: Vec<(Track, u64, Option<u64>, String, String)> = Vec::new();
    let mut instants: Vec<(Track, u64, String)> = Vec::new();

    for s in model.task_states.iter().filter(|s| s.state.is_waiting()) {
        let task = &model.tasks[s.task as usize];
        if task.kind == TaskKind::Idle || !task.ever_waited {
            continue;
        }
        let name = match s.reason.as_str() {
            "" => s.state.as_str(),
            reason => reason,
        };
        let track = thread_track(s.task, "Wait reason");
        let end = (!s.truncated).then_some(s.end_ns);
        slices.push((track, s.start_ns, end, name.into(), "0".into()));
    }
    for s in model.marker_spans.iter() {
        let (owner, marker) = marker(s.marker);
        let track = marker_track(owner, &marker);
        let name = message_or(s.msg, marker);
        let end = (!s.truncated).then_some(s.end_ns);
        slices.push((track, s.start_ns, end, name, s.depth.to_string()));
    }
    for i in model.marker_instants.iter() {
        let (owner, marker) = marker(i.marker);
        let track = marker_track(owner, &marker);
        instants.push((track, i.ts_ns, message_or(i.msg, marker)));
    }
    for h in model.mutex_holds.iter() {
        let queue = &model.queues[h.queue as usize].name;
        let holder = &model.tasks[h.task as usize].name;
        let track = group_track("Mutex holders", queue);
        let end = (!h.truncated).then_some(h.end_ns);
        slices.push((track, h.start_ns, end, holder.into(), "0".into()));
    }
    let heap_name = |heap_id: u32| model.memory.heap(heap_id).map_or("", |h| h.name.as_str());
    for b in &model.memory.blocks {
        let track = group_track(heap_name(b.heap_id), &format!("block {}", b.lane));
        let open = b.truncated && b.end_ns >= trace_end;
        let end = (!open).then_some(b.end_ns);
        let name = format!("{} B at {:#x}", b.size, b.addr);
        slices.push((track, b.start_ns, end, name, "0".into()));
    }
    for f in &model.memory.failed_allocations {
        let track = group_track(heap_name(f.heap_id), "failed allocations");
        instants.push((track, f.ts_ns, format!("{} B", f.size)));
    }
    // Operations on event groups and timers: instants named by what was
    // done, on a track per object in a group of its kind.
    let objects = &model.rtos_objects;
    for e in &objects.event_group_ops {
        let track = group_track("Event groups", &objects.event_groups[e.group as usize].name);
        instants.push((track, e.ts_ns, e.op.as_str().into()));
    }
    for op in &objects.timer_ops {
        let track = group_track("Timers", &objects.timers[op.timer as usize].name);
        instants.push((track, op.ts_ns, op.op.as_str().into()));
    }
    // Notifications: instants on a track under the task given or taking
    // them (idle tasks have no thread of their own).
    for n in &objects.notifications {
        let Some(task) = model.tasks.iter().position(|t| t.task_id == n.task_id) else {
            continue;
        };
        if model.tasks[task].kind == TaskKind::Idle {
            continue;
        }
        let name = match (n.op, n.from_isr) {
            (NotificationOp::Given, true) => "given from ISR",
            (op, _) => op.as_str(),
        };
        instants.push((
            thread_track(task as u32, "Notifications"),
            n.ts_ns,
            name.into(),
        ));
    }
    // Regions that overlap are on tracks of their own, at depths not compared.
    for a in &model.anomalies {
        let track = group_track("", "Trace health");
        let name = a.kind.as_str().to_string();
        if a.start_ns < a.end_ns {
            // Spans never closed: a region open to the end of the trace.
            let open = a.kind == AnomalyKind::NeverClosed && a.end_ns >= trace_end;
            let end = (!open).then_some(a.end_ns);
            slices.push((track, a.start_ns, end, name, ANY_DEPTH.into()));
        } else {
            instants.push((track, a.end_ns, name));
        }
    }
    // Where the trace ends, which Perfetto would not know were the last
    // event an end cut off.
    let track = group_track("", "Trace health");
    instants.push((track, trace_end, TRACE_END.to_string()));
    for ((owner, group, track), start, end, name, depth) in slices {
        if let Some(dur) = span(start, end, &mut dropped.track) {
            t.slices
                .push(row(&[&owner, &group, &track, &start, &dur, &name, &depth]));
        }
    }
    for ((owner, group, track), ts, name) in instants {
        if kept(ts, &mut dropped.track) {
            t.slices
                .push(row(&[&owner, &group, &track, &ts, &0, &name, &ANY_DEPTH]));
        }
    }

    let mut points: Vec<(Track, u64, i64)> = Vec::new();
    for p in model.task_priorities.iter().filter(|p| !is_idle(p.task)) {
        points.push((thread_track(p.task, "Priority"), p.ts_ns, p.priority.into()));
    }
    for op in model.queue_ops.iter() {
        if let (Some(len), Some(queue)) = (op.len_after, model.queues.get(op.queue as usize)) {
            points.push((group_track("Queues", &queue.name), op.ts_ns, len.into()));
        }
    }
    for v in model.marker_values.iter() {
        let (owner, marker) = marker(v.marker);
        // Perfetto keeps counter values as doubles.
        points.push((marker_track(owner, &marker), v.ts_ns, v.value as f64 as i64));
    }
    for op in &objects.stream_buffer_ops {
        let buffer = &objects.stream_buffers[op.buffer as usize].name;
        let track = group_track("Stream buffers", buffer);
        points.push((track, op.ts_ns, op.bytes_after.into()));
    }
    for l in &model.memory.heap_levels {
        let track = group_track(heap_name(l.heap_id), "in use");
        points.push((track, l.ts_ns, l.bytes_in_use as i64));
    }
    for m in &model.memory.stack_margins {
        let Some(task) = model.tasks.iter().position(|t| t.task_id == m.task_id) else {
            continue;
        };
        let track = match &model.tasks[task] {
            t if t.kind == TaskKind::Idle => {
                group_track("Memory", &format!("{} stack free", t.name))
            }
            _ => thread_track(task as u32, "stack free"),
        };
        points.push((track, m.ts_ns, m.free_bytes.into()));
    }
    for ((owner, group, track), ts, value) in points {
        if kept(ts, &mut dropped.track) {
            t.counters.push(row(&[&owner, &group, &track, &ts, &value]));
        }
    }

    // Each core's stream is a buffer: what it lost is that buffer's packet
    // loss and ABI violations, and that cpu's data loss.
    for (index, core) in model.cores.iter().enumerate() {
        let lost = |kind: AnomalyKind| -> u64 {
            model
                .anomalies
                .iter()
                .filter(|a| a.kind == kind && a.core_id == Some(core.core_id))
                .map(|a| a.count)
                .sum()
        };
        let dropped_events = lost(AnomalyKind::DroppedEvents);
        let invalid_frames = lost(AnomalyKind::InvalidFrame);
        let mut stat = |name: &str, index: &dyn ToString, value: u64| {
            if value > 0 {
                t.stats.push(row(&[&name, index, &"data_loss", &value]));
            }
        };
        stat(
            "traced_buf_trace_writer_packet_loss",
            &index,
            dropped_events,
        );
        stat("traced_buf_abi_violations", &index, invalid_frames);
        let has_loss = u64::from(dropped_events + invalid_frames > 0);
        stat("ftrace_cpu_has_data_loss", &core.core_id, has_loss);
    }
    for (name, value) in [
        ("trace_sorter_negative_timestamp_dropped", dropped.kernel),
        ("track_event_invalid_timestamp", dropped.track),
    ] {
        if value > 0 {
            t.stats.push(row(&[&name, &-1, &"error", &value]));
        }
    }
    t
}

/// Notes the rows of `expected` and `actual` that the other lacks (as
/// multisets; an expected row whose last field is [`ANY_DEPTH`] matches an
/// actual row with any last field), at most a few of each.
fn compare(table: &str, expected: &Rows, actual: Rows, problems: &mut Vec<String>) {
    const SHOWN: usize = 8;
    let mut left = BTreeMap::<Vec<String>, usize>::new();
    for row in actual {
        *left.entry(row).or_default() += 1;
    }
    let take = |left: &mut BTreeMap<Vec<String>, usize>, key: Vec<String>| {
        let n = left.get_mut(&key).expect("a row that is left");
        *n -= 1;
        if *n == 0 {
            left.remove(&key);
        }
    };
    let mut missing = Vec::new();
    let (any_depth, exact): (Vec<_>, Vec<_>) = expected
        .iter()
        .partition(|r| r.last().is_some_and(|d| d == ANY_DEPTH));
    for e in exact {
        if left.contains_key(e) {
            take(&mut left, e.clone());
        } else {
            missing.push(e.clone());
        }
    }
    for e in any_depth {
        let prefix = &e[..e.len() - 1];
        let found = left
            .range(prefix.to_vec()..)
            .next()
            .filter(|(a, _)| a.len() == e.len() && a.starts_with(prefix))
            .map(|(a, _)| a.clone());
        match found {
            Some(a) => take(&mut left, a),
            None => missing.push(e.clone()),
        }
    }
    let unexpected: Vec<Vec<String>> = left
        .into_iter()
        .flat_map(|(row, n)| std::iter::repeat_n(row, n))
        .collect();
    for (what, rows) in [("missing", &missing), ("unexpected", &unexpected)] {
        if rows.is_empty() {
            continue;
        }
        let mut text = format!("{table}: {} {what} row(s):", rows.len());
        for r in rows.iter().take(SHOWN) {
            text.push_str(&format!("\n    {}", r.join(", ")));
        }
        problems.push(text);
    }
}

/// Exports `inputs` with `extra_args` and compares trace_processor's reading
/// of it with `model`; returns the problems found.
fn check(
    shell: &Path,
    expected: &Tables,
    inputs: &[String],
    out: &Path,
    extra_args: &[&str],
) -> Vec<String> {
    common::convert(inputs, out, extra_args);
    let actual = query(shell, out);
    let mut problems = Vec::new();
    compare("sched", &expected.sched, actual.sched, &mut problems);
    compare(
        "thread_state",
        &expected.thread_state,
        actual.thread_state,
        &mut problems,
    );
    // The process's own main thread is not a task.
    let threads: Rows = actual
        .threads
        .into_iter()
        .filter(|r| r[0] != PID.to_string())
        .collect();
    compare("thread", &expected.threads, threads, &mut problems);
    compare("IRQ slices", &expected.irqs, actual.irqs, &mut problems);
    compare(
        "track-event slices",
        &expected.slices,
        actual.slices,
        &mut problems,
    );
    compare(
        "counters",
        &expected.counters,
        actual.counters,
        &mut problems,
    );
    compare("stats", &expected.stats, actual.stats, &mut problems);
    compare(
        "nameless ftrace_event rows",
        &expected.nameless_raw,
        actual.nameless_raw,
        &mut problems,
    );
    problems
}

/// Simulated traces of 1, 2 and 4 cores, the multi-core ones with losses,
/// written to `dir`: the inputs of each.
fn simulated(dir: &Path) -> Vec<Vec<String>> {
    [(1, false), (2, true), (4, true)]
        .into_iter()
        .map(|(cores, drops)| {
            let config = tband_sim::Config {
                seed: u64::from(cores),
                cores,
                size: 256 << 10,
                drops: drops.then(tband_sim::DropConfig::default),
                // Counter values of every size, down to i64::MIN.
                wide_values: true,
                ..tband_sim::Config::default()
            };
            common::simulated_inputs(&config, &dir.join(format!("sim{cores}.bin")))
        })
        .collect()
}

#[test]
fn trace_processor_reads_every_export_as_the_model_says() {
    let Some(shell) = shell::trace_processor() else {
        return;
    };
    let started = Instant::now();
    let dir = std::env::temp_dir().join(format!("tband-perfetto-tp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut traces: Vec<Vec<String>> = harness::traces()
        .iter()
        .map(|t| harness::absolute(&t.args))
        .collect();
    traces.extend(simulated(&dir));

    let mut report = Vec::new();
    for (n, inputs) in traces.iter().enumerate() {
        let model = Trace::open(inputs, &OpenOptions::default())
            .unwrap_or_else(|e| panic!("{inputs:?}: {e}"))
            .model;
        let expected = expected(&model);
        for (format, extra) in [
            ("compact", &[][..]),
            ("events", &["--sched-format", "events"]),
        ] {
            let out = dir.join(format!("{n}.{format}.pftrace"));
            let problems = check(&shell, &expected, inputs, &out, extra);
            if !problems.is_empty() {
                report.push(format!(
                    "{} ({format}):\n  {}",
                    inputs.join(" "),
                    problems.join("\n  ")
                ));
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    println!(
        "{} traces, each exported twice and loaded into trace_processor, in {:.1} s",
        traces.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        report.is_empty(),
        "trace_processor reads the exports differently from the model:\n{}",
        report.join("\n")
    );
}
