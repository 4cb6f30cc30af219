//! Memory on the timeline, from any firmware: heap allocations and frees,
//! and the stack each task has left (the memory events, ids 152–156).
//! Heaps are numbered by the firmware (the FreeRTOS hooks use heap 0);
//! tasks are the tracer's task ids. [`TracedAlloc`] records a Rust global
//! allocator's allocations and frees.

use crate::global::{cut, event, metadata};
use crate::Event;

mod traced_alloc;
pub use traced_alloc::TracedAlloc;

/// Names heap `heap_id`, whose size is `total_size` bytes (0 when unknown)
/// (metadata).
pub fn heap_name(heap_id: u32, total_size: u32, name: impl AsRef<[u8]>) {
    metadata(Event::HeapName {
        heap_id,
        total_size,
        name: cut(name.as_ref()),
    });
}

/// The allocator of `heap_id` handed out the block at `addr`, of `size`
/// bytes as the allocator counts them; `addr` 0: the allocation of `size`
/// bytes failed.
#[inline]
pub fn heap_alloc(heap_id: u32, addr: u64, size: u32) {
    event(Event::HeapAlloc {
        heap_id,
        addr,
        size,
    });
}

/// The block at `addr` of `heap_id`, of `size` bytes (0 when the allocator
/// does not say), goes back to the heap.
#[inline]
pub fn heap_free(heap_id: u32, addr: u64, size: u32) {
    event(Event::HeapFree {
        heap_id,
        addr,
        size,
    });
}

/// The stack of `task_id` is `size` bytes (metadata).
pub fn task_stack_size(task_id: u32, size: u32) {
    metadata(Event::TaskStackSize { task_id, size });
}

/// The fewest bytes of its stack `task_id` has had left so far (its
/// high-water mark) fell to `free`.
#[inline]
pub fn task_stack_free(task_id: u32, free: u32) {
    event(Event::TaskStackFree { task_id, free });
}

/// Words just below a task's previous stack mark that [`task_stack_check`]
/// reads on every call.
pub const STACK_PROBE_WORDS: usize = 16;

/// The stack margin of `task_id` from its stack's fill pattern, the way
/// FreeRTOS measures its high-water mark (`uxTaskGetStackHighWaterMark`):
/// the whole `word`-byte words from the bottom of the stack up to the first
/// one not all `fill` bytes. `previous` is the margin this returned last
/// time for the task (`u32::MAX` before the first). Only the
/// [`STACK_PROBE_WORDS`] words just below the previous mark are read while
/// they stay all `fill`; when one does not (or the mark is closer to the
/// bottom than that), the stack is read from its bottom up to the new
/// mark, so the margin is then the kernel's. Records `task_stack_free` when
/// the margin fell (or is the first), and returns it.
///
/// A task that first writes further below its mark than the probe reaches,
/// leaving the probed words all `fill` (a local array never written down
/// to its end, registers that still hold the fill pattern), is seen at the
/// first call whose probe finds a change.
///
/// # Safety
/// `stack` is the lowest address of a stack that grows down, readable from
/// there up to its first word that is not all `fill` (a `word` of 0 reads
/// nothing and returns `previous`).
pub unsafe fn task_stack_check(
    task_id: u32,
    stack: *const u8,
    previous: u32,
    word: usize,
    fill: u8,
) -> u32 {
    let probe_len = STACK_PROBE_WORDS * word;
    let mark = previous as usize;
    let probed = previous != u32::MAX && mark >= probe_len;
    if word == 0 || probed && probe_unchanged(stack.add(mark - probe_len), word, fill) {
        return previous;
    }
    count_margin(task_id, stack, previous, word, fill)
}

/// Whether the [`STACK_PROBE_WORDS`] words at `probe` are all `fill`. On
/// the 32-bit targets' 4-byte words, four loads combined per test, as the
/// answer is nearly always yes.
#[inline(always)]
unsafe fn probe_unchanged(probe: *const u8, word: usize, fill: u8) -> bool {
    if word != 4 {
        return (0..STACK_PROBE_WORDS * word).all(|i| *probe.add(i) == fill);
    }
    let pattern = u32::from_ne_bytes([fill; 4]);
    let words = probe.cast::<u32>();
    let differs = |i: usize| words.add(i).read_unaligned() ^ pattern;
    let mut differ = 0;
    let mut i = 0;
    while i < STACK_PROBE_WORDS {
        differ |= differs(i) | differs(i + 1) | differs(i + 2) | differs(i + 3);
        i += 4;
    }
    differ == 0
}

/// The margin counted from the bottom of the stack, as the kernel counts
/// it, up to the previous mark at most; recorded when it fell (or is the
/// first).
#[inline(never)]
unsafe fn count_margin(
    task_id: u32,
    stack: *const u8,
    previous: u32,
    word: usize,
    fill: u8,
) -> u32 {
    let known = previous != u32::MAX;
    let is_fill = |at: usize| (0..word).all(|i| *stack.add(at + i) == fill);
    let mut free = 0;
    while (!known || free + word <= previous as usize) && is_fill(free) {
        free += word;
    }
    let free = u32::try_from(free).unwrap_or(u32::MAX - 1);
    if free != previous {
        task_stack_free(task_id, free);
    }
    free
}
