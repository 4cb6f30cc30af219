//! `tband-sim`: writes a simulated FreeRTOS trace of a requested size.

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, ValueEnum};
use tband_sim::{core_file_name, Config, DropConfig, Layout, Simulator, WorkScale};
use tband_size::parse_size;

#[derive(Clone, Copy, ValueEnum)]
enum LayoutArg {
    /// Core 0's stream starts with every core's metadata (`core_id` frames
    /// between them); the other streams hold only events.
    Streaming,
    /// Every core's file is its metadata followed by its events.
    Snapshot,
}

/// Generate a realistic tband trace of simulated FreeRTOS firmware.
///
/// The simulated system runs tasks with priorities (preemptive, time
/// slicing), an idle task per core and a timer task, a periodic tick and
/// device interrupts that nest, queues, semaphores and mutexes (blocking,
/// priority inheritance), delays, suspend/resume, short-lived tasks and
/// event/value markers. The same options always give the same bytes.
#[derive(Parser)]
#[command(
    version,
    about,
    long_about,
    after_long_help = "Examples:\n  \
    tband-sim --size 100M -o trace.bin\n  \
    tband-sim --size 1G --cores 4 -o trace.bin      # trace.c0.bin … trace.c3.bin\n  \
    tband-sim --size 10M --drops --heartbeat 50 -o lossy.bin\n  \
    tband-sim --size 64K -o - | tband-decode -"
)]
struct Args {
    /// Stop once the trace holds this many bytes (all cores together);
    /// K, M and G suffixes are powers of 1024.
    #[arg(long, default_value = "1M", value_parser = parse_size)]
    size: u64,
    /// Seed of the pseudo-random choices.
    #[arg(long, default_value_t = Config::default().seed)]
    seed: u64,
    /// Application tasks (roles cycle: producer, consumer, mutex users,
    /// interrupt waiter, spawner, manager, sleeper, worker).
    #[arg(long, default_value_t = Config::default().tasks)]
    tasks: u32,
    /// Application queues (kinds cycle: queue, mutex, binary semaphore,
    /// counting semaphore, mailbox, ISR queue, recursive mutex).
    #[arg(long, default_value_t = Config::default().queues)]
    queues: u32,
    /// Device interrupts besides the tick.
    #[arg(long, default_value_t = Config::default().isrs)]
    isrs: u32,
    /// Cores; each writes its own stream (file names get `.c<N>`).
    #[arg(long, default_value_t = Config::default().cores)]
    cores: u32,
    /// How the per-core streams are laid out.
    #[arg(long, value_enum, default_value = "streaming")]
    layout: LayoutArg,
    /// Let the sink refuse events now and then (dropped-event episodes).
    #[arg(long)]
    drops: bool,
    /// With --drops: mean number of events between two episodes.
    #[arg(long, default_value_t = DropConfig::default().mean_gap_events, requires = "drops")]
    drop_gap: u32,
    /// With --drops: most events lost in one episode.
    #[arg(long, default_value_t = DropConfig::default().max_lost_events, requires = "drops")]
    drop_max: u32,
    /// Re-send the dropped-event counter every N events per core (0: only
    /// when it changed).
    #[arg(long, default_value_t = Config::default().heartbeat)]
    heartbeat: u32,
    /// Nanoseconds per timestamp tick.
    #[arg(long, default_value_t = Config::default().ns_per_tick)]
    ns_per_tick: u64,
    /// Draw value markers from the whole 64-bit range (a random walk within
    /// ±1,000,000 and, about one sample in eighty, an outlier of any size,
    /// i64::MIN and i64::MAX included) so that every varint length occurs;
    /// for tests and benchmarks. Without it values look like firmware
    /// (ADC readings 0..4095, pin levels, rates, loads, counters).
    #[arg(long)]
    wide_values: bool,
    /// Make one application task do PERCENT of the work it would do
    /// (e.g. `work0=150`), everything else drawn as without this option:
    /// two traces that differ in that task's load, e.g. to try
    /// `tband-query diff`.
    #[arg(long, value_name = "TASK=PERCENT")]
    task_work: Option<WorkScale>,
    /// Output file, `-` for stdout (one core only); with several cores
    /// `.c<N>` goes before the extension (trace.bin → trace.c0.bin,
    /// trace.c1.bin). The files written are listed on stdout.
    #[arg(short, long, default_value = "trace.bin")]
    output: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("tband-sim: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<(), String> {
    let config = Config {
        seed: args.seed,
        tasks: args.tasks,
        queues: args.queues,
        isrs: args.isrs,
        cores: args.cores,
        layout: match args.layout {
            LayoutArg::Streaming => Layout::Streaming,
            LayoutArg::Snapshot => Layout::Snapshot,
        },
        drops: args.drops.then_some(DropConfig {
            mean_gap_events: args.drop_gap,
            max_lost_events: args.drop_max,
        }),
        heartbeat: args.heartbeat,
        ns_per_tick: args.ns_per_tick,
        size: args.size,
        wide_values: args.wide_values,
        work_scale: args.task_work,
        ..Config::default()
    };
    config.validate().map_err(|e| e.to_string())?;
    let to_stdout = args.output.as_os_str() == "-";
    if to_stdout && config.cores > 1 {
        return Err(format!(
            "{} cores write {} streams, which need a file name after -o, not `-`",
            config.cores, config.cores
        ));
    }
    let paths: Vec<PathBuf> = if to_stdout {
        Vec::new()
    } else {
        (0..config.cores)
            .map(|c| core_file_name(&args.output, c, config.cores))
            .collect()
    };
    // The simulator hands over 64 KiB blocks, so the sinks need no buffer.
    let mut sinks: Vec<Box<dyn Write>> = Vec::new();
    if to_stdout {
        sinks.push(Box::new(io::stdout().lock()));
    }
    for p in &paths {
        let f = File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display()))?;
        sinks.push(Box::new(f));
    }
    let started = Instant::now();
    let out = Simulator::new(config, sinks)
        .map_err(|e| e.to_string())?
        .run()
        .map_err(|e| format!("cannot write the trace: {e}"))?;
    let secs = started.elapsed().as_secs_f64();
    let total: u64 = out.stats.bytes.iter().sum();
    for (p, bytes) in paths.iter().zip(&out.stats.bytes) {
        println!("{}\t{bytes} bytes", p.display());
    }
    eprintln!(
        "{} events ({} lost), {} bytes in {secs:.2} s ({:.1} MB/s)",
        out.stats.events,
        out.stats.lost_events,
        total,
        total as f64 / 1e6 / secs.max(1e-9),
    );
    Ok(())
}
