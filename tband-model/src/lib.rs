//! The trace model: what happened, as plain tables that every sink reads.
//!
//! Importers (tband, ThreadX, Zephyr CTF, ...) fill these tables through
//! [`ModelBuilder`]; nothing here knows about a wire format. Rows refer to
//! tasks, ISRs, markers, queues and RTOS objects by their index in the
//! entity's table, never by pointer; firmware ids are columns of those
//! tables only. Times are nanoseconds since the first
//! event of the trace. Intervals still open when the trace ends are closed at
//! its last timestamp and flagged `truncated`. The tables are documented for
//! users in docs/src/model.md; their shape is the SQL schema.

pub mod analysis;
mod builder;
mod column;
mod columns;
mod event_row;
mod fault;
mod id_index;
mod import;
pub mod json;
mod lanes;
mod lifetimes;
mod logs;
mod memory;
mod pages;
mod rtos_objects;
pub mod rules;
mod strings;
pub mod summary;
mod table;
pub mod timeline;
mod tracked;
mod window;

use column::small_enum;

pub use builder::ModelBuilder;
pub use event_row::{ArgValue, EventRow, EventSink};
pub use fault::{fault_kind_name, Fault, FaultAddress, FaultStatus};
pub use id_index::{IdIndex, IdMap, Key};
pub use import::{Import, ReadProgress, ReadTeller};
pub use lifetimes::LifetimeBuilder;
pub use logs::{LogDecoder, LogLevel, LogLine, LogMessage};
pub use memory::{FailedAllocation, Heap, HeapBlock, HeapLevel, Memory, StackMargin};
pub use rtos_objects::{
    EventGroup, EventGroupOp, EventGroupOpKind, Notification, NotificationOp, RtosObjects,
    StreamBuffer, StreamBufferKind, StreamBufferOp, StreamBufferOpKind, Timer, TimerOp,
    TimerOpKind,
};
pub use strings::{StrId, Strings};
pub use table::{IntoIter, Iter, Row, Table};
pub use tracked::{
    Actor, CounterValue, TrackedCounter, TrackedKey, TrackedLifetime, TrackedMark, TrackedObjects,
    TrackedPool,
};

/// Facts about the trace as a whole.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceInfo {
    /// The input format (`tband`, `threadx`, `ctf`).
    pub format: String,
    /// The input files, as named by the user.
    pub sources: Vec<String>,
    /// Nanoseconds per timer tick.
    pub ns_per_tick: u64,
    /// Whether the trace stated its timer resolution (else 1 ns is assumed).
    pub ns_per_tick_known: bool,
    /// Raw timestamp of the first event (time 0 of the model).
    pub first_ts_raw: u64,
    /// Time of the last event, in ns since the first.
    pub duration_ns: u64,
    /// Events that decoded, and frames or records that did not.
    pub events: u64,
    pub invalid_frames: u64,
    /// Which way the RTOS counts task priorities.
    pub priority_order: PriorityOrder,
}

/// Which way an RTOS counts task priorities: FreeRTOS counts up towards
/// the most important task, ThreadX and Zephyr count down (0 is the most
/// important), as Linux and Perfetto do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PriorityOrder {
    HigherIsMoreImportant,
    #[default]
    LowerIsMoreImportant,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Core {
    pub core_id: u32,
    /// Its idle task, as an index into [`Model::tasks`].
    pub idle_task: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskKind {
    Normal,
    /// A core's idle task: time in it is idle time, not load.
    Idle,
    /// The RTOS timer service task.
    Timer,
}

impl TaskKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskKind::Normal => "normal",
            TaskKind::Idle => "idle",
            TaskKind::Timer => "timer",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    pub task_id: u32,
    /// The name the trace gave, or `task <id>` when it gave none.
    pub name: String,
    pub kind: TaskKind,
    pub created_ns: Option<u64>,
    pub deleted_ns: Option<u64>,
    /// Stack size in bytes, where the format records it.
    pub stack_size: Option<u32>,
    /// Whether it was ever blocked or suspended (see [`TaskStateKind::is_waiting`]).
    pub ever_waited: bool,
}

impl Task {
    /// A task of which nothing is known but its id, name and kind.
    pub fn new(task_id: u32, name: impl Into<String>, kind: TaskKind) -> Task {
        Task {
            task_id,
            name: name.into(),
            kind,
            created_ns: None,
            deleted_ns: None,
            stack_size: None,
            ever_waited: false,
        }
    }
}

