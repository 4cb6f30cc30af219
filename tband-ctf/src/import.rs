//! What Zephyr's CTF events mean: the importer that turns a decoded CTF trace into model-builder
//! calls, and the raw-event rows for ad-hoc queries.
//!
//! Events are recognised by their metadata names and fields by their names, so a trace whose
//! metadata adds events still imports: the ones not interpreted here are only raw events.
//! Each stream file is one core (Zephyr writes a single stream).

use std::collections::HashMap;
use std::fmt::Write;

use super::decode::{EventRecord, Problem, ProblemKind, StreamDecoder, Value};
use super::types::{EventClass, Metadata};
use super::CtfTrace;
use tband_decode::merge::merge_by_time;
use tband_model::{Actor, ArgValue, EventRow, EventSink};
use tband_model::{
    AnomalyKind, IdMap, Import, MarkerKind, Model, ModelBuilder, PriorityCause, PriorityOrder,
    QueueKind, QueueOpKind, ReadProgress, ReadTeller, StateReason, TaskStateKind, TraceInfo,
};

/// Zephyr's name for a thread that has none yet (its `thread_create` comes before its name).
const UNNAMED_THREAD: &[u8] = b"unknown";

/// A CTF trace as its importer reads it, telling `progress` how many bytes
/// of its streams it has decoded.
pub struct CtfImport<'a> {
    pub trace: &'a CtfTrace,
    pub progress: ReadProgress<'a>,
}

impl Import for CtfImport<'_> {
    fn build_model(&self, info: TraceInfo, events: Option<EventSink<'_>>) -> Model {
        let handed = vec![events.is_some(); self.trace.metadata.events.len()];
        build_model_handing(self.trace, info, events, &handed, self.progress).0
    }

    /// Events of the classes `wanted` refuses are neither handed on nor,
    /// where the model ignores them, decoded.
    fn build_model_handing_named(
        &self,
        info: TraceInfo,
        wanted: &dyn Fn(&str) -> bool,
        events: EventSink<'_>,
    ) -> Model {
        let handed: Vec<bool> = (self.trace.metadata.events.iter())
            .map(|c| wanted(&c.name))
            .collect();
        build_model_handing(self.trace, info, Some(events), &handed, self.progress).0
    }
}

/// Builds the model of a CTF trace, handing every event to `events` if given.
pub fn build_model(trace: &CtfTrace, info: TraceInfo, events: Option<EventSink<'_>>) -> Model {
    build_model_counting(trace, info, events).0
}

/// [`build_model`], also giving the number of events of each event class
/// (by index into the metadata's classes), which the model does not keep.
pub fn build_model_counting(
    trace: &CtfTrace,
    info: TraceInfo,
    events: Option<EventSink<'_>>,
) -> (Model, Vec<u64>) {
    let handed = vec![events.is_some(); trace.metadata.events.len()];
    build_model_handing(trace, info, events, &handed, &|_| {})
}

/// [`build_model_counting`], handing `events` the events of the classes
/// marked in `handed` (by index) only, and telling `progress` how far it
/// has read.
fn build_model_handing(
    trace: &CtfTrace,
    mut info: TraceInfo,
    mut events: Option<EventSink<'_>>,
    handed: &[bool],
    progress: ReadProgress<'_>,
) -> (Model, Vec<u64>) {
    let meta = &trace.metadata;
    let first = first_event(trace);
    info.format = "ctf".into();
    info.priority_order = PriorityOrder::LowerIsMoreImportant;
    info.ns_per_tick = ns_per_tick(meta);
    info.ns_per_tick_known = true;
    info.first_ts_raw = first.map_or(0, |(cycles, _)| cycles);
    let first_ns = first.map_or(0, |(_, ns)| ns);
    let mut importer = Importer {
        b: ModelBuilder::new(info),
        roles: meta.events.iter().map(Role::of).collect(),
        thread_names: IdMap::default(),
        objects: IdMap::default(),
        isr_names: 0,
        isr_depth: 0,
        markers: HashMap::new(),
        timer_markers: IdMap::default(),
        text: String::new(),
        events_by_class: vec![0; meta.events.len()],
        problems: 0,
    };
    let mut last_ns = vec![0u64; trace.streams.len()];
    let mut read = ReadTeller::new(trace.streams.len(), progress);
    // The values of events the model ignores are not decoded, unless they
    // are handed on.
    let skip = |class: usize| {
        handed.get(class) != Some(&true) && matches!(importer.roles.get(class), Some(Role::Raw))
    };
    let skip: Vec<bool> = (0..meta.events.len()).map(skip).collect();
    for_each_merged(trace, &skip, |stream, item| match item {
        Merged::Event(record, values) => {
            read.read_to(stream, record.offset);
            let t = since(first_ns, record.ns);
            if let Some(last) = last_ns.get_mut(stream) {
                *last = t;
            }
            let core = trace.stream_core(stream);
            if let Some(events) = events.as_deref_mut() {
                if handed.get(record.class_index) == Some(&true) {
                    let actor = importer.b.actor(core);
                    hand_event(events, t, core, actor, record, values);
                }
            }
            importer.event(t, core, record, values);
        }
        Merged::Problem(problem) => {
            let t = last_ns.get(stream).copied().unwrap_or(0);
            let name = trace.streams.get(stream).map_or("", |s| s.name.as_str());
            importer.problem(t, trace.stream_core(stream), name, problem);
        }
    });
    read.done(trace.streams.iter().map(|s| s.bytes.len() as u64).sum());
    importer.finish()
}

