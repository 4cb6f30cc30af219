//! The tracer's hooks for notifications, event groups, stream buffers and
//! timers: each kind of object counts its ids from 1 apart from the others,
//! `_from_isr` forms are their own events, and a timer's name comes with it.

use tband::freertos::{self, StreamBufferKind};
use tband_host_tests::{decode, listing, snapshot_of};

#[test]
fn object_hooks() {
    assert!(tband::trigger_snapshot());
    let group = freertos::event_group_created();
    let buffer = freertos::stream_buffer_created(StreamBufferKind::MessageBuffer);
    let timer = freertos::timer_created("slot timer");
    let other_timer = freertos::timer_created("t2");
    assert_eq!((group, buffer, timer, other_timer), (1, 1, 1, 2));
    freertos::event_group_name(group, "flags");
    freertos::stream_buffer_name(buffer, "rx");
    freertos::task_notify(3, 1, false);
    freertos::task_notify(3, 2, true);
    freertos::curtask_block_on_notify(10);
    freertos::curtask_notify_take(2);
    freertos::event_group_set_bits(group, 0b11, false);
    freertos::event_group_set_bits(group, 0b100, true);
    freertos::event_group_clear_bits(group, 0b1, false);
    freertos::event_group_clear_bits(group, 0b10, true);
    freertos::curtask_block_on_event_group(group, 5);
    freertos::curtask_event_group_wait_end(group, 0b100);
    freertos::stream_buffer_send(buffer, 8, false);
    freertos::stream_buffer_send(buffer, 16, true);
    freertos::stream_buffer_receive(buffer, 8, false);
    freertos::stream_buffer_receive(buffer, 0, true);
    freertos::curtask_block_on_stream_buffer(buffer, 7);
    freertos::stream_buffer_reset(buffer);
    freertos::timer_command(timer, 1);
    freertos::timer_expired(timer);
    tband::stop_snapshot();

    let listing = listing(&decode(&snapshot_of(0), 0).unwrap());
    assert_eq!(
        listing,
        [
            "timer_name timer_id=1 name=slot timer",
            "timer_name timer_id=2 name=t2",
            "event_group_name group_id=1 name=flags",
            "stream_buffer_name buffer_id=1 name=rx",
            "event_group_created group_id=1",
            "stream_buffer_created buffer_id=1 kind=1",
            "timer_created timer_id=1",
            "timer_created timer_id=2",
            "task_notify task_id=3 value=1",
            "task_notify_from_isr task_id=3 value=2",
            "curtask_block_on_notify ticks_to_wait=10",
            "curtask_notify_take value=2",
            "event_group_set_bits group_id=1 bits=3",
            "event_group_set_bits_from_isr group_id=1 bits=4",
            "event_group_clear_bits group_id=1 bits=1",
            "event_group_clear_bits_from_isr group_id=1 bits=2",
            "curtask_block_on_event_group group_id=1 ticks_to_wait=5",
            "curtask_event_group_wait_end group_id=1 bits=4",
            "stream_buffer_send buffer_id=1 len_after=8",
            "stream_buffer_send_from_isr buffer_id=1 len_after=16",
            "stream_buffer_receive buffer_id=1 len_after=8",
            "stream_buffer_receive_from_isr buffer_id=1 len_after=0",
            "curtask_block_on_stream_buffer buffer_id=1 ticks_to_wait=7",
            "stream_buffer_reset buffer_id=1",
            "timer_command timer_id=1 command=1",
            "timer_expired timer_id=1",
        ]
    );
}
