//! What a TraceRecorder recording means: the importer that turns its
//! events into model-builder calls.
//!
//! The recorder names objects by their address (the handle); a task, an
//! ISR, a queue (semaphores and mutexes are queues to FreeRTOS), an event
//! group, a stream buffer or a timer gets a dense model id of its kind in
//! the order it first appears. Who runs is said by task-activate events (a
//! switch, or the return from the outermost ISR to a task) and ISR events
//! (begin, and resume of the ISR an inner one interrupted). Blocking is
//! announced by the running task's `*_BLOCK`, delay and suspend events.

use std::collections::HashMap;

use trace_recorder_parser::streaming::event::{Event, EventCode};
use trace_recorder_parser::streaming::RecorderData;

use super::clock::Clock;
use super::ids;
use super::raw_events::hand_event;
use super::stream::{Framed, RawEvent, Stream};
use super::Recording;
use tband_model::{
    AnomalyKind, EventGroupOpKind, EventSink, Import, MarkerKind, Model, ModelBuilder,
    PriorityCause, PriorityOrder, QueueKind, QueueOpKind, ReadProgress, ReadTeller, StateReason,
    StreamBufferKind, StreamBufferOpKind, TaskKind, TaskStateKind, TimerOpKind, TraceInfo,
};

/// The recorder's FreeRTOS port traces one core here.
const CORE: u32 = 0;
/// The heap the FreeRTOS port's malloc and free events are about.
const SYSTEM_HEAP: u32 = 0;
/// The handle the recorder gives the code that runs before the first
/// task, `(startup)`.
const STARTUP_HANDLE: u32 = 2;
/// The names FreeRTOS gives its idle and timer service tasks.
const FREERTOS_IDLE_TASK: &str = "IDLE";
const FREERTOS_TIMER_TASK: &str = "Tmr Svc";

/// A TraceRecorder recording as its importer reads it, telling `progress`
/// how many of its bytes it has read.
pub struct TracerecorderImport<'a> {
    pub recording: Recording<'a>,
    pub progress: ReadProgress<'a>,
}

impl Import for TracerecorderImport<'_> {
    fn build_model(&self, info: TraceInfo, events: Option<EventSink<'_>>) -> Model {
        build_model_telling(&self.recording, info.sources, events, self.progress)
    }
}

/// Builds the model of a recording, handing every event to `events` if
/// given.
pub fn build_model(
    recording: &Recording<'_>,
    sources: Vec<String>,
    events: Option<EventSink<'_>>,
) -> Model {
    build_model_telling(recording, sources, events, &|_| {})
}

fn build_model_telling(
    recording: &Recording<'_>,
    sources: Vec<String>,
    mut events: Option<EventSink<'_>>,
    progress: ReadProgress<'_>,
) -> Model {
    let mut importer = Importer::new(recording, sources);
    let mut read = ReadTeller::new(1, progress);
    let little_endian = recording.is_little_endian();
    let bytes = &recording.events;
    for framed in Stream::new(bytes, recording.events_offset, little_endian) {
        match framed {
            Framed::Event(raw) => {
                let t = importer.time(&raw);
                let parsed = importer.parse(&raw);
                if let Some(events) = events.as_deref_mut() {
                    let actor = importer.b.actor(CORE);
                    hand_event(events, &raw, parsed.as_ref(), t, actor, little_endian);
                }
                importer.event(t, &raw, parsed);
                read.read_to(0, (raw.offset + raw.bytes.len()) as u64);
            }
            Framed::Damaged { offset, len } => importer.damage(
                len,
                format!("{len} byte(s) from byte {offset} are no events: not decoded"),
            ),
            Framed::Cut { offset, len } => importer.damage(
                len,
                format!(
                    "the recording ends inside an event: {len} byte(s) from byte {offset} not decoded"
                ),
            ),
            Framed::Restart { offset, len } => importer.damage(
                len,
                format!(
                    "the recorder restarted at byte {offset}: the {len} byte(s) of the new recording are not read"
                ),
            ),
        }
    }
    read.done(recording.bytes.len() as u64);
    importer.finish()
}

