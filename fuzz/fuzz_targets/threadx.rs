//! Any bytes after the ThreadX header id: reading the buffer and walking its
//! entries must never panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tband_decode::threadx::{looks_like, ReadOptions, Buffer, HEADER_ID};

fuzz_target!(|data: &[u8]| {
    // Start every input with the id word so the fuzzer spends its time
    // past the format check.
    let mut bytes = HEADER_ID.to_le_bytes().to_vec();
    bytes.extend_from_slice(data);
    assert!(looks_like(&bytes));
    let Ok(trace) = Buffer::read(&bytes, &ReadOptions::default()) else {
        return;
    };
    let mut entries = trace.entries();
    for entry in entries.by_ref() {
        let _ = trace.context_label(&entry);
        let _ = entry.thread_priority();
    }
    let _ = entries.finish();
});
