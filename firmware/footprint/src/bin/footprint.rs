//! Calls every tracing function of the enabled feature set once, with
//! inputs the optimiser cannot see, so that `size` of this program minus
//! the same program built without features is the tracer's footprint.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use tband_footprint::{exit, opaque};

#[entry]
fn main() -> ! {
    let id = opaque();
    let _ = id;
    #[cfg(feature = "isr-markers")]
    {
        tband::gather_system_metadata();
        tband::trigger_snapshot();
        tband::isr_name(id, "isr");
        tband::isr_enter(id);
        tband::isr_exit(id);
        tband::evtmarker_name(id, "marker");
        tband::evtmarker(id, "msg");
        tband::evtmarker_begin(id, "msg");
        tband::evtmarker_end(id);
        tband::valmarker_name(id, "value");
        tband::valmarker(id, i64::from(id));
        tband::stop_snapshot();
        tband::read_snapshot(0, |bytes| {
            core::hint::black_box(bytes);
        });
    }
    #[cfg(feature = "freertos")]
    {
        use tband::freertos::*;
        let task = task_created(id, "task");
        let queue = queue_created(QueueKind::Queue);
        queue_name(queue, "queue");
        task_is_idle_task(task, 0);
        task_is_timer_task(task);
        task_switched_in(task);
        task_to_rdy_state(task);
        task_resumed(task);
        task_resumed_from_isr(task);
        task_suspended(task);
        curtask_delay(id);
        curtask_delay_until(id);
        task_priority_set(task, id);
        task_priority_inherit(task, id);
        task_priority_disinherit(task, id);
        task_deleted(task);
        queue_send(queue, id, id == 1, id == 2);
        queue_receive(queue, id, id == 3);
        queue_reset(queue);
        queue_cur_length(queue, id);
        curtask_block_on_queue_peek(queue, id);
        curtask_block_on_queue_send(queue, id);
        curtask_block_on_queue_receive(queue, id);
        task_evtmarker_name(id, task, "local");
        task_evtmarker(id, "msg");
        task_evtmarker_begin(id, "msg");
        task_evtmarker_end(id);
        task_valmarker_name(id, task, "local");
        task_valmarker(id, i64::from(id));
        task_notify(task, id, id == 4);
        curtask_notify_take(id);
        curtask_block_on_notify(id);
        let group = event_group_created();
        event_group_name(group, "group");
        event_group_set_bits(group, id, id == 5);
        event_group_clear_bits(group, id, id == 6);
        curtask_block_on_event_group(group, id);
        curtask_event_group_wait_end(group, id);
        let buffer = stream_buffer_created(StreamBufferKind::StreamBuffer);
        stream_buffer_name(buffer, "buffer");
        stream_buffer_send(buffer, id, id == 7);
        stream_buffer_receive(buffer, id, id == 8);
        stream_buffer_reset(buffer);
        curtask_block_on_stream_buffer(buffer, id);
        let timer = timer_created("timer");
        timer_name(timer, "timer");
        timer_command(timer, id);
        timer_expired(timer);
    }
    exit()
}
