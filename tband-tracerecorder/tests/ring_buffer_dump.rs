//! The RingBuffer dump in `tests/corpus/tracerecorder/` that Percepio's own
//! recorder (TraceRecorder v4.11.0, its RingBuffer stream port, a 16 KiB
//! ring) left in RAM at the end of the FreeRTOS example's run, written out
//! through semihosting: the ring went round, and its events come out in
//! the order the recorder made them, the newest last, every object named
//! from the entry table. A dump cut inside its ring is one clear error.

use tband_model::{Model, TaskKind};
use tband_tracerecorder::{build_model, Kind, ReadError, Recording, Stream};

const DUMP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/corpus/tracerecorder/freertos_cm3_ring.psfdump"
);
const TRUTH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/corpus/tracerecorder/freertos_cm3_ring.truth.txt"
);

fn dump() -> Vec<u8> {
    std::fs::read(DUMP).expect("the corpus dump")
}

fn model(bytes: &[u8]) -> Model {
    build_model(&Recording::read(bytes).expect("a dump"), Vec::new(), None)
}

#[test]
fn the_rings_events_come_out_in_the_order_they_were_made() {
    let bytes = dump();
    let recording = Recording::read(&bytes).unwrap();
    assert_eq!(recording.kind, Kind::RingBuffer { ring: 16384 });
    let counts: Vec<u16> = Stream::new(&recording.events, 0, true)
        .map(|f| match f {
            tband_tracerecorder::Framed::Event(e) => e.count,
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(counts.len() > 1000, "{} events", counts.len());
    for pair in counts.windows(2) {
        assert_eq!(pair[1], pair[0].wrapping_add(1));
    }
    // The ring went round: its first events were overwritten.
    assert!(counts[0] > 1000);
}

#[test]
fn the_newest_events_are_the_end_of_the_run() {
    let m = model(&dump());
    assert!(m.anomalies.is_empty(), "{:?}", m.anomalies);
    let texts: Vec<&str> = (m.marker_instants.iter())
        .map(|i| m.strings.get(i.msg))
        .collect();
    assert_eq!(texts.last(), Some(&"recording stops"));
    let ticks: Vec<u32> = (texts.iter())
        .filter_map(|t| t.strip_prefix("tick ")?.parse().ok())
        .collect();
    assert_eq!(ticks.last(), Some(&10));
    for pair in ticks.windows(2) {
        assert_eq!(pair[1], pair[0] + 1);
    }
    // About 137 ms of a 0.5 s run, in the 1 ms SysTick's ticks.
    let duration_ms = m.info.duration_ns / 1_000_000;
    assert!((100..200).contains(&duration_ms), "{duration_ms} ms");
    let systick = m.isrs.iter().position(|i| i.name == "SysTick").unwrap() as u32;
    let ticks = m.isr_slices.iter().filter(|s| s.isr == systick).count() as u64;
    assert!(
        ticks.abs_diff(duration_ms) <= 2,
        "{ticks} ticks in {duration_ms} ms"
    );
}

#[test]
fn every_task_is_named_from_the_entry_table() {
    let m = model(&dump());
    let truth = std::fs::read_to_string(TRUTH).unwrap();
    for line in truth.lines() {
        if let ["task", name, _] = line.split(' ').collect::<Vec<_>>()[..] {
            assert!(m.tasks.iter().any(|t| t.name == name), "{name}");
        }
    }
    let idle = m.tasks.iter().find(|t| t.name == "IDLE").expect("IDLE");
    assert_eq!(idle.kind, TaskKind::Idle);
    let queues: Vec<&str> = m.queues.iter().map(|q| q.name.as_str()).collect();
    for queue in ["work_q", "lock", "irq_sem", "slots"] {
        assert!(queues.contains(&queue), "{queue} in {queues:?}");
    }
}

#[test]
fn a_dump_cut_inside_its_ring_is_one_clear_error() {
    let bytes = dump();
    let error = Recording::read(&bytes[..bytes.len() - 5000]).expect_err("cut");
    assert!(matches!(error, ReadError::CutRing { size: 16384, .. }));
    assert!(error
        .to_string()
        .starts_with("the TraceRecorder RingBuffer dump ends inside its ring"));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Bytes of the ring overwritten anywhere: never a panic, and the
    /// events come out in order all the same.
    #[test]
    fn any_overwritten_stretch_of_the_ring_decodes_what_it_can(
        at in 0.0..1.0f64,
        len in 1usize..256,
        byte in proptest::prelude::any::<u8>(),
    ) {
        let mut bytes = dump();
        let ring_end = bytes.len() - 16;
        let ring_start = ring_end - 16384;
        let from = ring_start + (16384.0 * at) as usize;
        let to = (from + len).min(ring_end);
        bytes[from..to].fill(byte);
        let recording = Recording::read(&bytes).unwrap();
        let mut rows = 0u64;
        let model = build_model(&recording, Vec::new(), Some(&mut |_| rows += 1));
        proptest::prop_assert_eq!(rows, model.info.events);
        proptest::prop_assert!(model.info.events > 0);
    }
}