/// What a handle names, with its dense model id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Object {
    Task(u32),
    Isr(u32),
    Queue(u32),
    EventGroup(u32),
    StreamBuffer(u32),
    Timer(u32),
}

struct Importer {
    b: ModelBuilder,
    /// The parser's state: the entry table of names, kept up to date.
    parser: RecorderData,
    clock: Clock,
    objects: HashMap<u32, Object>,
    /// How many objects of each kind have ids.
    tasks: u32,
    isrs: u32,
    queues: u32,
    event_groups: u32,
    stream_buffers: u32,
    timers: u32,
    /// Each task's last priority, to record only changes.
    priorities: HashMap<u32, u32>,
    /// Marker ids of user-event channels, by name.
    channels: HashMap<String, u32>,
    lost_total: u64,
    events: u64,
    invalid: u64,
}

impl Importer {
    fn new(recording: &Recording<'_>, sources: Vec<String>) -> Importer {
        let timestamps = &recording.start.timestamp_info;
        let clock = Clock::new(
            timestamps.timer_type,
            timestamps.timer_frequency.get_raw(),
            timestamps.os_tick_rate_hz.get_raw(),
        );
        let hz = clock.hz();
        let info = TraceInfo {
            format: "tracerecorder".into(),
            sources,
            ns_per_tick: (1e9 / hz as f64).round().max(1.0) as u64,
            ns_per_tick_known: timestamps.timer_frequency.get_raw() > 0,
            priority_order: PriorityOrder::HigherIsMoreImportant,
            ..TraceInfo::default()
        };
        let mut b = ModelBuilder::new(info);
        b.core_seen(CORE);
        if timestamps.timer_frequency.get_raw() == 0 {
            b.anomaly(
                0,
                0,
                None,
                AnomalyKind::NoTimerResolution,
                1,
                "the recording's timer frequency is 0: 1 ns per tick assumed".into(),
            );
        }
        let heap = recording.start.system_heap();
        b.set_heap(SYSTEM_HEAP, b"System Heap", Some(heap.max));
        let mut importer = Importer {
            b,
            parser: recording.start.clone(),
            clock,
            objects: HashMap::new(),
            tasks: 0,
            isrs: 0,
            queues: 0,
            event_groups: 0,
            stream_buffers: 0,
            timers: 0,
            priorities: HashMap::new(),
            channels: HashMap::new(),
            lost_total: 0,
            events: 0,
            invalid: 0,
        };
        // Tasks the entry table names already (the recorder's own, and
        // those made before the recording started).
        let tasks: Vec<u32> = (recording.start.entry_table.entries().iter())
            .filter(|(_, e)| e.class == Some(trace_recorder_parser::types::ObjectClass::Task))
            .map(|(h, _)| u32::from(*h))
            .collect();
        for handle in tasks {
            importer.task(handle);
        }
        importer
    }

    fn time(&mut self, raw: &RawEvent<'_>) -> u64 {
        let (t, went_back) = self.clock.at(raw.timestamp);
        if raw.id == ids::NEW_TIME && raw.bytes.len() >= 12 {
            self.clock
                .os_tick(param(raw, 0, self.parser.header.endianness));
        }
        self.b.event_at(CORE, t);
        if went_back {
            self.b.anomaly(
                t,
                t,
                Some(CORE),
                AnomalyKind::TimeBackwards,
                1,
                format!(
                    "event {} (count {}) is stamped before the event before it: given that event's time",
                    raw.id, raw.count
                ),
            );
        }
        t
    }

    /// The parser's reading of the event, or `None` (an anomaly counted)
    /// when it refuses it.
    fn parse(&mut self, raw: &RawEvent<'_>) -> Option<(EventCode, Event)> {
        let mut bytes = raw.bytes;
        match self.parser.read_event(&mut bytes) {
            Ok(parsed) => parsed,
            Err(e) => {
                self.invalid += 1;
                let t = self.b.last_event_on(CORE).unwrap_or(0);
                self.b.anomaly(
                    t,
                    t,
                    Some(CORE),
                    AnomalyKind::InvalidFrame,
                    1,
                    format!(
                        "event {} (count {}) could not be read: {e}",
                        raw.id, raw.count
                    ),
                );
                None
            }
        }
    }

