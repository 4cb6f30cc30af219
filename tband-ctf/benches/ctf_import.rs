//! CTF stream decode throughput on a large stream built from the shipped Zephyr recording.
//!
//! `cargo bench -p tband-ctf --bench ctf_import [-- SIZE_MB] [decode|import]` (default 100 MB,
//! both stages): repeats the
//! `workload` stream, shifting each copy's timestamps so time keeps running forward, then
//! decodes every event with all its fields, and imports the stream into the model, printing
//! MB/s for each (best of several runs) by the wall clock and by the thread's own CPU time
//! (the two differ when other work shares the cores).

use std::path::Path;
use std::time::{Duration, Instant};

use tband_ctf::{self as ctf, CtfTrace, Metadata, StreamDecoder, Type};
use tband_decode::input::{Bytes, Input};
use tband_model::TraceInfo;

const RECORDING: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/corpus/zephyr_ctf/workload"
);
const RUNS: usize = 3;

/// Copies of the shipped stream, each one's timestamps moved on by `period_ns` times its number.
fn build_stream(meta: &Metadata, original: &[u8], target_bytes: usize, period_ns: u32) -> Vec<u8> {
    let timestamp_is_leading_u32 = meta.header_timestamp_field == Some(0)
        && matches!(&meta.event_header.fields[0].ty, Type::Integer(int) if int.size_bytes == 4);
    assert!(
        timestamp_is_leading_u32,
        "the recording's header starts with a u32 timestamp"
    );
    let mut offsets = Vec::new();
    let mut decoder = StreamDecoder::new(meta, original);
    let mut values = Vec::new();
    while let Some(event) = decoder.next_event(&mut values) {
        offsets.push(event.expect("the shipped recording decodes").offset as usize);
    }
    let copies = target_bytes.div_ceil(original.len());
    let mut stream = Vec::with_capacity(copies * original.len());
    for copy in 0..copies {
        let base = stream.len();
        stream.extend_from_slice(original);
        let shift = period_ns.wrapping_mul(copy as u32);
        for &offset in &offsets {
            let field = &mut stream[base + offset..base + offset + 4];
            let raw = u32::from_le_bytes(field.try_into().unwrap());
            field.copy_from_slice(&raw.wrapping_add(shift).to_le_bytes());
        }
    }
    stream
}

/// Decodes the whole stream; returns the event count and a checksum of every field value.
fn decode(meta: &Metadata, stream: &[u8]) -> (u64, u64) {
    let mut decoder = StreamDecoder::new(meta, stream);
    let mut values = Vec::new();
    let mut events = 0u64;
    let mut checksum = 0u64;
    while let Some(event) = decoder.next_event(&mut values) {
        let record = event.expect("the built stream decodes");
        events += 1;
        checksum = checksum.wrapping_add(record.ns as u64);
        for value in &values {
            let part = value
                .as_u64()
                .or_else(|| value.as_bytes().map(|b| b.len() as u64))
                .unwrap_or(0);
            checksum = checksum.wrapping_add(part);
        }
    }
    (events, checksum)
}

/// Time this thread has spent on a CPU (Linux `schedstat`), if the system tells.
fn thread_cpu_time() -> Option<Duration> {
    let schedstat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = schedstat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Runs `work` several times and prints its best throughput over `bytes`, by the wall clock
/// and by this thread's CPU time.
fn measure(what: &str, bytes: usize, mut work: impl FnMut() -> String) {
    let mut best_wall = Duration::MAX;
    let mut best_cpu = Duration::MAX;
    let mut outcome = String::new();
    for _ in 0..RUNS {
        let (wall_start, cpu_start) = (Instant::now(), thread_cpu_time());
        outcome = work();
        best_wall = best_wall.min(wall_start.elapsed());
        if let (Some(start), Some(end)) = (cpu_start, thread_cpu_time()) {
            best_cpu = best_cpu.min(end.saturating_sub(start));
        }
    }
    let mb = bytes as f64 / 1e6;
    println!("{what}: {mb:.1} MB, best of {RUNS} runs ({outcome})");
    for (clock, time) in [("wall clock", best_wall), ("thread CPU time", best_cpu)] {
        if time != Duration::MAX {
            let secs = time.as_secs_f64();
            println!("  by {clock}: {:.1} ms, {:.0} MB/s", secs * 1e3, mb / secs);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let size_mb: usize = args.iter().find_map(|arg| arg.parse().ok()).unwrap_or(100);
    let only = |stage: &str| {
        let named = ["decode", "import"];
        !args.iter().any(|a| named.contains(&a.as_str())) || args.iter().any(|a| a == stage)
    };
    let recording = CtfTrace::open(Path::new(RECORDING)).expect("the shipped recording opens");
    let six_seconds_ns = 6_000_000_000u64 as u32;
    let stream = build_stream(
        &recording.metadata,
        &recording.streams[0].bytes,
        size_mb << 20,
        six_seconds_ns,
    );
    let bytes = stream.len();
    let trace = CtfTrace {
        metadata: recording.metadata,
        streams: vec![Input {
            name: "built".into(),
            core: None,
            bytes: Bytes::Owned(stream),
            was_hex: false,
        }],
    };
    if only("decode") {
        measure("ctf decode (every event, every field)", bytes, || {
            let (events, checksum) = decode(&trace.metadata, &trace.streams[0].bytes);
            format!("{events} events, checksum {checksum:x}")
        });
    }
    if only("import") {
        measure(
            "ctf import (decode + interpret into the model)",
            bytes,
            || {
                let model = ctf::build_model(&trace, TraceInfo::default());
                format!(
                    "{} events, {} sched slices, {} queue ops",
                    model.info.events,
                    model.sched_slices.len(),
                    model.queue_ops.len()
                )
            },
        );
    }
}
