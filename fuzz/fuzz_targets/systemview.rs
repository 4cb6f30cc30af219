//! Any bytes after SystemView's sync and trace-start packet: reading the
//! recording, listing its packets and building the model must never panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tband_systemview::{build_model, looks_like, Recording};

fuzz_target!(|data: &[u8]| {
    // Start every input as a recording does so the fuzzer spends its time
    // past the format check.
    let mut bytes = vec![0; 10];
    bytes.push(10);
    bytes.extend_from_slice(data);
    assert!(looks_like(&bytes));
    let recording = Recording::read(&bytes).expect("a recording by its start");
    let mut rows = 0u64;
    let model = build_model(&recording, Vec::new(), Some(&mut |_| rows += 1));
    assert_eq!(model.info.events, rows);
});
