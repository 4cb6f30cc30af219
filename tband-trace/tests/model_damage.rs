//! Damaged traces: decoding goes on, anomalies say what happened, nothing panics.

use proptest::prelude::*;
use tband::Event;
use tband_decode::encode::encode_stream;
use tband_model::{AnomalyKind, Model};
use tband_trace::input::{Bytes, Input};
use tband_trace::{OpenOptions, Trace};

fn recording(name: &str) -> Vec<u8> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/tband/");
    std::fs::read(format!("{dir}{name}")).unwrap()
}

fn input(bytes: Vec<u8>, core: Option<u32>) -> Input {
    Input {
        name: "test".into(),
        core,
        bytes: Bytes::Owned(bytes),
        was_hex: false,
    }
}

fn model(streams: Vec<Vec<u8>>) -> Option<Model> {
    let inputs = streams
        .into_iter()
        .enumerate()
        .map(|(i, b)| input(b, Some(i as u32)))
        .collect();
    Trace::from_inputs(inputs, &OpenOptions::default())
        .ok()
        .map(|t| t.model)
}

#[test]
fn truncation_at_every_offset() {
    let full = recording("freertos_small.bin");
    let whole = model(vec![full.clone()]).unwrap();
    for cut in (1..full.len()).step_by(7) {
        let m = model(vec![full[..cut].to_vec()]);
        if let Some(m) = m {
            assert!(m.sched_slices.len() <= whole.sched_slices.len());
            let ends_mid_frame = full[cut - 1] != 0;
            assert_eq!(
                m.anomaly_count(AnomalyKind::InvalidFrame) > 0,
                ends_mid_frame,
                "cut at {cut}"
            );
        }
    }
}

#[test]
fn garbage_inserted_is_counted_and_the_rest_decodes() {
    let full = recording("freertos_small.bin");
    let clean = model(vec![full.clone()]).unwrap();
    // Insert garbage right after a frame delimiter in the middle.
    let at = full[..full.len() / 2]
        .iter()
        .rposition(|&b| b == 0)
        .unwrap()
        + 1;
    let mut damaged = full[..at].to_vec();
    damaged.extend_from_slice(&[0x05, 0xFF, 0xFF, 0xFF, 0x00, 0x02, 0x77, 0x00, 0x09]);
    damaged.extend_from_slice(&full[at..]);
    let m = model(vec![damaged]).unwrap();
    assert_eq!(m.info.events, clean.info.events - 1);
    assert_eq!(m.info.invalid_frames, 3);
    // The last garbage frame swallows the first real frame after it (no zero between them).
    assert!(
        m.anomaly_count(AnomalyKind::InvalidFrame) + m.anomaly_count(AnomalyKind::UnknownEvent)
            >= 2
    );
    let invalid = m
        .anomalies
        .iter()
        .find(|a| a.kind == AnomalyKind::InvalidFrame)
        .unwrap();
    assert!(
        invalid.detail.contains(&format!("byte {at}")),
        "{}",
        invalid.detail
    );
}

#[test]
fn runs_of_invalid_frames_are_counted_per_stream() {
    // 70 streams, one core each; streams 1, 63, 64 and 69 hold a run of
    // 1..=4 broken frames between their two events and a run of one after
    // them. The other streams' events come in between: they neither end
    // those runs nor join them, while a stream's own event ends its run.
    let broken = [(1, 1), (63, 2), (64, 3), (69, 4)];
    let bad_frame = [0x05, 0xFF, 0x00];
    let streams: Vec<Vec<u8>> = (0..70u32)
        .map(|s| {
            let t = u64::from(s) * 10;
            let mut bytes = encode_stream(&[(t, Event::IsrEnter { isr_id: 1 })]);
            let run = broken.iter().find(|&&(b, _)| b == s).map(|&(_, n)| n);
            for _ in 0..run.unwrap_or(0) {
                bytes.extend_from_slice(&bad_frame);
            }
            bytes.extend(encode_stream(&[(t + 1000, Event::IsrExit { isr_id: 1 })]));
            if run.is_some() {
                bytes.extend_from_slice(&bad_frame);
            }
            bytes
        })
        .collect();
    let m = model(streams).unwrap();
    assert_eq!(m.info.events, 140);
    assert_eq!(m.isr_slices.len(), 70);
    let mut runs: Vec<(Option<u32>, u64)> = m
        .anomalies
        .iter()
        .filter(|a| a.kind == AnomalyKind::InvalidFrame)
        .map(|a| (a.core_id, a.count))
        .collect();
    runs.sort_unstable();
    let mut expected: Vec<(Option<u32>, u64)> = broken
        .iter()
        .flat_map(|&(s, n)| [(Some(s), 1), (Some(s), n)])
        .collect();
    expected.sort_unstable();
    assert_eq!(runs, expected);
}

