//! The RTOS objects beside queues: task notifications, event groups,
//! stream and message buffers, software timers. Each kind has its list of
//! objects (by id) and its table of operations (by time).

/// Notifications and the objects' operations, in the [`Model`](crate::Model).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RtosObjects {
    /// By time.
    pub notifications: Vec<Notification>,
    /// By group id.
    pub event_groups: Vec<EventGroup>,
    pub event_group_ops: Vec<EventGroupOp>,
    /// By buffer id.
    pub stream_buffers: Vec<StreamBuffer>,
    pub stream_buffer_ops: Vec<StreamBufferOp>,
    /// By timer id.
    pub timers: Vec<Timer>,
    pub timer_ops: Vec<TimerOp>,
}

impl RtosObjects {
    /// Whether the trace has none of these objects or operations.
    pub fn is_empty(&self) -> bool {
        self.notifications.is_empty()
            && self.event_groups.is_empty()
            && self.event_group_ops.is_empty()
            && self.stream_buffers.is_empty()
            && self.stream_buffer_ops.is_empty()
            && self.timers.is_empty()
            && self.timer_ops.is_empty()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NotificationOp {
    /// A task (or ISR) notified `task_id`.
    Given,
    /// `task_id` read its notification value.
    Taken,
}

impl NotificationOp {
    pub fn as_str(self) -> &'static str {
        match self {
            NotificationOp::Given => "given",
            NotificationOp::Taken => "taken",
        }
    }
}

/// A direct-to-task notification given or taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Notification {
    pub ts_ns: u64,
    /// The notified task, or the task that took its notification.
    pub task_id: u32,
    pub op: NotificationOp,
    /// Given: the notification value after it; taken: the value read.
    pub value: u32,
    pub from_isr: bool,
    /// Given: the task that notified (none from an ISR or when unknown).
    pub by_task_id: Option<u32>,
    pub core_id: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventGroup {
    pub group_id: u32,
    /// The name the trace gave, or `event group <id>`.
    pub name: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventGroupOpKind {
    /// `bits` were set.
    Set,
    /// `bits` were cleared.
    Clear,
    /// A task's wait ended; `bits` are the group's bits it returned.
    WaitEnd,
}

impl EventGroupOpKind {
    pub const ALL: [EventGroupOpKind; 3] = [
        EventGroupOpKind::Set,
        EventGroupOpKind::Clear,
        EventGroupOpKind::WaitEnd,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventGroupOpKind::Set => "set",
            EventGroupOpKind::Clear => "clear",
            EventGroupOpKind::WaitEnd => "wait_end",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventGroupOp {
    pub ts_ns: u64,
    /// The event group, as an index into [`RtosObjects::event_groups`].
    pub group: u32,
    pub op: EventGroupOpKind,
    pub bits: u32,
    pub from_isr: bool,
    /// The task that did it, as an index into
    /// [`Model::tasks`](crate::Model::tasks) (none from an ISR or when
    /// unknown).
    pub task: Option<u32>,
    pub core_id: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamBufferKind {
    Stream,
    Message,
    /// A stream batching buffer (FreeRTOS V11.1).
    Batching,
}

impl StreamBufferKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StreamBufferKind::Stream => "stream_buffer",
            StreamBufferKind::Message => "message_buffer",
            StreamBufferKind::Batching => "batching_buffer",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamBuffer {
    pub buffer_id: u32,
    /// The name the trace gave, or `stream buffer <id>`.
    pub name: String,
    pub kind: StreamBufferKind,
    /// Highest fill level seen, in bytes.
    pub high_water: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamBufferOpKind {
    Send,
    Receive,
    Reset,
    /// The fill level stated outright (at the start of a window of a trace).
    Level,
}

impl StreamBufferOpKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StreamBufferOpKind::Send => "send",
            StreamBufferOpKind::Receive => "receive",
            StreamBufferOpKind::Reset => "reset",
            StreamBufferOpKind::Level => "level",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamBufferOp {
    pub ts_ns: u64,
    /// The buffer, as an index into [`RtosObjects::stream_buffers`].
    pub buffer: u32,
    pub op: StreamBufferOpKind,
    pub from_isr: bool,
    /// The task that did it, as an index into
    /// [`Model::tasks`](crate::Model::tasks) (none from an ISR or when
    /// unknown).
    pub task: Option<u32>,
    pub core_id: u32,
    /// Bytes in the buffer after the operation (a message buffer counts
    /// its length headers too).
    pub bytes_after: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timer {
    pub timer_id: u32,
    /// The name the trace gave, or `timer <id>`.
    pub name: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimerOpKind {
    Created,
    Start,
    Reset,
    Stop,
    ChangePeriod,
    Delete,
    /// A command the model does not know (its number in `command`).
    OtherCommand,
    /// The timer expired and its callback ran.
    Expired,
}

impl TimerOpKind {
    pub const ALL: [TimerOpKind; 8] = [
        TimerOpKind::Created,
        TimerOpKind::Start,
        TimerOpKind::Reset,
        TimerOpKind::Stop,
        TimerOpKind::ChangePeriod,
        TimerOpKind::Delete,
        TimerOpKind::OtherCommand,
        TimerOpKind::Expired,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TimerOpKind::Created => "created",
            TimerOpKind::Start => "start",
            TimerOpKind::Reset => "reset",
            TimerOpKind::Stop => "stop",
            TimerOpKind::ChangePeriod => "change_period",
            TimerOpKind::Delete => "delete",
            TimerOpKind::OtherCommand => "other_command",
            TimerOpKind::Expired => "expired",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerOp {
    pub ts_ns: u64,
    /// The timer, as an index into [`RtosObjects::timers`].
    pub timer: u32,
    pub op: TimerOpKind,
    /// The RTOS's number of a command (FreeRTOS's `tmrCOMMAND_*`).
    pub command: Option<u32>,
    pub from_isr: bool,
    /// The task that did it (the timer task for an expiry), as an index
    /// into [`Model::tasks`](crate::Model::tasks).
    pub task: Option<u32>,
    pub core_id: u32,
}
