//! What a SystemView recording means: the importer that turns its packets
//! into model-builder calls.
//!
//! SystemView records one core. Who runs is said outright: a task starts
//! executing, the OS goes idle, an ISR enters and exits (or exits to the
//! scheduler, whose decision follows as a start or an idle). Tasks are
//! named by their task-info packets; ids in the stream are (shrunk)
//! addresses, given dense model ids in the order they first appear.

use std::collections::HashMap;

use super::events::{BadPayload, Event, Level};
use super::freertos::{is_api_event, Call, IdShrink, Objects};
use super::message::format_message;
use super::packets::Packets;
use super::raw_events::hand_event;
use super::Recording;
use tband_model::{
    AnomalyKind, EventSink, Import, MarkerKind, Model, ModelBuilder, PriorityCause, PriorityOrder,
    ReadProgress, ReadTeller, StateReason, TaskKind, TaskStateKind, TraceInfo,
};

/// SystemView records one core.
const CORE: u32 = 0;
/// Task id of the time the OS reports idle when it has not named an idle
/// task; tasks have ids from 1.
pub const IDLE_TASK_ID: u32 = 0;
/// Marker ids of printed messages, by level, above any a target names
/// with `SEGGER_SYSVIEW_MarkStart` (whose ids are the application's).
pub const LOG_MARKER_ID: u32 = u32::MAX - 2;
pub const WARNING_MARKER_ID: u32 = u32::MAX - 1;
pub const ERROR_MARKER_ID: u32 = u32::MAX;
/// The cause FreeRTOS's integration gives a task-stop-ready packet when
/// the task moves to the suspended list (suspended, or blocked forever).
const FREERTOS_SUSPENDED_CAUSE: u32 = (3 << 3) | 3;
/// The names FreeRTOS gives its timer service task and, unless configured
/// otherwise (configIDLE_TASK_NAME), its idle task.
const FREERTOS_TIMER_TASK: &[u8] = b"Tmr Svc";
const FREERTOS_IDLE_TASK: &[u8] = b"IDLE";

/// A SystemView recording as its importer reads it, telling `progress` how
/// many of its bytes it has read.
pub struct SystemviewImport<'a> {
    pub recording: Recording<'a>,
    pub progress: ReadProgress<'a>,
}

impl Import for SystemviewImport<'_> {
    fn build_model(&self, info: TraceInfo, events: Option<EventSink<'_>>) -> Model {
        build_model_telling(&self.recording, info.sources, events, self.progress)
    }
}

/// Builds the model of a recording, handing every packet to `events` if
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
    let skipped = recording.skipped;
    let mut packets = Packets::new(recording.bytes);
    for packet in packets.by_ref() {
        let t = importer.clock.advance(packet.delta);
        importer.b.event_at(CORE, t);
        match Event::decode(&packet) {
            Ok(event) => {
                if let Some(events) = events.as_deref_mut() {
                    hand_event(events, packet.id, &event, t, importer.b.actor(CORE));
                }
                importer.event(t, &event);
            }
            Err(BadPayload) => importer.bad_payload(t, packet.id, skipped + packet.offset),
        }
        read.read_to(0, (skipped + packet.offset + packet.payload.len()) as u64);
    }
    read.done((skipped + recording.bytes.len()) as u64);
    if let Some(offset) = packets.cut_at() {
        importer.cut(skipped + offset, recording.bytes.len() - offset);
    }
    importer.finish()
}

/// Timer ticks summed from the packets' deltas, in ns since the first packet.
struct Clock {
    ticks: u64,
    first_ticks: Option<u64>,
    hz: Option<u32>,
}

impl Clock {
    /// The time of the packet `delta` ticks after the one before.
    fn advance(&mut self, delta: u32) -> u64 {
        self.ticks += u64::from(delta);
        let since_first = self.ticks - *self.first_ticks.get_or_insert(self.ticks);
        match self.hz {
            Some(hz) => (u128::from(since_first) * 1_000_000_000 / u128::from(hz)) as u64,
            None => since_first,
        }
    }
}

