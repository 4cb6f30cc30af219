//! `TracedAlloc` as the program's global allocator: the allocations, frees
//! and reallocations of ordinary Rust code are in the trace, and recording
//! them allocates nothing (it would recurse). Without the test harness, so
//! that nothing but this code allocates while the snapshot records.

use std::alloc::System;

use tband::TracedAlloc;
use tband_host_tests::{decode, listing, snapshot_of};

#[global_allocator]
static HEAP: TracedAlloc<System> = TracedAlloc::new(3, System);

fn main() {
    HEAP.name(0, "rust heap");
    assert!(tband::trigger_snapshot());
    let boxed = Box::new([7u64; 5]);
    let boxed_addr = &*boxed as *const _ as u64;
    drop(boxed);
    let mut numbers: Vec<u32> = Vec::with_capacity(4);
    let first_addr = numbers.as_ptr() as u64;
    numbers.extend([1, 2, 3, 4]);
    numbers.push(5);
    let grown_addr = numbers.as_ptr() as u64;
    let capacity = numbers.capacity();
    drop(numbers);
    tband::stop_snapshot();

    let listing = listing(&decode(&snapshot_of(0), 0).unwrap());
    let grown = format!(
        "heap_alloc heap_id=3 addr={grown_addr} size={}",
        capacity * 4
    );
    let first_freed = format!("heap_free heap_id=3 addr={first_addr} size=16");
    // Moved, both blocks were in use while it was copied; else the free first.
    let realloc = if grown_addr == first_addr {
        [first_freed, grown]
    } else {
        [grown, first_freed]
    };
    assert_eq!(
        listing,
        [
            "heap_name heap_id=3 total_size=0 name=rust heap".to_string(),
            format!("heap_alloc heap_id=3 addr={boxed_addr} size=40"),
            format!("heap_free heap_id=3 addr={boxed_addr} size=40"),
            format!("heap_alloc heap_id=3 addr={first_addr} size=16"),
            realloc[0].clone(),
            realloc[1].clone(),
            format!(
                "heap_free heap_id=3 addr={grown_addr} size={}",
                capacity * 4
            ),
        ]
    );
    println!("traced_global_alloc: ok");
}
