//! The memory events become the model's `memory`: blocks with who
//! allocated and freed them, the heap's levels and peak, the failed
//! allocation, the stack margins; the summary says what matters of them.

#[path = "../../tests/memory/stream.rs"]
mod stream;

use tband::Event;
use tband_decode::encode::encode_stream;
use tband_decode::input::Input;
use tband_model::{Actor, AnomalyKind, IsrKey, Model};
use tband_trace::{OpenOptions, Trace};

fn model(events: &[(u64, Event<'_>)]) -> Model {
    let inputs = Input::per_core("memory", vec![encode_stream(events)]);
    Trace::from_inputs(inputs, &OpenOptions::default())
        .unwrap()
        .model
}

#[test]
fn heap_and_stack_events_land_in_the_memory_tables() {
    let m = model(&stream::events());
    assert!(m.anomalies.is_empty(), "{:?}", m.anomalies);
    let memory = &m.memory;
    let heap = &memory.heaps[0];
    assert_eq!(
        (
            heap.name.as_str(),
            heap.total_size,
            heap.peak_bytes,
            heap.peak_ns
        ),
        (
            "FreeRTOS heap",
            Some(4096),
            stream::PEAK_BYTES,
            stream::PEAK_NS
        )
    );
    let uart = Actor::Isr(IsrKey {
        core_id: 0,
        isr_id: 1,
    });
    let blocks: Vec<_> = (memory.blocks.iter())
        .map(|b| (b.addr, b.size, b.allocated_by, b.freed_by, b.truncated))
        .collect();
    let (producer, consumer) = (Some(Actor::Task(1)), Some(Actor::Task(2)));
    assert_eq!(
        blocks,
        [
            (0x2000_0100, 64, producer, consumer, false),
            (0x2000_0148, 128, producer, producer, false),
            (0x2000_0100, 32, Some(uart), producer, false),
            (stream::LEAKED.0, stream::LEAKED.1, producer, None, true),
        ]
    );
    let failed = &memory.failed_allocations[0];
    assert_eq!(
        (failed.ts_ns, failed.size, failed.by),
        (6000, 8192, consumer)
    );
    let margins: Vec<_> = (memory.stack_margins.iter())
        .map(|s| (s.task_id, s.free_bytes))
        .collect();
    assert_eq!(margins, [(1, 300), (2, 700), (1, 240)]);
    assert_eq!(m.task_by_id(1).and_then(|t| t.stack_size), Some(512));
}

#[test]
fn the_summary_gives_the_peak_the_live_blocks_and_the_tightest_stacks() {
    let mut out = Vec::new();
    tband_model::summary::write_summary(&mut out, &model(&stream::events())).unwrap();
    let text = String::from_utf8(out).unwrap();
    let memory: Vec<&str> = (text.lines())
        .skip_while(|l| *l != "memory")
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(
        memory,
        [
            "memory",
            "  FreeRTOS heap                peak 288 B of 4096 B at 13.00 µs by producer; 4 blocks, 1 live at the end (256 B); 1 failed",
            "  stack producer               fewest free 240 B of 512 B, at 14.00 µs",
            "  stack consumer               fewest free 700 B of 1024 B, at 7.00 µs",
        ],
        "{text}"
    );
}

#[test]
fn a_free_of_an_unknown_block_and_a_double_free_are_counted_not_lost() {
    let mut events = stream::events();
    let free = |addr| Event::HeapFree {
        heap_id: 0,
        addr,
        size: 0,
    };
    events.push((21, free(0x2000_0148)));
    events.push((22, free(0x2000_0999)));
    let m = model(&events);
    assert_eq!(m.anomaly_count(AnomalyKind::DoubleFree), 1);
    assert_eq!(m.anomaly_count(AnomalyKind::UnknownFree), 1);
    assert_eq!(m.memory.blocks.len(), 4);
}
