//! What tband events mean (docs/src/format.md, "What the events mean"): the importer
//! that turns sequenced tband streams into model-builder calls.

mod objects;

use tband::{Event, FieldValue, Record};

use crate::decode_thread::sequence_on_decode_thread;
use crate::frames::FrameError;
use crate::sequencer::{self, Clock, GrowingStream, Position, Stream, Visitor};
use tband::schema::PayloadError;
use tband_model::{
    Actor, AnomalyKind, ArgValue, EventRow, EventSink, FaultAddress, FaultStatus, Import,
    MarkerKind, Model, ModelBuilder, PriorityCause, PriorityOrder, QueueKind, QueueOpKind,
    ReadProgress, ReadTeller, StateReason, TaskKind, TaskStateKind, TraceInfo,
};

/// A tband trace as the importer reads it: one stream per input, decoded
/// on `decode_thread`, its progress told to `progress`.
pub struct TbandTrace<'a> {
    pub streams: Vec<Stream<'a>>,
    pub decode_thread: DecodeThread,
    pub progress: ReadProgress<'a>,
}

impl Import for TbandTrace<'_> {
    fn build_model(&self, info: TraceInfo, events: Option<EventSink<'_>>) -> Model {
        build_model_with_progress(
            &self.streams,
            info,
            self.decode_thread,
            self.progress,
            events,
        )
    }
}

/// Builds the model of a tband trace given as one stream per input.
pub fn build_model(streams: &[Stream<'_>], info: TraceInfo) -> Model {
    build_model_with_progress(streams, info, DecodeThread::Calling, &|_| {}, None)
}

/// The thread that decodes a tband trace while the calling thread builds
/// its model. The model is the same either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DecodeThread {
    /// The calling thread decodes and builds in turn.
    #[default]
    Calling,
    /// A second thread decodes while the calling one builds: faster where
    /// two cores are free.
    Second,
}

impl DecodeThread {
    /// A second thread where the machine has two cores or more to run on.
    pub fn available() -> DecodeThread {
        match std::thread::available_parallelism() {
            Ok(n) if n.get() >= 2 => DecodeThread::Second,
            _ => DecodeThread::Calling,
        }
    }
}

