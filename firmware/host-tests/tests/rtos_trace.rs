//! An executor reporting through `rtos-trace` is traced as tasks, idle time
//! and interrupts.

use tband::rtos_trace::{idle_task_id, TbandTrace, ISR_ID};
use tband::EventKind;
use tband_host_tests::{decode, listing, run_as_core, snapshot_of};

rtos_trace::global_trace!(TbandTrace);

#[test]
fn executor_events_become_task_and_isr_events_and_each_core_idles_apart() {
    use rtos_trace::trace;
    trace::start();
    idle_on_core_1();
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
    let idle = idle_task_id(0);
    assert_eq!(
        listing,
        [
            "ts_resolution_ns ns_per_ts=1000".to_string(),
            format!("task_name task_id={idle} name=idle"),
            format!("task_is_idle_task task_id={idle} core_id=0"),
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
            format!("task_switched_in task_id={idle}"),
        ]
    );
    assert!(frames.iter().all(|f| f.kind != EventKind::DroppedEvtCnt));
    each_core_is_idle_in_its_own_idle_task();
}

/// Core 1's part, run while core 0's recording is on (the snapshot
/// backend is triggered and stopped for all cores at once).
fn idle_on_core_1() {
    use rtos_trace::trace;
    std::thread::spawn(|| {
        run_as_core(1);
        trace::start();
        trace::system_idle();
    })
    .join()
    .unwrap();
}

fn each_core_is_idle_in_its_own_idle_task() {
    let listing = listing(&decode(&snapshot_of(1), 1).unwrap());
    let idle = idle_task_id(1);
    assert_ne!(idle, idle_task_id(0));
    assert_eq!(
        listing,
        [
            "ts_resolution_ns ns_per_ts=1000".to_string(),
            format!("task_name task_id={idle} name=idle"),
            format!("task_is_idle_task task_id={idle} core_id=1"),
            format!("isr_name isr_id={ISR_ID} name=interrupt"),
            format!("task_switched_in task_id={idle}"),
        ]
    );
}