    fn next_id(counter: &mut u32) -> u32 {
        *counter += 1;
        *counter - 1
    }

    fn task(&mut self, handle: u32) -> u32 {
        match self.objects.get(&handle) {
            Some(Object::Task(id)) => *id,
            _ => {
                let id = Self::next_id(&mut self.tasks);
                self.objects.insert(handle, Object::Task(id));
                self.name_object(handle);
                id
            }
        }
    }

    fn isr(&mut self, handle: u32) -> u32 {
        match self.objects.get(&handle) {
            Some(Object::Isr(id)) => *id,
            _ => {
                let id = Self::next_id(&mut self.isrs);
                self.objects.insert(handle, Object::Isr(id));
                self.name_object(handle);
                id
            }
        }
    }

    fn queue(&mut self, handle: u32) -> u32 {
        match self.objects.get(&handle) {
            Some(Object::Queue(id)) => *id,
            _ => {
                let id = Self::next_id(&mut self.queues);
                self.objects.insert(handle, Object::Queue(id));
                self.name_object(handle);
                id
            }
        }
    }

    fn event_group(&mut self, handle: u32) -> u32 {
        match self.objects.get(&handle) {
            Some(Object::EventGroup(id)) => *id,
            _ => {
                let id = Self::next_id(&mut self.event_groups);
                self.objects.insert(handle, Object::EventGroup(id));
                self.b.event_group_created(id);
                self.name_object(handle);
                id
            }
        }
    }

    fn stream_buffer(&mut self, handle: u32) -> u32 {
        match self.objects.get(&handle) {
            Some(Object::StreamBuffer(id)) => *id,
            _ => {
                let id = Self::next_id(&mut self.stream_buffers);
                self.objects.insert(handle, Object::StreamBuffer(id));
                self.name_object(handle);
                id
            }
        }
    }

    fn timer(&mut self, handle: u32) -> u32 {
        match self.objects.get(&handle) {
            Some(Object::Timer(id)) => *id,
            _ => {
                let id = Self::next_id(&mut self.timers);
                self.objects.insert(handle, Object::Timer(id));
                self.name_object(handle);
                id
            }
        }
    }

    fn name_task(&mut self, task: u32, name: &str) {
        self.b.set_task_name(task, name.as_bytes());
        if name == FREERTOS_IDLE_TASK {
            self.b.set_idle_task(CORE, task);
        } else if name == FREERTOS_TIMER_TASK {
            self.b.set_task_kind(task, TaskKind::Timer);
        }
    }

    /// Names the object of `handle` with the entry table's name, if any.
    fn name_object(&mut self, handle: u32) {
        let entries = self.parser.entry_table.entries();
        let entry = entries.iter().find(|(h, _)| u32::from(**h) == handle);
        let Some(name) = entry
            .and_then(|(_, e)| e.symbol.as_ref())
            .map(|s| s.to_string())
        else {
            return;
        };
        match self.objects.get(&handle).copied() {
            Some(Object::Task(id)) => self.name_task(id, &name),
            Some(Object::Isr(id)) => self.b.set_isr_name(CORE, id, name.as_bytes()),
            Some(Object::Queue(id)) => self.b.set_queue_name(id, name.as_bytes()),
            Some(Object::EventGroup(id)) => self.b.set_event_group_name(id, name.as_bytes()),
            Some(Object::StreamBuffer(id)) => self.b.set_stream_buffer_name(id, name.as_bytes()),
            Some(Object::Timer(id)) => self.b.set_timer_name(id, name.as_bytes()),
            None => {}
        }
    }

    fn priority(&mut self, t: u64, task: u32, priority: u32, cause: PriorityCause) {
        if self.priorities.insert(task, priority) != Some(priority) {
            self.b.task_priority(t, task, priority, cause);
        }
    }

