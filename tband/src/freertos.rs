//! FreeRTOS-style task and queue tracing, and task-local markers. The
//! tracer hands out task and queue ids (from 1) when objects are created;
//! the firmware stores them (FreeRTOS: `uxTaskNumber`, `uxQueueNumber`) and
//! passes them to the other hooks. Compiled to nothing without feature
//! `freertos`.

use crate::global::{cut, event, metadata, next_id, IdSpace};
use crate::Event;

/// Queue kinds of the `queue_kind` event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum QueueKind {
    Queue = 0,
    CountingSemaphore = 1,
    BinarySemaphore = 2,
    Mutex = 3,
    RecursiveMutex = 4,
    QueueSet = 5,
}

macro_rules! hooks {
    ($($(#[$doc:meta])* $fn_name:ident => $variant:ident { $($arg:ident),* })*) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $fn_name($($arg: u32),*) {
            if cfg!(feature = "freertos") {
                event(Event::$variant { $($arg),* });
            }
        }
    )*};
}

hooks! {
    /// The scheduler switched to `task_id` on this core.
    task_switched_in => TaskSwitchedIn { task_id }
    task_to_rdy_state => TaskToRdyState { task_id }
    task_resumed => TaskResumed { task_id }
    task_resumed_from_isr => TaskResumedFromIsr { task_id }
    task_suspended => TaskSuspended { task_id }
    /// The running task blocks for `ticks`.
    curtask_delay => CurtaskDelay { ticks }
    curtask_delay_until => CurtaskDelayUntil { time_to_wake }
    task_priority_set => TaskPrioritySet { task_id, priority }
    task_priority_inherit => TaskPriorityInherit { task_id, priority }
    task_priority_disinherit => TaskPriorityDisinherit { task_id, priority }
    task_deleted => TaskDeleted { task_id }
    /// A task was created under an id the caller chose (rtos-trace).
    task_created_with_id => TaskCreated { task_id }
    queue_reset => QueueReset { queue_id }
    curtask_block_on_queue_peek => CurtaskBlockOnQueuePeek { queue_id, ticks_to_wait }
    curtask_block_on_queue_send => CurtaskBlockOnQueueSend { queue_id, ticks_to_wait }
    curtask_block_on_queue_receive => CurtaskBlockOnQueueReceive { queue_id, ticks_to_wait }
    /// The fill level of a queue outright (e.g. a counting semaphore's initial count).
    queue_cur_length => QueueCurLength { queue_id, length }
    task_evtmarker_end => TaskEvtmarkerEnd { evtmarker_id }
}

mod objects;
pub use objects::*;

/// A task was created: returns its new id, records `task_created`, its
/// name and its priority.
pub fn task_created(priority: u32, name: impl AsRef<[u8]>) -> u32 {
    if !cfg!(feature = "freertos") {
        return 0;
    }
    let task_id = next_id(IdSpace::Task);
    event(Event::TaskCreated { task_id });
    task_name(task_id, name);
    task_priority_set(task_id, priority);
    task_id
}

/// Names a task (metadata).
pub fn task_name(task_id: u32, name: impl AsRef<[u8]>) {
    if cfg!(feature = "freertos") {
        metadata(Event::TaskName {
            task_id,
            name: cut(name.as_ref()),
        });
    }
}

/// Marks `task_id` as the idle task of core `core_id` (metadata).
pub fn task_is_idle_task(task_id: u32, core_id: u32) {
    if cfg!(feature = "freertos") {
        metadata(Event::TaskIsIdleTask { task_id, core_id });
    }
}

/// Marks `task_id` as the timer service task (metadata).
pub fn task_is_timer_task(task_id: u32) {
    if cfg!(feature = "freertos") {
        metadata(Event::TaskIsTimerTask { task_id });
    }
}

/// A queue (or semaphore, mutex, queue set) was created: returns its new
/// id, records `queue_created` and its kind.
pub fn queue_created(kind: QueueKind) -> u32 {
    if !cfg!(feature = "freertos") {
        return 0;
    }
    let queue_id = next_id(IdSpace::Queue);
    event(Event::QueueCreated { queue_id });
    metadata(Event::QueueKind {
        queue_id,
        kind: kind as u8,
    });
    queue_id
}

