//! Import speed of ThreadX trace buffers, on a synthetic buffer (default
//! 100 MB): reading the entries alone, building the model from memory, and
//! opening the file the way the tools do (memory map, format detection,
//! model). Prints the best of three runs of each, by wall-clock time and
//! by the time the thread was on a CPU (Linux; on a loaded machine the two
//! differ).
//!
//! `cargo bench -p tband-threadx --bench threadx [-- MEGABYTES]`

use std::hint::black_box;
use std::time::{Duration, Instant};

use tband_threadx::{build_model, synthetic_buffer, Buffer, ReadOptions, SyntheticOptions};
use tband_trace::{OpenOptions, Trace};

/// Time this thread has spent on a CPU, from the scheduler's statistics.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

struct Timing {
    wall: Duration,
    cpu: Option<Duration>,
    count: u64,
}

fn best_of_three(mut run: impl FnMut() -> u64) -> Timing {
    let mut best = Timing {
        wall: Duration::MAX,
        cpu: None,
        count: 0,
    };
    for _ in 0..3 {
        let (start, cpu_start) = (Instant::now(), cpu_time());
        best.count = black_box(run());
        best.wall = best.wall.min(start.elapsed());
        if let (Some(before), Some(after)) = (cpu_start, cpu_time()) {
            let cpu = after.saturating_sub(before);
            best.cpu = Some(best.cpu.map_or(cpu, |b| b.min(cpu)));
        }
    }
    best
}

fn report(what: &str, bytes: usize, timing: Timing, unit: &str) {
    let megabytes = bytes as f64 / 1e6;
    let wall = timing.wall.as_secs_f64();
    print!(
        "{what:<34} {megabytes:>6.1} MB  wall {wall:>6.3} s = {:>6.0} MB/s",
        megabytes / wall
    );
    if let Some(cpu) = timing.cpu {
        let cpu = cpu.as_secs_f64();
        print!("  cpu {cpu:>6.3} s = {:>6.0} MB/s", megabytes / cpu);
    }
    println!("  ({} {unit})", timing.count);
}

fn main() {
    // `cargo bench` adds `--bench` to the arguments.
    let size_arg = std::env::args().skip(1).find(|arg| !arg.starts_with("--"));
    let megabytes: usize = match size_arg {
        Some(arg) => arg.parse().unwrap_or_else(|_| {
            eprintln!("threadx bench: MEGABYTES must be a whole number, got {arg}");
            std::process::exit(2);
        }),
        None => 100,
    };
    let size = megabytes * 1_000_000;
    let bytes = synthetic_buffer(&SyntheticOptions {
        bytes: size,
        ..SyntheticOptions::default()
    });
    let options = ReadOptions::default();

    let read = best_of_three(|| {
        let buffer = Buffer::read(&bytes, &options).expect("synthetic buffer reads");
        buffer.entries().fold(0, |count, entry| {
            black_box(entry);
            count + 1
        })
    });
    report("read entries", size, read, "entries");

    let model = best_of_three(|| {
        let buffer = Buffer::read(&bytes, &options).expect("synthetic buffer reads");
        let model = build_model(&buffer, Vec::new());
        model.info.events
    });
    report("read + build model (memory)", size, model, "events");

    let path = std::env::temp_dir().join(format!("tband_threadx_bench_{}.trx", std::process::id()));
    std::fs::write(&path, &bytes).expect("temporary file written");
    let args = [path.display().to_string()];
    let open = best_of_three(|| {
        let trace = Trace::open(&args, &OpenOptions::default()).expect("trace opens");
        trace.model.sched_slices.len() as u64
    });
    report(
        "Trace::open (file, detect, model)",
        size,
        open,
        "sched slices",
    );
    let _ = std::fs::remove_file(&path);
}