    fn queue_created(&mut self, handle: u32, kind: QueueKind, capacity: Option<u32>) {
        let queue = self.queue(handle);
        self.b.queue_created(queue);
        self.b.set_queue_kind(queue, kind);
        if let Some(items) = capacity {
            self.b.set_queue_capacity(queue, items);
        }
        self.name_object(handle);
    }

    fn queue_op(&mut self, t: u64, handle: u32, op: QueueOpKind, from_isr: bool, after: u32) {
        let queue = self.queue(handle);
        self.b.queue_op(t, CORE, queue, op, from_isr, Some(after));
    }

    /// The running task blocks. A RingBuffer dump starts in the middle of
    /// a run: until its first switch the running task is not known, and
    /// what it announces is left out.
    fn blocks(&mut self, t: u64, reason: StateReason, queue: Option<u32>) {
        if self.b.running_task(CORE).is_some() {
            self.b
                .current_task_announces(t, CORE, TaskStateKind::Blocked, reason, queue);
        }
    }

    /// The task of `handle` runs: the ISRs still open have returned. The
    /// code before the scheduler, which the recorder calls `(startup)`,
    /// ends when a task first runs.
    fn activate(&mut self, t: u64, handle: u32) {
        while let Some(isr) = self.b.current_isr(CORE) {
            self.b.isr_exit(t, CORE, isr);
        }
        let task = self.task(handle);
        if handle != STARTUP_HANDLE {
            if let Some(&Object::Task(startup)) = self.objects.get(&STARTUP_HANDLE) {
                if self.b.running_task(CORE) == Some(startup) {
                    self.b.task_deleted(t, startup);
                }
            }
        }
        self.b.task_switched_in(t, CORE, task);
    }

