//! Properties of the encoder and decoder together: every event sequence
//! survives encode → decode unchanged, and damage to a stream stays local.

use std::ops::ControlFlow;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use tband::cobs::max_framed_len;
use tband::{encode_frame, Event, EventKind, FieldType, FieldValue};
use tband_decode::frames::{decode_frame, Frames};
use tband_decode::stream::StreamDecoder;

/// A field value that owns its string, so generated events can outlive the
/// strategy that made them.
#[derive(Clone, Debug)]
enum Value {
    U8(u8),
    U32(u32),
    U64(u64),
    S64(i64),
    Str(Vec<u8>),
}

#[derive(Clone, Debug)]
struct OwnedEvent {
    kind: EventKind,
    ts: u64,
    values: Vec<Value>,
}

impl OwnedEvent {
    fn event(&self) -> Event<'_> {
        let values: Vec<FieldValue<'_>> = self
            .values
            .iter()
            .map(|v| match v {
                Value::U8(v) => FieldValue::U8(*v),
                Value::U32(v) => FieldValue::U32(*v),
                Value::U64(v) => FieldValue::U64(*v),
                Value::S64(v) => FieldValue::S64(*v),
                Value::Str(s) => FieldValue::Str(s),
            })
            .collect();
        Event::from_fields(self.kind, &values).expect("values follow the schema")
    }

    fn str_len(&self) -> usize {
        self.values
            .iter()
            .map(|v| match v {
                Value::Str(s) => s.len(),
                _ => 0,
            })
            .sum()
    }

    /// The timestamp the decoder reports (metadata has none).
    fn decoded_ts(&self) -> Option<u64> {
        (!self.kind.is_metadata()).then_some(self.ts)
    }
}

fn any_u64() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        0u64..300,
        Just(u64::MAX),
        Just(1 << 63),
        Just(u64::from(u32::MAX) + 1),
    ]
}

/// Strings of the lengths where COBS blocks end (254, 508) and short ones,
/// either free of zeros (so the run length is exact) or full of them.
fn any_str() -> impl Strategy<Value = Vec<u8>> {
    let len = prop_oneof![0usize..4, 240usize..=262, 495usize..=515];
    let byte = prop_oneof![3 => 1u8..=255, 1 => Just(0u8)];
    len.prop_flat_map(move |n| {
        prop_oneof![vec(1u8..=255, n), vec(byte.clone(), n), Just(vec![0u8; n])]
    })
}

fn any_value(ty: FieldType) -> BoxedStrategy<Value> {
    match ty {
        FieldType::U8 => any::<u8>().prop_map(Value::U8).boxed(),
        FieldType::U32 => prop_oneof![any::<u32>(), 0u32..200, Just(u32::MAX)]
            .prop_map(Value::U32)
            .boxed(),
        FieldType::U64 => any_u64().prop_map(Value::U64).boxed(),
        FieldType::S64 => prop_oneof![any::<i64>(), -70i64..70, Just(i64::MIN), Just(i64::MAX)]
            .prop_map(Value::S64)
            .boxed(),
        FieldType::Str => any_str().prop_map(Value::Str).boxed(),
    }
}

fn any_event() -> impl Strategy<Value = OwnedEvent> {
    select(EventKind::ALL).prop_flat_map(|kind| {
        let fields: Vec<_> = kind.spec().fields.iter().map(|f| any_value(f.ty)).collect();
        (any_u64(), fields).prop_map(move |(ts, values)| OwnedEvent { kind, ts, values })
    })
}

/// Encodes the events, each after `empties[i]` empty frames.
fn encode_stream(events: &[OwnedEvent], empties: &[usize]) -> Vec<u8> {
    let mut stream = Vec::new();
    for (ev, &empty) in events
        .iter()
        .zip(empties.iter().chain(std::iter::repeat(&0)))
    {
        stream.resize(stream.len() + empty, 0);
        let bound = ev.kind.spec().max_framed_len(ev.str_len());
        let mut buf = vec![0u8; bound];
        let n = encode_frame(&mut buf, ev.ts, &ev.event()).expect("bound is enough");
        assert_eq!(buf[n - 1], 0);
        assert!(!buf[..n - 1].contains(&0));
        assert!(n <= max_framed_len(ev.event().payload_len(ev.ts)));
        stream.extend_from_slice(&buf[..n]);
    }
    stream
}