/// One stretch of time a task ran on a core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchedSlice {
    pub start_ns: u64,
    pub end_ns: u64,
    /// The task, as an index into [`Model::tasks`].
    pub task: u32,
    pub core_id: u32,
    /// The state the task is in when the slice ends, and why: that of the
    /// last of its task states to start at or before `end_ns` (running for
    /// a task that ran again at that instant, on this core or another).
    /// None for a truncated slice.
    pub end_state: Option<TaskStateKind>,
    pub end_reason: StateReason,
    pub truncated: bool,
}

small_enum! {
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum TaskStateKind {
        Running,
        Ready,
        Blocked,
        Suspended,
        Deleted,
    }
}

impl TaskStateKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStateKind::Running => "running",
            TaskStateKind::Ready => "ready",
            TaskStateKind::Blocked => "blocked",
            TaskStateKind::Suspended => "suspended",
            TaskStateKind::Deleted => "deleted",
        }
    }

    /// Whether a task in this state waits: blocked or suspended.
    pub fn is_waiting(self) -> bool {
        matches!(self, TaskStateKind::Blocked | TaskStateKind::Suspended)
    }
}

small_enum! {
    /// Why a task is in its state.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum StateReason {
        /// Nothing more is known.
        None,
        /// Ready because a higher-priority task (or a yield) took the core.
        Preempted,
        /// Ready because something made it ready (an event, a resume, a timeout).
        Woken,
        /// Ready because it was just created.
        Created,
        Delay,
        DelayUntil,
        /// Blocked sending to / receiving from / peeking a queue (`queue` says which).
        QueueSend,
        QueueReceive,
        QueuePeek,
        /// Blocked on a semaphore, mutex or event flags (formats that distinguish them).
        Semaphore,
        Mutex,
        EventFlags,
        /// Sleeping for a time (formats without separate delay kinds).
        Sleep,
        /// Suspended by itself or another task.
        Suspend,
        Deleted,
    }
}

impl StateReason {
    pub fn as_str(self) -> &'static str {
        match self {
            StateReason::None => "",
            StateReason::Preempted => "preempted",
            StateReason::Woken => "woken",
            StateReason::Created => "created",
            StateReason::Delay => "delay",
            StateReason::DelayUntil => "delay_until",
            StateReason::QueueSend => "queue_send",
            StateReason::QueueReceive => "queue_receive",
            StateReason::QueuePeek => "queue_peek",
            StateReason::Semaphore => "semaphore",
            StateReason::Mutex => "mutex",
            StateReason::EventFlags => "event_flags",
            StateReason::Sleep => "sleep",
            StateReason::Suspend => "suspended",
            StateReason::Deleted => "deleted",
        }
    }
}

/// One stretch of time a task spent in one state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskState {
    pub start_ns: u64,
    pub end_ns: u64,
    /// The task, as an index into [`Model::tasks`].
    pub task: u32,
    pub state: TaskStateKind,
    pub reason: StateReason,
    /// The queue a blocked task waits on, as an index into [`Model::queues`].
    pub queue: Option<u32>,
    /// The core a running task runs on.
    pub core_id: Option<u32>,
    /// For a ready state: the ISR that made the task ready, if one did, as
    /// an index into [`Model::isrs`].
    pub woken_by_isr: Option<u32>,
    pub truncated: bool,
}

small_enum! {
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum PriorityCause {
        Set,
        Inherit,
        Disinherit,
    }
}

impl PriorityCause {
    pub fn as_str(self) -> &'static str {
        match self {
            PriorityCause::Set => "set",
            PriorityCause::Inherit => "inherit",
            PriorityCause::Disinherit => "disinherit",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskPriority {
    pub ts_ns: u64,
    /// The task, as an index into [`Model::tasks`].
    pub task: u32,
    pub priority: u32,
    pub cause: PriorityCause,
}

/// ISR ids are per core.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IsrKey {
    pub core_id: u32,
    pub isr_id: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Isr {
    pub core_id: u32,
    pub isr_id: u32,
    /// The name the trace gave, or `isr <id>`.
    pub name: String,
}

/// One execution of an ISR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IsrSlice {
    pub start_ns: u64,
    pub end_ns: u64,
    pub core_id: u32,
    /// The ISR, as an index into [`Model::isrs`].
    pub isr: u32,
    /// 0 for an ISR that interrupted task code, 1 for one nested in that, ...
    pub depth: u32,
    pub truncated: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MarkerKind {
    /// Instants and spans with messages.
    Event,
    /// Integer values over time.
    Value,
}

impl MarkerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MarkerKind::Event => "event",
            MarkerKind::Value => "value",
        }
    }
}