    fn event(&mut self, t: u64, raw: &RawEvent<'_>, parsed: Option<(EventCode, Event)>) {
        self.events += 1;
        if raw.lost_before > 0 {
            self.lost_total += u64::from(raw.lost_before);
            let before = self.b.last_event_on(CORE);
            self.b.dropped_total(t, CORE, self.lost_total, before);
        }
        let Some((_, event)) = parsed else {
            return;
        };
        let h = u32::from;
        match event {
            Event::TraceStart(e) => {
                let task = self.task(h(e.current_task_handle));
                self.name_task(task, &e.current_task);
                self.b.task_switched_in(t, CORE, task);
            }
            Event::ObjectName(e) => self.name_object(h(e.handle)),
            Event::TaskPriority(e) => {
                let task = self.task(h(e.handle));
                self.priority(t, task, e.priority.into(), PriorityCause::Set);
            }
            Event::TaskPriorityInherit(e) => {
                let task = self.task(h(e.handle));
                self.priority(t, task, e.priority.into(), PriorityCause::Inherit);
            }
            Event::TaskPriorityDisinherit(e) => {
                let task = self.task(h(e.handle));
                self.priority(t, task, e.priority.into(), PriorityCause::Disinherit);
            }
            Event::IsrDefine(e) => {
                self.isr(h(e.handle));
                self.name_object(h(e.handle));
            }
            Event::TaskCreate(e) => {
                let task = self.task(h(e.handle));
                self.name_object(h(e.handle));
                self.b.task_created(t, task);
                self.priority(t, task, e.priority.into(), PriorityCause::Set);
            }
            Event::QueueCreate(e) => {
                self.queue_created(h(e.handle), QueueKind::Queue, Some(e.queue_length))
            }
            Event::MutexCreate(e) => {
                self.queue_created(h(e.handle), QueueKind::Mutex, Some(1));
            }
            Event::SemaphoreBinaryCreate(e) => {
                self.queue_created(h(e.handle), QueueKind::BinarySemaphore, Some(1))
            }
            Event::SemaphoreCountingCreate(e) => {
                self.queue_created(h(e.handle), QueueKind::CountingSemaphore, e.count)
            }
            Event::TaskReady(e) => {
                let task = self.task(h(e.handle));
                self.b.task_ready(t, CORE, task);
            }
            Event::IsrBegin(e) => {
                let isr = self.isr(h(e.handle));
                self.b.isr_enter(t, CORE, isr);
            }
            Event::IsrResume(e) => {
                // The inner ISR returned to the one it interrupted.
                let resumed = self.isr(h(e.handle));
                while let Some(isr) = self.b.current_isr(CORE).filter(|&i| i != resumed) {
                    self.b.isr_exit(t, CORE, isr);
                }
            }
            Event::TaskBegin(e) | Event::TaskResume(e) => self.activate(t, h(e.handle)),
            Event::TaskActivate(e) => {
                self.activate(t, h(e.handle));
                // A switch carries the task's priority; a return from an ISR does not.
                if raw.bytes.len() == 16 {
                    let task = self.task(h(e.handle));
                    self.priority(t, task, e.priority.into(), PriorityCause::Set);
                }
            }
            Event::TaskNotifyWaitBlock(_) => self.blocks(t, StateReason::None, None),
            Event::MemoryAlloc(e) => {
                self.b
                    .heap_alloc(t, CORE, SYSTEM_HEAP, e.address.into(), e.size)
            }
            Event::MemoryFree(e) => {
                self.b
                    .heap_free(t, CORE, SYSTEM_HEAP, e.address.into(), Some(e.size))
            }
            Event::QueueSend(e) | Event::QueueSendFront(e) => {
                self.queue_op(t, h(e.handle), QueueOpKind::Send, false, e.messages_waiting)
            }
            Event::QueueSendFromIsr(e) | Event::QueueSendFrontFromIsr(e) => {
                self.queue_op(t, h(e.handle), QueueOpKind::Send, true, e.messages_waiting)
            }
            Event::QueueReceive(e) => self.queue_op(
                t,
                h(e.handle),
                QueueOpKind::Receive,
                false,
                e.messages_waiting,
            ),
            Event::QueueReceiveFromIsr(e) => self.queue_op(
                t,
                h(e.handle),
                QueueOpKind::Receive,
                true,
                e.messages_waiting,
            ),
            Event::QueueSendBlock(e) | Event::QueueSendFrontBlock(e) => {
                let queue = self.queue(h(e.handle));
                self.blocks(t, StateReason::QueueSend, Some(queue));
            }
            Event::QueueReceiveBlock(e) => {
                let queue = self.queue(h(e.handle));
                self.blocks(t, StateReason::QueueReceive, Some(queue));
            }
            Event::QueuePeekBlock(e) => {
                let queue = self.queue(h(e.handle));
                self.blocks(t, StateReason::QueuePeek, Some(queue));
            }
            Event::MutexGive(e) | Event::MutexGiveRecursive(e) => {
                self.queue_op(t, h(e.handle), QueueOpKind::Send, false, 1)
            }
            Event::MutexTake(e) | Event::MutexTakeRecursive(e) => {
                self.queue_op(t, h(e.handle), QueueOpKind::Receive, false, 0)
            }
            Event::MutexTakeBlock(e)
            | Event::MutexTakeRecursiveBlock(e)
            | Event::MutexGiveBlock(e) => {
                let queue = self.queue(h(e.handle));
                self.blocks(t, StateReason::Mutex, Some(queue));
            }
            Event::SemaphoreGive(e) => {
                self.queue_op(t, h(e.handle), QueueOpKind::Send, false, e.count)
            }
            Event::SemaphoreGiveFromIsr(e) => {
                self.queue_op(t, h(e.handle), QueueOpKind::Send, true, e.count)
            }
            Event::SemaphoreTake(e) => {
                self.queue_op(t, h(e.handle), QueueOpKind::Receive, false, e.count)
            }
            Event::SemaphoreTakeFromIsr(e) => {
                self.queue_op(t, h(e.handle), QueueOpKind::Receive, true, e.count)
            }
            Event::SemaphoreTakeBlock(e)
            | Event::SemaphoreGiveBlock(e)
            | Event::SemaphorePeekBlock(e) => {
                let queue = self.queue(h(e.handle));
                self.blocks(t, StateReason::Semaphore, Some(queue));
            }
            Event::EventGroupCreate(e) => {
                self.event_group(h(e.handle));
                self.name_object(h(e.handle));
            }
            Event::EventGroupSetBits(e) => {
                let group = self.event_group(h(e.handle));
                let op = EventGroupOpKind::Set;
                self.b.event_group_op(t, CORE, group, op, e.bits, false);
            }
            Event::EventGroupSetBitsFromIsr(e) => {
                let group = self.event_group(h(e.handle));
                let op = EventGroupOpKind::Set;
                self.b.event_group_op(t, CORE, group, op, e.bits, true);
            }
            Event::EventGroupClearBits(e) => {
                let group = self.event_group(h(e.handle));
                let op = EventGroupOpKind::Clear;
                self.b.event_group_op(t, CORE, group, op, e.bits, false);
            }
            Event::EventGroupClearBitsFromIsr(e) => {
                let group = self.event_group(h(e.handle));
                let op = EventGroupOpKind::Clear;
                self.b.event_group_op(t, CORE, group, op, e.bits, true);
            }
            Event::EventGroupSyncBlock(e) | Event::EventGroupWaitBitsBlock(e) => {
                self.event_group(h(e.handle));
                self.blocks(t, StateReason::EventFlags, None);
            }
            Event::MessageBufferCreate(e) => {
                let buffer = self.stream_buffer(h(e.handle));
                self.b
                    .stream_buffer_created(buffer, StreamBufferKind::Message);
                self.name_object(h(e.handle));
            }
            Event::MessageBufferSend(e) | Event::MessageBufferSendFromIsr(e) => {
                let buffer = self.stream_buffer(h(e.handle));
                let from_isr = raw.id == ids::MESSAGE_BUFFER_SEND_FROM_ISR;
                let op = StreamBufferOpKind::Send;
                let after = e.bytes_in_buffer;
                self.b
                    .stream_buffer_op(t, CORE, buffer, op, from_isr, after);
            }
            Event::MessageBufferReceive(e) | Event::MessageBufferReceiveFromIsr(e) => {
                let buffer = self.stream_buffer(h(e.handle));
                let from_isr = raw.id == ids::MESSAGE_BUFFER_RECEIVE_FROM_ISR;
                let op = StreamBufferOpKind::Receive;
                let after = e.bytes_in_buffer;
                self.b
                    .stream_buffer_op(t, CORE, buffer, op, from_isr, after);
            }
            Event::MessageBufferReset(e) => {
                let buffer = self.stream_buffer(h(e.handle));
                let op = StreamBufferOpKind::Reset;
                self.b.stream_buffer_op(t, CORE, buffer, op, false, 0);
            }
            Event::MessageBufferSendBlock(_) | Event::MessageBufferReceiveBlock(_) => {
                self.blocks(t, StateReason::None, None)
            }
            Event::User(e) => self.user_event(t, e.channel.to_string(), &e.formatted_string),
            Event::Unknown(_) => self.raw_event(t, raw),
            // Read, with nothing of the model's: the timer configuration,
            // notifications (the recorder does not record their values),
            // waits that did not block, peeks, state machines, stack
            // reports.
            Event::TsConfig(_)
            | Event::TaskNotify(_)
            | Event::TaskNotifyFromIsr(_)
            | Event::TaskNotifyWait(_)
            | Event::QueuePeek(_)
            | Event::SemaphorePeek(_)
            | Event::EventGroupSync(_)
            | Event::EventGroupWaitBits(_)
            | Event::StateMachineCreate(_)
            | Event::StateMachineStateCreate(_)
            | Event::StateMachineStateChange(_)
            | Event::UnusedStack(_) => {}
        }
    }

