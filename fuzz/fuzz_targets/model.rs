//! Arbitrary bytes, as one to three core streams, through the whole model:
//! sequencer, interpreter, builder, and the raw event pass.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tband_decode::input::{Bytes, Input};
use tband_trace::InputFormat;
use tband_trace::{OpenOptions, Trace};

fuzz_target!(|data: &[u8]| {
    let Some((&split, rest)) = data.split_first() else {
        return;
    };
    let streams = 1 + usize::from(split % 3);
    let chunk = rest.len() / streams + 1;
    let inputs = rest
        .chunks(chunk)
        .enumerate()
        .map(|(core, bytes)| Input {
            name: format!("fuzz.c{core}"),
            core: Some(core as u32),
            bytes: Bytes::Owned(bytes.to_vec()),
            was_hex: false,
        })
        .collect();
    let options = OpenOptions {
        format: Some(InputFormat::Tband),
        ..OpenOptions::default()
    };
    if let Ok(trace) = Trace::from_inputs(inputs, &options) {
        let m = &trace.model;
        for s in &m.sched_slices {
            assert!(s.start_ns <= s.end_ns && s.end_ns <= m.info.duration_ns);
        }
        for s in &m.isr_slices {
            assert!(s.start_ns <= s.end_ns);
        }
        let mut rows = 0u64;
        trace.for_each_event(|_| rows += 1);
        assert_eq!(rows, m.info.events);
    }
});