/// Model ids of the stream's task ids, given in the order first seen.
struct TaskIds {
    ids: HashMap<u32, u32>,
    next: u32,
}

impl TaskIds {
    fn get(&mut self, stream_id: u32) -> u32 {
        *self.ids.entry(stream_id).or_insert_with(|| {
            self.next += 1;
            self.next - 1
        })
    }
}

struct Importer {
    b: ModelBuilder,
    clock: Clock,
    tasks: TaskIds,
    /// The task the time the OS reports idle belongs to, once known.
    idle_task: Option<u32>,
    /// The objects FreeRTOS's API events touch, and resource names.
    objects: Objects,
    /// Under FreeRTOS, a task created whose task info has not come yet:
    /// its stream id and creation time.
    created_unnamed: Option<(u32, u64)>,
    os_is_freertos: bool,
    /// Whether the marker of each message level has been named.
    message_markers_named: [bool; 3],
    /// The target's count of packets it could not report, and the model's
    /// running total of lost packets.
    target_drop_count: u32,
    lost_total: u64,
    events: u64,
    invalid: u64,
}

impl Importer {
    fn new(recording: &Recording<'_>, sources: Vec<String>) -> Importer {
        let info = TraceInfo {
            format: "systemview".into(),
            sources,
            ns_per_tick: recording
                .timestamp_hz
                .map_or(1, |hz| (1e9 / f64::from(hz)).round().max(1.0) as u64),
            ns_per_tick_known: recording.timestamp_hz.is_some(),
            ..TraceInfo::default()
        };
        let mut b = ModelBuilder::new(info);
        b.core_seen(CORE);
        if recording.skipped > 0 {
            b.anomaly(
                0,
                0,
                Some(CORE),
                AnomalyKind::InvalidFrame,
                1,
                format!(
                    "the recording starts inside the stream: {} byte(s) before its first sync not decoded",
                    recording.skipped
                ),
            );
        }
        if recording.timestamp_hz.is_none() {
            b.anomaly(
                0,
                0,
                None,
                AnomalyKind::NoTimerResolution,
                1,
                "the recording has no init packet with the timestamp frequency: 1 ns per tick assumed"
                    .into(),
            );
        }
        Importer {
            b,
            clock: Clock {
                ticks: 0,
                first_ticks: None,
                hz: recording.timestamp_hz,
            },
            tasks: TaskIds {
                ids: HashMap::new(),
                next: IDLE_TASK_ID + 1,
            },
            idle_task: None,
            objects: Objects::default(),
            created_unnamed: None,
            os_is_freertos: false,
            message_markers_named: [false; 3],
            target_drop_count: 0,
            lost_total: 0,
            events: 0,
            invalid: u64::from(recording.skipped > 0),
        }
    }

    fn task(&mut self, stream_id: u32) -> u32 {
        self.tasks.get(stream_id)
    }

    /// SEGGER's FreeRTOS integration sends a task's info right after its
    /// creation, except for the idle task, which it reports running with
    /// idle packets: a created task whose info does not follow is the idle
    /// task, numbered in the order of creation as FreeRTOS numbers it.
    fn name_created_task(&mut self, event: &Event<'_>) {
        let Some((stream_id, t)) = self.created_unnamed.take() else {
            return;
        };
        let task = self.task(stream_id);
        if !matches!(*event, Event::TaskInfo { task, .. } if task == stream_id) {
            self.b.set_task_name(task, FREERTOS_IDLE_TASK);
            self.b.set_idle_task(CORE, task);
            self.idle_task = Some(task);
        }
        self.b.task_created(t, task);
    }

    /// The task of the time the OS reports idle: the idle task if known,
    /// else [`IDLE_TASK_ID`], named `Idle`.
    fn idle_task(&mut self) -> u32 {
        let b = &mut self.b;
        *self.idle_task.get_or_insert_with(|| {
            b.set_task_name(IDLE_TASK_ID, b"Idle");
            b.set_idle_task(CORE, IDLE_TASK_ID);
            IDLE_TASK_ID
        })
    }

