//! Memory for the tables' chunks, in pages of their own from the system:
//! zeroed by it, mapped in whole when a chunk starts (instead of one page
//! fault per 4 KiB as its rows are written), and handed back to it when
//! the chunk is freed (an allocator keeps freed memory for its next
//! allocations, so a table freed chunk by chunk as it is read would
//! otherwise stay resident).

use std::alloc::Layout;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use super::column::Zeroed;

/// A value of type `C` in pages of its own.
pub(crate) struct Pages<C: Zeroed + Copy> {
    value: NonNull<C>,
}

// SAFETY: `Pages` owns its value alone, as a `Box` does.
unsafe impl<C: Zeroed + Copy + Send> Send for Pages<C> {}
// SAFETY: as above.
unsafe impl<C: Zeroed + Copy + Sync> Sync for Pages<C> {}

impl<C: Zeroed + Copy> Pages<C> {
    /// A value of zeros, its pages mapped in at once if `map_in`, else as
    /// they are first written.
    pub(crate) fn zeroed(map_in: bool) -> Self {
        const { assert!(size_of::<C>() > 0) };
        match NonNull::new(allocate_zeroed(Layout::new::<C>(), map_in).cast::<C>()) {
            // All zeros is a valid `C` (`Zeroed`).
            Some(value) => Pages { value },
            None => std::alloc::handle_alloc_error(Layout::new::<C>()),
        }
    }
}

impl<C: Zeroed + Copy> Clone for Pages<C> {
    fn clone(&self) -> Self {
        let mut copy = Pages::zeroed(true);
        *copy = **self;
        copy
    }
}

impl<C: Zeroed + Copy> Deref for Pages<C> {
    type Target = C;
    fn deref(&self) -> &C {
        // SAFETY: the pointer is to a valid `C` that `self` owns.
        unsafe { self.value.as_ref() }
    }
}

impl<C: Zeroed + Copy> DerefMut for Pages<C> {
    fn deref_mut(&mut self) -> &mut C {
        // SAFETY: as above, borrowed mutably through `self`.
        unsafe { self.value.as_mut() }
    }
}

impl<C: Zeroed + Copy> Drop for Pages<C> {
    fn drop(&mut self) {
        // SAFETY: the memory was allocated with this layout and is not used
        // after this (`C` is `Copy`, so there is nothing to drop).
        unsafe { free(self.value.as_ptr().cast(), Layout::new::<C>()) }
    }
}

/// Zeroed memory of `layout` (of a nonzero size, aligned to at most a
/// page), null if there is none.
#[cfg(target_os = "linux")]
fn allocate_zeroed(layout: Layout, map_in: bool) -> *mut u8 {
    let populate = if map_in { libc::MAP_POPULATE } else { 0 };
    // SAFETY: a new private anonymous mapping, which aliases nothing; the
    // system zeroes its pages and aligns it to a page.
    let memory = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            layout.size(),
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | populate,
            -1,
            0,
        )
    };
    if memory == libc::MAP_FAILED {
        return std::ptr::null_mut();
    }
    memory.cast()
}

/// # Safety
/// `memory` must come from `allocate_zeroed(layout, _)` and not be used
/// afterwards.
#[cfg(target_os = "linux")]
unsafe fn free(memory: *mut u8, layout: Layout) {
    // SAFETY: the whole mapping made by `allocate_zeroed` (see above).
    unsafe { libc::munmap(memory.cast(), layout.size()) };
}

#[cfg(not(target_os = "linux"))]
fn allocate_zeroed(layout: Layout, _map_in: bool) -> *mut u8 {
    // SAFETY: the layout's size is not zero (see `Pages::zeroed`).
    unsafe { std::alloc::alloc_zeroed(layout) }
}

#[cfg(not(target_os = "linux"))]
unsafe fn free(memory: *mut u8, layout: Layout) {
    // SAFETY: allocated with this layout by `allocate_zeroed`.
    unsafe { std::alloc::dealloc(memory, layout) }
}
