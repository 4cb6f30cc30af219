//! What tasks and interrupt handlers do: their programs as lists of
//! operations, which the kernel model executes one by one.

/// Wait forever (`portMAX_DELAY`).
pub const WAIT_FOREVER: u32 = u32::MAX;

/// One step of a task's program. Durations are in timestamp ticks, delays
/// and timeouts in RTOS ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Run for a while without kernel calls.
    Compute {
        min: u64,
        max: u64,
    },
    /// The idle loop: runs until preempted.
    Idle,
    Delay {
        min: u32,
        max: u32,
    },
    /// `vTaskDelayUntil` with a fixed period.
    DelayUntil {
        period: u32,
    },
    /// Send to a queue, give a semaphore or a held mutex. On failure
    /// (timeout) the program goes on at `on_fail`, else at the next op.
    Send {
        queue: u32,
        timeout: u32,
        on_fail: Option<usize>,
    },
    /// Receive from a queue, take a semaphore or a mutex.
    Receive {
        queue: u32,
        timeout: u32,
        on_fail: Option<usize>,
    },
    Peek {
        queue: u32,
        timeout: u32,
    },
    Overwrite {
        queue: u32,
    },
    MarkerBegin {
        id: u32,
        msg: &'static str,
    },
    MarkerEnd {
        id: u32,
    },
    MarkerInstant {
        id: u32,
        msg: &'static str,
    },
    Value {
        id: u32,
    },
    LocalBegin {
        id: u32,
        msg: &'static str,
    },
    LocalEnd {
        id: u32,
    },
    LocalInstant {
        id: u32,
        msg: &'static str,
    },
    LocalValue {
        id: u32,
    },
    /// Names a task-local event marker at run time (inline metadata).
    RegisterLocalMarker {
        id: u32,
        name: &'static str,
    },
    SuspendSelf,
    DeleteSelf,
    /// Suspend another task if it is ready or delayed.
    Suspend {
        task: u32,
    },
    Resume {
        task: u32,
    },
    /// Switch another task's priority between two values.
    TogglePriority {
        task: u32,
        low: u32,
        high: u32,
    },
    /// Create a short-lived task running [`short_lived_program`].
    Spawn,
    /// Resume or delete this task's suspended children.
    ReapChildren,
}

/// One step of an interrupt handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IsrOp {
    /// The RTOS tick: wake delayed tasks, time slicing.
    Tick,
    /// Inter-core interrupt: reschedule this core.
    Yield,
    Send {
        queue: u32,
    },
    Overwrite {
        queue: u32,
    },
    Receive {
        queue: u32,
    },
    Resume {
        task: u32,
    },
    Value {
        id: u32,
    },
    Instant {
        id: u32,
        msg: &'static str,
    },
    SpanBegin {
        id: u32,
        msg: &'static str,
    },
    SpanEnd {
        id: u32,
    },
}

/// The local event marker every short-lived task names for itself.
pub const SHORT_LIVED_MARKER: (u32, &str) = (0, "tmp");

/// What a short-lived task does: announce itself, work, suspend until its
/// creator resumes it, work again and delete itself.
pub fn short_lived_program(us: impl Fn(u64) -> u64) -> Vec<Op> {
    let (id, name) = SHORT_LIVED_MARKER;
    vec![
        Op::RegisterLocalMarker { id, name },
        Op::LocalInstant { id, msg: "tmp run" },
        Op::Compute {
            min: us(20),
            max: us(200),
        },
        Op::SuspendSelf,
        Op::LocalBegin {
            id,
            msg: "tmp work",
        },
        Op::Compute {
            min: us(10),
            max: us(100),
        },
        Op::LocalEnd { id },
        Op::LocalInstant {
            id,
            msg: "tmp exit",
        },
        Op::DeleteSelf,
    ]
}