/// Names a queue (metadata).
pub fn queue_name(queue_id: u32, name: impl AsRef<[u8]>) {
    if cfg!(feature = "freertos") {
        metadata(Event::QueueName {
            queue_id,
            name: cut(name.as_ref()),
        });
    }
}

/// An item goes into a queue that held `size_before` items. An overwrite
/// (only allowed on one-item queues) always leaves exactly one item.
pub fn queue_send(queue_id: u32, size_before: u32, overwrite: bool, from_isr: bool) {
    if !cfg!(feature = "freertos") {
        return;
    }
    let len_after = if overwrite {
        1
    } else {
        size_before.saturating_add(1)
    };
    event(match (overwrite, from_isr) {
        (false, false) => Event::QueueSend {
            queue_id,
            len_after,
        },
        (false, true) => Event::QueueSendFromIsr {
            queue_id,
            len_after,
        },
        (true, false) => Event::QueueOverwrite {
            queue_id,
            len_after,
        },
        (true, true) => Event::QueueOverwriteFromIsr {
            queue_id,
            len_after,
        },
    });
}

/// An item is taken from a queue that held `size_before` items.
pub fn queue_receive(queue_id: u32, size_before: u32, from_isr: bool) {
    if !cfg!(feature = "freertos") {
        return;
    }
    let len_after = size_before.saturating_sub(1);
    event(if from_isr {
        Event::QueueReceiveFromIsr {
            queue_id,
            len_after,
        }
    } else {
        Event::QueueReceive {
            queue_id,
            len_after,
        }
    });
}

/// Names task-local event marker `id` of `task_id` (metadata).
pub fn task_evtmarker_name(id: u32, task_id: u32, name: impl AsRef<[u8]>) {
    if cfg!(feature = "freertos") {
        metadata(Event::TaskEvtmarkerName {
            evtmarker_id: id,
            task_id,
            name: cut(name.as_ref()),
        });
    }
}

/// An instant on the running task's event marker `id`.
pub fn task_evtmarker(id: u32, msg: impl AsRef<[u8]>) {
    if cfg!(feature = "freertos") {
        event(Event::TaskEvtmarker {
            evtmarker_id: id,
            msg: cut(msg.as_ref()),
        });
    }
}

/// Opens a span on the running task's event marker `id`.
pub fn task_evtmarker_begin(id: u32, msg: impl AsRef<[u8]>) {
    if cfg!(feature = "freertos") {
        event(Event::TaskEvtmarkerBegin {
            evtmarker_id: id,
            msg: cut(msg.as_ref()),
        });
    }
}

/// Names task-local value marker `id` of `task_id` (metadata).
pub fn task_valmarker_name(id: u32, task_id: u32, name: impl AsRef<[u8]>) {
    if cfg!(feature = "freertos") {
        metadata(Event::TaskValmarkerName {
            valmarker_id: id,
            task_id,
            name: cut(name.as_ref()),
        });
    }
}

/// A value on the running task's value marker `id`.
pub fn task_valmarker(id: u32, val: i64) {
    if cfg!(feature = "freertos") {
        event(Event::TaskValmarker {
            valmarker_id: id,
            val,
        });
    }
}

/// The task id under which the executor integrations (`embassy`,
/// `rtos-trace`) trace the idle time of `core`: one per core, counting
/// down from `u32::MAX` (no task is at those addresses).
#[cfg(any(feature = "rtos-trace", feature = "embassy"))]
pub const fn idle_task_id(core: usize) -> u32 {
    u32::MAX - core as u32
}

/// For the executor integrations' `start`, on each core: records the
/// system's metadata and the running core's idle task.
#[cfg(any(feature = "rtos-trace", feature = "embassy"))]
pub(crate) fn record_idle_task_of_this_core() {
    let core = crate::port::core_id();
    crate::gather_system_metadata();
    task_name(idle_task_id(core), "idle");
    task_is_idle_task(idle_task_id(core), core as u32);
}