    fn event(&mut self, t: u64, event: &Event<'_>) {
        self.events += 1;
        self.name_created_task(event);
        match *event {
            Event::Overflow { dropped } => {
                // The packet that filled the buffer is lost too but not in
                // the target's count, which counts the overflow reports
                // that did not fit either.
                let lost = u64::from(dropped.wrapping_sub(self.target_drop_count)) + 1;
                self.target_drop_count = dropped;
                self.lost_total += lost;
                let before = self.b.last_event_on(CORE);
                self.b.dropped_total(t, CORE, self.lost_total, before);
            }
            Event::IsrEnter { isr } => self.b.isr_enter(t, CORE, isr),
            Event::IsrExit | Event::IsrToScheduler => self.isr_exit(t),
            Event::TaskStartExec { task } => {
                let task = self.task(task);
                self.b.task_switched_in(t, CORE, task);
            }
            // Until the next start, no task runs: the model has that as idle.
            Event::TaskStopExec | Event::Idle => {
                let idle = self.idle_task();
                self.b.task_switched_in(t, CORE, idle);
            }
            Event::TaskStartReady { task } => {
                let task = self.task(task);
                self.b.task_ready(t, CORE, task);
            }
            Event::TaskStopReady { task, cause } => self.task_stops_ready(t, task, cause),
            Event::TaskCreate { task } if self.os_is_freertos => {
                self.created_unnamed = Some((task, t));
            }
            Event::TaskCreate { task } => {
                let task = self.task(task);
                self.b.task_created(t, task);
            }
            Event::TaskInfo {
                task,
                priority,
                name,
            } => {
                let task = self.task(task);
                self.b.set_task_name(task, name);
                if self.os_is_freertos && name == FREERTOS_TIMER_TASK {
                    self.b.set_task_kind(task, TaskKind::Timer);
                }
                self.b.task_priority(t, task, priority, PriorityCause::Set);
            }
            Event::TaskTerminate { task } => {
                let task = self.task(task);
                self.b.task_deleted(t, task);
            }
            Event::SystemDescription { text } => self.describe_system(text),
            Event::MarkStart { marker } => {
                let msg = self.b.intern(b"");
                self.b.marker_begin(t, marker, None, msg);
            }
            Event::MarkStop { marker } => self.b.marker_end(t, CORE, marker, None),
            Event::Mark { marker } => {
                let msg = self.b.intern(b"");
                self.b.marker_instant(t, marker, None, msg);
            }
            Event::NameMarker { marker, name } => {
                self.b
                    .set_marker_name(marker, None, MarkerKind::Event, name)
            }
            Event::Print {
                format,
                level,
                ref args,
            } => {
                let (marker, name) = match level {
                    Level::Log => (LOG_MARKER_ID, "log"),
                    Level::Warning => (WARNING_MARKER_ID, "warning"),
                    Level::Error => (ERROR_MARKER_ID, "error"),
                };
                if !self.message_markers_named[level as usize] {
                    self.message_markers_named[level as usize] = true;
                    self.b
                        .set_marker_name(marker, None, MarkerKind::Event, name.as_bytes());
                }
                let msg = self.b.intern(format_message(format, args).as_bytes());
                self.b.marker_instant(t, marker, None, msg);
            }
            Event::Init {
                id_base, id_shift, ..
            } => {
                self.objects.ids = IdShrink {
                    base: id_base,
                    shift: id_shift,
                }
            }
            Event::NameResource { resource, name } => {
                self.objects.name_resource(&mut self.b, resource, name)
            }
            Event::StackInfo {
                task, size, used, ..
            } => {
                let task = self.task(task);
                self.b.set_task_stack_size(task, size);
                // FreeRTOS's integration sends no use (0): nothing measured.
                if used > 0 {
                    self.b.stack_margin(t, task, size.saturating_sub(used));
                }
            }
            Event::HeapDefine { heap, size, .. } => {
                let bytes = size.wrapping_shl(self.objects.ids.shift);
                self.objects.heap_defined(&mut self.b, heap, bytes);
            }
            Event::HeapAlloc {
                heap, addr, size, ..
            } => {
                let bytes = size.wrapping_shl(self.objects.ids.shift);
                if addr == self.objects.ids.shrink(0) {
                    self.b.heap_alloc_failed(t, CORE, heap, bytes);
                } else {
                    let addr = self.objects.ids.address(addr).into();
                    self.b.heap_alloc(t, CORE, heap, addr, bytes);
                }
            }
            Event::HeapFree { heap, addr } => {
                let addr = self.objects.ids.address(addr).into();
                self.b.heap_free(t, CORE, heap, addr, None);
            }
            Event::TimerEnter { timer } => self.objects.timer_entered(&mut self.b, t, CORE, timer),
            Event::Module { id, ref args } if self.os_is_freertos && is_api_event(id) => {
                let call = Call {
                    t,
                    core: CORE,
                    id,
                    args,
                };
                let tasks = &mut self.tasks;
                if !self
                    .objects
                    .call(&mut self.b, &call, &mut |id| tasks.get(id))
                {
                    self.invalid += 1;
                    self.b.anomaly(
                        t,
                        t,
                        Some(CORE),
                        AnomalyKind::InvalidFrame,
                        1,
                        format!("FreeRTOS API event {id}: fewer arguments than its call records"),
                    );
                }
            }
            Event::Module { id, .. } => self.b.anomaly(
                t,
                t,
                Some(CORE),
                AnomalyKind::UnknownEvent,
                1,
                format!("module event {id}: not one of FreeRTOS's API events SystemView records"),
            ),
            Event::Unknown { id } => self.b.anomaly(
                t,
                t,
                Some(CORE),
                AnomalyKind::UnknownEvent,
                1,
                format!("packet id {id} is not a SystemView event"),
            ),
            // Read for the raw events; nothing of the model's.
            Event::TraceStart
            | Event::TraceStop
            | Event::SystemTime
            | Event::TimerExit
            | Event::ModuleDescription
            | Event::DataSample
            | Event::ModuleCount
            | Event::EndCall { .. }
            | Event::Extended { .. } => {}
        }
    }

