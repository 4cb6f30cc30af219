//! Parquet export benchmark on simulated traces:
//!
//! ```text
//! cargo bench -p tband-query --bench export -- [SIZE_MB]
//! cargo bench -p tband-query --bench export -- fleet TRACES [SIZE_MB]
//! ```
//!
//! The first form exports one trace and prints the export's throughput in
//! events per second (alone, and with the decoding), the size of the
//! Parquet files against the trace's bytes, and the peak resident memory.
//! The second exports TRACES traces one after the other, as
//! `tband-query export` does, and prints the peak memory: compare it with
//! a run of one trace. It then runs the canned report `isr_latency` over
//! the folder (`--fleet`) on each engine built in (DuckDB with
//! `--features duckdb`), and prints how long each took.

use tband_query::{export, fleet, Engine};
use tband_trace::input::Input;
use tband_trace::{OpenOptions, Trace};

mod measure;
use measure::{peak_rss_mb, per_second, timed};

fn simulate(size_mb: u64, seed: u64) -> Vec<Vec<u8>> {
    let config = tband_sim::Config {
        size: size_mb << 20,
        seed,
        // The traces docs/performance.md was measured on.
        wide_values: true,
        ..tband_sim::Config::default()
    };
    tband_sim::generate(&config)
        .expect("simulating the trace")
        .0
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let dir = tempfile::tempdir().expect("a temporary folder");
    if args.first().map(String::as_str) == Some("fleet") {
        let traces: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1000);
        let size_mb: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
        let ((), wall, cpu) = timed(|| {
            for seed in 0..traces {
                let inputs = Input::per_core("sim", simulate(size_mb, seed));
                let model = Trace::from_inputs(inputs, &OpenOptions::default())
                    .expect("decoding the trace")
                    .model;
                export::export(dir.path(), &format!("t{seed}"), model, &[])
                    .expect("exporting the trace");
            }
        });
        println!(
            "{traces} traces of {size_mb} MB simulated, decoded and exported: {:.1} s wall, {:.1} s cpu",
            wall.as_secs_f64(),
            cpu.as_secs_f64()
        );
        print_peak_rss();
        let report = tband_query::reports::resolve("isr_latency").expect("a canned report");
        let engines = [Engine::Sqlite, Engine::Duckdb];
        for engine in engines.into_iter().filter(|&e| e.open(None).is_ok()) {
            let (results, wall, cpu) = timed(|| {
                fleet::run(dir.path(), Some(engine), &report, &[]).expect("the fleet query")
            });
            println!(
                "--fleet isr_latency on {engine}: {} rows in {:.2} s wall, {:.2} s cpu",
                results[0].rows.len(),
                wall.as_secs_f64(),
                cpu.as_secs_f64()
            );
        }
    } else {
        let size_mb: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(100);
        let streams = simulate(size_mb, 1);
        let bytes: usize = streams.iter().map(Vec::len).sum();
        let inputs = Input::per_core("sim", streams);
        let (trace, decode_wall, decode_cpu) =
            timed(|| Trace::from_inputs(inputs, &OpenOptions::default()).expect("decoding"));
        let events = trace.model.info.events;
        let (written, wall, cpu) =
            timed(|| export::export(dir.path(), "sim", trace.model, &[]).expect("exporting"));
        println!(
            "trace: {:.1} MB, {events} events; Parquet: {} rows, {:.1} MB ({:.0} % of the trace)",
            bytes as f64 / 1e6,
            written.rows,
            written.bytes as f64 / 1e6,
            written.bytes as f64 * 100.0 / bytes as f64
        );
        println!(
            "export:          {:.3} s wall, {:.3} s cpu, {:.2} M events/cpu s",
            wall.as_secs_f64(),
            cpu.as_secs_f64(),
            per_second(events, cpu) / 1e6
        );
        println!(
            "decode + export: {:.3} s wall, {:.3} s cpu, {:.2} M events/cpu s",
            (decode_wall + wall).as_secs_f64(),
            (decode_cpu + cpu).as_secs_f64(),
            per_second(events, decode_cpu + cpu) / 1e6
        );
        print_peak_rss();
    }
}

fn print_peak_rss() {
    match peak_rss_mb() {
        Some(mb) => println!("peak RSS: {mb} MB"),
        None => println!("peak RSS: unknown (no /proc/self/status)"),
    }
}
