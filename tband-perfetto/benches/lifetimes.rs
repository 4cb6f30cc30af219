//! Benchmark: what lifetime rules cost. Converts three Zephyr CTF traces
//! of the same number of events, with five network-buffer event
//! declarations added to Zephyr's metadata:
//! - `with`: every third event is a `net_buf_*` event (each buffer
//!   allocated, referenced, unreferenced and destroyed, in three pools),
//!   which the built-in rules turn into lifetimes, marks and pool counters;
//! - `without`: the shipped `workload` recording's events only;
//! - `unnamed`: the bytes of `with`, its five declarations renamed so that
//!   no rule names them: the same events, none of them lifetime events.
//!
//! Each conversion is timed twice, by this thread's CPU time: opening the
//! trace into the model, and the whole conversion to a Perfetto trace
//! (the model, then `tband-perfetto --threads 1`'s export into nothing).
//! Prints events and bytes per second of each, best of N runs taken in
//! turn (A, B, C, A, B, C, ...), and the median over the runs of the
//! lifetime trace's speed as a share of each other's, each run's pair
//! compared: in events per second, and against `without` also in bytes
//! per second.
//!
//! `cargo bench -p tband-perfetto --bench lifetimes [-- EVENTS_MILLIONS] [--runs N] [with|without|unnamed]`
//! (2 million events and 5 runs by default; naming one trace converts only
//! that one, once, e.g. under `valgrind --tool=callgrind`).

#[path = "../../tests/lifetimes/net_buf_trace.rs"]
mod net_buf_trace;

use std::time::{Duration, Instant};

use tband_ctf::{parse_metadata, CtfTrace, Metadata, StreamDecoder};
use tband_decode::input::{Bytes, Input};
use tband_perfetto::ExportOptions;
use tband_trace::{OpenOptions, Source, Trace};

const WORKLOAD: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/corpus/zephyr_ctf/workload"
);

/// The workload stream's events: (offset, length, raw timestamp).
fn events_of(meta: &Metadata, stream: &[u8]) -> Vec<(usize, usize, u32)> {
    let mut decoder = StreamDecoder::new(meta, stream);
    let mut values = Vec::new();
    let mut offsets = Vec::new();
    while let Some(event) = decoder.next_event(&mut values) {
        offsets.push(event.expect("the shipped recording decodes").offset as usize);
    }
    let ends = offsets.iter().skip(1).copied().chain([stream.len()]);
    offsets
        .iter()
        .zip(ends)
        .map(|(&start, end)| {
            let ts = u32::from_le_bytes(stream[start..start + 4].try_into().expect("4 bytes"));
            (start, end - start, ts)
        })
        .collect()
}

/// The `n`th network-buffer event: buffers go through alloc, allocated,
/// ref, unref and destroyed, five at a time in each of three pools.
fn net_buf_event(n: u64, ts: u32, out: &mut Vec<u8>) {
    let (step, buffer) = (n % 5, n / 5);
    let pool = 0x2000_0100 + (buffer % 3) as u32 * 0x100;
    let buf = 0x2000_1000 + (buffer % 48) as u32 * 0x40;
    let free = 8 - (step == 1 || step == 2 || step == 3) as u32;
    out.extend_from_slice(&ts.to_le_bytes());
    let name = |out: &mut Vec<u8>| out.extend_from_slice(b"rx_pool\0\0\0\0\0\0\0\0\0\0\0\0\0");
    let words: &[u32] = match step {
        0 => &[pool, free],
        1 | 4 => &[pool, free, buf],
        _ => &[buf, if step == 2 { 2 } else { 1 }],
    };
    out.push([0x34, 0x35, 0x37, 0x38, 0x36][step as usize]);
    for word in words {
        out.extend_from_slice(&word.to_le_bytes());
    }
    if step < 2 || step == 4 {
        name(out);
    }
}

