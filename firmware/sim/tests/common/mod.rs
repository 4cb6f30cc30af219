//! Decoding simulated streams back into owned events for the tests.
// Each test binary uses a different part of these helpers.
#![allow(dead_code)]

pub mod replay;

use std::ops::ControlFlow;

use tband::{EventKind, FieldValue};
use tband_decode::stream::StreamDecoder;

/// One decoded frame, owned.
#[derive(Clone, Debug)]
pub struct Ev {
    /// The core the frame belongs to (after `core_id` frames).
    pub core: u32,
    /// The stream it came from.
    pub stream: usize,
    pub ts: Option<u64>,
    pub kind: EventKind,
    /// Integer fields in schema order (s64 values cast).
    pub nums: Vec<u64>,
    pub text: Option<String>,
}

impl Ev {
    pub fn num(&self, i: usize) -> u64 {
        self.nums[i]
    }

    pub fn u32(&self, i: usize) -> u32 {
        self.nums[i] as u32
    }
}

/// Decodes every stream (stream `i` starts as core `i`); panics on any
/// invalid frame.
pub fn decode(streams: &[Vec<u8>]) -> Vec<Ev> {
    let mut out = Vec::new();
    for (i, bytes) in streams.iter().enumerate() {
        let mut dec = StreamDecoder::new(bytes, i as u32);
        dec.for_each_frame(|frame| {
            let rec = match frame.result {
                Ok(rec) => rec,
                Err(e) => panic!("stream {i}: invalid frame at {}: {e}", frame.offset),
            };
            let mut nums = Vec::new();
            let mut text = None;
            rec.event.for_each_field(|_, v| match v {
                FieldValue::U8(v) => nums.push(u64::from(v)),
                FieldValue::U32(v) => nums.push(u64::from(v)),
                FieldValue::U64(v) => nums.push(v),
                FieldValue::S64(v) => nums.push(v as u64),
                FieldValue::Str(s) => text = Some(String::from_utf8_lossy(s).into_owned()),
            });
            out.push(Ev {
                core: frame.core,
                stream: i,
                ts: rec.ts,
                kind: rec.event.kind(),
                nums,
                text,
            });
            ControlFlow::<()>::Continue(())
        });
        let stats = dec.stats();
        assert_eq!(stats.invalid(), 0, "stream {i}");
        assert_eq!(stats.empty_frames, 0, "stream {i}");
    }
    out
}

/// The timestamped events after the stream headers, merged over all cores
/// in time order (stable, so each stream keeps its order).
pub fn timeline(events: &[Ev]) -> Vec<Ev> {
    let mut t: Vec<Ev> = events
        .iter()
        .filter(|e| e.ts.is_some() && e.kind != EventKind::CoreId)
        .cloned()
        .collect();
    t.sort_by_key(|e| e.ts);
    t
}
