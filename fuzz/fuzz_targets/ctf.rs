//! Any bytes as a Zephyr CTF stream (decoded with the shipped metadata), and as metadata text:
//! decoding must end in events and at most one problem, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use tband_ctf::{parse_metadata, Metadata, StreamDecoder};

const ZEPHYR_METADATA: &str =
    include_str!("../../tests/corpus/zephyr_ctf/workload/metadata");

fn zephyr_metadata() -> &'static Metadata {
    static METADATA: OnceLock<Metadata> = OnceLock::new();
    METADATA.get_or_init(|| parse_metadata(ZEPHYR_METADATA).expect("the shipped metadata parses"))
}

fuzz_target!(|data: &[u8]| {
    let mut decoder = StreamDecoder::new(zephyr_metadata(), data);
    let mut values = Vec::new();
    let mut problems = 0;
    let mut last_ns = i64::MIN;
    while let Some(event) = decoder.next_event(&mut values) {
        match event {
            Ok(record) => {
                assert!(record.ns >= last_ns, "time went backwards");
                last_ns = record.ns;
                for value in &values {
                    let _ = value.to_string();
                }
            }
            Err(_) => problems += 1,
        }
    }
    assert!(problems <= 1);

    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(meta) = parse_metadata(text) {
            let mut decoder = StreamDecoder::new(&meta, data);
            while decoder.next_event(&mut values).is_some() {}
        }
    }
});
