//! An executor reporting through `rtos-trace` is traced as tasks, idle time
//! and interrupts.

use tband::rtos_trace::{TbandTrace, IDLE_TASK_ID, ISR_ID};
use tband::EventKind;
use tband_host_tests::{decode, listing, snapshot_of};

rtos_trace::global_trace!(TbandTrace);

#[test]
fn executor_events_become_task_and_isr_events() {
    use rtos_trace::trace;
    trace::start();
    trace::task_new(0x2000_0100);
    trace::task_send_info(
        0x2000_0100,
        rtos_trace::TaskInfo {
            name: "blinky",
            priority: 1,
            stack_base: 0,
            stack_size: 0,
        },
    );
    trace::task_ready_begin(0x2000_0100);
    trace::task_exec_begin(0x2000_0100);
    trace::marker_begin(7);
    trace::isr_enter();
    trace::isr_exit_to_scheduler();
    trace::marker_end(7);
    trace::task_exec_end();
    trace::system_idle();
    trace::stop();
    trace::task_exec_begin(0x2000_0100);

    let frames = decode(&snapshot_of(0), 0).unwrap();
    let listing = listing(&frames);
    let task = 0x2000_0100u32;
    assert_eq!(
        listing,
        [
            "ts_resolution_ns ns_per_ts=1000".to_string(),
            format!("task_name task_id={IDLE_TASK_ID} name=idle"),
            format!("task_is_idle_task task_id={IDLE_TASK_ID} core_id=0"),
            format!("isr_name isr_id={ISR_ID} name=interrupt"),
            format!("task_name task_id={task} name=blinky"),
            format!("task_created task_id={task}"),
            format!("task_priority_set task_id={task} priority=1"),
            format!("task_to_rdy_state task_id={task}"),
            format!("task_switched_in task_id={task}"),
            "evtmarker_begin evtmarker_id=7 msg=".to_string(),
            format!("isr_enter isr_id={ISR_ID}"),
            format!("isr_exit isr_id={ISR_ID}"),
            "evtmarker_end evtmarker_id=7".to_string(),
            format!("task_switched_in task_id={IDLE_TASK_ID}"),
        ]
    );
    assert!(frames.iter().all(|f| f.kind != EventKind::DroppedEvtCnt));
}
