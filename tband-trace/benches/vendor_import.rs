//! Import speed per input byte of the vendors' recordings in the corpus:
//! a ThreadX buffer, a SEGGER SystemView and a Percepio TraceRecorder
//! recording, each of the same FreeRTOS-sized run, built into the model
//! from memory over and over until 20 MB have been read. Prints the best
//! of three by the time the thread was on a CPU (Linux).
//!
//! `cargo bench -p tband-trace --bench vendor_import`

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

/// Time this thread has spent on a CPU, from the scheduler's statistics.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let ns = stat.split_whitespace().next().and_then(|n| n.parse().ok());
    Duration::from_nanos(ns.unwrap_or(0))
}

const BYTES_A_RUN: usize = 20_000_000;

fn measure(name: &str, bytes: &[u8], import: impl Fn(&[u8]) -> u64) {
    let reps = BYTES_A_RUN.div_ceil(bytes.len());
    let mut best = Duration::MAX;
    let mut events = 0;
    for _ in 0..3 {
        let start = cpu_time();
        for _ in 0..reps {
            events = black_box(import(bytes));
        }
        best = best.min(cpu_time().saturating_sub(start));
    }
    let read = (reps * bytes.len()) as f64;
    let seconds = best.as_secs_f64();
    println!(
        "{name:<36} {:>7} bytes, {events:>6} events: {:>6.1} MB/s, {:>6.1} ns a byte, {:>6.0} ns an event",
        bytes.len(),
        read / seconds / 1e6,
        seconds * 1e9 / read,
        seconds * 1e9 / (reps as f64 * events as f64)
    );
}

fn corpus(path: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus")
        .join(path);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn main() {
    let threadx = corpus("threadx/threadx_demo_small.trx");
    measure("ThreadX threadx_demo_small.trx", &threadx, |bytes| {
        let options = tband_threadx::ReadOptions::default();
        let buffer = tband_threadx::Buffer::read(bytes, &options).expect("a ThreadX buffer");
        tband_threadx::build_model(&buffer, Vec::new(), None)
            .info
            .events
    });
    let systemview = corpus("systemview/freertos_cm3.sysview");
    measure("SystemView freertos_cm3.sysview", &systemview, |bytes| {
        let recording = tband_systemview::Recording::read(bytes).expect("a SystemView recording");
        tband_systemview::build_model(&recording, Vec::new(), None)
            .info
            .events
    });
    let tracerecorder = corpus("tracerecorder/freertos_cm3.psf");
    measure("TraceRecorder freertos_cm3.psf", &tracerecorder, |bytes| {
        let recording =
            tband_tracerecorder::Recording::read(bytes).expect("a TraceRecorder recording");
        tband_tracerecorder::build_model(&recording, Vec::new(), None)
            .info
            .events
    });
}
