//! The tables of heaps and stacks: each heap, the blocks allocated from
//! it, its bytes in use after every allocation and free, the allocations
//! it could not satisfy, and each task's stack margin, from the model's
//! [`tband_model::Memory`].

use tband_model::{FailedAllocation, Heap, HeapBlock, HeapLevel, StackMargin};

use super::{
    actor_isr, actor_task, dur, duration, int, text, Column, Context, Each, ModelTable, Value,
};
use crate::rows::RowSource;

pub struct Heaps;

impl ModelTable for Heaps {
    type Row = Heap;
    const NAME: &str = "heaps";
    const DOC: &str =
        "Heaps blocks are allocated from, with the most bytes each had in use at once.";
    const COLUMNS: &[Column<Value<Heap>>] = &[
        int("heap_id", "the heap", |h, _| h.heap_id.into()),
        text("name", "its name, or `heap <id>`", |h, _| {
            h.name.as_str().into()
        }),
        int(
            "total_size",
            "the bytes it has, where the trace says",
            |h, _| h.total_size.into(),
        ),
        int("peak_bytes", "the most bytes in use at once", |h, _| {
            h.peak_bytes.into()
        }),
        int("peak_ns", "when peak_bytes were first in use", |h, _| {
            h.peak_ns.into()
        }),
        int(
            "lanes",
            "the most of its blocks live at once (the lanes of heap_blocks)",
            |h, _| h.lanes.into(),
        ),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<Heap>) -> Result<(), String> {
        source.each_in(|m| &m.memory.heaps, each)
    }
}

/// A block and its position in allocation order.
type NumberedBlock = (u64, HeapBlock);

pub struct HeapBlocks;

impl ModelTable for HeapBlocks {
    type Row = NumberedBlock;
    const NAME: &str = "heap_blocks";
    const DOC: &str = "Blocks allocated from heaps, from their allocation to their free.";
    const COLUMNS: &[Column<Value<NumberedBlock>>] = &[
        int(
            "block_id",
            "position in allocation order, from 0",
            |(id, _), _| (*id).into(),
        ),
        int("heap_id", "the heap (heaps)", |(_, b), _| b.heap_id.into()),
        int("addr", "its address", |(_, b), _| b.addr.into()),
        int(
            "size",
            "the bytes the allocator counts against the heap for it",
            |(_, b), _| b.size.into(),
        ),
        int(
            "lane",
            "a lane of its heap that no other block uses at the same time",
            |(_, b), _| b.lane.into(),
        ),
        int("start_ns", "allocated", |(_, b), _| b.start_ns.into()),
        int(
            "end_ns",
            "freed (the trace's end when truncated)",
            |(_, b), _| b.end_ns.into(),
        ),
        duration(|(_, b), _| dur(b.start_ns, b.end_ns)),
        int(
            "truncated",
            "1 if never freed before the trace ended: a leak, or a trace cut short",
            |(_, b), _| b.truncated.into(),
        ),
        int(
            "alloc_core_id",
            "the core it was allocated on",
            |(_, b), _| b.alloc_core.into(),
        ),
        int(
            "alloc_task_id",
            "the task that allocated it (NULL from an ISR or when unknown)",
            |(_, b), _| actor_task(b.allocated_by),
        ),
        int(
            "alloc_isr_id",
            "the ISR that allocated it, on alloc_core_id",
            |(_, b), _| actor_isr(b.allocated_by),
        ),
        int(
            "free_core_id",
            "the core it was freed on (NULL when never freed)",
            |(_, b), _| b.free_core.into(),
        ),
        int("free_task_id", "the task that freed it", |(_, b), _| {
            actor_task(b.freed_by)
        }),
        int(
            "free_isr_id",
            "the ISR that freed it, on free_core_id",
            |(_, b), _| actor_isr(b.freed_by),
        ),
    ];

    fn rows(source: &mut RowSource<'_>, mut each: impl Each<NumberedBlock>) -> Result<(), String> {
        let context = Context::new(source.model());
        let blocks = context.model.memory.blocks.iter().copied();
        (0..).zip(blocks).try_for_each(|b| each(&b, &context))
    }
}

pub struct HeapLevels;

impl ModelTable for HeapLevels {
    type Row = HeapLevel;
    const NAME: &str = "heap_levels";
    const DOC: &str = "Each heap's bytes in use just after every allocation and free.";
    const COLUMNS: &[Column<Value<HeapLevel>>] = &[
        int("ts_ns", "when", |l, _| l.ts_ns.into()),
        int("heap_id", "the heap", |l, _| l.heap_id.into()),
        int(
            "bytes_in_use",
            "bytes allocated and not yet freed",
            |l, _| l.bytes_in_use.into(),
        ),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<HeapLevel>) -> Result<(), String> {
        source.each_in(|m| &m.memory.heap_levels, each)
    }
}

pub struct FailedAllocations;

impl ModelTable for FailedAllocations {
    type Row = FailedAllocation;
    const NAME: &str = "failed_allocations";
    const DOC: &str = "Allocations a heap could not satisfy.";
    const COLUMNS: &[Column<Value<FailedAllocation>>] = &[
        int("ts_ns", "when", |f, _| f.ts_ns.into()),
        int("heap_id", "the heap", |f, _| f.heap_id.into()),
        int(
            "size",
            "the bytes asked for (as the allocator counts them)",
            |f, _| f.size.into(),
        ),
        int("core_id", "the core", |f, _| f.core_id.into()),
        int(
            "task_id",
            "the task that asked (NULL from an ISR or when unknown)",
            |f, _| actor_task(f.by),
        ),
        int("isr_id", "the ISR that asked, on core_id", |f, _| {
            actor_isr(f.by)
        }),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<FailedAllocation>) -> Result<(), String> {
        source.each_in(|m| &m.memory.failed_allocations, each)
    }
}

pub struct StackMargins;

impl ModelTable for StackMargins {
    type Row = StackMargin;
    const NAME: &str = "stack_margins";
    const DOC: &str = "Each task's fewest free stack bytes so far, every time it fell.";
    const COLUMNS: &[Column<Value<StackMargin>>] = &[
        int("ts_ns", "when", |s, _| s.ts_ns.into()),
        int(
            "task_id",
            "the task (its stack_size is in tasks)",
            |s, _| s.task_id.into(),
        ),
        int(
            "free_bytes",
            "the fewest bytes of its stack it has had left so far",
            |s, _| s.free_bytes.into(),
        ),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<StackMargin>) -> Result<(), String> {
        source.each_in(|m| &m.memory.stack_margins, each)
    }
}