/// `events` events: copies of the workload stream, each copy's times moved
/// on so that time runs forward; with `net_buf`, every third event is a
/// network-buffer event at the time of the one before it.
fn build_stream(
    stream: &[u8],
    workload: &[(usize, usize, u32)],
    events: u64,
    net_buf: bool,
) -> Vec<u8> {
    let period = workload
        .last()
        .map_or(0, |e| e.2.wrapping_sub(workload[0].2))
        + 1_000;
    let mut out = Vec::new();
    let (mut written, mut net_bufs) = (0u64, 0u64);
    for copy in 0u32.. {
        for &(start, len, ts) in workload {
            if written == events {
                return out;
            }
            let ts = ts.wrapping_add(period.wrapping_mul(copy));
            out.extend_from_slice(&ts.to_le_bytes());
            out.extend_from_slice(&stream[start + 4..start + len]);
            written += 1;
            if net_buf && written % 3 == 2 && written < events {
                net_buf_event(net_bufs, ts, &mut out);
                net_bufs += 1;
                written += 1;
            }
        }
    }
    out
}

/// This thread's CPU time, to the nanosecond (`/proc`'s schedstat moves in
/// scheduler ticks, 4 ms here).
fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec for the call to fill.
    let read = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    match read {
        0 => Duration::new(now.tv_sec as u64, now.tv_nsec as u32),
        _ => Duration::ZERO,
    }
}

/// CPU times of one conversion: into the model, and on to a Perfetto trace.
#[derive(Clone, Copy)]
struct Times {
    model: Duration,
    perfetto: Duration,
}

/// Converts the trace; returns the CPU times taken and what the model holds.
fn convert(metadata: &Metadata, stream: &[u8]) -> (Times, String) {
    let trace = CtfTrace {
        metadata: metadata.clone(),
        streams: vec![Input {
            name: "built".into(),
            core: None,
            bytes: Bytes::Owned(stream.to_vec()),
            was_hex: false,
        }],
    };
    let source = Source::Ctf {
        trace,
        names: vec!["built".into()],
    };
    let (cpu, wall) = (thread_cpu_time(), Instant::now());
    let since_start = || match thread_cpu_time().saturating_sub(cpu) {
        none if none.is_zero() => wall.elapsed(),
        cpu => cpu,
    };
    let trace = Trace::build(source, &OpenOptions::default()).expect("the built trace converts");
    let model = since_start();
    tband_perfetto::export(&trace.model, ExportOptions::default(), &mut std::io::sink())
        .expect("writing to nothing does not fail");
    let perfetto = since_start();
    let m = &trace.model;
    let outcome = format!(
        "{} events, {} sched slices, {} lifetimes, {} marks, {} counter values, {} anomalies",
        m.info.events,
        m.sched_slices.len(),
        m.tracked.lifetimes.len(),
        m.tracked.marks.len(),
        m.tracked.counter_values.len(),
        m.anomalies.len()
    );
    (Times { model, perfetto }, outcome)
}

