//! Export throughput on a simulated trace: MB/s of input converted, output
//! size against the input, packets per second.
//!
//! `cargo bench -p tband-perfetto --bench export` (100 MB, 1 core; set
//! TBAND_BENCH_SIZE=1G or TBAND_BENCH_CORES=2 for other shapes).

use std::time::Instant;

use tband_perfetto::sched::SchedEncoding;
use tband_perfetto::writer::{Output, PacketWriter};
use tband_perfetto::ExportOptions;
use tband_trace::DecodeThread;
use tband_trace::{OpenOptions, Trace};

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_owned())
}

/// CPU time (user + system) this process has used, from /proc.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn main() {
    let size =
        tband_cli::parse_size(&env_or("TBAND_BENCH_SIZE", "100M")).expect("TBAND_BENCH_SIZE");
    let cores: u32 = env_or("TBAND_BENCH_CORES", "1")
        .parse()
        .expect("TBAND_BENCH_CORES");
    let dir = std::env::temp_dir().join(format!("tband-perfetto-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    let config = tband_sim::Config {
        size,
        cores,
        // The traces docs/performance.md was measured on.
        wide_values: true,
        ..tband_sim::Config::default()
    };
    let (streams, _) = tband_sim::generate(&config).expect("the simulator runs");
    let base = dir.join("sim.bin");
    let mut inputs = Vec::new();
    let mut input_bytes = 0u64;
    for (core, bytes) in streams.iter().enumerate() {
        let path = tband_sim::core_file_name(&base, core as u32, cores);
        std::fs::write(&path, bytes).unwrap();
        input_bytes += bytes.len() as u64;
        inputs.push(format!("{}@{core}", path.display()));
    }
    drop(streams);
    let mb = input_bytes as f64 / 1e6;
    println!("input: {mb:.1} MB simulated, {cores} core(s)");

    // Opened on one thread, for comparison, then as the tool opens it:
    // decoding on a second thread where there are two cores.
    let mut opened = None;
    for (name, decode_thread) in [
        ("one thread", DecodeThread::Calling),
        ("as the tool does", DecodeThread::available()),
    ] {
        drop(opened.take());
        let options = OpenOptions {
            decode_thread,
            ..OpenOptions::default()
        };
        let (cpu0, t0) = (cpu_seconds(), Instant::now());
        let trace = Trace::open(&inputs, &options).expect("the trace opens");
        let (open_s, open_cpu) = (
            t0.elapsed().as_secs_f64(),
            cpu_seconds().zip(cpu0).map(|(a, b)| a - b),
        );
        println!(
            "decode + model, {name} (decoding on {decode_thread:?}): {open_s:.2} s wall ({:.2} s CPU), {} events",
            open_cpu.unwrap_or(f64::NAN),
            trace.model.info.events
        );
        opened = Some((trace, open_s, open_cpu));
    }
    let (trace, open_s, open_cpu) = opened.expect("opened");

    // The two halves of the export, timed apart (to a sink).
    let threads = tband_perfetto::threads::Threads::new(&trace.model);
    let mut sink = PacketWriter::new(std::io::sink());
    let (cpu1, t1) = (cpu_seconds(), Instant::now());
    tband_perfetto::sched::write_sched(&trace.model, &threads, SchedEncoding::Compact, &mut sink)
        .unwrap();
    let sched_s = t1.elapsed().as_secs_f64();
    let sched_cpu = cpu_seconds().zip(cpu1).map(|(a, b)| a - b);
    let sched_packets = sink.packets();
    let (cpu2, t2) = (cpu_seconds(), Instant::now());
    tband_perfetto::events::write_track_events(
        &trace.model,
        &tband_model::timeline::Timeline::new(&trace.model),
        &threads,
        &mut sink,
    )
    .unwrap();
    let events_s = t2.elapsed().as_secs_f64();
    let events_cpu = cpu_seconds().zip(cpu2).map(|(a, b)| a - b);
    println!(
        "scheduling bundles: {sched_s:.2} s wall ({:.2} s CPU), {sched_packets} packets; track events: {events_s:.2} s wall ({:.2} s CPU), {} packets",
        sched_cpu.unwrap_or(f64::NAN),
        events_cpu.unwrap_or(f64::NAN),
        sink.packets() - sched_packets,
    );

    for (name, sched, gzip, two_threads) in [
        ("compact", SchedEncoding::Compact, false, false),
        ("compact, 2 threads", SchedEncoding::Compact, false, true),
        ("compact, gzip", SchedEncoding::Compact, true, false),
        ("events", SchedEncoding::Events, false, false),
    ] {
        let out_path = dir.join(if gzip {
            "out.pftrace.gz"
        } else {
            "out.pftrace"
        });
        let (cpu1, t1) = (cpu_seconds(), Instant::now());
        let mut out = Output::create(&out_path).unwrap();
        let options = ExportOptions { sched, two_threads };
        let stats = tband_perfetto::export(&trace.model, options, &mut out).unwrap();
        out.finish().unwrap();
        let export_s = t1.elapsed().as_secs_f64();
        let export_cpu = cpu_seconds().zip(cpu1).map(|(a, b)| a - b);
        let file_bytes = std::fs::metadata(&out_path).unwrap().len();
        let total_cpu = open_cpu.zip(export_cpu).map(|(a, b)| a + b);
        println!(
            "{name:>18}: export {export_s:.2} s wall ({:.2} s CPU); input converted {:.0} MB/s wall, {} MB/s per CPU second (decode + export), \
             export alone {} MB/s per CPU second; {} packets, {:.1} M packets/s (export); output {:.1} MB = {:.2}x input ({:.2}x uncompressed)",
            export_cpu.unwrap_or(f64::NAN),
            mb / (open_s + export_s),
            total_cpu.map_or("?".into(), |c| format!("{:.0}", mb / c)),
            export_cpu.map_or("?".into(), |c| format!("{:.0}", mb / c)),
            stats.packets,
            stats.packets as f64 / export_s / 1e6,
            file_bytes as f64 / 1e6,
            file_bytes as f64 / input_bytes as f64,
            stats.bytes as f64 / input_bytes as f64,
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
