//! Import speed per input byte of a SystemView recording against a ThreadX
//! buffer of the same size (default 100 MB), each opened from a file as the
//! tools open it (`Trace::open`: memory map, format detection, model).
//! The SystemView input is the corpus recording of the FreeRTOS example,
//! its packets after the sync repeated to the size: a real recorder's mix
//! of packets. The ThreadX input is `tband_threadx::synthetic_buffer`.
//! Prints the best of three runs by the time the thread was on a CPU
//! (Linux), and by wall-clock time.
//!
//! `cargo bench -p tband-trace --bench import [-- MEGABYTES]`

use std::time::{Duration, Instant};

use tband_threadx::{synthetic_buffer, SyntheticOptions};
use tband_trace::{OpenOptions, Trace};

const RECORDING: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/corpus/systemview/freertos_cm3.sysview"
);
/// The ten zero bytes a SystemView recording starts with.
const SYNC_LEN: usize = 10;

/// Time this thread has spent on a CPU, from the scheduler's statistics.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Opens `bytes` written to a file three times; prints the best times per
/// byte.
fn measure(format: &str, bytes: &[u8]) {
    let path = std::env::temp_dir().join(format!("tband_import_bench_{}", std::process::id()));
    std::fs::write(&path, bytes).expect("temporary file written");
    let args = [path.display().to_string()];
    let (mut wall, mut cpu) = (Duration::MAX, None::<Duration>);
    let mut events = 0;
    for _ in 0..3 {
        let (start, cpu_start) = (Instant::now(), cpu_time());
        let trace = Trace::open(&args, &OpenOptions::default()).expect("trace opens");
        wall = wall.min(start.elapsed());
        if let (Some(before), Some(after)) = (cpu_start, cpu_time()) {
            let run = after.saturating_sub(before);
            cpu = Some(cpu.map_or(run, |best| best.min(run)));
        }
        events = trace.model.info.events;
    }
    let _ = std::fs::remove_file(&path);
    let megabytes = bytes.len() as f64 / 1e6;
    let per_byte = |time: Duration| {
        format!(
            "{:>6.2} ns/byte = {:>5.0} MB/s",
            time.as_secs_f64() * 1e9 / bytes.len() as f64,
            megabytes / time.as_secs_f64()
        )
    };
    print!("{format:<10} {megabytes:>6.1} MB, {events:>9} events");
    if let Some(cpu) = cpu {
        print!("  cpu {}", per_byte(cpu));
    }
    println!("  wall {}", per_byte(wall));
}

fn main() {
    // `cargo bench` adds `--bench` to the arguments.
    let size_arg = std::env::args().skip(1).find(|arg| !arg.starts_with("--"));
    let megabytes: usize = match size_arg {
        Some(arg) => arg.parse().unwrap_or_else(|_| {
            eprintln!("import bench: MEGABYTES must be a whole number, got {arg}");
            std::process::exit(2);
        }),
        None => 100,
    };
    let size = megabytes * 1_000_000;

    let recording = std::fs::read(RECORDING).expect("the corpus recording");
    let mut systemview = recording.clone();
    while systemview.len() < size {
        systemview.extend_from_slice(&recording[SYNC_LEN..]);
    }
    measure("systemview", &systemview);

    let threadx = synthetic_buffer(&SyntheticOptions {
        bytes: systemview.len(),
        ..SyntheticOptions::default()
    });
    measure("threadx", &threadx);
}