    fn isr_exit(&mut self, t: u64) {
        match self.b.current_isr(CORE) {
            Some(isr) => self.b.isr_exit(t, CORE, isr),
            None => self.b.anomaly(
                t,
                t,
                Some(CORE),
                AnomalyKind::EndWithoutBegin,
                1,
                "ISR exit while no ISR was entered".into(),
            ),
        }
    }

    /// A task leaves the ready list: suspended, or blocked (the running
    /// task, which leaves Running at the next switch).
    fn task_stops_ready(&mut self, t: u64, task: u32, cause: u32) {
        let task = self.task(task);
        if self.os_is_freertos && cause == FREERTOS_SUSPENDED_CAUSE {
            self.b.task_suspended(t, task);
        } else if self.b.running_task(CORE) == Some(task) {
            self.b
                .current_task_announces(t, CORE, TaskStateKind::Blocked, StateReason::None, None);
        } else {
            self.b.anomaly(
                t,
                t,
                Some(CORE),
                AnomalyKind::Inconsistent,
                1,
                format!("task {task} stopped being ready while not running (cause {cause})"),
            );
        }
    }

    /// The system description's items: the OS (`O=`) and interrupt names
    /// (`I#n=name`).
    fn describe_system(&mut self, text: &[u8]) {
        for item in text.split(|&b| b == b',') {
            let Some(eq) = item.iter().position(|&b| b == b'=') else {
                continue;
            };
            let (key, value) = (&item[..eq], &item[eq + 1..]);
            if key == b"O" {
                self.os_is_freertos = value == b"FreeRTOS";
                if self.os_is_freertos || value == b"embOS" {
                    self.b.info_mut().priority_order = PriorityOrder::HigherIsMoreImportant;
                }
            } else if let Some(number) = key.strip_prefix(b"I#") {
                if let Some(isr) = std::str::from_utf8(number)
                    .ok()
                    .and_then(|n| n.parse().ok())
                {
                    self.b.set_isr_name(CORE, isr, value);
                }
            }
        }
    }

