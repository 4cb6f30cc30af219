//! Any bytes after the header and object table of the corpus's
//! TraceRecorder recording: reading the recording, listing its events and
//! building the model must never panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tband_tracerecorder::{build_model, Recording};

const CORPUS_RECORDING: &[u8] =
    include_bytes!("../../tests/corpus/tracerecorder/freertos_cm3.psf");

fuzz_target!(|data: &[u8]| {
    // Start every input as a recording does so the fuzzer spends its time
    // past the header.
    let start = Recording::read(CORPUS_RECORDING).expect("the corpus recording");
    let mut bytes = CORPUS_RECORDING[..start.events_offset].to_vec();
    bytes.extend_from_slice(data);
    let recording = Recording::read(&bytes).expect("a recording by its start");
    let mut rows = 0u64;
    let model = build_model(&recording, Vec::new(), Some(&mut |_| rows += 1));
    assert_eq!(model.info.events, rows);
});