/// Says why the arguments cannot be run, and exits.
fn refuse(why: &str) -> ! {
    eprintln!("lifetimes: {why}");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs_at = args.iter().position(|a| a == "--runs");
    let runs: usize = match runs_at.map(|i| args.get(i + 1).and_then(|a| a.parse().ok())) {
        None => 5,
        Some(Some(runs)) if runs > 0 => runs,
        Some(_) => refuse("--runs takes a positive whole number of runs, e.g. --runs 10"),
    };
    // The first number that is not the count of runs.
    let millions: f64 = (args.iter().enumerate())
        .filter(|&(i, _)| Some(i) != runs_at.map(|r| r + 1))
        .find_map(|(_, a)| a.parse().ok())
        .unwrap_or(2.0);
    let events = (millions * 1e6) as u64;
    if events == 0 {
        refuse("the traces need at least one event: give a positive number of millions, e.g. 0.3");
    }
    let only = ["with", "without", "unnamed"]
        .into_iter()
        .find(|name| args.iter().any(|a| a == name));

    let workload =
        CtfTrace::open(std::path::Path::new(WORKLOAD)).expect("the shipped recording opens");
    let stream = &workload.streams[0].bytes;
    let offsets = events_of(&workload.metadata, stream);
    let net_buf_text = net_buf_trace::metadata();
    let net_buf_meta = parse_metadata(&net_buf_text).expect("the metadata parses");
    let renamed = net_buf_text.replace("name = net_buf_", "name = pkt_");
    let unnamed_meta = parse_metadata(&renamed).expect("the renamed metadata parses");
    let without = build_stream(stream, &offsets, events, false);
    let with = build_stream(stream, &offsets, events, true);
    let cases: [(&str, &str, &Metadata, &[u8]); 3] = [
        ("without", "workload events only", &net_buf_meta, &without),
        ("with", "a third net_buf", &net_buf_meta, &with),
        ("unnamed", "with's bytes, renamed", &unnamed_meta, &with),
    ];
    if let Some(name) = only {
        let (_, _, meta, bytes) = cases.iter().find(|c| c.0 == name).expect("a case");
        let (cpu, outcome) = convert(meta, bytes);
        println!(
            "{name}: {:.1} ms into the model, {:.1} ms to Perfetto ({outcome})",
            cpu.model.as_secs_f64() * 1e3,
            cpu.perfetto.as_secs_f64() * 1e3
        );
        return;
    }
    let mut best = [Times {
        model: Duration::MAX,
        perfetto: Duration::MAX,
    }; 3];
    let mut outcomes = [String::new(), String::new(), String::new()];
    // Per run, the lifetime trace's time over `without`'s and over
    // `unnamed`'s: each into the model, and to Perfetto.
    let mut slowdowns: [[Vec<f64>; 2]; 2] = Default::default();
    for _ in 0..runs {
        let converted = cases.map(|(_, _, meta, bytes)| convert(meta, bytes));
        for (i, (cpu, outcome)) in converted.iter().enumerate() {
            best[i].model = best[i].model.min(cpu.model);
            best[i].perfetto = best[i].perfetto.min(cpu.perfetto);
            outcomes[i].clone_from(outcome);
        }
        for (against, [model, perfetto]) in [0, 2].into_iter().zip(&mut slowdowns) {
            let over = |of: fn(&Times) -> Duration| {
                of(&converted[1].0).as_secs_f64() / of(&converted[against].0).as_secs_f64()
            };
            model.push(over(|t| t.model));
            perfetto.push(over(|t| t.perfetto));
        }
    }
    let per_second = |n: usize, cpu: Duration| n as f64 / cpu.as_secs_f64() / 1e6;
    println!("{events} events per trace, best of {runs} runs, by thread CPU time");
    println!("{:<33} {:>16} {:>16}", "", "M events/s", "MB/s");
    println!(
        "{:<33} {:>6} {:>9} {:>6} {:>9}",
        "", "model", "Perfetto", "model", "Perfetto"
    );
    for (i, (name, what, _, bytes)) in cases.iter().enumerate() {
        let Times { model, perfetto } = best[i];
        let n = events as usize;
        println!(
            "  {name:<8} {what:<22} {:>6.2} {:>9.2} {:>6.1} {:>9.1}   {:.1} MB: {}",
            per_second(n, model),
            per_second(n, perfetto),
            per_second(bytes.len(), model),
            per_second(bytes.len(), perfetto),
            bytes.len() as f64 / 1e6,
            outcomes[i]
        );
    }
    // A machine's speed can drift between runs by more than the difference
    // measured: the share within each run, the two traces converted back
    // to back, is the steadier figure.
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        100.0 / v[v.len() / 2]
    };
    let [[without_model, without_perfetto], [unnamed_model, unnamed_perfetto]] = &mut slowdowns;
    let (without_model, without_perfetto) = (median(without_model), median(without_perfetto));
    // The network-buffer events are longer than the workload's: per byte
    // of input, the lifetime trace's share is larger.
    let per_byte = with.len() as f64 / without.len() as f64;
    println!("with's speed as a share, median of the runs     model  Perfetto");
    for (against, model, perfetto) in [
        (
            "without, per byte",
            without_model * per_byte,
            without_perfetto * per_byte,
        ),
        ("without, per event", without_model, without_perfetto),
        (
            "unnamed (the same bytes)",
            median(unnamed_model),
            median(unnamed_perfetto),
        ),
    ] {
        println!("  with / {against:<32} {model:>8.1} % {perfetto:>6.1} %");
    }
}