    fn bad_payload(&mut self, t: u64, id: u32, offset: usize) {
        self.invalid += 1;
        self.b.anomaly(
            t,
            t,
            Some(CORE),
            AnomalyKind::InvalidFrame,
            1,
            format!("packet id {id} at byte {offset}: its payload ends inside a value"),
        );
    }

    fn cut(&mut self, offset: usize, len: usize) {
        self.invalid += 1;
        let t = self.b.last_event_on(CORE).unwrap_or(0);
        self.b.anomaly(
            t,
            t,
            Some(CORE),
            AnomalyKind::InvalidFrame,
            1,
            format!(
                "the recording ends inside a packet: {len} byte(s) from byte {offset} not decoded"
            ),
        );
    }

    fn finish(mut self) -> Model {
        // The recording ended before the created task's info could come.
        if let Some((stream_id, t)) = self.created_unnamed.take() {
            let task = self.task(stream_id);
            self.b.task_created(t, task);
        }
        let info = self.b.info_mut();
        info.events = self.events;
        info.invalid_frames = self.invalid;
        info.first_ts_raw = self.clock.first_ticks.unwrap_or(0);
        self.b.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tband_model::{MarkerInstant, QueueKind, QueueOpKind, TimerOpKind};

    /// A recording: the sync, trace start, init at 1 MHz (1 µs a tick),
    /// the system description of a FreeRTOS target, then `packets`.
    fn recording(packets: &[&[u8]]) -> Vec<u8> {
        let mut bytes = vec![0; 10];
        bytes.extend([10, 0]); // trace start
        bytes.extend([24, 8, 0xc0, 0x84, 0x3d, 0xc0, 0x84, 0x3d, 0, 0, 0]); // init: 1 MHz twice
        bytes.extend([14, 10]);
        bytes.extend(b"O=FreeRTOS");
        bytes.push(0);
        for packet in packets {
            bytes.extend(*packet);
        }
        bytes
    }

    fn model(bytes: &[u8]) -> Model {
        build_model(&Recording::read(bytes).unwrap(), Vec::new(), None)
    }

    fn message(model: &Model, instant: &MarkerInstant) -> String {
        model.strings.get(instant.msg).to_string()
    }

    #[test]
    fn an_overflow_counts_the_packets_lost_since_the_one_before() {
        let m = model(&recording(&[
            &[1, 0, 10],  // overflow: the packet that filled the buffer
            &[17, 5],     // idle
            &[1, 3, 100], // overflow: three more the target counted, and one
        ]));
        let lost: Vec<u64> = m
            .anomalies
            .iter()
            .filter(|a| a.kind == AnomalyKind::DroppedEvents)
            .map(|a| a.count)
            .collect();
        assert_eq!(lost, [1, 4]);
    }

    #[test]
    fn messages_are_instants_with_their_text_and_marks_are_spans() {
        let mut print = vec![26, 12, 8];
        print.extend(b"level %d");
        print.extend([2, 1, 7, 3]); // error, one argument: 7; delta 3
        let m = model(&recording(&[
            &[15, 9, 2], // mark start 9
            &print,
            &[16, 9, 4], // mark stop 9
        ]));
        let [instant] = &m.marker_instants.iter().collect::<Vec<_>>()[..] else {
            panic!("one message expected");
        };
        let marker_id = |index: u32| m.markers[index as usize].marker_id;
        assert_eq!(marker_id(instant.marker), ERROR_MARKER_ID);
        assert_eq!(message(&m, instant), "level 7");
        let marker = m.markers.iter().find(|k| k.marker_id == ERROR_MARKER_ID);
        assert_eq!(marker.map(|k| k.name.as_str()), Some("error"));
        let [span] = &m.marker_spans.iter().collect::<Vec<_>>()[..] else {
            panic!("one span expected");
        };
        assert_eq!(
            (marker_id(span.marker), span.end_ns - span.start_ns),
            (9, 7_000)
        );
    }

    #[test]
    fn the_created_task_without_info_is_the_idle_task_under_freertos() {
        let m = model(&recording(&[
            &[8, 0x20, 1],                   // create 0x20
            &[9, 0x20, 3, 2, b'h', b'i', 1], // its info: "hi", priority 3
            &[8, 0x30, 1],                   // create 0x30, no info follows
            &[6, 0x30, 1],                   // 0x30 ready
            &[4, 0x20, 1],                   // 0x20 runs
            &[17, 10],                       // idle
        ]));
        let names: Vec<&str> = m.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["hi", "IDLE"]);
        assert_eq!(m.tasks[1].kind, TaskKind::Idle);
        assert_eq!(m.info.priority_order, PriorityOrder::HigherIsMoreImportant);
    }