#[test]
fn unknown_ids_are_reported_and_skipped() {
    let mut bytes = encode_stream(&[(10, Event::IsrEnter { isr_id: 1 })]);
    bytes.extend_from_slice(&[3, 50, 11, 0]);
    bytes.extend(encode_stream(&[(20, Event::IsrExit { isr_id: 1 })]));
    let m = model(vec![bytes]).unwrap();
    assert_eq!(m.anomaly_count(AnomalyKind::UnknownEvent), 1);
    assert_eq!(m.isr_slices.len(), 1);
    assert_eq!(m.isr_slices.get(0).unwrap().end_ns, 10);
}

#[test]
fn time_going_backwards_is_an_anomaly_not_an_error() {
    let bytes = encode_stream(&[
        (100, Event::TaskSwitchedIn { task_id: 1 }),
        (200, Event::TaskSwitchedIn { task_id: 2 }),
        (150, Event::TaskSwitchedIn { task_id: 1 }),
        (300, Event::TaskSwitchedIn { task_id: 2 }),
    ]);
    let m = model(vec![bytes]).unwrap();
    assert_eq!(m.anomaly_count(AnomalyKind::TimeBackwards), 1);
    let slices: Vec<_> = m
        .sched_slices
        .iter()
        .map(|s| (m.tasks[s.task as usize].task_id, s.start_ns, s.end_ns))
        .collect();
    assert_eq!(
        slices,
        [(1, 0, 100), (2, 100, 100), (1, 100, 200), (2, 200, 200)]
    );
    let backwards = m
        .anomalies
        .iter()
        .find(|a| a.kind == AnomalyKind::TimeBackwards);
    assert!(backwards.unwrap().detail.contains("timestamp 150"));
}

#[test]
fn events_needing_a_task_without_one() {
    let bytes = encode_stream(&[
        (
            1,
            Event::TaskEvtmarker {
                evtmarker_id: 0,
                msg: b"x",
            },
        ),
        (2, Event::CurtaskDelay { ticks: 3 }),
        (3, Event::TaskSwitchedIn { task_id: 4 }),
        (
            4,
            Event::TaskValmarker {
                valmarker_id: 0,
                val: 9,
            },
        ),
    ]);
    let m = model(vec![bytes]).unwrap();
    assert_eq!(m.anomaly_count(AnomalyKind::NoCurrentTask), 2);
    let marker = m.marker_values.get(0).unwrap().marker;
    assert_eq!(m.markers[marker as usize].task_id, Some(4));
}

#[test]
fn nothing_decodable_is_an_error_sentence() {
    let err = Trace::from_inputs(vec![input(vec![1, 2, 3], None)], &OpenOptions::default())
        .err()
        .unwrap();
    assert_eq!(
        err.to_string(),
        "test holds no decodable event (3 bytes, 1 invalid frames); is it a trace?"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(streams in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..600), 1..4)) {
        let _ = model(streams);
    }

    #[test]
    fn corrupted_recordings_never_panic(
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..20),
        second in any::<bool>(),
    ) {
        let mut a = recording("baremetal_2core_c0.bin");
        for (i, b) in &flips {
            let at = i.index(a.len());
            a[at] = *b;
        }
        let mut streams = vec![a];
        if second {
            streams.push(recording("baremetal_2core_c1.bin"));
        }
        if let Some(m) = model(streams) {
            for s in &m.isr_slices {
                prop_assert!(s.start_ns <= s.end_ns);
            }
            for s in &m.sched_slices {
                prop_assert!(s.start_ns <= s.end_ns && s.end_ns <= m.info.duration_ns);
            }
        }
    }
}
