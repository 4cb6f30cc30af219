//! The C ABI of the FreeRTOS objects without reference events: task
//! notifications, event groups, stream buffers, software timers.

use core::ffi::c_char;

use super::c_str;
use crate::freertos::{self, StreamBufferKind};

c_hooks! {
    tband_freertos_task_notify_take => curtask_notify_take(value);
    tband_freertos_blocking_on_notify => curtask_block_on_notify(ticks_to_wait);
    tband_freertos_blocking_on_event_group => curtask_block_on_event_group(group_id, ticks_to_wait);
    tband_freertos_event_group_wait_end => curtask_event_group_wait_end(group_id, bits);
    tband_freertos_stream_buffer_reset => stream_buffer_reset(buffer_id);
    tband_freertos_blocking_on_stream_buffer => curtask_block_on_stream_buffer(buffer_id, ticks_to_wait);
    tband_freertos_timer_command => timer_command(timer_id, command);
    tband_freertos_timer_expired => timer_expired(timer_id);
}

#[no_mangle]
pub extern "C" fn tband_freertos_task_notify(task_id: u32, value: u32, from_isr: bool) {
    freertos::task_notify(task_id, value, from_isr);
}

/// Returns the new event group's id (store it in `uxEventGroupNumber`).
#[no_mangle]
pub extern "C" fn tband_freertos_event_group_create() -> u32 {
    freertos::event_group_created()
}

/// Names an event group by its tband id (`uxEventGroupNumber`).
///
/// # Safety
/// `name` as for [`c_str`].
#[no_mangle]
pub unsafe extern "C" fn tband_freertos_event_group_id_name(group_id: u32, name: *const c_char) {
    freertos::event_group_name(group_id, c_str(name));
}

#[no_mangle]
pub extern "C" fn tband_freertos_event_group_set_bits(group_id: u32, bits: u32, from_isr: bool) {
    freertos::event_group_set_bits(group_id, bits, from_isr);
}

#[no_mangle]
pub extern "C" fn tband_freertos_event_group_clear_bits(group_id: u32, bits: u32, from_isr: bool) {
    freertos::event_group_clear_bits(group_id, bits, from_isr);
}

/// `freertos_type` is FreeRTOS's stream buffer type (`sbTYPE_*`). Returns
/// the new buffer's id (store it in `uxStreamBufferNumber`).
#[no_mangle]
pub extern "C" fn tband_freertos_stream_buffer_create(freertos_type: u8) -> u32 {
    let kind = match freertos_type {
        1 => StreamBufferKind::MessageBuffer,
        2 => StreamBufferKind::BatchingBuffer,
        _ => StreamBufferKind::StreamBuffer,
    };
    freertos::stream_buffer_created(kind)
}

/// Names a stream buffer by its tband id (`uxStreamBufferNumber`).
///
/// # Safety
/// `name` as for [`c_str`].
#[no_mangle]
pub unsafe extern "C" fn tband_freertos_stream_buffer_id_name(buffer_id: u32, name: *const c_char) {
    freertos::stream_buffer_name(buffer_id, c_str(name));
}

#[no_mangle]
pub extern "C" fn tband_freertos_stream_buffer_send(
    buffer_id: u32,
    len_after: u32,
    from_isr: bool,
) {
    freertos::stream_buffer_send(buffer_id, len_after, from_isr);
}

#[no_mangle]
pub extern "C" fn tband_freertos_stream_buffer_receive(
    buffer_id: u32,
    len_after: u32,
    from_isr: bool,
) {
    freertos::stream_buffer_receive(buffer_id, len_after, from_isr);
}

/// Returns the new timer's id (store it in `uxTimerNumber`) and records
/// its name.
///
/// # Safety
/// `name` as for [`c_str`].
#[no_mangle]
pub unsafe extern "C" fn tband_freertos_timer_create(name: *const c_char) -> u32 {
    freertos::timer_created(c_str(name))
}
