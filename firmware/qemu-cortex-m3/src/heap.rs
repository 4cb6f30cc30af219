//! The global allocator: embedded-alloc's linked-list heap in a static
//! buffer, wrapped by tband's `TracedAlloc`, and some work on it whose
//! counts the firmware prints for the host to check the trace against.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::mem::MaybeUninit;

use cortex_m_semihosting::hprintln;
use embedded_alloc::LlffHeap;
use tband::TracedAlloc;

const HEAP_BYTES: usize = 1024;

#[global_allocator]
static HEAP: TracedAlloc<LlffHeap> = TracedAlloc::new(1, LlffHeap::empty());

/// Gives the heap its memory and names it; call once, before anything
/// allocates.
pub fn set_up() {
    static mut MEMORY: [MaybeUninit<u8>; HEAP_BYTES] = [MaybeUninit::uninit(); HEAP_BYTES];
    // SAFETY: called once, before any allocation; nothing else uses MEMORY.
    unsafe {
        HEAP.allocator()
            .init(core::ptr::addr_of_mut!(MEMORY) as usize, HEAP_BYTES);
    }
    HEAP.name(HEAP_BYTES as u32, "heap");
}

/// What the firmware allocated and freed, by its own count.
#[derive(Default)]
struct Counts {
    allocations: u32,
    failed: u32,
    frees: u32,
    in_use: usize,
    peak: usize,
}

impl Counts {
    fn allocated(&mut self, bytes: usize) {
        self.allocations += 1;
        self.in_use += bytes;
        self.peak = self.peak.max(self.in_use);
    }

    fn freed(&mut self, bytes: usize) {
        self.frees += 1;
        self.in_use -= bytes;
    }
}

/// Six-word blocks: sizes that are multiples of 8 bytes, which the heap
/// counts as they are, so that its own count of bytes in use can be
/// compared.
type Block = Box<[u32; 6]>;
const BLOCK: usize = 24;
const POINTER: usize = 4;

/// Allocates blocks into a vector that grows once (a reallocation that
/// moves it: the heap has no reallocation in place), asks once for more
/// than the heap has, frees everything; prints the counts.
pub fn exercise() {
    let mut counts = Counts::default();
    let mut blocks: Vec<Block> = Vec::with_capacity(2);
    counts.allocated(2 * POINTER);
    for i in 0..4 {
        if i == 2 {
            blocks.reserve_exact(2);
            counts.allocated(4 * POINTER);
            counts.freed(2 * POINTER);
        }
        blocks.push(Box::new([i; 6]));
        counts.allocated(BLOCK);
    }
    let heap_used = HEAP.allocator().used();
    let mut too_big: Vec<u8> = Vec::new();
    if too_big.try_reserve_exact(2 * HEAP_BYTES).is_err() {
        counts.failed += 1;
    }
    for _ in blocks.drain(..2) {
        counts.freed(BLOCK);
    }
    let left = blocks.len();
    drop(blocks);
    for _ in 0..left {
        counts.freed(BLOCK);
    }
    counts.freed(4 * POINTER);
    hprintln!(
        "heap: allocations={} failed={} frees={} peak={} in_use={} heap_used_at_peak={}",
        counts.allocations,
        counts.failed,
        counts.frees,
        counts.peak,
        counts.in_use,
        heap_used
    );
}