/// Whether any stream holds an event: else the trace imports to a model
/// without events.
pub fn has_events(trace: &CtfTrace) -> bool {
    first_event(trace).is_some()
}

/// The time of the first event on the trace's clock as the model counts
/// it (its first raw time × its whole ns per tick): what shows a time
/// since the first event on that clock.
pub fn clock_origin_ns(trace: &CtfTrace) -> u64 {
    let first_cycles = first_event(trace).map_or(0, |(cycles, _)| cycles);
    first_cycles.saturating_mul(ns_per_tick(&trace.metadata))
}

/// The model's whole nanoseconds per clock cycle.
fn ns_per_tick(meta: &Metadata) -> u64 {
    meta.clock.whole_ns_per_cycle().unwrap_or(1).max(1)
}

/// Most fields an event row carries, and most it carries without
/// allocating (Zephyr's events have at most seven).
const MAX_ROW_ARGS: usize = 32;
const SHORT_ROW_ARGS: usize = 8;

/// Calls `f` with every decoded event in time order, with its fields as
/// arguments, without building a model: what a listing reads.
pub fn for_each_event(trace: &CtfTrace, mut f: impl FnMut(&EventRow<'_>)) {
    let first_ns = first_event(trace).map_or(0, |(_, ns)| ns);
    for_each_merged(trace, &[], |stream, item| {
        if let Merged::Event(record, values) = item {
            let t = since(first_ns, record.ns);
            let core = trace.stream_core(stream);
            hand_event(&mut f, t, core, None, record, values);
        }
    });
}

/// Hands an event to `events`, its fields as arguments, with its time,
/// core and the task or ISR running it.
fn hand_event(
    events: &mut dyn FnMut(&EventRow<'_>),
    ts_ns: u64,
    core_id: u32,
    actor: Option<Actor>,
    record: &EventRecord<'_>,
    values: &[Value<'_>],
) {
    let row = |args| EventRow {
        ts_ns: Some(ts_ns),
        core_id,
        class: record.class_index as u32,
        name: &record.class.name,
        args,
        actor,
    };
    let unset = ("", ArgValue::Int(0));
    // Most events have a few fields, none compound: their row is made on
    // the stack as they are read, with no text to make.
    if values.len() <= SHORT_ROW_ARGS {
        let mut short = [unset; SHORT_ROW_ARGS];
        let fields = record.class.fields.fields.iter().zip(values);
        let scalars = short.iter_mut().zip(fields).all(|(slot, (field, value))| {
            let arg = scalar(value);
            if let Some(arg) = arg {
                *slot = (field.name.as_str(), arg);
            }
            arg.is_some()
        });
        if scalars {
            return events(&row(&short[..values.len()]));
        }
    }
    let texts: Vec<String> = (values.iter())
        .filter(|v| scalar(v).is_none())
        .map(Value::to_string)
        .collect();
    let mut compound = texts.iter();
    let mut args = vec![unset; values.len().min(MAX_ROW_ARGS)];
    let fields = record.class.fields.fields.iter().zip(values);
    for (slot, (field, value)) in args.iter_mut().zip(fields) {
        let arg = scalar(value)
            .unwrap_or_else(|| ArgValue::Str(compound.next().map_or(&b""[..], |s| s.as_bytes())));
        *slot = (field.name.as_str(), arg);
    }
    events(&row(&args));
}

/// A field's value as an argument, unless it is compound (an enum, array
/// or structure, shown as text).
#[inline]
fn scalar<'a>(value: &Value<'a>) -> Option<ArgValue<'a>> {
    match *value {
        Value::Unsigned(v) => Some(ArgValue::UInt(v)),
        Value::Signed(v) => Some(ArgValue::Int(v)),
        Value::String(bytes) => Some(ArgValue::Str(bytes)),
        _ => None,
    }
}

fn since(first_ns: i64, ns: i64) -> u64 {
    u64::try_from(ns.saturating_sub(first_ns)).unwrap_or(0)
}

/// The clock value (cycles, ns) of the earliest first event among the streams.
fn first_event(trace: &CtfTrace) -> Option<(u64, i64)> {
    let mut values = Vec::new();
    trace
        .streams
        .iter()
        .filter_map(|stream| {
            let mut decoder = StreamDecoder::new(&trace.metadata, &stream.bytes);
            let record = decoder.next_event(&mut values)?.ok()?;
            Some((record.cycles, record.ns))
        })
        .min_by_key(|&(_, ns)| ns)
}

/// One stream being read: its decoder and the event it is positioned on.
struct Cursor<'a> {
    decoder: StreamDecoder<'a>,
    values: Vec<Value<'a>>,
    current: Option<EventRecord<'a>>,
}

