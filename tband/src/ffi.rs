//! The C ABI (feature `ffi`): `tband_*` functions named after the reference
//! C tracer's API, declared in `include/tband.h`. The C side supplies the
//! port as `tband_port_*` functions, including the critical section.

use core::ffi::c_char;

use crate::freertos::{self, QueueKind};
use crate::Port;

extern "C" {
    fn tband_port_timestamp() -> u64;
    fn tband_port_ts_resolution_ns() -> u64;
    fn tband_port_core_id() -> u32;
    fn tband_port_critical_enter() -> u32;
    fn tband_port_critical_exit(state: u32);
    #[cfg(feature = "streaming")]
    fn tband_port_stream_write(core: u32, bytes: *const u8, len: usize) -> bool;
    #[cfg(feature = "external")]
    fn tband_port_external(core: u32, frame: *const u8, len: usize, is_metadata: bool);
    #[cfg(feature = "snapshot")]
    fn tband_port_snapshot_full(core: u32);
}

/// The port made of the C side's `tband_port_*` functions.
struct CPort;

// SAFETY (every call into C below): the C side defines these functions with
// the signatures of `tband.h`.
impl Port for CPort {
    fn ts_resolution_ns() -> u64 {
        unsafe { tband_port_ts_resolution_ns() }
    }
    fn timestamp() -> u64 {
        unsafe { tband_port_timestamp() }
    }
    fn core_id() -> usize {
        unsafe { tband_port_core_id() as usize }
    }
    #[cfg(feature = "streaming")]
    fn stream_write(core: usize, bytes: &[u8]) -> bool {
        unsafe { tband_port_stream_write(core as u32, bytes.as_ptr(), bytes.len()) }
    }
    #[cfg(feature = "external")]
    fn external(core: usize, frame: &[u8], is_metadata: bool) {
        unsafe { tband_port_external(core as u32, frame.as_ptr(), frame.len(), is_metadata) }
    }
    #[cfg(feature = "snapshot")]
    fn snapshot_full(core: usize) {
        unsafe { tband_port_snapshot_full(core as u32) }
    }
}

crate::set_port!(CPort);

struct CCriticalSection;
critical_section::set_impl!(CCriticalSection);

// SAFETY: forwards to the C side's critical section, which must exclude
// every other core and interrupt that traces.
unsafe impl critical_section::Impl for CCriticalSection {
    unsafe fn acquire() -> u32 {
        tband_port_critical_enter()
    }
    unsafe fn release(state: u32) {
        tband_port_critical_exit(state)
    }
}

/// The bytes of a NUL-terminated C string, at most `MAX_STR_LEN` of them
/// (a missing terminator is not read past); NULL is the empty string.
///
/// # Safety
/// `s` is NULL or points to readable bytes up to a NUL or `MAX_STR_LEN`.
unsafe fn c_str<'a>(s: *const c_char) -> &'a [u8] {
    if s.is_null() {
        return &[];
    }
    let mut len = 0;
    while len < crate::config::MAX_STR_LEN && *s.add(len) != 0 {
        len += 1;
    }
    core::slice::from_raw_parts(s.cast(), len)
}

#[no_mangle]
pub extern "C" fn tband_gather_system_metadata() {
    crate::gather_system_metadata();
}

/// # Safety
/// `name` as for [`c_str`].
#[no_mangle]
pub unsafe extern "C" fn tband_isr_name(isr_id: u32, name: *const c_char) {
    crate::isr_name(isr_id, c_str(name));
}

#[no_mangle]
pub extern "C" fn tband_isr_enter(isr_id: u32) {
    crate::isr_enter(isr_id);
}

#[no_mangle]
pub extern "C" fn tband_isr_exit(isr_id: u32) {
    crate::isr_exit(isr_id);
}

/// # Safety
/// `name` as for [`c_str`].
#[no_mangle]
pub unsafe extern "C" fn tband_evtmarker_name(id: u32, name: *const c_char) {
    crate::evtmarker_name(id, c_str(name));
}

/// # Safety
/// `msg` as for [`c_str`].
#[no_mangle]
pub unsafe extern "C" fn tband_evtmarker(id: u32, msg: *const c_char) {
    crate::evtmarker(id, c_str(msg));
}