    fn user_event(&mut self, t: u64, channel: String, text: &str) {
        let next = self.channels.len() as u32;
        let marker = *self.channels.entry(channel).or_insert_with_key(|name| {
            self.b
                .set_marker_name(next, None, MarkerKind::Event, name.as_bytes());
            next
        });
        let msg = self.b.intern(text.as_bytes());
        // A channel is global: any task or ISR may print on it.
        self.b.marker_instant(t, marker, None, msg);
    }

    /// The events the parser leaves raw: decoded from their parameters.
    fn raw_event(&mut self, t: u64, raw: &RawEvent<'_>) {
        let endianness = self.parser.header.endianness;
        let p = |i: usize| param(raw, i, endianness);
        let params = (raw.bytes.len() - 8) / 4;
        let needs = match raw.id {
            ids::NEW_TIME_SCHEDULER_SUSPENDED
            | ids::STREAM_BUFFER_SEND_FAILED
            | ids::STREAM_BUFFER_RECEIVE_FAILED
            | ids::STREAM_BUFFER_SEND_FROM_ISR_FAILED
            | ids::STREAM_BUFFER_RECEIVE_FROM_ISR_FAILED
            | ids::FREE_FAILED => 0,
            ids::NEW_TIME
            | ids::TASK_DELAY
            | ids::TASK_DELAY_UNTIL
            | ids::TASK_SUSPEND
            | ids::TASK_RESUME
            | ids::TASK_RESUME_FROM_ISR
            | ids::TASK_DELETE
            | ids::TIMER_CREATE
            | ids::TIMER_DELETE
            | ids::TIMER_START
            | ids::TIMER_RESET
            | ids::TIMER_STOP
            | ids::TIMER_CHANGE_PERIOD
            | ids::TIMER_START_FROM_ISR
            | ids::TIMER_RESET_FROM_ISR
            | ids::TIMER_STOP_FROM_ISR
            | ids::TIMER_CHANGE_PERIOD_FROM_ISR
            | ids::TIMER_EXPIRED
            | ids::STREAM_BUFFER_CREATE
            | ids::STREAM_BUFFER_DELETE
            | ids::MESSAGE_BUFFER_DELETE
            | ids::STREAM_BUFFER_SEND_BLOCK
            | ids::STREAM_BUFFER_RECEIVE_BLOCK
            | ids::STREAM_BUFFER_RESET => 1,
            ids::STREAM_BUFFER_SEND
            | ids::STREAM_BUFFER_RECEIVE
            | ids::STREAM_BUFFER_SEND_FROM_ISR
            | ids::STREAM_BUFFER_RECEIVE_FROM_ISR
            | ids::MALLOC_FAILED => 2,
            id if ids::is_defined(id) => 0,
            id => {
                self.b.anomaly(
                    t,
                    t,
                    Some(CORE),
                    AnomalyKind::UnknownEvent,
                    1,
                    format!(
                        "event id {id} (count {}) is not a TraceRecorder event",
                        raw.count
                    ),
                );
                return;
            }
        };
        if params < needs {
            self.invalid += 1;
            self.b.anomaly(
                t,
                t,
                Some(CORE),
                AnomalyKind::InvalidFrame,
                1,
                format!(
                    "event {} (count {}) has {params} parameter(s), fewer than its {needs}",
                    raw.id, raw.count
                ),
            );
            return;
        }
        match raw.id {
            ids::TASK_DELAY => self.blocks(t, StateReason::Delay, None),
            ids::TASK_DELAY_UNTIL => self.blocks(t, StateReason::DelayUntil, None),
            ids::TASK_SUSPEND => {
                let task = self.task(p(0));
                self.b.task_suspended(t, task);
            }
            ids::TASK_RESUME | ids::TASK_RESUME_FROM_ISR => {
                let task = self.task(p(0));
                self.b.task_ready(t, CORE, task);
            }
            ids::TASK_DELETE => {
                let task = self.task(p(0));
                self.b.task_deleted(t, task);
            }
            ids::TIMER_CREATE => {
                let timer = self.timer(p(0));
                self.name_object(p(0));
                self.b
                    .timer_op(t, CORE, timer, TimerOpKind::Created, None, false);
            }
            ids::TIMER_DELETE => self.timer_op(t, p(0), TimerOpKind::Delete, false),
            ids::TIMER_START => self.timer_op(t, p(0), TimerOpKind::Start, false),
            ids::TIMER_RESET => self.timer_op(t, p(0), TimerOpKind::Reset, false),
            ids::TIMER_STOP => self.timer_op(t, p(0), TimerOpKind::Stop, false),
            ids::TIMER_CHANGE_PERIOD => self.timer_op(t, p(0), TimerOpKind::ChangePeriod, false),
            ids::TIMER_START_FROM_ISR => self.timer_op(t, p(0), TimerOpKind::Start, true),
            ids::TIMER_RESET_FROM_ISR => self.timer_op(t, p(0), TimerOpKind::Reset, true),
            ids::TIMER_STOP_FROM_ISR => self.timer_op(t, p(0), TimerOpKind::Stop, true),
            ids::TIMER_CHANGE_PERIOD_FROM_ISR => {
                self.timer_op(t, p(0), TimerOpKind::ChangePeriod, true)
            }
            ids::TIMER_EXPIRED => self.timer_op(t, p(0), TimerOpKind::Expired, false),
            ids::STREAM_BUFFER_CREATE => {
                let buffer = self.stream_buffer(p(0));
                self.b
                    .stream_buffer_created(buffer, StreamBufferKind::Stream);
                self.name_object(p(0));
            }
            ids::STREAM_BUFFER_SEND => {
                self.stream_buffer_op(t, raw, StreamBufferOpKind::Send, false)
            }
            ids::STREAM_BUFFER_RECEIVE => {
                self.stream_buffer_op(t, raw, StreamBufferOpKind::Receive, false)
            }
            ids::STREAM_BUFFER_SEND_FROM_ISR => {
                self.stream_buffer_op(t, raw, StreamBufferOpKind::Send, true)
            }
            ids::STREAM_BUFFER_RECEIVE_FROM_ISR => {
                self.stream_buffer_op(t, raw, StreamBufferOpKind::Receive, true)
            }
            ids::STREAM_BUFFER_RESET => {
                let buffer = self.stream_buffer(p(0));
                let op = StreamBufferOpKind::Reset;
                self.b.stream_buffer_op(t, CORE, buffer, op, false, 0);
            }
            ids::STREAM_BUFFER_SEND_BLOCK => self.blocks(t, StateReason::None, None),
            ids::STREAM_BUFFER_RECEIVE_BLOCK => self.blocks(t, StateReason::None, None),
            ids::MALLOC_FAILED => self.b.heap_alloc_failed(t, CORE, SYSTEM_HEAP, p(1)),
            // Read, with nothing of the model's: the OS tick (the clock
            // reads it), deletions of buffers, failed operations.
            _ => {}
        }
    }

