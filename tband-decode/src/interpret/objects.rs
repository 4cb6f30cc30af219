//! What the extension events mean (ids 128–151): notifications, event
//! groups, stream buffers and timers, as model-builder calls.

use tband::Event;
use tband_model::{
    EventGroupOpKind, ModelBuilder, StateReason, StreamBufferKind, StreamBufferOpKind,
    TaskStateKind, TimerOpKind,
};

/// Applies a name of an extension object; false for any other metadata.
pub(super) fn apply_metadata(b: &mut ModelBuilder, event: &Event<'_>) -> bool {
    match *event {
        Event::EventGroupName { group_id, name } => b.set_event_group_name(group_id, name),
        Event::StreamBufferName { buffer_id, name } => b.set_stream_buffer_name(buffer_id, name),
        Event::TimerName { timer_id, name } => b.set_timer_name(timer_id, name),
        _ => return false,
    }
    true
}

/// Interprets a timed extension event at `t` on `core`; the interpreter
/// hands only those here.
pub(super) fn timed(b: &mut ModelBuilder, t: u64, core: u32, event: &Event<'_>) {
    use EventGroupOpKind as Group;
    use StreamBufferOpKind as Buffer;
    match *event {
        Event::TaskNotify { task_id, value } => {
            b.notification_given(t, core, task_id, value, false)
        }
        Event::TaskNotifyFromIsr { task_id, value } => {
            b.notification_given(t, core, task_id, value, true)
        }
        Event::CurtaskNotifyTake { value } => b.notification_taken(t, core, value),
        // The model's reasons for blocking have none for notifications or
        // stream buffers: the task is Blocked, for no reason it names.
        Event::CurtaskBlockOnNotify { .. } | Event::CurtaskBlockOnStreamBuffer { .. } => {
            b.current_task_announces(t, core, TaskStateKind::Blocked, StateReason::None, None)
        }
        Event::CurtaskBlockOnEventGroup { .. } => b.current_task_announces(
            t,
            core,
            TaskStateKind::Blocked,
            StateReason::EventFlags,
            None,
        ),
        Event::EventGroupCreated { group_id } => b.event_group_created(group_id),
        Event::EventGroupSetBits { group_id, bits } => {
            b.event_group_op(t, core, group_id, Group::Set, bits, false)
        }
        Event::EventGroupSetBitsFromIsr { group_id, bits } => {
            b.event_group_op(t, core, group_id, Group::Set, bits, true)
        }
        Event::EventGroupClearBits { group_id, bits } => {
            b.event_group_op(t, core, group_id, Group::Clear, bits, false)
        }
        Event::EventGroupClearBitsFromIsr { group_id, bits } => {
            b.event_group_op(t, core, group_id, Group::Clear, bits, true)
        }
        Event::CurtaskEventGroupWaitEnd { group_id, bits } => {
            b.event_group_op(t, core, group_id, Group::WaitEnd, bits, false)
        }
        Event::StreamBufferCreated { buffer_id, kind } => {
            b.stream_buffer_created(buffer_id, stream_buffer_kind(kind))
        }
        Event::StreamBufferSend {
            buffer_id,
            len_after,
        } => b.stream_buffer_op(t, core, buffer_id, Buffer::Send, false, len_after),
        Event::StreamBufferSendFromIsr {
            buffer_id,
            len_after,
        } => b.stream_buffer_op(t, core, buffer_id, Buffer::Send, true, len_after),
        Event::StreamBufferReceive {
            buffer_id,
            len_after,
        } => b.stream_buffer_op(t, core, buffer_id, Buffer::Receive, false, len_after),
        Event::StreamBufferReceiveFromIsr {
            buffer_id,
            len_after,
        } => b.stream_buffer_op(t, core, buffer_id, Buffer::Receive, true, len_after),
        Event::StreamBufferReset { buffer_id } => {
            let from_isr = b.in_isr(core);
            b.stream_buffer_op(t, core, buffer_id, Buffer::Reset, from_isr, 0)
        }
        Event::TimerCreated { timer_id } => {
            let from_isr = b.in_isr(core);
            b.timer_op(t, core, timer_id, TimerOpKind::Created, None, from_isr)
        }
        Event::TimerCommand { timer_id, command } => {
            let (op, from_isr) = timer_command(command);
            b.timer_op(t, core, timer_id, op, Some(command), from_isr)
        }
        Event::TimerExpired { timer_id } => {
            b.timer_op(t, core, timer_id, TimerOpKind::Expired, None, false)
        }
        _ => {}
    }
}

fn stream_buffer_kind(kind: u8) -> StreamBufferKind {
    match kind {
        1 => StreamBufferKind::Message,
        2 => StreamBufferKind::Batching,
        _ => StreamBufferKind::Stream,
    }
}

/// FreeRTOS's `tmrCOMMAND_*` numbers: the command, and whether it is the
/// form an ISR sends.
fn timer_command(command: u32) -> (TimerOpKind, bool) {
    match command {
        0 | 1 => (TimerOpKind::Start, false),
        2 => (TimerOpKind::Reset, false),
        3 => (TimerOpKind::Stop, false),
        4 => (TimerOpKind::ChangePeriod, false),
        5 => (TimerOpKind::Delete, false),
        6 => (TimerOpKind::Start, true),
        7 => (TimerOpKind::Reset, true),
        8 => (TimerOpKind::Stop, true),
        9 => (TimerOpKind::ChangePeriod, true),
        _ => (TimerOpKind::OtherCommand, false),
    }
}
