//! Any bytes after the ThreadX header id: reading the buffer, walking its
//! entries, listing them and building the model must never panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tband_threadx::{build_model, listing, looks_like, Buffer, ReadOptions, HEADER_ID};

fuzz_target!(|data: &[u8]| {
    // Start every input with the id word so the fuzzer spends its time
    // past the format check.
    let mut bytes = HEADER_ID.to_le_bytes().to_vec();
    bytes.extend_from_slice(data);
    assert!(looks_like(&bytes));
    let Ok(buffer) = Buffer::read(&bytes, &ReadOptions::default()) else {
        return;
    };
    listing::write_pretty(&mut std::io::sink(), &buffer).expect("a sink takes everything");
    let model = build_model(&buffer, Vec::new());
    assert!(model.info.events <= buffer.layout.slots as u64);
});
