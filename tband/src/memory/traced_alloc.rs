//! A global allocator that records what the allocator it wraps does.

use core::alloc::{GlobalAlloc, Layout};

use super::{heap_alloc, heap_free, heap_name};

/// Wraps allocator `A` and records its allocations, failed allocations
/// (address 0) and frees on heap `heap_id`, each block with the size of its
/// layout. Recording allocates nothing, so the wrapper can be the global
/// allocator:
///
/// ```ignore
/// #[global_allocator]
/// static HEAP: tband::TracedAlloc<embedded_alloc::LlffHeap> =
///     tband::TracedAlloc::new(1, embedded_alloc::LlffHeap::empty());
/// ```
///
/// A reallocation is recorded as what it is to the heap: the allocation of
/// the new block and the free of the old one, in this order when the block
/// moved (both were in use while it was copied), the free first when it
/// grew or shrank in place; or a failed allocation when the old block stays.
pub struct TracedAlloc<A> {
    heap_id: u32,
    allocator: A,
}

impl<A> TracedAlloc<A> {
    pub const fn new(heap_id: u32, allocator: A) -> Self {
        TracedAlloc { heap_id, allocator }
    }

    /// The wrapped allocator (e.g. to give it its memory).
    pub const fn allocator(&self) -> &A {
        &self.allocator
    }

    pub const fn heap_id(&self) -> u32 {
        self.heap_id
    }

    /// Names the heap, of `total_size` bytes (metadata; call once).
    pub fn name(&self, total_size: u32, name: impl AsRef<[u8]>) {
        heap_name(self.heap_id, total_size, name);
    }

    fn allocated(&self, ptr: *mut u8, size: usize) {
        heap_alloc(self.heap_id, ptr as usize as u64, size_u32(size));
    }
}

/// Sizes beyond `u32` (only ever a failed request) are recorded as
/// `u32::MAX`.
fn size_u32(size: usize) -> u32 {
    u32::try_from(size).unwrap_or(u32::MAX)
}

// SAFETY: every call is forwarded unchanged to `A`, which upholds the
// contract; recording neither allocates nor touches the blocks.
unsafe impl<A: GlobalAlloc> GlobalAlloc for TracedAlloc<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = self.allocator.alloc(layout);
        self.allocated(ptr, layout.size());
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = self.allocator.alloc_zeroed(layout);
        self.allocated(ptr, layout.size());
        ptr
    }

    /// The free is recorded before the block goes back, so that no
    /// allocation of the same address on another core is recorded before it.
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        heap_free(self.heap_id, ptr as usize as u64, size_u32(layout.size()));
        self.allocator.dealloc(ptr, layout);
    }

    /// In one critical section with its events, for the reason `dealloc`
    /// records first: the old block is free once `A` returns.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        critical_section::with(|_| {
            let new = self.allocator.realloc(ptr, layout, new_size);
            let free_old = || heap_free(self.heap_id, ptr as usize as u64, size_u32(layout.size()));
            if new == ptr {
                free_old();
            }
            self.allocated(new, new_size);
            if !new.is_null() && new != ptr {
                free_old();
            }
            new
        })
    }
}
