//! Decoding speed and memory: a simulated trace (`tband-sim`) written to a
//! temporary file, memory-mapped and decoded into typed events on one thread.
//!
//! `cargo bench -p tband-decode --bench decode [-- SIZE_MB]` (default 100).

use std::alloc::{GlobalAlloc, Layout, System};
use std::fs::{self, File};
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use tband_decode::input::{Input, InputSpec};
use tband_decode::stream::StreamDecoder;
use tband_sim::{Config, Simulator};

/// Counts heap bytes in use, to show that decoding allocates nothing per event.
struct CountingAlloc;

static HEAP_NOW: AtomicUsize = AtomicUsize::new(0);
static HEAP_PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = HEAP_NOW.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        HEAP_PEAK.fetch_max(now, Ordering::Relaxed);
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HEAP_NOW.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const RUNS: usize = 5;

fn main() {
    let size_mb: u64 = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map_or(100, |a| a.parse().expect("SIZE_MB must be a number"));
    let path = std::env::temp_dir().join(format!("tband-bench-{}.bin", std::process::id()));
    write_trace(&path, size_mb << 20);

    let mut best = f64::INFINITY;
    let mut best_cpu = f64::INFINITY;
    let mut frames = 0;
    let mut bytes = 0;
    let mut heap_peak = 0;
    let mut rss_file = 0;
    for _ in 0..RUNS {
        let heap_before = HEAP_NOW.load(Ordering::Relaxed);
        HEAP_PEAK.store(heap_before, Ordering::Relaxed);
        let start = Instant::now();
        let cpu_start = cpu_time_ns();
        let input = Input::open(&InputSpec::parse(
            path.to_str().expect("temp path is UTF-8"),
        ))
        .expect("the trace was just written");
        let mut decoder = StreamDecoder::new(&input.bytes, 0);
        decoder.for_each_frame(|frame| {
            black_box(frame);
            ControlFlow::<()>::Continue(())
        });
        let stats = decoder.stats();
        best = best.min(start.elapsed().as_secs_f64());
        best_cpu = best_cpu.min((cpu_time_ns() - cpu_start) as f64 / 1e9);
        heap_peak = HEAP_PEAK.load(Ordering::Relaxed) - heap_before;
        rss_file = proc_status_kb("RssFile");
        assert_eq!(stats.invalid(), 0, "the simulated trace decodes cleanly");
        (frames, bytes) = (stats.frames, stats.bytes);
    }
    fs::remove_file(&path).expect("remove the temporary trace");

    let mb = bytes as f64 / 1e6;
    println!(
        "decoded {mb:.1} MB, {frames} frames ({:.1} bytes/frame); best of {RUNS} runs",
        bytes as f64 / frames as f64
    );
    for (clock, secs) in [("wall clock", best), ("CPU time", best_cpu)] {
        println!(
            "{clock:>10}: {:7.1} ms  {:6.0} MB/s  {:5.1} M frames/s",
            secs * 1e3,
            mb / secs,
            frames as f64 / secs / 1e6
        );
    }
    println!(
        "memory: peak RSS {} KB (of which mapped trace pages {} KB at the end), peak heap while decoding {} bytes",
        proc_status_kb("VmHWM"),
        rss_file,
        heap_peak
    );
}

/// CPU time this process has run, from /proc/self/schedstat: on a shared
/// machine it leaves out the time other processes had the core.
fn cpu_time_ns() -> u64 {
    let stat = fs::read_to_string("/proc/self/schedstat").expect("/proc/self/schedstat");
    stat.split_whitespace()
        .next()
        .and_then(|ns| ns.parse().ok())
        .expect("schedstat starts with the run time in ns")
}

/// A field of /proc/self/status, in KB.
fn proc_status_kb(field: &str) -> u64 {
    let status = fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Writes a simulated single-core FreeRTOS trace of `size` bytes, streaming
/// it to the file so that the trace never sits in this process's memory.
fn write_trace(path: &Path, size: u64) {
    let config = Config {
        size,
        // The traces docs/performance.md was measured on.
        wide_values: true,
        ..Config::default()
    };
    let file = BufWriter::new(File::create(path).expect("create the temporary trace"));
    let out = Simulator::new(config, vec![file])
        .expect("the default simulation is valid")
        .run()
        .expect("write the temporary trace");
    for mut sink in out.sinks {
        sink.flush().expect("write the temporary trace");
    }
}
