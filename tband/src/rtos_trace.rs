//! [`rtos_trace::RtosTrace`] for executors and RTOSes that report through
//! the `rtos-trace` crate (e.g. embassy-executor's `rtos-trace` feature):
//! `rtos_trace::global_trace!(tband::rtos_trace::TbandTrace);`
//!
//! rtos-trace task ids become tband task ids as they are; idle time is
//! each core's pseudo task [`idle_task_id`]; interrupts (rtos-trace gives
//! no number) are ISR [`ISR_ID`]; rtos-trace markers are event markers.

use rtos_trace::{RtosTrace, TaskInfo};

use crate::freertos;

pub use crate::freertos::idle_task_id;
/// The ISR id of every interrupt rtos-trace reports.
pub const ISR_ID: u32 = 0;

pub struct TbandTrace;

impl RtosTrace for TbandTrace {
    /// Records the names of the running core's idle task and of the
    /// interrupt pseudo-ISR and starts the backend (streaming: start;
    /// snapshot: trigger). Call on each core.
    fn start() {
        freertos::record_idle_task_of_this_core();
        crate::isr_name(ISR_ID, "interrupt");
        crate::start_recording();
    }

    fn stop() {
        crate::stop_recording();
    }

    fn task_new(id: u32) {
        freertos::task_created_with_id(id);
    }

    fn task_send_info(id: u32, info: TaskInfo) {
        freertos::task_name(id, info.name);
        freertos::task_priority_set(id, info.priority);
    }

    fn task_new_stackless(id: u32, name: &'static str, priority: u32) {
        Self::task_new(id);
        freertos::task_name(id, name);
        freertos::task_priority_set(id, priority);
    }

    fn task_terminate(id: u32) {
        freertos::task_deleted(id);
    }

    fn task_exec_begin(id: u32) {
        freertos::task_switched_in(id);
    }

    /// The next `task_exec_begin` or `system_idle` says who runs next.
    fn task_exec_end() {}

    fn task_ready_begin(id: u32) {
        freertos::task_to_rdy_state(id);
    }

    /// Leaving Ready means running, which `task_exec_begin` records.
    fn task_ready_end(_id: u32) {}

    fn system_idle() {
        freertos::task_switched_in(idle_task_id(crate::port::core_id()));
    }

    fn isr_enter() {
        crate::isr_enter(ISR_ID);
    }

    fn isr_exit() {
        crate::isr_exit(ISR_ID);
    }

    fn isr_exit_to_scheduler() {
        crate::isr_exit(ISR_ID);
    }

    fn name_marker(id: u32, name: &'static str) {
        crate::evtmarker_name(id, name);
    }

    fn marker(id: u32) {
        crate::evtmarker(id, "");
    }

    fn marker_begin(id: u32) {
        crate::evtmarker_begin(id, "");
    }

    fn marker_end(id: u32) {
        crate::evtmarker_end(id);
    }
}