/// A marker track: global (`task_id` none) or local to one task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marker {
    pub marker_id: u32,
    /// The id of the task it is local to (a task the trace may not know
    /// otherwise); none for a global marker.
    pub task_id: Option<u32>,
    pub kind: MarkerKind,
    /// The name the trace gave, or `marker <id>`.
    pub name: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MarkerSpan {
    pub start_ns: u64,
    pub end_ns: u64,
    /// The marker, as an index into [`Model::markers`].
    pub marker: u32,
    pub msg: StrId,
    /// Nesting depth on its track (0 = outermost).
    pub depth: u32,
    pub truncated: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MarkerInstant {
    pub ts_ns: u64,
    /// The marker, as an index into [`Model::markers`].
    pub marker: u32,
    pub msg: StrId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MarkerValue {
    pub ts_ns: u64,
    /// The marker, as an index into [`Model::markers`].
    pub marker: u32,
    pub value: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueueKind {
    Queue,
    CountingSemaphore,
    BinarySemaphore,
    Mutex,
    RecursiveMutex,
    QueueSet,
    EventFlags,
    Unknown,
}

impl QueueKind {
    pub fn as_str(self) -> &'static str {
        match self {
            QueueKind::Queue => "queue",
            QueueKind::CountingSemaphore => "counting_semaphore",
            QueueKind::BinarySemaphore => "binary_semaphore",
            QueueKind::Mutex => "mutex",
            QueueKind::RecursiveMutex => "recursive_mutex",
            QueueKind::QueueSet => "queue_set",
            QueueKind::EventFlags => "event_flags",
            QueueKind::Unknown => "unknown",
        }
    }

    pub fn is_mutex(self) -> bool {
        matches!(self, QueueKind::Mutex | QueueKind::RecursiveMutex)
    }
}

/// A queue, semaphore, mutex or other synchronisation object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Queue {
    pub queue_id: u32,
    /// The name the trace gave, or `queue <id>`.
    pub name: String,
    pub kind: QueueKind,
    /// Capacity in items, where the format records it.
    pub capacity: Option<u32>,
    /// Highest fill level seen.
    pub high_water: u32,
}

small_enum! {
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum QueueOpKind {
        /// An item was put in (a semaphore given, a mutex released).
        Send,
        /// An item was put in, replacing the last one.
        Overwrite,
        /// An item was taken out (a semaphore taken, a mutex locked).
        Receive,
        /// The queue was emptied.
        Reset,
        /// The fill level was stated outright.
        Level,
    }
}

impl QueueOpKind {
    pub fn as_str(self) -> &'static str {
        match self {
            QueueOpKind::Send => "send",
            QueueOpKind::Overwrite => "overwrite",
            QueueOpKind::Receive => "receive",
            QueueOpKind::Reset => "reset",
            QueueOpKind::Level => "level",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueOp {
    pub ts_ns: u64,
    /// The queue, as an index into [`Model::queues`].
    pub queue: u32,
    pub op: QueueOpKind,
    pub from_isr: bool,
    /// The task that did it, as an index into [`Model::tasks`] (none from
    /// an ISR or when unknown).
    pub task: Option<u32>,
    pub core_id: u32,
    /// Items in the queue after the operation, where known.
    pub len_after: Option<u32>,
}

/// A task holding a mutex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MutexHold {
    pub start_ns: u64,
    pub end_ns: u64,
    /// The mutex, as an index into [`Model::queues`].
    pub queue: u32,
    /// The holder, as an index into [`Model::tasks`].
    pub task: u32,
    pub truncated: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AnomalyKind {
    /// The tracer lost events (count = how many) just before `end_ns`.
    DroppedEvents,
    /// Bytes that are not a valid frame or record (count = how many).
    InvalidFrame,
    /// A frame with an id the format does not define.
    UnknownEvent,
    /// A timestamp lower than the one before it on the same core.
    TimeBackwards,
    /// An end (ISR exit, marker end) with no matching begin.
    EndWithoutBegin,
    /// A begin whose end never came before the trace ended.
    NeverClosed,
    /// An event that needs the running task when none is known.
    NoCurrentTask,
    /// Metadata names a core whose event stream is not in the inputs.
    MissingCoreStream,
    /// The trace does not say how long a tick is; 1 ns was assumed.
    NoTimerResolution,
    /// A free of an address no block of the heap was allocated at.
    UnknownFree,
    /// A free of a block that was already freed.
    DoubleFree,
    /// A free whose size is not the size the block was allocated with.
    FreeSizeMismatch,
    /// Log frames that could not be decoded (count = how many).
    UndecodedLogs,
    /// Anything else an importer found inconsistent (detail says what).
    Inconsistent,
    /// The firmware crashed: its fault handler recorded a fault (see
    /// [`Model::faults`]).
    Fault,
}

impl AnomalyKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AnomalyKind::DroppedEvents => "dropped_events",
            AnomalyKind::InvalidFrame => "invalid_frame",
            AnomalyKind::UnknownEvent => "unknown_event",
            AnomalyKind::TimeBackwards => "time_backwards",
            AnomalyKind::EndWithoutBegin => "end_without_begin",
            AnomalyKind::NeverClosed => "never_closed",
            AnomalyKind::NoCurrentTask => "no_current_task",
            AnomalyKind::MissingCoreStream => "missing_core_stream",
            AnomalyKind::NoTimerResolution => "no_timer_resolution",
            AnomalyKind::UnknownFree => "unknown_free",
            AnomalyKind::DoubleFree => "double_free",
            AnomalyKind::FreeSizeMismatch => "free_size_mismatch",
            AnomalyKind::UndecodedLogs => "undecoded_logs",
            AnomalyKind::Inconsistent => "inconsistent",
            AnomalyKind::Fault => "fault",
        }
    }
}