enum Merged<'r, 'a> {
    Event(&'r EventRecord<'a>, &'r [Value<'a>]),
    /// The stream is damaged here and ends.
    Problem(&'r Problem),
}

/// Calls `f` with the events of all streams merged in time order (equal times keep stream
/// order) and with the problems that end damaged streams, each with its stream's index.
/// Events of the classes marked in `skip_values` (by index) come without their values.
fn for_each_merged<'a>(
    trace: &'a CtfTrace,
    skip_values: &[bool],
    mut f: impl FnMut(usize, Merged<'_, 'a>),
) {
    let decoder = |bytes: &'a [u8]| {
        let mut decoder = StreamDecoder::new(&trace.metadata, bytes);
        decoder.skip_values_of(|class| skip_values.get(class) == Some(&true));
        decoder
    };
    if let [only] = trace.streams.as_slice() {
        // Nothing to merge: the common case (Zephyr writes one stream) without the bookkeeping.
        let mut decoder = decoder(&only.bytes);
        let mut values = Vec::new();
        while let Some(next) = decoder.next_event(&mut values) {
            match next {
                Ok(record) => f(0, Merged::Event(&record, &values)),
                Err(problem) => f(0, Merged::Problem(&problem)),
            }
        }
        return;
    }
    let mut cursors: Vec<Cursor<'a>> = trace
        .streams
        .iter()
        .map(|stream| Cursor {
            decoder: decoder(&stream.bytes),
            values: Vec::new(),
            current: None,
        })
        .collect();
    let mut heads = Vec::with_capacity(cursors.len());
    for (stream, cursor) in cursors.iter_mut().enumerate() {
        if let Some(time) = advance(stream, cursor, &mut f) {
            heads.push((time, stream));
        }
    }
    merge_by_time(&heads, |stream, bound| {
        let cursor = &mut cursors[stream];
        loop {
            if let Some(record) = cursor.current {
                f(stream, Merged::Event(&record, &cursor.values));
            }
            match advance(stream, cursor, &mut f) {
                // Earlier than every other stream's event: still this stream's turn (at an
                // equal time, the merge lets the first stream go first).
                Some(time) if time < bound => {}
                next => return next,
            }
        }
    });
}

/// Moves a cursor to its stream's next event, and returns that event's time as the merge
/// orders it, or `None` at the end of the stream.
fn advance<'a>(
    stream: usize,
    cursor: &mut Cursor<'a>,
    f: &mut impl FnMut(usize, Merged<'_, 'a>),
) -> Option<u64> {
    cursor.current = match cursor.decoder.next_event(&mut cursor.values) {
        Some(Ok(record)) => Some(record),
        Some(Err(problem)) => {
            f(stream, Merged::Problem(&problem));
            None
        }
        None => None,
    };
    // Signed nanoseconds in the order of unsigned ones: the sign bit flipped.
    cursor.current.map(|record| (record.ns as u64) ^ (1 << 63))
}

/// What an event class means to the model, with the positions of the fields it needs.
#[derive(Clone, Copy)]
enum Role {
    /// Only a raw event.
    Raw,
    SwitchedIn(Thread),
    /// Any other event about a thread, which may carry its name.
    ThreadSeen(Thread),
    Created(Thread),
    Info {
        thread: Thread,
        stack_size: usize,
    },
    PrioritySet {
        thread: Thread,
        prio: usize,
    },
    Suspended(Thread),
    Resumed(Thread),
    Aborted(Thread),
    Pending(Thread),
    IsrEnter,
    IsrExit,
    Idle,
    ObjectInit {
        id: usize,
        kind: QueueKind,
    },
    SemGive {
        id: usize,
    },
    SemTakeBlocking {
        id: usize,
    },
    SemTakeExit {
        id: usize,
        ret: usize,
    },
    SemReset {
        id: usize,
    },
    MutexLockBlocking {
        id: usize,
    },
    MutexLockExit {
        id: usize,
        ret: usize,
    },
    MutexUnlock {
        id: usize,
    },
    /// A timer operation, as an instant on the timer's marker track.
    Timer {
        id: usize,
        what: &'static str,
    },
    /// `named_event`: an instant on the marker track of that name.
    Named {
        name: usize,
    },
}

#[derive(Clone, Copy)]
struct Thread {
    id: usize,
    name: Option<usize>,
}

