//! The C ABI of the memory events: heaps and task stacks.

use core::ffi::c_char;

use super::c_str;
use crate::memory;

/// Names heap `heap_id` of `total_size` bytes (0 when unknown).
///
/// # Safety
/// `name` as for [`c_str`].
#[no_mangle]
pub unsafe extern "C" fn tband_heap_name(heap_id: u32, total_size: u32, name: *const c_char) {
    memory::heap_name(heap_id, total_size, c_str(name));
}

/// `addr` 0: the allocation of `size` bytes failed.
#[no_mangle]
pub extern "C" fn tband_heap_alloc(heap_id: u32, addr: u64, size: u32) {
    memory::heap_alloc(heap_id, addr, size);
}

/// `size` 0: the allocator does not say.
#[no_mangle]
pub extern "C" fn tband_heap_free(heap_id: u32, addr: u64, size: u32) {
    memory::heap_free(heap_id, addr, size);
}

#[no_mangle]
pub extern "C" fn tband_task_stack_size(task_id: u32, size: u32) {
    memory::task_stack_size(task_id, size);
}

#[no_mangle]
pub extern "C" fn tband_task_stack_free(task_id: u32, free: u32) {
    memory::task_stack_free(task_id, free);
}

/// The stack margin of `task_id` by its fill pattern: see
/// [`memory::task_stack_check`], whose arguments these are.
///
/// # Safety
/// As for [`memory::task_stack_check`].
#[no_mangle]
pub unsafe extern "C" fn tband_task_stack_check(
    task_id: u32,
    stack: *const u8,
    previous_free: u32,
    word_size: usize,
    fill: u8,
) -> u32 {
    memory::task_stack_check(task_id, stack, previous_free, word_size, fill)
}