/// Something wrong with the trace, placed where it was found. A region
/// (`start_ns < end_ns`) is where the trace may be inconsistent, e.g. between
/// the last event before a loss and the event that reported it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Anomaly {
    pub start_ns: u64,
    pub end_ns: u64,
    pub core_id: Option<u32>,
    pub kind: AnomalyKind,
    pub count: u64,
    pub detail: String,
}

/// The whole model. Tables are sorted by time (start) unless noted; the
/// large ones are [`Table`]s, which store their rows in columns and yield
/// them by value.
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub info: TraceInfo,
    pub strings: Strings,
    /// By core id.
    pub cores: Vec<Core>,
    /// By task id.
    pub tasks: Vec<Task>,
    pub sched_slices: Table<SchedSlice>,
    pub task_states: Table<TaskState>,
    pub task_priorities: Table<TaskPriority>,
    /// By core, then ISR id.
    pub isrs: Vec<Isr>,
    pub isr_slices: Table<IsrSlice>,
    /// By task (global first), kind, then marker id.
    pub markers: Vec<Marker>,
    pub marker_spans: Table<MarkerSpan>,
    pub marker_instants: Table<MarkerInstant>,
    pub marker_values: Table<MarkerValue>,
    /// By queue id.
    pub queues: Vec<Queue>,
    pub queue_ops: Table<QueueOp>,
    pub mutex_holds: Table<MutexHold>,
    pub anomalies: Vec<Anomaly>,
    /// What the lifetime rules made of the trace's events.
    pub tracked: TrackedObjects,
    /// Notifications, event groups, stream buffers, timers.
    pub rtos_objects: RtosObjects,
    /// Heaps, their blocks, and the stack tasks have left.
    pub memory: Memory,
    /// What the firmware logged, by time.
    pub logs: Vec<LogLine>,
    /// Crashes, by time.
    pub faults: Vec<Fault>,
}

impl Model {
    /// The task with firmware id `task_id`, for what names tasks by id: a
    /// marker's owner, the RTOS objects' rows and tracked objects' actors
    /// (which may name a task the trace does not otherwise know).
    pub fn task_by_id(&self, task_id: u32) -> Option<&Task> {
        self.tasks
            .binary_search_by_key(&task_id, |t| t.task_id)
            .ok()
            .map(|i| &self.tasks[i])
    }

    /// The ISR with firmware key `key`, for what names ISRs by key: tracked
    /// objects' actors.
    pub fn isr(&self, key: IsrKey) -> Option<&Isr> {
        self.isrs
            .binary_search_by_key(&key, |i| IsrKey {
                core_id: i.core_id,
                isr_id: i.isr_id,
            })
            .ok()
            .map(|i| &self.isrs[i])
    }

    /// Whether the task at index `task` of [`Model::tasks`] is some core's
    /// idle task.
    pub fn is_idle(&self, task: u32) -> bool {
        self.tasks
            .get(task as usize)
            .is_some_and(|t| t.kind == TaskKind::Idle)
    }

    /// Total anomalies of one kind (summing their counts).
    pub fn anomaly_count(&self, kind: AnomalyKind) -> u64 {
        self.anomalies
            .iter()
            .filter(|a| a.kind == kind)
            .map(|a| a.count)
            .sum()
    }
}
