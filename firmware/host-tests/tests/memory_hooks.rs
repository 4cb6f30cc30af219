//! The tracer's memory events: what each function records, the stack
//! margin read from a stack's fill pattern (the probe below the mark, the
//! exact count from the bottom when the probe sees a change), and
//! `TracedAlloc` around the system allocator, called directly.

use std::alloc::{GlobalAlloc, Layout, System};

use tband::memory::{self, STACK_PROBE_WORDS};
use tband::TracedAlloc;
use tband_host_tests::{decode, listing, snapshot_of};

const FILL: u8 = 0xa5;

/// `memory::task_stack_check` of task 7 on `stack`, 4-byte words.
fn check(stack: &[u8], previous: u32) -> u32 {
    // SAFETY: the stack's top word is not all fill, so the count stops
    // inside it.
    unsafe { memory::task_stack_check(7, stack.as_ptr(), previous, 4, FILL) }
}

#[test]
fn memory_hooks() {
    assert!(tband::trigger_snapshot());
    memory::heap_name(1, 4096, "sram");
    memory::heap_alloc(1, 0x2000_0010, 48);
    memory::heap_alloc(1, 0, 5000);
    memory::heap_free(1, 0x2000_0010, 48);
    memory::heap_free(1, 0x2000_0040, 0);
    memory::task_stack_size(7, 256);
    memory::task_stack_free(7, 200);

    let mut stack = [FILL; 256];
    stack[240..].fill(0);
    let first = check(&stack, u32::MAX);
    assert_eq!(first, 240);
    assert_eq!(check(&stack, first), first, "unchanged: nothing recorded");
    // A write in the probe's reach: the count from the bottom.
    stack[230] = 1;
    let second = check(&stack, first);
    assert_eq!(second, 228);
    // A write below the probe's reach alone is not seen...
    let below_probe = second as usize - STACK_PROBE_WORDS * 4 - 10;
    stack[below_probe] = 1;
    assert_eq!(check(&stack, second), second);
    // ...until a write the probe reaches: then the count from the bottom
    // finds it.
    stack[second as usize - 4] = 1;
    let third = check(&stack, second);
    assert_eq!(third, below_probe as u32 / 4 * 4);
    stack[0] = 0;
    assert_eq!(check(&stack, third), third, "the probe does not reach");
    assert_eq!(check(&stack, u32::MAX), 0);
    assert_eq!(check(&stack, 0), 0, "nothing below 0");
    // SAFETY: a word of 0 reads nothing.
    let no_words = unsafe { memory::task_stack_check(7, stack.as_ptr(), 12, 0, FILL) };
    assert_eq!(no_words, 12, "nothing recorded");

    let heap = TracedAlloc::new(2, System);
    heap.name(0, "system");
    let small = Layout::from_size_align(24, 8).unwrap();
    // SAFETY: each block is freed once, with the layout it was allocated
    // with; the failed allocation gives nothing back.
    let (block, zeroed, grown, failed) = unsafe {
        let block = heap.alloc(small);
        let zeroed = heap.alloc_zeroed(small);
        let grown = heap.realloc(zeroed, small, 4000);
        let failed = heap.alloc(Layout::from_size_align(1 << 62, 8).unwrap());
        heap.dealloc(block, small);
        heap.dealloc(grown, Layout::from_size_align(4000, 8).unwrap());
        (block as u64, zeroed as u64, grown as u64, failed as u64)
    };
    tband::stop_snapshot();
    assert!(block != 0 && zeroed != 0 && grown != 0);
    assert_eq!(failed, 0);

    let listing = listing(&decode(&snapshot_of(0), 0).unwrap());
    let metadata = [
        "heap_name heap_id=1 total_size=4096 name=sram".to_string(),
        "task_stack_size task_id=7 size=256".into(),
        "heap_name heap_id=2 total_size=0 name=system".into(),
    ];
    let events = [
        "heap_alloc heap_id=1 addr=536870928 size=48".to_string(),
        "heap_alloc heap_id=1 addr=0 size=5000".into(),
        "heap_free heap_id=1 addr=536870928 size=48".into(),
        "heap_free heap_id=1 addr=536870976 size=0".into(),
        "task_stack_free task_id=7 free=200".into(),
        "task_stack_free task_id=7 free=240".into(),
        "task_stack_free task_id=7 free=228".into(),
        format!("task_stack_free task_id=7 free={third}"),
        "task_stack_free task_id=7 free=0".into(),
        format!("heap_alloc heap_id=2 addr={block} size=24"),
        format!("heap_alloc heap_id=2 addr={zeroed} size=24"),
    ];
    // The block moved: both in use while it was copied.
    let moved = [
        format!("heap_alloc heap_id=2 addr={grown} size=4000"),
        format!("heap_free heap_id=2 addr={zeroed} size=24"),
    ];
    let in_place = [moved[1].clone(), moved[0].clone()];
    let realloc = if grown == zeroed { in_place } else { moved };
    let after = [
        format!("heap_alloc heap_id=2 addr=0 size={}", u32::MAX),
        format!("heap_free heap_id=2 addr={block} size=24"),
        format!("heap_free heap_id=2 addr={grown} size=4000"),
    ];
    assert_eq!(
        listing,
        [&metadata[..], &events[..], &realloc[..], &after[..]].concat()
    );
}
