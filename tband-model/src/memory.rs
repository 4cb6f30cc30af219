//! Heaps, the blocks allocated from them, and the stack each task has
//! left: what memory events say (a tracer's heap and stack events, an
//! importer's pool allocations).

use crate::Actor;

/// The heaps and stacks of a trace, in the [`Model`](crate::Model).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// By heap id.
    pub heaps: Vec<Heap>,
    /// By allocation time.
    pub blocks: Vec<HeapBlock>,
    /// Each heap's bytes in use after every allocation and free, by time.
    pub heap_levels: Vec<HeapLevel>,
    /// By time.
    pub failed_allocations: Vec<FailedAllocation>,
    /// Each task's fewest free stack bytes, every time it fell, by time.
    pub stack_margins: Vec<StackMargin>,
}

impl Memory {
    pub fn heap(&self, heap_id: u32) -> Option<&Heap> {
        self.heaps.iter().find(|h| h.heap_id == heap_id)
    }

    /// Whether the trace says nothing of heaps or stacks.
    pub fn is_empty(&self) -> bool {
        self.heaps.is_empty() && self.stack_margins.is_empty()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heap {
    pub heap_id: u32,
    /// Its name, or `heap <id>`.
    pub name: String,
    /// The bytes it has, when the trace says.
    pub total_size: Option<u32>,
    /// The most bytes in use at once, and when that was first reached.
    pub peak_bytes: u64,
    pub peak_ns: u64,
    /// How many of its blocks were live at once at most: the lanes they
    /// need (see [`HeapBlock::lane`]).
    pub lanes: u32,
}

/// A block from its allocation to its free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapBlock {
    pub heap_id: u32,
    pub addr: u64,
    /// The bytes the allocator counts against the heap for it.
    pub size: u32,
    pub start_ns: u64,
    /// When it was freed; the trace's end when it never was.
    pub end_ns: u64,
    /// Never freed before the trace ended: a leak, or a trace cut short.
    pub truncated: bool,
    /// A lane of its heap that no other block uses at the same time.
    pub lane: u32,
    pub alloc_core: u32,
    pub free_core: Option<u32>,
    pub allocated_by: Option<Actor>,
    pub freed_by: Option<Actor>,
}

/// A heap's bytes in use just after an allocation or a free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapLevel {
    pub ts_ns: u64,
    pub heap_id: u32,
    pub bytes_in_use: u64,
}

/// An allocation the allocator could not satisfy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailedAllocation {
    pub ts_ns: u64,
    pub heap_id: u32,
    /// The bytes asked for (as the allocator counts them).
    pub size: u32,
    pub core_id: u32,
    pub by: Option<Actor>,
}

/// A task's stack margin fell: the fewest bytes of its stack it has had
/// left so far (its high-water mark).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackMargin {
    pub ts_ns: u64,
    pub task_id: u32,
    pub free_bytes: u32,
}
