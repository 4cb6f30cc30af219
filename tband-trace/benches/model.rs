//! Benchmark: a simulated trace of 100 MB (1 and 4 cores) to the trace model,
//! single-threaded and with decoding on a second thread; prints throughput
//! and peak memory against the trace size.
//!
//! `cargo bench -p tband-trace --bench model [-- SIZE] [--runs N]` (SIZE
//! like `100M`; N runs of each measurement, 5 by default). Each run is a
//! fresh child process, so its peak RSS is its own; the fastest run is shown
//! with the spread of all, as the machine's speed may vary between runs
//! (on a virtual machine, the share of the machine's time its host took
//! for others during the run is shown as "stolen").

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use tband_sim::{core_file_name, Config, Simulator};
use tband_size::parse_size;
use tband_trace::DecodeThread;
use tband_trace::{OpenOptions, Trace};

/// CPU time this process has used in user and in system (kernel) mode, in
/// seconds.
fn cpu_seconds() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 of /proc/PID/stat (11 and 12 after the name).
    (ticks(11) / 100.0, ticks(12) / 100.0)
}

/// The machine's stolen and total CPU ticks so far (all CPUs, from
/// `/proc/stat`): on a virtual machine, time its host gave to others.
fn machine_ticks() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let ticks: Vec<u64> = stat
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .skip(1)
        .filter_map(|v| v.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal guest guest_nice;
    // guest time is counted in user time already.
    let total = ticks.iter().take(8).sum();
    (ticks.get(7).copied().unwrap_or(0), total)
}

fn peak_rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Child mode: build the model of the given inputs on `threads` and print
/// its CPU seconds, then one result line.
fn measure(inputs: &[String], decode_thread: DecodeThread) {
    let bytes: u64 = inputs
        .iter()
        .map(|a| {
            std::fs::metadata(a.split('@').next().unwrap())
                .unwrap()
                .len()
        })
        .sum();
    let start = Instant::now();
    let (user_start, system_start) = cpu_seconds();
    let (steal_start, ticks_start) = machine_ticks();
    let options = OpenOptions {
        decode_thread,
        ..OpenOptions::default()
    };
    let trace = Trace::open(inputs, &options).unwrap();
    let wall = start.elapsed().as_secs_f64();
    let (user, system) = cpu_seconds();
    let (user, system) = (user - user_start, system - system_start);
    let secs = user + system;
    let (steal, ticks) = machine_ticks();
    let steal_percent = 100.0 * (steal - steal_start) as f64 / (ticks - ticks_start).max(1) as f64;
    let m = &trace.model;
    let rss = peak_rss_bytes();
    println!("{secs}");
    println!(
        "{:>6.1} MB  {:>9} events  {:>6.2} s CPU ({:.2} user + {:.2} system; {:.2} s wall; {:.0}% stolen)  {:>6.1} MB/s CPU ({:.1} wall)  {:>5.2} M events/s CPU  peak RSS {:>6.1} MB = {:.2}x trace  ({} slices, {} states, {} ISR slices, {} queue ops)",
        bytes as f64 / 1e6,
        m.info.events,
        secs,
        user,
        system,
        wall,
        steal_percent,
        bytes as f64 / 1e6 / secs,
        bytes as f64 / 1e6 / wall,
        m.info.events as f64 / 1e6 / secs,
        rss as f64 / 1e6,
        rss as f64 / bytes as f64,
        m.sched_slices.len(),
        m.task_states.len(),
        m.isr_slices.len(),
        m.queue_ops.len(),
    );
}

fn generate(dir: &Path, size: u64, cores: u32) -> Vec<String> {
    let path = dir.join(format!("sim_{cores}core.bin"));
    let files: Vec<PathBuf> = (0..cores)
        .map(|c| core_file_name(&path, c, cores))
        .collect();
    if files.iter().any(|f| !f.exists()) {
        let sinks = files
            .iter()
            .map(|f| BufWriter::new(File::create(f).unwrap()))
            .collect();
        let config = Config {
            seed: 42,
            cores,
            size,
            // The traces docs/performance.md was measured on.
            wide_values: true,
            ..Config::default()
        };
        Simulator::new(config, sinks).unwrap().run().unwrap();
    }
    files
        .iter()
        .enumerate()
        .map(|(c, f)| format!("{}@{c}", f.display()))
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--measure") => return measure(&args[1..], DecodeThread::Calling),
        Some("--measure-two") => return measure(&args[1..], DecodeThread::Second),
        _ => {}
    }
    let after_runs = |i: usize| i > 0 && args[i - 1] == "--runs";
    let size = args
        .iter()
        .enumerate()
        .find(|&(i, a)| !a.starts_with("--") && !after_runs(i))
        .map_or(100_000_000, |(_, s)| parse_size(s).unwrap());
    let runs: usize = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .map_or(5, |n| n.parse().expect("--runs takes a number"))
        .max(1);
    let dir = std::env::temp_dir().join(format!("tband-bench-{size}"));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = std::env::current_exe().unwrap();
    println!("trace → model, simulated traces in {}", dir.display());
    println!("the fastest of {runs} runs each (CPU seconds of all runs after it)");
    for (mode, title) in [
        ("--measure", "single-threaded"),
        (
            "--measure-two",
            "decoding on a second thread (CPU time of both)",
        ),
    ] {
        println!("{title}:");
        for cores in [1, 4] {
            let inputs = generate(&dir, size, cores);
            print!("{cores} core(s): ");
            let mut results = Vec::new();
            for _ in 0..runs {
                let out = Command::new(&exe).arg(mode).args(&inputs).output().unwrap();
                let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
                match stdout.split_once('\n') {
                    Some((secs, line)) if out.status.success() => {
                        results.push((secs.parse::<f64>().unwrap(), line.trim_end().to_owned()))
                    }
                    _ => eprint!("{stdout}{}", String::from_utf8_lossy(&out.stderr)),
                }
            }
            results.sort_by(|a, b| a.0.total_cmp(&b.0));
            if let Some((_, fastest)) = results.first() {
                let all: Vec<String> = results.iter().map(|(s, _)| format!("{s:.2}")).collect();
                println!("{fastest}  [{} s]", all.join(", "));
            }
        }
    }
}