/// [`build_model`], telling `progress` how far it has read, and handing
/// every event to `events` (on the calling thread, in the order the model
/// takes them in).
pub fn build_model_with_progress(
    streams: &[Stream<'_>],
    info: TraceInfo,
    decode_thread: DecodeThread,
    progress: ReadProgress<'_>,
    events: Option<EventSink<'_>>,
) -> Model {
    let (builder, clock) = start_model(streams, info);
    // A pass of its own for each: the one that hands nothing on pays nothing.
    match events {
        Some(events) => interpret(streams, &clock, decode_thread, builder, progress, events),
        None => interpret(streams, &clock, decode_thread, builder, progress, NoSink),
    }
}

/// The builder of the model of `streams`, its trace facts set, and the
/// clock of their events: the timer resolution they state (wherever they
/// state it) and their first timestamp.
fn start_model(streams: &[Stream<'_>], mut info: TraceInfo) -> (ModelBuilder, Clock) {
    let mut builder = ModelBuilder::default();
    let ns_per_tick = sequencer::find_ts_resolution(streams);
    info.format = "tband".into();
    info.priority_order = PriorityOrder::HigherIsMoreImportant;
    info.ns_per_tick_known = ns_per_tick.is_some();
    info.ns_per_tick = ns_per_tick.unwrap_or(1).max(1);
    info.first_ts_raw = sequencer::first_timestamp(streams).unwrap_or(0);
    let clock = Clock::new(info.ns_per_tick, info.first_ts_raw);
    *builder.info_mut() = info;
    if ns_per_tick.is_none() {
        builder.anomaly(
            0,
            0,
            None,
            AnomalyKind::NoTimerResolution,
            1,
            "the trace has no ts_resolution_ns event; 1 ns per tick assumed".into(),
        );
    }
    (builder, clock)
}

/// The pass over the streams on `decode_thread` that builds the model with
/// `builder`, handing each event to `events` first.
fn interpret<H: HandOn>(
    streams: &[Stream<'_>],
    clock: &Clock,
    decode_thread: DecodeThread,
    builder: ModelBuilder,
    progress: ReadProgress<'_>,
    events: H,
) -> Model {
    let mut interpreter = Interpreter::new(builder, streams.len(), Some(progress), events);
    let counts = match decode_thread {
        DecodeThread::Calling => sequencer::sequence(streams, clock, &mut interpreter),
        DecodeThread::Second => sequence_on_decode_thread(streams, clock, &mut interpreter),
    };
    if let Some(read) = interpreter.progress.take() {
        read.done(streams.iter().map(|s| s.bytes.len() as u64).sum());
    }
    interpreter.finish(counts.records)
}

/// A tband stream modelled as it grows (a file another process appends
/// to), read piece by piece, with the model of what has been read lent out
/// between pieces ([`take_so_far`](Self::take_so_far)). Once the stream is
/// read to its end, [`finish`](Self::finish) gives the model
/// [`build_model`] makes of it whole.
pub struct GrowingTrace {
    info: TraceInfo,
    core: u32,
    state: Growing,
}

enum Growing {
    /// No timed event yet, so no clock: the pieces read so far are kept.
    BeforeTime(Vec<u8>),
    Timed(Box<Timed>),
}

/// A growing stream whose clock is set.
struct Timed {
    interpreter: Interpreter<'static, NoSink>,
    stream: GrowingStream,
    clock: Clock,
    /// Where the next piece starts in the stream.
    read_to: usize,
}

impl Timed {
    fn read(&mut self, piece: &[u8], events: Option<EventSink<'_>>) {
        let (clock, offset) = (self.clock, self.read_to);
        let interpreter = &mut self.interpreter;
        match events {
            Some(events) => {
                let mut handing = HandingOn {
                    interpreter,
                    events,
                };
                self.stream.read(piece, offset, &clock, &mut handing)
            }
            None => self.stream.read(piece, offset, &clock, interpreter),
        }
        self.read_to += piece.len();
    }

    /// Sets the counts of the pass so far in the model's facts.
    fn count(&mut self) {
        let invalid = self.interpreter.invalid;
        let info = self.interpreter.b.info_mut();
        info.events = self.stream.records();
        info.invalid_frames = invalid;
    }
}

/// What reading a piece of a growing stream came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub enum PieceRead {
    Read,
    /// The piece states the timer resolution that the stream had not stated
    /// before its first events: the times read so far are wrong. Nothing
    /// of the piece was read; the model must be made again from the
    /// stream's start.
    ResolutionCameLate,
}

impl GrowingTrace {
    /// A stream whose events belong to `core` (until a `core_id` event
    /// says otherwise); `info` as for [`build_model`].
    pub fn new(core: u32, info: TraceInfo) -> Self {
        GrowingTrace {
            info,
            core,
            state: Growing::BeforeTime(Vec::new()),
        }
    }

    /// Reads `piece`, the stream's bytes from where the last piece ended,
    /// handing each of its events to `events` if given (in the order the
    /// model takes them in, as [`build_model_with_progress`] does). A piece
    /// that ends inside a frame makes that frame invalid: only the last
    /// piece of a stream should.
    pub fn read(&mut self, piece: &[u8], events: Option<EventSink<'_>>) -> PieceRead {
        match &mut self.state {
            Growing::BeforeTime(before) => {
                let timed = sequencer::first_timestamp(&[Stream::new(piece, self.core)]);
                before.extend_from_slice(piece);
                if timed.is_some() {
                    let bytes = std::mem::take(before);
                    let streams = [Stream::new(&bytes, self.core)];
                    let (builder, clock) = start_model(&streams, self.info.clone());
                    let mut timed = Timed {
                        interpreter: Interpreter::new(builder, 1, None, NoSink),
                        stream: GrowingStream::new(self.core),
                        clock,
                        read_to: 0,
                    };
                    timed.read(&bytes, events);
                    self.state = Growing::Timed(Box::new(timed));
                }
                PieceRead::Read
            }
            Growing::Timed(timed) => {
                let known = timed.interpreter.b.info_mut().ns_per_tick_known;
                if !known && sequencer::find_ts_resolution(&[Stream::new(piece, 0)]).is_some() {
                    return PieceRead::ResolutionCameLate;
                }
                timed.read(piece, events);
                PieceRead::Read
            }
        }
    }

    /// The model of what has been read, lent out as
    /// [`ModelBuilder::take_so_far`] lends it: hand it back with
    /// [`resume`](Self::resume) before the next piece. A run of invalid
    /// frames still going on is counted but not yet an anomaly.
    pub fn take_so_far(&mut self) -> Model {
        match &mut self.state {
            Growing::BeforeTime(_) => Model {
                info: self.info.clone(),
                ..Model::default()
            },
            Growing::Timed(timed) => {
                timed.count();
                timed.interpreter.b.take_so_far()
            }
        }
    }

    /// Takes back the model [`take_so_far`](Self::take_so_far) lent out.
    pub fn resume(&mut self, model: Model) {
        if let Growing::Timed(timed) = &mut self.state {
            timed.interpreter.b.resume(model);
        }
    }

    /// The model of the stream read to its end.
    pub fn finish(self) -> Model {
        match self.state {
            Growing::BeforeTime(bytes) => build_model(&[Stream::new(&bytes, self.core)], self.info),
            Growing::Timed(timed) => {
                let records = timed.stream.records();
                timed.interpreter.finish(records)
            }
        }
    }
}
/// Applies a metadata event; metadata describes static things, so where it
/// stands in the stream does not matter (the timer resolution is read
/// before the pass, see [`sequencer::find_ts_resolution`]).
fn apply_metadata(b: &mut ModelBuilder, core: u32, rec: &Record<'_>) {
    if objects::apply_metadata(b, &rec.event) {
        return;
    }
    match rec.event {
        Event::IsrName { isr_id, name } => b.set_isr_name(core, isr_id, name),
        Event::EvtmarkerName { evtmarker_id, name } => {
            b.set_marker_name(evtmarker_id, None, MarkerKind::Event, name)
        }
        Event::ValmarkerName { valmarker_id, name } => {
            b.set_marker_name(valmarker_id, None, MarkerKind::Value, name)
        }
        Event::TaskName { task_id, name } => b.set_task_name(task_id, name),
        Event::TaskIsIdleTask { task_id, core_id } => b.set_idle_task(core_id, task_id),
        Event::TaskIsTimerTask { task_id } => b.set_task_kind(task_id, TaskKind::Timer),
        Event::QueueName { queue_id, name } => b.set_queue_name(queue_id, name),
        Event::HeapName {
            heap_id,
            total_size,
            name,
        } => b.set_heap(heap_id, name, (total_size != 0).then_some(total_size)),
        Event::TaskStackSize { task_id, size } => b.set_task_stack_size(task_id, size),
        Event::QueueKind { queue_id, kind } => b.set_queue_kind(queue_id, queue_kind(kind)),
        Event::TaskEvtmarkerName {
            evtmarker_id,
            task_id,
            name,
        } => b.set_marker_name(evtmarker_id, Some(task_id), MarkerKind::Event, name),
        Event::TaskValmarkerName {
            valmarker_id,
            task_id,
            name,
        } => b.set_marker_name(valmarker_id, Some(task_id), MarkerKind::Value, name),
        _ => {}
    }
}

struct Interpreter<'p, H> {
    b: ModelBuilder,
    streams: usize,
    /// Per stream: the open run of invalid frames (first offset, count, time, core, reason).
    invalid_run: Vec<Option<InvalidRun>>,
    /// Which streams have an open run, a bit each (see [`run_bit`]), so
    /// that an event need not look its stream's up while it has none.
    open_invalid_runs: u64,
    /// Cores that metadata was recorded for.
    metadata_cores: Vec<u32>,
    invalid: u64,
    /// Who is told how far the pass has read, if anyone.
    progress: Option<ReadTeller<'p>>,
    /// Where each event goes as a raw event before it is interpreted.
    events: H,
}

/// The bit of `Interpreter::open_invalid_runs` that streams from this one
/// on share; it stays set once set.
const SHARED_RUN_BIT: usize = 63;

/// The bit of `stream` in `Interpreter::open_invalid_runs`.
#[inline]
fn run_bit(stream: usize) -> u64 {
    1 << stream.min(SHARED_RUN_BIT)
}

#[derive(Clone)]
struct InvalidRun {
    first_offset: usize,
    count: u64,
    ts_ns: u64,
    core: u32,
    unknown_id: bool,
    reason: String,
}

impl<'p, H> Interpreter<'p, H> {
    fn new(b: ModelBuilder, streams: usize, progress: Option<ReadProgress<'p>>, events: H) -> Self {
        Interpreter {
            b,
            streams,
            invalid_run: vec![None; streams],
            open_invalid_runs: 0,
            metadata_cores: Vec::new(),
            invalid: 0,
            progress: progress.map(|progress| ReadTeller::new(streams, progress)),
            events,
        }
    }

    /// Reports the stream's open run of invalid frames, if any. Every
    /// event calls this, so it looks no further while its stream has no run
    /// open, and the report is out of line.
    #[inline]
    fn close_invalid_run(&mut self, stream: usize) {
        if self.open_invalid_runs & run_bit(stream) != 0 {
            self.report_invalid_run(stream);
        }
    }

    #[cold]
    fn report_invalid_run(&mut self, stream: usize) {
        let Some(run) = self.invalid_run.get_mut(stream).and_then(Option::take) else {
            return;
        };
        if stream < SHARED_RUN_BIT {
            self.open_invalid_runs &= !run_bit(stream);
        }
        let (kind, what) = if run.unknown_id {
            (
                AnomalyKind::UnknownEvent,
                "frame(s) with an unknown event id",
            )
        } else {
            (AnomalyKind::InvalidFrame, "invalid frame(s)")
        };
        let source = if self.streams > 1 {
            format!("input {} ", stream + 1)
        } else {
            String::new()
        };
        self.b.anomaly(
            run.ts_ns,
            run.ts_ns,
            Some(run.core),
            kind,
            run.count,
            format!(
                "{} {what} from {source}byte {}, first: {}",
                run.count, run.first_offset, run.reason
            ),
        );
    }

    /// The task a task-local marker belongs to: the one running on `core`.
    fn marker_task(&mut self, t: u64, core: u32, what: &str) -> Option<u32> {
        let task = self.b.running_task(core);
        if task.is_none() {
            self.b.anomaly(
                t,
                t,
                Some(core),
                AnomalyKind::NoCurrentTask,
                1,
                format!("{what} while no running task is known on core {core}"),
            );
        }
        task
    }

    /// The model, after a pass that visited `events` events.
    fn finish(mut self, events: u64) -> Model {
        for stream in 0..self.streams {
            self.close_invalid_run(stream);
        }
        self.metadata_cores.sort_unstable();
        for &core in &self.metadata_cores {
            if self.b.last_event_on(core).is_some() {
                continue;
            }
            self.b.core_seen(core);
            self.b.anomaly(
                0,
                0,
                Some(core),
                AnomalyKind::MissingCoreStream,
                1,
                format!("metadata describes core {core} but no events of it are in the inputs"),
            );
        }
        let info = self.b.info_mut();
        info.events = events;
        info.invalid_frames = self.invalid;
        self.b.finish()
    }
}

/// What the interpreter does with each event before it interprets it.
trait HandOn {
    /// `b` holds the model built from the events before.
    fn hand_on(&mut self, at: Position, rec: &Record<'_>, b: &ModelBuilder);
}

/// Nobody asked for the raw events.
struct NoSink;

impl HandOn for NoSink {
    #[inline(always)]
    fn hand_on(&mut self, _: Position, _: &Record<'_>, _: &ModelBuilder) {}
}

impl HandOn for EventSink<'_> {
    fn hand_on(&mut self, at: Position, rec: &Record<'_>, b: &ModelBuilder) {
        hand_event(&mut **self, at, rec, b.actor(at.core));
    }
}

/// The interpreter of a growing stream while a piece is read whose events
/// someone asked for: it hands each on, then interprets it.
struct HandingOn<'a, 'e> {
    interpreter: &'a mut Interpreter<'static, NoSink>,
    events: EventSink<'e>,
}

impl Visitor for HandingOn<'_, '_> {
    fn event(&mut self, at: Position, rec: &Record<'_>) {
        self.events.hand_on(at, rec, &self.interpreter.b);
        self.interpreter.event(at, rec);
    }

    fn invalid(&mut self, at: Position, err: &FrameError) {
        self.interpreter.invalid(at, err);
    }

    fn time_backwards(&mut self, at: Position, previous_raw: u64, raw: u64) {
        self.interpreter.time_backwards(at, previous_raw, raw);
    }

    fn progress(&mut self, stream: usize, offset: usize) {
        self.interpreter.progress(stream, offset);
    }

    fn stopped(&self) -> bool {
        self.interpreter.stopped()
    }
}

/// Hands `rec` to `events` as the row of a raw event.
#[inline(never)]
fn hand_event(
    events: &mut dyn FnMut(&EventRow<'_>),
    at: Position,
    rec: &Record<'_>,
    actor: Option<Actor>,
) {
    let mut args = [("", ArgValue::Int(0)); 4];
    let mut n = 0;
    rec.event.for_each_field(|name, value| {
        if let Some(slot) = args.get_mut(n) {
            *slot = (
                name,
                match value {
                    FieldValue::U8(v) => ArgValue::UInt(v.into()),
                    FieldValue::U32(v) => ArgValue::UInt(v.into()),
                    FieldValue::U64(v) => ArgValue::UInt(v),
                    FieldValue::S64(v) => ArgValue::Int(v),
                    FieldValue::Str(s) => ArgValue::Str(s),
                },
            );
            n += 1;
        }
    });
    events(&EventRow {
        ts_ns: at.ts_ns,
        core_id: at.core,
        class: rec.event.kind().id().into(),
        name: rec.event.kind().name(),
        args: &args[..n],
        actor,
    });
}

impl<H: HandOn> Visitor for Interpreter<'_, H> {
    #[inline(always)]
    fn event(&mut self, at: Position, rec: &Record<'_>) {
        self.events.hand_on(at, rec, &self.b);
        self.close_invalid_run(at.stream);
        let Some(t) = at.ts_ns else {
            if !self.metadata_cores.contains(&at.core) {
                self.metadata_cores.push(at.core);
            }
            apply_metadata(&mut self.b, at.core, rec);
            return;
        };
        let core = at.core;
        let b = &mut self.b;
        if let Event::CoreId { .. } = rec.event {
            b.core_seen(core);
            return;
        }
        let previous_event = b.event_at(core, t);
        match rec.event {
            Event::DroppedEvtCnt { cnt } => {
                b.dropped_total(t, core, u64::from(cnt), previous_event)
            }
            Event::IsrEnter { isr_id } => b.isr_enter(t, core, isr_id),
            Event::IsrExit { isr_id } => b.isr_exit(t, core, isr_id),
            Event::Evtmarker { evtmarker_id, msg } => {
                let msg = b.intern(msg);
                b.marker_instant(t, evtmarker_id, None, msg)
            }
            Event::EvtmarkerBegin { evtmarker_id, msg } => {
                let msg = b.intern(msg);
                b.marker_begin(t, evtmarker_id, None, msg)
            }
            Event::EvtmarkerEnd { evtmarker_id } => b.marker_end(t, core, evtmarker_id, None),
            Event::Valmarker { valmarker_id, val } => b.marker_value(t, valmarker_id, None, val),
            Event::TaskSwitchedIn { task_id } => b.task_switched_in(t, core, task_id),
            Event::TaskToRdyState { task_id }
            | Event::TaskResumed { task_id }
            | Event::TaskResumedFromIsr { task_id } => b.task_ready(t, core, task_id),
            Event::TaskSuspended { task_id } => b.task_suspended(t, task_id),
            Event::CurtaskDelay { .. } => {
                b.current_task_announces(t, core, TaskStateKind::Blocked, StateReason::Delay, None)
            }
            Event::CurtaskDelayUntil { .. } => b.current_task_announces(
                t,
                core,
                TaskStateKind::Blocked,
                StateReason::DelayUntil,
                None,
            ),
            Event::TaskPrioritySet { task_id, priority } => {
                b.task_priority(t, task_id, priority, PriorityCause::Set)
            }
            Event::TaskPriorityInherit { task_id, priority } => {
                b.task_priority(t, task_id, priority, PriorityCause::Inherit)
            }
            Event::TaskPriorityDisinherit { task_id, priority } => {
                b.task_priority(t, task_id, priority, PriorityCause::Disinherit)
            }
            Event::TaskCreated { task_id } => b.task_created(t, task_id),
            Event::TaskDeleted { task_id } => b.task_deleted(t, task_id),
            Event::QueueCreated { queue_id } => b.queue_created(queue_id),
            Event::QueueSend {
                queue_id,
                len_after,
            } => b.queue_op(t, core, queue_id, QueueOpKind::Send, false, Some(len_after)),
            Event::QueueSendFromIsr {
                queue_id,
                len_after,
            } => b.queue_op(t, core, queue_id, QueueOpKind::Send, true, Some(len_after)),
            Event::QueueOverwrite {
                queue_id,
                len_after,
            } => b.queue_op(
                t,
                core,
                queue_id,
                QueueOpKind::Overwrite,
                false,
                Some(len_after),
            ),
            Event::QueueOverwriteFromIsr {
                queue_id,
                len_after,
            } => b.queue_op(
                t,
                core,
                queue_id,
                QueueOpKind::Overwrite,
                true,
                Some(len_after),
            ),
            Event::QueueReceive {
                queue_id,
                len_after,
            } => b.queue_op(
                t,
                core,
                queue_id,
                QueueOpKind::Receive,
                false,
                Some(len_after),
            ),
            Event::QueueReceiveFromIsr {
                queue_id,
                len_after,
            } => b.queue_op(
                t,
                core,
                queue_id,
                QueueOpKind::Receive,
                true,
                Some(len_after),
            ),
            Event::QueueReset { queue_id } => {
                let from_isr = b.in_isr(core);
                b.queue_op(t, core, queue_id, QueueOpKind::Reset, from_isr, None)
            }
            Event::CurtaskBlockOnQueuePeek { queue_id, .. } => b.current_task_announces(
                t,
                core,
                TaskStateKind::Blocked,
                StateReason::QueuePeek,
                Some(queue_id),
            ),
            Event::CurtaskBlockOnQueueSend { queue_id, .. } => b.current_task_announces(
                t,
                core,
                TaskStateKind::Blocked,
                StateReason::QueueSend,
                Some(queue_id),
            ),
            Event::CurtaskBlockOnQueueReceive { queue_id, .. } => b.current_task_announces(
                t,
                core,
                TaskStateKind::Blocked,
                StateReason::QueueReceive,
                Some(queue_id),
            ),
            Event::QueueCurLength { queue_id, length } => {
                let from_isr = b.in_isr(core);
                b.queue_op(
                    t,
                    core,
                    queue_id,
                    QueueOpKind::Level,
                    from_isr,
                    Some(length),
                )
            }
            Event::TaskEvtmarker { evtmarker_id, msg } => {
                if let Some(task) = self.marker_task(t, core, "a task-local marker") {
                    let msg = self.b.intern(msg);
                    self.b.marker_instant(t, evtmarker_id, Some(task), msg);
                }
            }
            Event::TaskEvtmarkerBegin { evtmarker_id, msg } => {
                if let Some(task) = self.marker_task(t, core, "a task-local marker began") {
                    let msg = self.b.intern(msg);
                    self.b.marker_begin(t, evtmarker_id, Some(task), msg);
                }
            }
            Event::TaskEvtmarkerEnd { evtmarker_id } => {
                if let Some(task) = self.marker_task(t, core, "a task-local marker ended") {
                    self.b.marker_end(t, core, evtmarker_id, Some(task));
                }
            }
            Event::TaskValmarker { valmarker_id, val } => {
                if let Some(task) = self.marker_task(t, core, "a task-local value") {
                    self.b.marker_value(t, valmarker_id, Some(task), val);
                }
            }
            Event::CoreId { .. }
            | Event::TsResolutionNs { .. }
            | Event::IsrName { .. }
            | Event::EvtmarkerName { .. }
            | Event::ValmarkerName { .. }
            | Event::TaskName { .. }
            | Event::TaskIsIdleTask { .. }
            | Event::TaskIsTimerTask { .. }
            | Event::QueueName { .. }
            | Event::QueueKind { .. }
            | Event::TaskEvtmarkerName { .. }
            | Event::TaskValmarkerName { .. }
            | Event::EventGroupName { .. }
            | Event::StreamBufferName { .. }
            | Event::TimerName { .. }
            | Event::HeapName { .. }
            | Event::TaskStackSize { .. } => {}
            Event::HeapAlloc {
                heap_id,
                addr: 0,
                size,
            } => b.heap_alloc_failed(t, core, heap_id, size),
            Event::HeapAlloc {
                heap_id,
                addr,
                size,
            } => b.heap_alloc(t, core, heap_id, addr, size),
            Event::HeapFree {
                heap_id,
                addr,
                size,
            } => b.heap_free(t, core, heap_id, addr, (size != 0).then_some(size)),
            Event::TaskStackFree { task_id, free } => b.stack_margin(t, task_id, free),
            Event::DefmtFrame { frame } => b.log_frame(t, core, frame),
            Event::Fault { kind, pc, lr } => b.fault(t, core, kind, pc, lr),
            Event::FaultStatus { xpsr, cfsr, hfsr } => {
                b.fault_status(core, FaultStatus { xpsr, cfsr, hfsr })
            }
            Event::FaultAddress { mmfar, bfar } => {
                b.fault_address(core, FaultAddress { mmfar, bfar })
            }
            Event::TaskNotify { .. }
            | Event::TaskNotifyFromIsr { .. }
            | Event::CurtaskNotifyTake { .. }
            | Event::CurtaskBlockOnNotify { .. }
            | Event::EventGroupCreated { .. }
            | Event::EventGroupSetBits { .. }
            | Event::EventGroupSetBitsFromIsr { .. }
            | Event::EventGroupClearBits { .. }
            | Event::EventGroupClearBitsFromIsr { .. }
            | Event::CurtaskBlockOnEventGroup { .. }
            | Event::CurtaskEventGroupWaitEnd { .. }
            | Event::StreamBufferCreated { .. }
            | Event::StreamBufferSend { .. }
            | Event::StreamBufferSendFromIsr { .. }
            | Event::StreamBufferReceive { .. }
            | Event::StreamBufferReceiveFromIsr { .. }
            | Event::StreamBufferReset { .. }
            | Event::CurtaskBlockOnStreamBuffer { .. }
            | Event::TimerCreated { .. }
            | Event::TimerCommand { .. }
            | Event::TimerExpired { .. } => objects::timed(b, t, core, &rec.event),
        }
    }

    fn invalid(&mut self, at: Position, err: &FrameError) {
        self.invalid += 1;
        let unknown_id = matches!(err, FrameError::Payload(PayloadError::UnknownId(_)));
        let ts_ns = self.b.last_event_on(at.core).unwrap_or(0);
        if let Some(Some(run)) = self.invalid_run.get_mut(at.stream) {
            if run.unknown_id == unknown_id {
                run.count += 1;
                return;
            }
        }
        self.close_invalid_run(at.stream);
        if let Some(slot) = self.invalid_run.get_mut(at.stream) {
            self.open_invalid_runs |= run_bit(at.stream);
            *slot = Some(InvalidRun {
                first_offset: at.offset,
                count: 1,
                ts_ns,
                core: at.core,
                unknown_id,
                reason: err.to_string(),
            });
        }
    }

    #[cold]
    fn time_backwards(&mut self, at: Position, previous_raw: u64, raw: u64) {
        let t = at.ts_ns.unwrap_or(0);
        self.b.anomaly(
            t,
            t,
            Some(at.core),
            AnomalyKind::TimeBackwards,
            1,
            format!(
                "timestamp {raw} at byte {} is lower than the previous {previous_raw} on core {}",
                at.offset, at.core
            ),
        );
    }

    fn progress(&mut self, stream: usize, offset: usize) {
        if let Some(read) = &mut self.progress {
            read.read_to(stream, offset as u64);
        }
    }
}

/// The model's kind for a `queue_kind` enum value (docs/src/format.md).
fn queue_kind(kind: u8) -> QueueKind {
    match kind {
        0 => QueueKind::Queue,
        1 => QueueKind::CountingSemaphore,
        2 => QueueKind::BinarySemaphore,
        3 => QueueKind::Mutex,
        4 => QueueKind::RecursiveMutex,
        5 => QueueKind::QueueSet,
        _ => QueueKind::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tband_model::json::write_json_str;

    const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/tband/");

    /// A handed-on event's fields as they end a line of the canonical JSON
    /// listing.
    fn listed_fields(row: &EventRow<'_>) -> String {
        let mut fields = Vec::new();
        for (name, value) in row.args {
            fields.extend_from_slice(format!(",\"{name}\":").as_bytes());
            match value {
                ArgValue::Int(v) => fields.extend_from_slice(v.to_string().as_bytes()),
                ArgValue::UInt(v) => fields.extend_from_slice(v.to_string().as_bytes()),
                ArgValue::Str(s) => write_json_str(&mut fields, s).unwrap(),
            }
        }
        String::from_utf8(fields).unwrap()
    }

    /// An event as the tests compare it: its time in ns, and its line of the
    /// canonical JSON listing without the raw timestamp.
    type Listed = (Option<u64>, String);

    /// The events handed on while the model of the corpus' `files` (name,
    /// core) is built, in the order they came.
    fn handed_on(files: &[(&str, u32)], decode_thread: DecodeThread) -> (Vec<Listed>, TraceInfo) {
        let bytes: Vec<Vec<u8>> = files
            .iter()
            .map(|(name, _)| std::fs::read(format!("{CORPUS}{name}.bin")).unwrap())
            .collect();
        let streams: Vec<Stream<'_>> = bytes
            .iter()
            .zip(files)
            .map(|(b, &(_, core))| Stream::new(b, core))
            .collect();
        let mut rows = Vec::new();
        let mut keep = |row: &EventRow<'_>| {
            let line = format!("{{\"evt\":\"{}\"{}}}", row.name, listed_fields(row));
            rows.push((row.ts_ns, line));
        };
        let info = TraceInfo::default();
        let model =
            build_model_with_progress(&streams, info, decode_thread, &|_| {}, Some(&mut keep));
        assert_eq!(rows.len() as u64, model.info.events, "one row per event");
        (rows, model.info)
    }

    /// A recording's listing, each line's raw timestamp made ns on `clock`.
    fn listing(name: &str, clock: &TraceInfo) -> Vec<Listed> {
        std::fs::read_to_string(format!("{CORPUS}{name}.expected.jsonl"))
            .unwrap()
            .lines()
            .map(|line| {
                let Some((head, rest)) = line.split_once(",\"ts\":") else {
                    return (None, line.to_string());
                };
                let end = rest.find([',', '}']).unwrap();
                let raw: u64 = rest[..end].parse().unwrap();
                let ns = raw.saturating_sub(clock.first_ts_raw) * clock.ns_per_tick;
                (Some(ns), format!("{head}{}", &rest[end..]))
            })
            .collect()
    }

    #[test]
    fn events_are_handed_on_as_the_listing_lists_them() {
        let (rows, clock) = handed_on(&[("freertos_small", 0)], DecodeThread::Calling);
        let listed = listing("freertos_small", &clock);
        for (i, (row, line)) in rows.iter().zip(&listed).enumerate() {
            assert_eq!(row, line, "line {}", i + 1);
        }
        assert_eq!(rows.len(), listed.len());
        assert_eq!(
            handed_on(&[("freertos_small", 0)], DecodeThread::Second).0,
            rows
        );
    }

    #[test]
    fn the_events_of_several_cores_are_handed_on_merged_in_time_order() {
        let files = [("baremetal_2core_c0", 0), ("baremetal_2core_c1", 1)];
        let (rows, clock) = handed_on(&files, DecodeThread::Second);
        // Each stream's listing in its order, the two interleaved by time.
        let listings: Vec<Vec<Listed>> = files
            .iter()
            .map(|(name, _)| listing(name, &clock))
            .collect();
        let mut next = vec![0; listings.len()];
        let mut last_ns = 0;
        for row in &rows {
            let stream = (0..listings.len())
                .find(|&s| listings[s].get(next[s]) == Some(row))
                .unwrap_or_else(|| panic!("{row:?} is no stream's next line"));
            next[stream] += 1;
            if let Some(ns) = row.0 {
                assert!(ns >= last_ns, "{row:?} comes in time order");
                last_ns = ns;
            }
        }
        assert_eq!(next, listings.iter().map(Vec::len).collect::<Vec<_>>());
        assert_eq!(handed_on(&files, DecodeThread::Calling).0, rows);
    }
}