    /// A module event of FreeRTOS's integration: id 32 + `api`, `args`,
    /// delta 1.
    fn api(api: u8, args: &[u8]) -> Vec<u8> {
        let id = 32 + api;
        let mut packet = if id < 0x80 {
            vec![id]
        } else {
            vec![id | 0x80, 1]
        };
        packet.push(args.len() as u8);
        packet.extend(args);
        packet.push(1);
        packet
    }

    #[test]
    fn queue_calls_the_level_rules_out_failed_and_registry_names_are_queue_names() {
        let m = model(&recording(&[
            &api(83, &[1, 4, 0]),             // create: one item of 4 bytes
            &api(81, &[0x40, 5]),             // registry: queue 0x40
            &[25, 4, 0x40, 2, b'q', b'1', 1], // its resource name
            &[4, 0x20, 1],                    // task 0x20 runs
            &api(60, &[0x40, 0, 0, 1]),       // receive: empty, failed
            &api(58, &[0x40, 9, 0, 0]),       // send
            &api(58, &[0x40, 9, 0, 0]),       // send: full, failed
            &api(60, &[0x40, 0, 0, 1]),       // receive
            &api(60, &[0x40, 0x30, 0, 1]),    // peek: no operation
        ]));
        let ops: Vec<_> = m.queue_ops.iter().map(|o| (o.op, o.len_after)).collect();
        assert_eq!(
            ops,
            [
                (QueueOpKind::Send, Some(1)),
                (QueueOpKind::Receive, Some(0))
            ]
        );
        let queue = &m.queues[0];
        assert_eq!(queue.name, "q1");
        assert_eq!((queue.kind, queue.capacity), (QueueKind::Queue, Some(1)));
    }

    #[test]
    fn notifications_and_stream_buffer_transfers_keep_their_values() {
        let m = model(&recording(&[
            &[4, 0x20, 1],              // task 0x20 runs
            &api(30, &[0x30, 0, 2, 0]), // notify 0x30: increment
            &api(30, &[0x30, 0, 2, 0]), // and again
            &api(105, &[0, 0x50]),      // stream buffer 0x50
            &api(108, &[0x50, 4]),      // 4 bytes sent
            &api(108, &[0x50, 0]),      // none sent
            &[4, 0x30, 1],              // task 0x30 runs
            &api(34, &[1, 0x7f]),       // takes (clearing): 2
            &api(110, &[0x50, 3]),      // 3 bytes received
        ]));
        let notes = &m.rtos_objects.notifications;
        let values: Vec<u32> = notes.iter().map(|n| n.value).collect();
        assert_eq!(values, [1, 2, 2]);
        let levels: Vec<u32> = m
            .rtos_objects
            .stream_buffer_ops
            .iter()
            .map(|o| o.bytes_after)
            .collect();
        assert_eq!(levels, [4, 1]);
    }