impl Role {
    fn of(class: &EventClass) -> Role {
        let field = |name: &str| class.fields.field_index(name);
        let thread = field("thread_id").map(|id| Thread {
            id,
            name: field("name"),
        });
        let id = field("id");
        match (class.name.as_str(), thread, id) {
            ("thread_switched_in", Some(t), _) => Role::SwitchedIn(t),
            ("thread_create", Some(t), _) => Role::Created(t),
            ("thread_info", Some(thread), _) => match field("stack_size") {
                Some(stack_size) => Role::Info { thread, stack_size },
                None => Role::ThreadSeen(thread),
            },
            ("thread_priority_set", Some(thread), _) => match field("prio") {
                Some(prio) => Role::PrioritySet { thread, prio },
                None => Role::ThreadSeen(thread),
            },
            ("thread_suspend", Some(t), _) => Role::Suspended(t),
            ("thread_resume" | "thread_ready" | "thread_wakeup", Some(t), _) => Role::Resumed(t),
            ("thread_abort", Some(t), _) => Role::Aborted(t),
            ("thread_pending", Some(t), _) => Role::Pending(t),
            (_, Some(t), _) => Role::ThreadSeen(t),
            ("isr_enter", ..) => Role::IsrEnter,
            ("isr_exit", ..) => Role::IsrExit,
            ("idle", ..) => Role::Idle,
            ("semaphore_init", _, Some(id)) => Role::ObjectInit {
                id,
                kind: QueueKind::CountingSemaphore,
            },
            ("mutex_init", _, Some(id)) => Role::ObjectInit {
                id,
                kind: QueueKind::RecursiveMutex,
            },
            ("semaphore_give_enter", _, Some(id)) => Role::SemGive { id },
            ("semaphore_take_blocking", _, Some(id)) => Role::SemTakeBlocking { id },
            ("semaphore_take_exit", _, Some(id)) => match field("ret") {
                Some(ret) => Role::SemTakeExit { id, ret },
                None => Role::Raw,
            },
            ("semaphore_reset", _, Some(id)) => Role::SemReset { id },
            ("mutex_lock_blocking", _, Some(id)) => Role::MutexLockBlocking { id },
            ("mutex_lock_exit", _, Some(id)) => match field("ret") {
                Some(ret) => Role::MutexLockExit { id, ret },
                None => Role::Raw,
            },
            ("mutex_unlock_enter", _, Some(id)) => Role::MutexUnlock { id },
            ("timer_init", _, Some(id)) => Role::Timer { id, what: "init" },
            ("timer_start", _, Some(id)) => Role::Timer { id, what: "start" },
            ("timer_stop", _, Some(id)) => Role::Timer { id, what: "stop" },
            ("timer_status_sync_exit", _, Some(id)) => Role::Timer { id, what: "status" },
            ("named_event", ..) => match field("name") {
                Some(name) => Role::Named { name },
                None => Role::Raw,
            },
            _ => Role::Raw,
        }
    }
}

struct Importer {
    b: ModelBuilder,
    /// By index into the metadata's event classes.
    roles: Vec<Role>,
    /// The name each thread was given last.
    thread_names: IdMap<u32, Box<[u8]>>,
    /// Semaphores and mutexes already named, with the lock count of each mutex (Zephyr
    /// mutexes are recursive).
    objects: IdMap<u32, u32>,
    /// ISR ids (nesting depths) already named.
    isr_names: u32,
    /// ISRs open now: Zephyr does not say which interrupt, so nesting depth is the ISR id.
    isr_depth: u32,
    /// Marker ids by track name.
    markers: HashMap<String, u32>,
    /// Marker ids of the timers seen, by timer id.
    timer_markers: IdMap<u64, u32>,
    /// Reused for the text of marker instants.
    text: String,
    /// By index into the metadata's event classes.
    events_by_class: Vec<u64>,
    problems: u64,
}

