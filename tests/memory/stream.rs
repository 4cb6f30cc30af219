//! A tband stream of heap and stack events that the tests of the model and
//! of the sinks read (`#[path = "../../tests/memory/stream.rs"] mod stream;`).
//!
//! Two tasks, a producer (1) and a consumer (2), and an ISR share the heap
//! "FreeRTOS heap" of 4096 bytes (one tick is 1 µs; the model counts time
//! from the first timed event, at 1 µs):
//!
//! | µs | who      | what                       | in use |
//! |---:|----------|----------------------------|-------:|
//! |  2 | producer | 64 B at 0x20000100         |     64 |
//! |  3 | producer | 128 B at 0x20000148        |    192 |
//! |  6 | consumer | frees 0x20000100           |    128 |
//! |  7 | consumer | 8192 B: fails              |    128 |
//! | 10 | ISR      | 32 B at 0x20000100         |    160 |
//! | 13 | producer | frees 0x20000148           |     32 |
//! | 14 | producer | 256 B at 0x20000200, leaked |   288 |
//! | 16 | producer | frees 0x20000100           |    256 |
//!
//! The peak is 288 B at 14 µs (13 µs in the model), by the producer; one block (256 B) is live
//! at the end. The producer's stack (512 B) falls to 300 then 240 bytes
//! free, the consumer's (1024 B) to 700.

#![allow(dead_code)] // each crate's test uses a part of it

use tband::Event;

pub const PEAK_BYTES: u64 = 288;
pub const PEAK_NS: u64 = 13_000;
pub const LEAKED: (u64, u32) = (0x2000_0200, 256);

pub fn events() -> Vec<(u64, Event<'static>)> {
    let alloc = |addr, size| Event::HeapAlloc {
        heap_id: 0,
        addr,
        size,
    };
    let free = |addr, size| Event::HeapFree {
        heap_id: 0,
        addr,
        size,
    };
    vec![
        (0, Event::TsResolutionNs { ns_per_ts: 1000 }),
        (
            0,
            Event::TaskName {
                task_id: 1,
                name: b"producer",
            },
        ),
        (
            0,
            Event::TaskName {
                task_id: 2,
                name: b"consumer",
            },
        ),
        (
            0,
            Event::IsrName {
                isr_id: 1,
                name: b"uart",
            },
        ),
        (
            0,
            Event::HeapName {
                heap_id: 0,
                total_size: 4096,
                name: b"FreeRTOS heap",
            },
        ),
        (
            0,
            Event::TaskStackSize {
                task_id: 1,
                size: 512,
            },
        ),
        (
            0,
            Event::TaskStackSize {
                task_id: 2,
                size: 1024,
            },
        ),
        (1, Event::TaskSwitchedIn { task_id: 1 }),
        (2, alloc(0x2000_0100, 64)),
        (3, alloc(0x2000_0148, 128)),
        (
            4,
            Event::TaskStackFree {
                task_id: 1,
                free: 300,
            },
        ),
        (5, Event::TaskSwitchedIn { task_id: 2 }),
        (6, free(0x2000_0100, 64)),
        (7, alloc(0, 8192)),
        (
            8,
            Event::TaskStackFree {
                task_id: 2,
                free: 700,
            },
        ),
        (9, Event::IsrEnter { isr_id: 1 }),
        (10, alloc(0x2000_0100, 32)),
        (11, Event::IsrExit { isr_id: 1 }),
        (12, Event::TaskSwitchedIn { task_id: 1 }),
        (13, free(0x2000_0148, 128)),
        (14, alloc(0x2000_0200, 256)),
        (
            15,
            Event::TaskStackFree {
                task_id: 1,
                free: 240,
            },
        ),
        (16, free(0x2000_0100, 0)),
        (20, Event::TaskSwitchedIn { task_id: 2 }),
    ]
}