/// Every frame of a stream as (offset, decoded record or error), with the
/// record printed so frames can be compared after the decoder moved on.
/// Checks that both ways of decoding (frame by frame the portable way, and
/// the pass that may use the CPU's bit-manipulation instructions) give the
/// same frames.
fn decode_all(stream: &[u8]) -> Vec<(usize, String)> {
    let mut scratch = Vec::new();
    let frames: Vec<_> = Frames::new(stream)
        .map(|raw| {
            (
                raw.offset,
                format!("{:?}", decode_frame(&raw, &mut scratch)),
            )
        })
        .collect();
    let mut passed = Vec::new();
    StreamDecoder::new(stream, 0).for_each_frame(|frame| {
        passed.push((frame.offset, format!("{:?}", frame.result)));
        ControlFlow::<()>::Continue(())
    });
    assert_eq!(passed, frames);
    frames
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn events_round_trip(
        events in vec(any_event(), 0..40),
        empties in vec(prop_oneof![4 => Just(0usize), 1 => 1usize..3], 40),
    ) {
        let stream = encode_stream(&events, &empties);
        decode_all(&stream);
        let mut decoder = StreamDecoder::new(&stream, 0);
        let mut expected = events.iter().enumerate();
        let mismatch = decoder.for_each_frame(|frame| {
            let Some((i, ev)) = expected.next() else {
                return ControlFlow::Break("more frames than events".to_string());
            };
            match frame.result {
                Ok(rec) if (rec.event, rec.ts) == (ev.event(), ev.decoded_ts()) => {
                    ControlFlow::Continue(())
                }
                result => ControlFlow::Break(format!("event {i}: {result:?}")),
            }
        });
        prop_assert_eq!(mismatch, None);
        prop_assert!(expected.next().is_none(), "one frame per event");
        let stats = decoder.stats();
        prop_assert_eq!(stats.frames, events.len() as u64);
        prop_assert_eq!(stats.invalid(), 0);
        let inserted: usize = empties.iter().take(events.len()).sum();
        prop_assert_eq!(stats.empty_frames, inserted as u64);
    }

    /// `original[start..start + removed]` is replaced by `junk`: this covers
    /// flipped bytes, inserted garbage, lost bytes and a cut stream.
    #[test]
    fn damage_stays_local(
        events in vec(any_event(), 1..30),
        start in any::<prop::sample::Index>(),
        removed in 0usize..24,
        junk in vec(prop_oneof![any::<u8>(), Just(0u8), Just(0xFFu8), Just(1u8)], 0..24),
    ) {
        let original = encode_stream(&events, &[]);
        let start = start.index(original.len() + 1);
        let end = (start + removed).min(original.len());
        let mut damaged = original[..start].to_vec();
        damaged.extend_from_slice(&junk);
        damaged.extend_from_slice(&original[end..]);
        let damage_end = start + junk.len();

        let before = decode_all(&original);
        let after = decode_all(&damaged);

        // Frames whose delimiter precedes the damage are untouched.
        if let Some(last_zero) = original[..start].iter().rposition(|&b| b == 0) {
            let intact = |f: &&(usize, String)| f.0 < last_zero;
            let a: Vec<_> = before.iter().filter(intact).collect();
            let b: Vec<_> = after.iter().filter(intact).collect();
            prop_assert_eq!(a, b);
        }
        // Frames after the first zero following the damage decode exactly as
        // before, at the same distance from the end of the stream.
        if let Some(zero) = damaged[damage_end..].iter().position(|&b| b == 0) {
            let resync = damage_end + zero;
            let shift = |offset: usize| offset + end - damage_end;
            let a: Vec<_> = before.iter().filter(|f| f.0 > shift(resync)).cloned().collect();
            let b: Vec<_> = after
                .iter()
                .filter(|f| f.0 > resync)
                .map(|(offset, rec)| (shift(*offset), rec.clone()))
                .collect();
            prop_assert_eq!(a, b);
        }
    }
}