impl Importer {
    fn event(&mut self, t: u64, core: u32, record: &EventRecord<'_>, values: &[Value<'_>]) {
        if let Some(n) = self.events_by_class.get_mut(record.class_index) {
            *n += 1;
        }
        self.b.event_at(core, t);
        let Some(&role) = self.roles.get(record.class_index) else {
            return;
        };
        let int = |i: usize| values.get(i).and_then(Value::as_u64);
        let id32 = |i: usize| int(i).and_then(|v| u32::try_from(v).ok());
        let signed = |i: usize| values.get(i).and_then(Value::as_i64);
        let from_isr = self.b.in_isr(core);
        match role {
            Role::Raw => {}
            Role::SwitchedIn(thread) => {
                if let Some(task) = self.thread(thread, values) {
                    self.b.task_switched_in(t, core, task);
                }
            }
            Role::ThreadSeen(thread) => {
                self.thread(thread, values);
            }
            Role::Created(thread) => {
                if let Some(task) = self.thread(thread, values) {
                    self.b.task_created(t, task);
                }
            }
            Role::Info { thread, stack_size } => {
                if let (Some(task), Some(size)) = (self.thread(thread, values), id32(stack_size)) {
                    self.b.set_task_stack_size(task, size);
                }
            }
            Role::PrioritySet { thread, prio } => {
                if let (Some(task), Some(prio)) = (self.thread(thread, values), signed(prio)) {
                    // Cooperative (negative) Zephyr priorities have no place in the
                    // model's unsigned priority: they show as 0, the highest.
                    let priority = u32::try_from(prio.max(0)).unwrap_or(u32::MAX);
                    self.b.task_priority(t, task, priority, PriorityCause::Set);
                }
            }
            Role::Suspended(thread) => {
                if let Some(task) = self.thread(thread, values) {
                    self.b.task_suspended(t, task);
                }
            }
            Role::Resumed(thread) => {
                if let Some(task) = self.thread(thread, values) {
                    self.b.task_ready(t, core, task);
                }
            }
            Role::Aborted(thread) => {
                if let Some(task) = self.thread(thread, values) {
                    self.b.task_deleted(t, task);
                }
            }
            Role::Pending(thread) => {
                let task = self.thread(thread, values);
                if task.is_some() && task == self.b.running_task(core) {
                    self.b.current_task_announces(
                        t,
                        core,
                        TaskStateKind::Blocked,
                        StateReason::None,
                        None,
                    );
                }
            }
            Role::IsrEnter => {
                let isr = self.isr_depth;
                if isr >= self.isr_names {
                    let name = match isr {
                        0 => "isr".to_owned(),
                        nested => format!("isr nested {nested}"),
                    };
                    self.b.set_isr_name(core, isr, name.as_bytes());
                    self.isr_names = isr + 1;
                }
                self.b.isr_enter(t, core, isr);
                self.isr_depth += 1;
            }
            Role::IsrExit => {
                self.isr_depth = self.isr_depth.saturating_sub(1);
                self.b.isr_exit(t, core, self.isr_depth);
            }
            Role::Idle => {
                if let Some(task) = self.b.running_task(core) {
                    self.b.set_idle_task(core, task);
                }
            }
            Role::ObjectInit { id, kind } => {
                if let Some(queue) = id32(id) {
                    self.object(queue, kind);
                }
            }
            Role::SemGive { id } => {
                if let Some(queue) = id32(id) {
                    self.object(queue, QueueKind::CountingSemaphore);
                    self.b
                        .queue_op(t, core, queue, QueueOpKind::Send, from_isr, None);
                }
            }
            Role::SemTakeBlocking { id } | Role::MutexLockBlocking { id } => {
                if let Some(queue) = id32(id) {
                    let (kind, reason) = match role {
                        Role::SemTakeBlocking { .. } => {
                            (QueueKind::CountingSemaphore, StateReason::Semaphore)
                        }
                        _ => (QueueKind::RecursiveMutex, StateReason::Mutex),
                    };
                    self.object(queue, kind);
                    self.b.current_task_announces(
                        t,
                        core,
                        TaskStateKind::Blocked,
                        reason,
                        Some(queue),
                    );
                }
            }
            Role::SemTakeExit { id, ret } => {
                if let (Some(queue), Some(0)) = (id32(id), signed(ret)) {
                    self.object(queue, QueueKind::CountingSemaphore);
                    self.b
                        .queue_op(t, core, queue, QueueOpKind::Receive, from_isr, None);
                }
            }
            Role::SemReset { id } => {
                if let Some(queue) = id32(id) {
                    self.object(queue, QueueKind::CountingSemaphore);
                    self.b
                        .queue_op(t, core, queue, QueueOpKind::Reset, from_isr, None);
                }
            }
            Role::MutexLockExit { id, ret } => {
                if let (Some(queue), Some(0)) = (id32(id), signed(ret)) {
                    *self.object(queue, QueueKind::RecursiveMutex) += 1;
                    self.b
                        .queue_op(t, core, queue, QueueOpKind::Receive, from_isr, Some(0));
                }
            }
            Role::MutexUnlock { id } => {
                if let Some(queue) = id32(id) {
                    let depth = self.object(queue, QueueKind::RecursiveMutex);
                    *depth = depth.saturating_sub(1);
                    let free = u32::from(*depth == 0);
                    self.b
                        .queue_op(t, core, queue, QueueOpKind::Send, from_isr, Some(free));
                }
            }
            Role::Timer { id, what } => {
                if let Some(timer) = int(id) {
                    let marker = match self.timer_markers.get(&timer) {
                        Some(&marker) => marker,
                        None => {
                            let marker = self.marker(&format!("timer {timer:#x}"));
                            self.timer_markers.insert(timer, marker);
                            marker
                        }
                    };
                    self.text.clear();
                    self.text.push_str(what);
                    let fields = record.class.fields.fields.iter().zip(values).skip(1);
                    for (field, value) in fields {
                        let _ = write!(self.text, " {}={value}", field.name);
                    }
                    let msg = self.b.intern(self.text.as_bytes());
                    self.b.marker_instant(t, marker, None, msg);
                }
            }
            Role::Named { name } => {
                if let Some(Value::String(name_bytes)) = values.get(name) {
                    let marker = self.marker(&String::from_utf8_lossy(name_bytes));
                    self.text.clear();
                    let fields = record.class.fields.fields.iter().zip(values);
                    for (field, value) in fields.filter(|(field, _)| field.name != "name") {
                        let sep = if self.text.is_empty() { "" } else { " " };
                        let _ = write!(self.text, "{sep}{}={value}", field.name);
                    }
                    let msg = self.b.intern(self.text.as_bytes());
                    self.b.marker_instant(t, marker, None, msg);
                }
            }
        }
    }

    /// The task id of a thread event, taking the name it carries. Zephyr's placeholder for a
    /// thread without a name never replaces a real one.
    fn thread(&mut self, thread: Thread, values: &[Value<'_>]) -> Option<u32> {
        let task = values
            .get(thread.id)
            .and_then(Value::as_u64)
            .and_then(|v| u32::try_from(v).ok())?;
        if let Some(Value::String(name)) = thread.name.and_then(|i| values.get(i)) {
            let known = self.thread_names.get(&task);
            let takes_name = match known {
                None => true,
                Some(known) => **known != **name && !name.is_empty() && *name != UNNAMED_THREAD,
            };
            if takes_name {
                self.b.set_task_name(task, name);
                self.thread_names.insert(task, Box::from(*name));
            }
        }
        Some(task)
    }

    /// Names a semaphore or mutex the first time it is seen; its lock count, for a mutex.
    fn object(&mut self, queue: u32, kind: QueueKind) -> &mut u32 {
        let b = &mut self.b;
        self.objects.entry(queue).or_insert_with(|| {
            b.set_queue_kind(queue, kind);
            let what = if kind.is_mutex() {
                "mutex"
            } else {
                "semaphore"
            };
            b.set_queue_name(queue, format!("{what} {queue:#x}").as_bytes());
            0
        })
    }

    fn marker(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.markers.get(name) {
            return id;
        }
        let id = self.markers.len() as u32;
        self.markers.insert(name.to_owned(), id);
        self.b
            .set_marker_name(id, None, MarkerKind::Event, name.as_bytes());
        id
    }

    fn problem(&mut self, t: u64, core: u32, stream: &str, problem: &Problem) {
        self.problems += 1;
        let kind = match problem.kind {
            ProblemKind::UnknownEventId => AnomalyKind::UnknownEvent,
            ProblemKind::TruncatedEvent => AnomalyKind::InvalidFrame,
        };
        self.b.anomaly(
            t,
            t,
            Some(core),
            kind,
            1,
            format!("{stream} byte {}: {}", problem.offset, problem.detail),
        );
    }

    fn finish(mut self) -> (Model, Vec<u64>) {
        let info = self.b.info_mut();
        info.events = self.events_by_class.iter().sum();
        info.invalid_frames = self.problems;
        (self.b.finish(), self.events_by_class)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_metadata;
    use tband_decode::input::{Bytes, Input};
    use tband_model::{IsrKey, TaskKind};

    /// Zephyr-style metadata with events the shipped recordings lack: priorities, aborts,
    /// named events (newer Zephyr) and an application's own event.
    const METADATA: &str = "/* CTF 1.8 */
        typealias integer { size = 8; align = 8; signed = true; } := int8_t;
        typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 32; align = 8; signed = true; } := int32_t;
        typealias integer { size = 8; align = 8; signed = false; encoding = ASCII; } := ctf_bounded_string_t;
        struct event_header { uint32_t timestamp; uint8_t id; };
        trace { major = 1; minor = 8; byte_order = le; };
        stream { event.header := struct event_header; };
        event { name = thread_switched_in; id = 0x11; fields := struct { uint32_t thread_id; ctf_bounded_string_t name[4]; }; };
        event { name = thread_priority_set; id = 0x12; fields := struct { uint32_t thread_id; ctf_bounded_string_t name[4]; int8_t prio; }; };
        event { name = thread_abort; id = 0x14; fields := struct { uint32_t thread_id; ctf_bounded_string_t name[4]; }; };
        event { name = isr_enter; id = 0x1B; };
        event { name = isr_exit; id = 0x1C; };
        event { name = mutex_lock_exit; id = 0x2B; fields := struct { uint32_t id; uint32_t timeout; int32_t ret; }; };
        event { name = mutex_unlock_enter; id = 0x2C; fields := struct { uint32_t id; }; };
        event { name = named_event; id = 0x70; fields := struct { ctf_bounded_string_t name[8]; uint32_t arg0; uint32_t arg1; }; };
        event { name = my_app_event; id = 0x80; fields := struct { uint32_t value; }; };";

    struct Stream(Vec<u8>);

    impl Stream {
        fn event(&mut self, ts: u32, id: u8, payload: &[&[u8]]) -> &mut Self {
            self.0.extend_from_slice(&ts.to_le_bytes());
            self.0.push(id);
            for part in payload {
                self.0.extend_from_slice(part);
            }
            self
        }
    }

    /// A trace of `METADATA` with these stream files.
    fn trace_of(streams: impl IntoIterator<Item = Stream>) -> CtfTrace {
        let input = |stream: Stream| Input {
            name: "stream".into(),
            core: None,
            bytes: Bytes::Owned(stream.0),
            was_hex: false,
        };
        CtfTrace {
            metadata: parse_metadata(METADATA).unwrap(),
            streams: streams.into_iter().map(input).collect(),
        }
    }

    fn model_of(stream: Stream) -> (Model, Vec<String>) {
        let trace = trace_of([stream]);
        let mut rows = Vec::new();
        let model = build_model(
            &trace,
            TraceInfo::default(),
            Some(&mut |row| rows.push(row.name.to_owned())),
        );
        (model, rows)
    }

    #[test]
    fn handed_rows_carry_scalars_as_values_and_compound_fields_as_text() {
        let metadata = "/* CTF 1.8 */
            typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
            typealias integer { size = 32; align = 8; signed = true; } := int32_t;
            trace { major = 1; minor = 8; byte_order = le; };
            stream { event.header := struct { uint8_t id; }; };
            event { name = plain; id = 1; fields := struct { uint8_t a; int32_t b; }; };
            event { name = mixed; id = 2; fields := struct {
                uint8_t a; enum : uint8_t { OFF, ON } mode; uint8_t pair[2]; int32_t b;
            }; };";
        let mut stream = vec![1, 7];
        stream.extend_from_slice(&(-3i32).to_le_bytes());
        stream.extend_from_slice(&[2, 7, 1, 4, 5]);
        stream.extend_from_slice(&(-3i32).to_le_bytes());
        let trace = CtfTrace {
            metadata: parse_metadata(metadata).unwrap(),
            streams: vec![Input {
                name: "stream".into(),
                core: None,
                bytes: Bytes::Owned(stream),
                was_hex: false,
            }],
        };
        let mut rows = Vec::new();
        for_each_event(&trace, |row| {
            let args = row.args.iter().map(|&(name, value)| match value {
                ArgValue::Str(text) => format!("{name}={}", String::from_utf8_lossy(text)),
                ArgValue::Int(v) => format!("{name}={v}"),
                ArgValue::UInt(v) => format!("{name}={v}u"),
            });
            rows.push(args.collect::<Vec<_>>().join(" "));
        });
        assert_eq!(
            rows,
            [
                "a=7u b=-3",
                "a=7u mode=( \"ON\" : container = 1 ) pair=[ [0] = 4, [1] = 5 ] b=-3",
            ]
        );
    }

    #[test]
    fn streams_merge_by_time_and_in_stream_order_at_equal_times() {
        let mut streams = [Stream(Vec::new()), Stream(Vec::new()), Stream(Vec::new())];
        let events = [(0, 10), (0, 20), (0, 30), (1, 10), (1, 20), (2, 5), (2, 20)];
        for (value, (stream, ts)) in (0u32..).zip(events) {
            streams[stream].event(ts, 0x80, &[&value.to_le_bytes()]);
        }
        let trace = trace_of(streams);
        let mut merged = Vec::new();
        for_each_event(&trace, |row| {
            if let [(_, ArgValue::UInt(value))] = row.args {
                merged.push((row.core_id, *value));
            }
        });
        let expected = [(2, 5), (0, 0), (1, 3), (0, 1), (1, 4), (2, 6), (0, 2)];
        assert_eq!(merged, expected);
    }

    #[test]
    fn progress_is_told_every_megabyte_of_the_streams_and_at_their_end() {
        // Two streams of 9-byte events, 3 MB in all.
        let mut streams = [Stream(Vec::new()), Stream(Vec::new())];
        for n in 0..(3 << 20) / 9 {
            streams[n % 2].event(n as u32, 0x80, &[&(n as u32).to_le_bytes()]);
        }
        let bytes: u64 = streams.iter().map(|s| s.0.len() as u64).sum();
        let trace = trace_of(streams);
        let told = std::cell::RefCell::new(Vec::new());
        let progress = |read| told.borrow_mut().push(read);
        let import = CtfImport {
            trace: &trace,
            progress: &progress,
        };
        import.build_model(TraceInfo::default(), None);
        let told = told.into_inner();
        assert_eq!(told.len(), 3, "{told:?}");
        assert!(
            told[0] >= 1 << 20 && told[1] - told[0] >= 1 << 20,
            "{told:?}"
        );
        assert_eq!(told.last(), Some(&bytes));
    }

    #[test]
    fn priorities_aborts_nested_isrs_recursive_mutexes_and_named_events() {
        let a = 0x100u32.to_le_bytes();
        let mutex = 0x200u32.to_le_bytes();
        let ok = 0i32.to_le_bytes();
        let forever = u32::MAX.to_le_bytes();
        let mut s = Stream(Vec::new());
        s.event(1000, 0x11, &[&a, b"a\0\0\0"])
            .event(1000, 0x12, &[&a, b"a\0\0\0", &[5]])
            .event(2000, 0x12, &[&a, b"a\0\0\0", &[(-3i8) as u8]])
            .event(3000, 0x2B, &[&mutex, &forever, &ok])
            .event(3500, 0x2B, &[&mutex, &forever, &ok])
            .event(4000, 0x2C, &[&mutex])
            .event(4500, 0x2C, &[&mutex])
            .event(5000, 0x1B, &[])
            .event(5100, 0x1B, &[])
            .event(5200, 0x1C, &[])
            .event(5300, 0x1C, &[])
            .event(
                6000,
                0x70,
                &[b"phase\0\0\0", &7u32.to_le_bytes(), &8u32.to_le_bytes()],
            )
            .event(6500, 0x80, &[&42u32.to_le_bytes()])
            .event(7000, 0x14, &[&a, b"a\0\0\0"]);
        let (m, rows) = model_of(s);
        assert_eq!(m.info.events, 14);
        assert_eq!(rows.len(), 14);
        assert_eq!(rows[12], "my_app_event");
        assert!(m.anomalies.is_empty(), "{:?}", m.anomalies);

        let priorities: Vec<_> = m
            .task_priorities
            .iter()
            .map(|p| (p.ts_ns, p.priority))
            .collect();
        assert_eq!(priorities, [(0, 5), (1000, 0)]);

        // Locked twice, unlocked twice: one hold, from the first lock to the last unlock.
        let holds: Vec<_> = m
            .mutex_holds
            .iter()
            .map(|h| (m.tasks[h.task as usize].task_id, h.start_ns, h.end_ns))
            .collect();
        assert_eq!(holds, [(0x100, 2000, 3500)]);

        let isrs: Vec<_> = m
            .isr_slices
            .iter()
            .map(|s| (m.isrs[s.isr as usize].isr_id, s.depth, s.start_ns, s.end_ns))
            .collect();
        assert_eq!(isrs, [(0, 0, 4000, 4300), (1, 1, 4100, 4200)]);
        assert_eq!(
            m.isr(IsrKey {
                core_id: 0,
                isr_id: 1
            })
            .unwrap()
            .name,
            "isr nested 1"
        );

        assert_eq!(m.markers.len(), 1);
        assert_eq!(m.markers[0].name, "phase");
        let instant = m.marker_instants.get(0).unwrap();
        assert_eq!(
            (instant.ts_ns, m.strings.get(instant.msg)),
            (5000, "arg0=7 arg1=8")
        );

        let task = m.tasks.iter().find(|t| t.task_id == 0x100).unwrap();
        assert_eq!(
            (task.name.as_str(), task.kind, task.deleted_ns),
            ("a", TaskKind::Normal, Some(6000))
        );
    }

    #[test]
    fn events_are_handed_on_as_babeltrace2_lists_them() {
        let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/zephyr_ctf/");
        for name in ["hello_sem", "workload"] {
            let trace = crate::open_args(&[format!("{corpus}{name}")], None)
                .unwrap()
                .unwrap();
            let origin = clock_origin_ns(&trace);
            let mut listed = Vec::new();
            let mut previous_ns = None;
            let mut list = |row: &EventRow<'_>| {
                let ts_ns = row.ts_ns.map(|t| t + origin);
                let on_clock = EventRow { ts_ns, ..*row };
                crate::write_pretty_row(&mut listed, &on_clock, previous_ns).unwrap();
                previous_ns = ts_ns;
            };
            let model = build_model(&trace, TraceInfo::default(), Some(&mut list));
            let listed = String::from_utf8(listed).unwrap();
            let expected = std::fs::read_to_string(format!("{corpus}{name}.listing.txt")).unwrap();
            for (i, (row, line)) in listed.lines().zip(expected.lines()).enumerate() {
                assert_eq!(row, line, "{name} line {}", i + 1);
            }
            assert_eq!(listed.lines().count(), expected.lines().count(), "{name}");
            assert_eq!(listed.lines().count() as u64, model.info.events, "{name}");
        }
    }

    #[test]
    fn only_the_named_events_are_handed_on_and_the_model_is_the_same() {
        // One event the model reads, one it ignores (left undecoded when not named).
        let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/zephyr_ctf/");
        let trace = crate::open_args(&[format!("{corpus}workload")], None)
            .unwrap()
            .unwrap();
        let wanted = ["semaphore_give_enter", "mutex_lock_enter"];
        let (mut all, mut named) = (Vec::new(), Vec::new());
        let mut keep_wanted = |row: &EventRow<'_>| {
            if wanted.contains(&row.name) {
                all.push(format!("{row:?}"));
            }
        };
        let whole = build_model(&trace, TraceInfo::default(), Some(&mut keep_wanted));
        let mut keep = |row: &EventRow<'_>| named.push(format!("{row:?}"));
        let import = CtfImport {
            trace: &trace,
            progress: &|_| {},
        };
        let model = import.build_model_handing_named(
            TraceInfo::default(),
            &|name| wanted.contains(&name),
            &mut keep,
        );
        assert!(!all.is_empty());
        assert_eq!(named, all);
        assert_eq!(format!("{model:?}"), format!("{whole:?}"));
    }
}