/// # Safety
/// `msg` as for [`c_str`].
#[no_mangle]
pub unsafe extern "C" fn tband_evtmarker_begin(id: u32, msg: *const c_char) {
    crate::evtmarker_begin(id, c_str(msg));
}

#[no_mangle]
pub extern "C" fn tband_evtmarker_end(id: u32) {
    crate::evtmarker_end(id);
}

/// # Safety
/// `name` as for [`c_str`].
#[no_mangle]
pub unsafe extern "C" fn tband_valmarker_name(id: u32, name: *const c_char) {
    crate::valmarker_name(id, c_str(name));
}

#[no_mangle]
pub extern "C" fn tband_valmarker(id: u32, val: i64) {
    crate::valmarker(id, val);
}

#[no_mangle]
pub extern "C" fn tband_metadata_buf_overflowed(core: u32) -> bool {
    crate::metadata_overflowed(core as usize)
}

#[no_mangle]
pub extern "C" fn tband_dropped_evt_cnt(core: u32) -> u32 {
    crate::dropped_events(core as usize)
}

/// Copies `core`'s trace (metadata buffer, then the backend's bytes for the
/// snapshot and post-mortem backends) into `out`; returns the bytes copied,
/// or the bytes needed if `cap` is too small (then nothing is copied).
///
/// # Safety
/// `out` points to `cap` writable bytes (or `cap` is 0).
#[no_mangle]
pub unsafe extern "C" fn tband_read_trace(core: u32, out: *mut u8, cap: usize) -> usize {
    crate::with(|t| {
        let mut parts: [&[u8]; 3] = [&[], &[], &[]];
        let mut copied = 0;
        parts[0] = t.metadata_buf(core as usize);
        #[cfg(feature = "snapshot")]
        {
            parts[1] = t.backend().bytes(core as usize);
        }
        #[cfg(feature = "postmortem")]
        {
            [parts[1], parts[2]] = t.backend().read(core as usize);
        }
        let needed: usize = parts.iter().map(|p| p.len()).sum();
        if needed > cap {
            return needed;
        }
        for p in parts {
            core::ptr::copy_nonoverlapping(p.as_ptr(), out.add(copied), p.len());
            copied += p.len();
        }
        copied
    })
}

#[cfg(feature = "streaming")]
#[no_mangle]
pub extern "C" fn tband_start_streaming() -> core::ffi::c_int {
    match crate::start_streaming() {
        Ok(()) => 0,
        Err(_) => -1,
    }
}

#[cfg(feature = "streaming")]
#[no_mangle]
pub extern "C" fn tband_stop_streaming() -> core::ffi::c_int {
    crate::stop_streaming();
    0
}

#[cfg(feature = "snapshot")]
#[no_mangle]
pub extern "C" fn tband_trigger_snapshot() -> core::ffi::c_int {
    if crate::trigger_snapshot() {
        0
    } else {
        -1
    }
}

#[cfg(feature = "snapshot")]
#[no_mangle]
pub extern "C" fn tband_stop_snapshot() -> core::ffi::c_int {
    crate::stop_snapshot();
    0
}

#[cfg(feature = "snapshot")]
#[no_mangle]
pub extern "C" fn tband_reset_snapshot() -> core::ffi::c_int {
    crate::reset_snapshot();
    0
}

#[cfg(feature = "postmortem")]
#[no_mangle]
pub extern "C" fn tband_stop_postmortem() {
    crate::stop_postmortem();
}

#[cfg(feature = "postmortem")]
#[no_mangle]
pub extern "C" fn tband_start_postmortem() {
    crate::start_postmortem();
}

#[cfg(feature = "postmortem")]
#[no_mangle]
pub extern "C" fn tband_reset_postmortem() {
    crate::reset_postmortem();
}

macro_rules! c_hooks {
    ($($c_name:ident => $rust:ident ($($arg:ident),*);)*) => {$(
        #[no_mangle]
        pub extern "C" fn $c_name($($arg: u32),*) {
            freertos::$rust($($arg),*);
        }
    )*};
}