    fn timer_op(&mut self, t: u64, handle: u32, op: TimerOpKind, from_isr: bool) {
        let timer = self.timer(handle);
        self.b.timer_op(t, CORE, timer, op, None, from_isr);
    }

    fn stream_buffer_op(
        &mut self,
        t: u64,
        raw: &RawEvent<'_>,
        op: StreamBufferOpKind,
        from_isr: bool,
    ) {
        let endianness = self.parser.header.endianness;
        let buffer = self.stream_buffer(param(raw, 0, endianness));
        let after = param(raw, 1, endianness);
        self.b
            .stream_buffer_op(t, CORE, buffer, op, from_isr, after);
    }

    fn damage(&mut self, len: usize, detail: String) {
        self.invalid += 1;
        let t = self.b.last_event_on(CORE).unwrap_or(0);
        self.b.anomaly(
            t,
            t,
            Some(CORE),
            AnomalyKind::InvalidFrame,
            len as u64,
            detail,
        );
    }

    fn finish(mut self) -> Model {
        let info = self.b.info_mut();
        info.events = self.events;
        info.invalid_frames = self.invalid;
        info.first_ts_raw = self.clock.first_count();
        self.b.finish()
    }
}

/// Parameter word `i` of an event.
fn param(
    raw: &RawEvent<'_>,
    i: usize,
    endianness: trace_recorder_parser::types::Endianness,
) -> u32 {
    let at = 8 + 4 * i;
    let b = [
        raw.bytes[at],
        raw.bytes[at + 1],
        raw.bytes[at + 2],
        raw.bytes[at + 3],
    ];
    match endianness {
        trace_recorder_parser::types::Endianness::Little => u32::from_le_bytes(b),
        trace_recorder_parser::types::Endianness::Big => u32::from_be_bytes(b),
    }
}
