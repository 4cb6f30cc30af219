//! The FreeRTOS objects the reference format has no events for: task
//! notifications, event groups, stream and message buffers, software
//! timers (the extension ids 128–151). Event groups, stream buffers and
//! timers get their ids here when created, each kind counting from 1; the
//! firmware keeps them in the kernel's trace numbers (`uxEventGroupNumber`,
//! `uxStreamBufferNumber`, `uxTimerNumber`).

use crate::global::{cut, event, metadata, next_id, IdSpace};
use crate::Event;

/// Stream buffer kinds of the `stream_buffer_created` event, FreeRTOS's
/// `sbTYPE_*` numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum StreamBufferKind {
    StreamBuffer = 0,
    MessageBuffer = 1,
    BatchingBuffer = 2,
}

hooks! {
    /// The running task read its notification value `value` (before the
    /// read cleared or decremented it; 0 when it timed out).
    curtask_notify_take => CurtaskNotifyTake { value }
    /// The running task blocks waiting for a notification.
    curtask_block_on_notify => CurtaskBlockOnNotify { ticks_to_wait }
    /// The running task blocks waiting for bits of an event group.
    curtask_block_on_event_group => CurtaskBlockOnEventGroup { group_id, ticks_to_wait }
    /// The running task's wait for an event group's bits ended; `bits` are
    /// the group's bits it returns.
    curtask_event_group_wait_end => CurtaskEventGroupWaitEnd { group_id, bits }
    stream_buffer_reset => StreamBufferReset { buffer_id }
    /// The running task blocks sending to or receiving from a stream buffer.
    curtask_block_on_stream_buffer => CurtaskBlockOnStreamBuffer { buffer_id, ticks_to_wait }
    /// A timer command (FreeRTOS's `tmrCOMMAND_*` number) was sent to the timer task.
    timer_command => TimerCommand { timer_id, command }
    /// A timer expired; its callback runs next.
    timer_expired => TimerExpired { timer_id }
}

/// `task_id` was notified and its notification value is now `value`.
pub fn task_notify(task_id: u32, value: u32, from_isr: bool) {
    if cfg!(feature = "freertos") {
        event(if from_isr {
            Event::TaskNotifyFromIsr { task_id, value }
        } else {
            Event::TaskNotify { task_id, value }
        });
    }
}

/// An event group was created: returns its new id.
pub fn event_group_created() -> u32 {
    if !cfg!(feature = "freertos") {
        return 0;
    }
    let group_id = next_id(IdSpace::EventGroup);
    event(Event::EventGroupCreated { group_id });
    group_id
}

/// Names an event group (metadata).
pub fn event_group_name(group_id: u32, name: impl AsRef<[u8]>) {
    if cfg!(feature = "freertos") {
        metadata(Event::EventGroupName {
            group_id,
            name: cut(name.as_ref()),
        });
    }
}

/// `bits` are set in an event group.
pub fn event_group_set_bits(group_id: u32, bits: u32, from_isr: bool) {
    if cfg!(feature = "freertos") {
        event(if from_isr {
            Event::EventGroupSetBitsFromIsr { group_id, bits }
        } else {
            Event::EventGroupSetBits { group_id, bits }
        });
    }
}

/// `bits` are cleared in an event group.
pub fn event_group_clear_bits(group_id: u32, bits: u32, from_isr: bool) {
    if cfg!(feature = "freertos") {
        event(if from_isr {
            Event::EventGroupClearBitsFromIsr { group_id, bits }
        } else {
            Event::EventGroupClearBits { group_id, bits }
        });
    }
}

/// A stream (or message) buffer was created: returns its new id.
pub fn stream_buffer_created(kind: StreamBufferKind) -> u32 {
    if !cfg!(feature = "freertos") {
        return 0;
    }
    let buffer_id = next_id(IdSpace::StreamBuffer);
    event(Event::StreamBufferCreated {
        buffer_id,
        kind: kind as u8,
    });
    buffer_id
}

/// Names a stream buffer (metadata).
pub fn stream_buffer_name(buffer_id: u32, name: impl AsRef<[u8]>) {
    if cfg!(feature = "freertos") {
        metadata(Event::StreamBufferName {
            buffer_id,
            name: cut(name.as_ref()),
        });
    }
}

/// Bytes went into a stream buffer, which now holds `len_after` bytes.
pub fn stream_buffer_send(buffer_id: u32, len_after: u32, from_isr: bool) {
    if cfg!(feature = "freertos") {
        event(if from_isr {
            Event::StreamBufferSendFromIsr {
                buffer_id,
                len_after,
            }
        } else {
            Event::StreamBufferSend {
                buffer_id,
                len_after,
            }
        });
    }
}

/// Bytes came out of a stream buffer, which now holds `len_after` bytes.
pub fn stream_buffer_receive(buffer_id: u32, len_after: u32, from_isr: bool) {
    if cfg!(feature = "freertos") {
        event(if from_isr {
            Event::StreamBufferReceiveFromIsr {
                buffer_id,
                len_after,
            }
        } else {
            Event::StreamBufferReceive {
                buffer_id,
                len_after,
            }
        });
    }
}

/// A software timer was created: returns its new id and records its name.
pub fn timer_created(name: impl AsRef<[u8]>) -> u32 {
    if !cfg!(feature = "freertos") {
        return 0;
    }
    let timer_id = next_id(IdSpace::Timer);
    event(Event::TimerCreated { timer_id });
    timer_name(timer_id, name);
    timer_id
}

/// Names a timer (metadata).
pub fn timer_name(timer_id: u32, name: impl AsRef<[u8]>) {
    if cfg!(feature = "freertos") {
        metadata(Event::TimerName {
            timer_id,
            name: cut(name.as_ref()),
        });
    }
}