c_hooks! {
    tband_freertos_task_switched_in => task_switched_in(task_id);
    tband_freertos_task_to_rdy_state => task_to_rdy_state(task_id);
    tband_freertos_task_resumed => task_resumed(task_id);
    tband_freertos_task_resumed_from_isr => task_resumed_from_isr(task_id);
    tband_freertos_task_suspended => task_suspended(task_id);
    tband_freertos_task_delay => curtask_delay(ticks);
    tband_freertos_task_delay_until => curtask_delay_until(time_to_wake);
    tband_freertos_task_priority_set => task_priority_set(task_id, priority);
    tband_freertos_task_priority_inherit => task_priority_inherit(task_id, priority);
    tband_freertos_task_priority_disinherit => task_priority_disinherit(task_id, priority);
    tband_freertos_task_deleted => task_deleted(task_id);
    tband_freertos_task_is_idle_task => task_is_idle_task(task_id, core_id);
    tband_freertos_task_is_timer_task => task_is_timer_task(task_id);
    tband_freertos_queue_reset => queue_reset(queue_id);
    tband_freertos_queue_cur_length => queue_cur_length(queue_id, length);
    tband_freertos_blocking_on_queue_peek => curtask_block_on_queue_peek(queue_id, ticks_to_wait);
    tband_freertos_blocking_on_queue_send => curtask_block_on_queue_send(queue_id, ticks_to_wait);
    tband_freertos_blocking_on_queue_receive => curtask_block_on_queue_receive(queue_id, ticks_to_wait);
    tband_task_evtmarker_end => task_evtmarker_end(evtmarker_id);
}

/// Returns the new task's id (store it in `uxTaskNumber`).
///
/// # Safety
/// `name` as for [`c_str`].
#[no_mangle]
pub unsafe extern "C" fn tband_freertos_task_create(priority: u32, name: *const c_char) -> u32 {
    freertos::task_created(priority, c_str(name))
}

/// `freertos_queue_type` is FreeRTOS's `ucQueueType` (queueQUEUE_TYPE_*).
/// Returns the new queue's id (store it in `uxQueueNumber`).
#[no_mangle]
pub extern "C" fn tband_freertos_queue_create(freertos_queue_type: u8) -> u32 {
    let kind = match freertos_queue_type {
        1 => QueueKind::Mutex,
        2 => QueueKind::CountingSemaphore,
        3 => QueueKind::BinarySemaphore,
        4 => QueueKind::RecursiveMutex,
        _ => QueueKind::Queue,
    };
    freertos::queue_created(kind)
}

/// Names a queue by its tband id (`uxQueueNumber`); `tband_freertos.h`
/// names by handle on top of it.
///
/// # Safety
/// `name` as for [`c_str`].
#[no_mangle]
pub unsafe extern "C" fn tband_freertos_queue_id_name(queue_id: u32, name: *const c_char) {
    freertos::queue_name(queue_id, c_str(name));
}

#[no_mangle]
pub extern "C" fn tband_freertos_queue_send(
    queue_id: u32,
    size_before: u32,
    overwrite: bool,
    from_isr: bool,
) {
    freertos::queue_send(queue_id, size_before, overwrite, from_isr);
}

#[no_mangle]
pub extern "C" fn tband_freertos_queue_receive(queue_id: u32, size_before: u32, from_isr: bool) {
    freertos::queue_receive(queue_id, size_before, from_isr);
}

/// # Safety
/// `name` as for [`c_str`].
#[no_mangle]
pub unsafe extern "C" fn tband_task_evtmarker_name(id: u32, task_id: u32, name: *const c_char) {
    freertos::task_evtmarker_name(id, task_id, c_str(name));
}

/// # Safety
/// `msg` as for [`c_str`].
#[no_mangle]
pub unsafe extern "C" fn tband_task_evtmarker(id: u32, msg: *const c_char) {
    freertos::task_evtmarker(id, c_str(msg));
}

/// # Safety
/// `msg` as for [`c_str`].
#[no_mangle]
pub unsafe extern "C" fn tband_task_evtmarker_begin(id: u32, msg: *const c_char) {
    freertos::task_evtmarker_begin(id, c_str(msg));
}

/// # Safety
/// `name` as for [`c_str`].
#[no_mangle]
pub unsafe extern "C" fn tband_task_valmarker_name(id: u32, task_id: u32, name: *const c_char) {
    freertos::task_valmarker_name(id, task_id, c_str(name));
}

#[no_mangle]
pub extern "C" fn tband_task_valmarker(id: u32, val: i64) {
    freertos::task_valmarker(id, val);
}

mod fault;
mod memory;
mod objects;