    #[test]
    fn heap_events_are_blocks_of_the_named_heap() {
        let m = model(&recording(&[
            &[25, 5, 0x60, 3, b'h', b'e', b'p', 1], // resource 0x60 is "hep"
            &[31, 6, 2, 0x60, 0x60, 0x80, 0x08, 0, 1], // heap 0x60 of 1024 bytes
            &[31, 4, 3, 0x60, 0x70, 16, 1],         // 16 bytes at 0x70
            &[31, 5, 3, 0x60, 0, 0x80, 0x10, 1],    // 2048 bytes: failed
            &[31, 3, 5, 0x60, 0x70, 1],             // 0x70 freed
        ]));
        let heap = &m.memory.heaps[0];
        assert_eq!((heap.name.as_str(), heap.total_size), ("hep", Some(1024)));
        let blocks: Vec<_> = m.memory.blocks.iter().map(|b| (b.addr, b.size)).collect();
        assert_eq!(blocks, [(0x70, 16)]);
        assert_eq!(m.memory.failed_allocations.len(), 1);
    }

    #[test]
    fn a_timer_entering_its_callback_expired_and_takes_a_later_name() {
        let m = model(&recording(&[
            &[19, 0x70, 1],                   // timer 0x70 enters
            &[20, 1],                         // and exits
            &[25, 4, 0x70, 2, b't', b'1', 1], // its resource name
            &[19, 0x71, 1],                   // timer 0x71, never named
        ]));
        let timers = &m.rtos_objects;
        let ops: Vec<_> = timers.timer_ops.iter().map(|o| (o.timer, o.op)).collect();
        assert_eq!(ops, [(0, TimerOpKind::Expired), (1, TimerOpKind::Expired)]);
        let names: Vec<&str> = timers.timers.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["t1", "0x71"]);
    }

    #[test]
    fn stack_info_gives_the_size_and_a_margin_only_when_used_is_measured() {
        let m = model(&recording(&[
            &[21, 0x20, 0x40, 0x80, 0x08, 0, 1], // task 0x20: 1024 bytes, use unknown
            &[21, 0x20, 0x40, 0x80, 0x08, 100, 1], // 100 of them used
        ]));
        assert_eq!(m.tasks[0].stack_size, Some(1024));
        let margins: Vec<u32> = m
            .memory
            .stack_margins
            .iter()
            .map(|s| s.free_bytes)
            .collect();
        assert_eq!(margins, [924]);
    }

    #[test]
    fn module_events_beyond_the_integrations_and_short_calls_are_counted() {
        let m = model(&recording(&[
            &[0x90, 0x01, 1, 5, 1], // id 144: no FreeRTOS call
            &api(58, &[0x40]),      // a send without its other arguments
        ]));
        let kinds: Vec<AnomalyKind> = m.anomalies.iter().map(|a| a.kind).collect();
        assert_eq!(
            kinds,
            [AnomalyKind::UnknownEvent, AnomalyKind::InvalidFrame]
        );
        assert_eq!(m.info.invalid_frames, 1);
        assert!(m.queue_ops.is_empty());
    }

    #[test]
    fn a_stream_captured_from_its_middle_is_read_from_its_first_sync() {
        let mut bytes = vec![0x44, 0x05, 0x06];
        bytes.extend(vec![0; 10]);
        bytes.extend([24, 8, 0xc0, 0x84, 0x3d, 0xc0, 0x84, 0x3d, 0, 0, 0]); // init
        bytes.extend([17, 5]); // idle
        let recording = Recording::read(&bytes).unwrap();
        assert_eq!(recording.skipped, 3);
        let m = build_model(&recording, Vec::new(), None);
        let skipped: Vec<&str> = m.anomalies.iter().map(|a| a.detail.as_str()).collect();
        assert_eq!(
            skipped,
            ["the recording starts inside the stream: 3 byte(s) before its first sync not decoded"]
        );
        assert_eq!(m.info.invalid_frames, 1);
    }
}
