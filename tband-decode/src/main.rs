//! `tband-decode`: prints the events of tband traces.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tband_cli::{open_options, InputArgs, ToolCommand};
use tband_decode::ctf;
use tband_decode::input::Input;
use tband_decode::listing::{self, TimeUnit};
use tband_decode::model::Model;
use tband_decode::sequencer::{find_ts_resolution, Stream};
use tband_decode::stream::{StreamDecoder, StreamStats};
use tband_decode::summary::write_summary;
use tband_decode::threadx;
use tband_decode::trace::{read_threadx, EventRow, Source, Trace};

/// Decode tband traces (COBS frames of varint-encoded events, as written by the
/// tband firmware tracer or the reference C tracer) and print their events.
///
/// Output is the canonical JSON listing (one object per frame) when stdout is
/// not a terminal, and a readable one-line-per-event form on a terminal.
///
/// Zephyr CTF traces (a directory with `metadata` and stream files) are read
/// too: JSON lines, or babeltrace2-style lines on a terminal.
///
/// ThreadX trace buffers (TraceX `.trx` files) are recognised too: one JSON
/// object or line per entry, in the order they were written.
#[derive(Parser)]
#[command(name = "tband-decode", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<ToolCommand>,

    #[command(flatten)]
    input: InputArgs,

    /// Print the readable one-line-per-event form (default on a terminal).
    #[arg(long, conflicts_with = "json")]
    pretty: bool,

    /// Print the canonical JSON listing (default when stdout is not a terminal).
    #[arg(long)]
    json: bool,

    /// Print frame, byte, per-event-kind and error counts instead of events.
    #[arg(long, conflicts_with = "summary")]
    stats: bool,

    /// Print an overview of the trace model instead of events: cores, tasks
    /// (CPU %), ISRs, markers, queues (high-water) and anomalies.
    #[arg(long)]
    summary: bool,

    /// Write to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy)]
enum Mode {
    Json,
    Pretty,
    Stats,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match &cli.command {
        Some(command) => command.run::<Cli>(),
        None => tband_cli::exit("tband-decode", run(&cli)),
    }
}

fn open_output(cli: &Cli) -> Result<Box<dyn Write>, String> {
    Ok(match &cli.output {
        Some(path) => Box::new(
            File::create(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        ),
        None => Box::new(io::stdout().lock()),
    })
}

fn summarize(cli: &Cli) -> Result<ExitCode, String> {
    let trace = Trace::open(&cli.input.inputs, &open_options!(&cli.input.format))
        .map_err(|e| e.to_string())?;
    let mut out = BufWriter::new(open_output(cli)?);
    match write_summary(&mut out, &trace.model).and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(format!("cannot write output: {e}")),
        _ => Ok(ExitCode::SUCCESS),
    }
}

