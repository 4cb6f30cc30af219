//! Load and report benchmark on a simulated trace, one engine per run (so
//! the peak memory printed is that engine's):
//!
//! ```text
//! cargo bench -p tband-query --bench query -- [sqlite|duckdb] [SIZE_MB]
//! ```
//!
//! Prints decode and load throughput in events per second, each canned
//! report's latency, and the process's peak resident memory.

use std::time::{Duration, Instant};

use tband_decode::input::{Bytes, Input};
use tband_decode::{OpenOptions, Trace};
use tband_query::engine::{self, Engine};
use tband_query::{reports, run};

fn peak_rss_mb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

fn per_second(n: u64, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let engine = match args.first().map(String::as_str) {
        Some("sqlite") => Engine::Sqlite,
        Some("duckdb") => Engine::Duckdb,
        _ => Engine::default_engine(),
    };
    let size_mb: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100);

    let config = tband_sim::Config {
        size: size_mb << 20,
        ..tband_sim::Config::default()
    };
    let (streams, _) = tband_sim::generate(&config).expect("simulating the trace");
    let bytes: usize = streams.iter().map(Vec::len).sum();
    let inputs = streams
        .into_iter()
        .enumerate()
        .map(|(core, bytes)| Input {
            name: format!("sim core {core}"),
            core: Some(core as u32),
            bytes: Bytes::Owned(bytes),
            was_hex: false,
        })
        .collect();

    let t = Instant::now();
    let trace = Trace::from_inputs(inputs, &OpenOptions::default()).expect("decoding the trace");
    let decode = t.elapsed();
    let events = trace.model.info.events;
    println!(
        "trace: {:.1} MB, {events} events, {} sched slices, {} ISR slices, {} task states",
        bytes as f64 / 1e6,
        trace.model.sched_slices.len(),
        trace.model.isr_slices.len(),
        trace.model.task_states.len()
    );
    println!(
        "decode (model):       {:>8.2} s  {:>6.2} M events/s",
        decode.as_secs_f64(),
        per_second(events, decode) / 1e6
    );

    let mut db = engine.open(None).expect("opening the engine");
    let t = Instant::now();
    engine::load(db.as_mut(), &trace).expect("loading the trace");
    let load = t.elapsed();
    println!(
        "load into {engine:<7}     {:>8.2} s  {:>6.2} M events/s",
        load.as_secs_f64(),
        per_second(events, load) / 1e6
    );
    println!(
        "decode + load:        {:>8.2} s  {:>6.2} M events/s",
        (decode + load).as_secs_f64(),
        per_second(events, decode + load) / 1e6
    );

    for (name, _) in reports::CANNED {
        let queries = reports::resolve(name).expect("a canned report");
        let t = Instant::now();
        let results = run::run(db.as_mut(), &queries, &[]).expect("running the report");
        let rows: usize = results.iter().map(|r| r.rows.len()).sum();
        println!(
            "report {name:<22} {:>8.3} s  ({rows} rows)",
            t.elapsed().as_secs_f64()
        );
    }
    match peak_rss_mb() {
        Some(mb) => println!("peak RSS: {mb} MB"),
        None => println!("peak RSS: unknown (no /proc/self/status)"),
    }
}
