//! FreeRTOS hooks of the global tracer: ids handed out from 1, queue fill
//! levels (including the overwrite case the reference got wrong), names cut
//! to the configured length.

use tband::freertos::{self, QueueKind};
use tband_host_tests::{decode, listing, snapshot_of};

#[test]
fn tasks_and_queues() {
    assert!(tband::trigger_snapshot());
    let a = freertos::task_created(2, "a task name longer than twenty bytes");
    let b = freertos::task_created(1, "b");
    assert_eq!((a, b), (1, 2));
    let q = freertos::queue_created(QueueKind::Queue);
    let m = freertos::queue_created(QueueKind::Mutex);
    assert_eq!((q, m), (1, 2));
    freertos::task_switched_in(a);
    // A one-item queue, overwritten while full: one item after.
    freertos::queue_send(q, 1, true, false);
    freertos::queue_send(q, 1, true, true);
    freertos::queue_send(q, 0, false, false);
    freertos::queue_receive(q, 1, false);
    freertos::queue_receive(m, 1, true);
    freertos::curtask_block_on_queue_receive(m, 100);
    freertos::task_evtmarker_name(1, a, "step");
    freertos::task_evtmarker_begin(1, "go");
    freertos::task_evtmarker_end(1);
    freertos::task_valmarker(3, -5);
    tband::stop_snapshot();

    let listing = listing(&decode(&snapshot_of(0), 0).unwrap());
    assert_eq!(
        listing,
        [
            "task_name task_id=1 name=a task name longer t",
            "task_name task_id=2 name=b",
            "queue_kind queue_id=1 kind=0",
            "queue_kind queue_id=2 kind=3",
            "task_evtmarker_name evtmarker_id=1 task_id=1 name=step",
            "task_created task_id=1",
            "task_priority_set task_id=1 priority=2",
            "task_created task_id=2",
            "task_priority_set task_id=2 priority=1",
            "queue_created queue_id=1",
            "queue_created queue_id=2",
            "task_switched_in task_id=1",
            "queue_overwrite queue_id=1 len_after=1",
            "queue_overwrite_from_isr queue_id=1 len_after=1",
            "queue_send queue_id=1 len_after=1",
            "queue_receive queue_id=1 len_after=0",
            "queue_receive_from_isr queue_id=2 len_after=0",
            "curtask_block_on_queue_receive queue_id=2 ticks_to_wait=100",
            "task_evtmarker_begin evtmarker_id=1 msg=go",
            "task_evtmarker_end evtmarker_id=1",
            "task_valmarker valmarker_id=3 val=-5",
        ]
    );
}