fn run(cli: &Cli) -> Result<ExitCode, String> {
    if cli.summary {
        return summarize(cli);
    }
    let to_terminal = cli.output.is_none() && io::stdout().is_terminal();
    let mode = if cli.stats {
        Mode::Stats
    } else if cli.pretty || (to_terminal && !cli.json) {
        Mode::Pretty
    } else {
        Mode::Json
    };
    let options = open_options!(&cli.input.format);
    let inputs = match Source::open(&cli.input.inputs, &options).map_err(|e| e.to_string())? {
        Source::Tband(inputs) => inputs,
        Source::Threadx { input, options } => return list_threadx(cli, &input, &options, mode),
        ctf @ Source::Ctf { .. } => {
            let trace = Trace::build(ctf, &options).map_err(|e| e.to_string())?;
            return list_ctf(cli, &trace, mode);
        }
    };
    let mut out = BufWriter::with_capacity(1 << 16, open_output(cli)?);
    let mut total = StreamStats::default();
    let mut per_input = Vec::new();
    for input in &inputs {
        let stats = match print_events(input, mode, &mut out) {
            Ok(stats) => stats,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
            Err(e) => return Err(format!("cannot write output: {e}")),
        };
        if total.by_id.is_empty() {
            total = stats.clone();
        } else {
            total.add(&stats);
        }
        per_input.push((input.name.clone(), stats));
    }
    if let Mode::Stats = mode {
        write_stats(&mut out, &per_input, &total)
            .map_err(|e| format!("cannot write output: {e}"))?;
    }
    match out.flush() {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            return Err(format!("cannot write output: {e}"))
        }
        _ => {}
    }
    if total.decoded() == 0 {
        let names: Vec<_> = inputs.iter().map(|i| i.name.as_str()).collect();
        return Err(format!(
            "{} holds no tband frame ({} bytes, {} invalid frames); is it a tband trace?",
            names.join(", "),
            total.bytes,
            total.invalid()
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// Lists the entries of one ThreadX buffer.
fn list_threadx(
    cli: &Cli,
    input: &Input,
    options: &threadx::ReadOptions,
    mode: Mode,
) -> Result<ExitCode, String> {
    let buffer = read_threadx(input, options).map_err(|e| e.to_string())?;
    let mut out = BufWriter::with_capacity(1 << 16, open_output(cli)?);
    let written = match mode {
        Mode::Json => threadx::listing::write_json(&mut out, &buffer),
        Mode::Pretty => threadx::listing::write_pretty(&mut out, &buffer),
        Mode::Stats => threadx::listing::write_stats(&mut out, &input.name, &buffer),
    };
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(format!("cannot write output: {e}")),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// Prints the events of a CTF trace (Zephyr): their fields as the metadata names them.
fn list_ctf(cli: &Cli, trace: &Trace, mode: Mode) -> Result<ExitCode, String> {
    let mut out = BufWriter::with_capacity(1 << 16, open_output(cli)?);
    let mut written = Ok(());
    let mut previous_ns = None;
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    let info = &trace.model.info;
    let clock_origin_ns = info.first_ts_raw.saturating_mul(info.ns_per_tick);
    trace.for_each_event(|row| {
        if written.is_err() {
            return;
        }
        written = match mode {
            Mode::Json => ctf::write_json_row(&mut out, row),
            Mode::Pretty => {
                // On the trace's clock, as babeltrace2 shows it, rather than since the first event.
                let on_clock = EventRow {
                    ts_ns: row.ts_ns.map(|t| t.saturating_add(clock_origin_ns)),
                    ..*row
                };
                let line = ctf::write_pretty_row(&mut out, &on_clock, previous_ns);
                previous_ns = on_clock.ts_ns;
                line
            }
            Mode::Stats => {
                match counts.get_mut(row.name) {
                    Some(n) => *n += 1,
                    None => {
                        counts.insert(row.name.to_owned(), 1);
                    }
                }
                Ok(())
            }
        };
    });
    if let (Mode::Stats, Ok(())) = (mode, &written) {
        written = write_ctf_stats(&mut out, &trace.model, &counts);
    }
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(format!("cannot write output: {e}")),
        _ => Ok(ExitCode::SUCCESS),
    }
}

fn write_ctf_stats(
    out: &mut impl Write,
    model: &Model,
    counts: &BTreeMap<String, u64>,
) -> io::Result<()> {
    writeln!(
        out,
        "{} events, {} damaged streams",
        model.info.events, model.info.invalid_frames
    )?;
    writeln!(out, "\nevents by kind:")?;
    for (name, n) in counts {
        writeln!(out, "  {name:<32}{n:>12}")?;
    }
    if !model.anomalies.is_empty() {
        writeln!(out, "\ndamage:")?;
        for anomaly in &model.anomalies {
            writeln!(out, "  {}: {}", anomaly.kind.as_str(), anomaly.detail)?;
        }
    }
    Ok(())
}

fn print_events(input: &Input, mode: Mode, out: &mut impl Write) -> io::Result<StreamStats> {
    let core = input.core.unwrap_or(0);
    let unit = match mode {
        Mode::Pretty => find_ts_resolution(&[Stream::new(&input.bytes, core)])
            .map_or(TimeUnit::Ticks, |ns_per_tick| TimeUnit::Micros {
                ns_per_tick,
            }),
        _ => TimeUnit::Ticks,
    };
    let mut decoder = StreamDecoder::new(&input.bytes, core);
    let failed = decoder.for_each_frame(|frame| {
        let written = match (mode, &frame.result) {
            (Mode::Stats, _) => Ok(()),
            (Mode::Json, Ok(rec)) => listing::write_json_record(out, rec),
            (Mode::Json, Err(e)) => listing::write_json_invalid(out, e),
            (Mode::Pretty, Ok(rec)) => listing::write_pretty_record(out, rec, frame.core, unit),
            (Mode::Pretty, Err(e)) => listing::write_pretty_invalid(out, frame.offset, e),
        };
        match written {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => ControlFlow::Break(e),
        }
    });
    match failed {
        Some(e) => Err(e),
        None => Ok(decoder.stats()),
    }
}

fn write_stats(
    out: &mut impl Write,
    per_input: &[(String, StreamStats)],
    total: &StreamStats,
) -> io::Result<()> {
    for (name, stats) in per_input {
        writeln!(
            out,
            "{name}: {} bytes, {} frames ({} decoded, {} invalid, {} empty)",
            stats.bytes,
            stats.frames,
            stats.decoded(),
            stats.invalid(),
            stats.empty_frames
        )?;
    }
    writeln!(out, "\nevents by kind:")?;
    for (kind, n) in total.by_kind() {
        writeln!(out, "  {:<32}{n:>12}", kind.name())?;
    }
    if !total.errors.is_empty() {
        writeln!(out, "\ninvalid frames by reason:")?;
        for (reason, n) in &total.errors {
            writeln!(out, "  {reason:<32}{n:>12}")?;
        }
    }
    Ok(())
}
