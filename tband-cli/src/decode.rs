//! The `tband-decode` command: what it does with its arguments, which the
//! binary (`main.rs`) parses.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::process::ExitCode;

use tband_ctf::CtfTrace;
use tband_decode::input::Input;
use tband_decode::listing::{self, TimeUnit};
use tband_decode::sequencer::{find_ts_resolution, Stream};
use tband_decode::stream::{StreamDecoder, StreamStats};
use tband_model::summary::write_summary;
use tband_model::{EventRow, LogDecoder, Model, TraceInfo};
use tband_trace::{
    read_systemview, read_threadx, read_tracerecorder, DefmtElf, OpenOptions, Source, Trace,
};

use crate::progress::open_trace;

/// What the command line asks for (its options, by the same names).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The trace files.
    pub inputs: Vec<String>,
    /// How to read them.
    pub input: OpenOptions,
    pub pretty: bool,
    pub json: bool,
    pub stats: bool,
    pub summary: bool,
    pub output: Option<PathBuf>,
}

#[derive(Clone, Copy)]
enum Mode {
    Json,
    Pretty,
    Stats,
}

fn open_output(cli: &Options) -> Result<Box<dyn Write>, String> {
    Ok(match &cli.output {
        Some(path) => Box::new(
            File::create(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        ),
        None => Box::new(io::stdout().lock()),
    })
}

fn summarize(cli: &Options) -> Result<ExitCode, String> {
    let trace = open_trace(&cli.inputs, &cli.input).map_err(|e| e.to_string())?;
    let mut out = BufWriter::new(open_output(cli)?);
    match write_summary(&mut out, &trace.model).and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(format!("cannot write output: {e}")),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// Runs the command: lists the events, or prints the counts or the summary.
pub fn run(cli: &Options) -> Result<ExitCode, String> {
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
    let options = &cli.input;
    let inputs = match Source::open(&cli.inputs, options).map_err(|e| e.to_string())? {
        Source::Tband(inputs) => inputs,
        Source::Threadx { input, options } => return list_threadx(cli, &input, &options, mode),
        Source::Systemview { input } => return list_systemview(cli, &input, mode),
        Source::Tracerecorder { input } => return list_tracerecorder(cli, &input, mode),
        Source::Ctf { trace, names } if tband_ctf::has_events(&trace) => {
            return list_ctf(cli, &trace, names, mode)
        }
        // A CTF trace without events: opening it says why.
        empty => {
            return Trace::build(empty, options)
                .map(|_| ExitCode::SUCCESS)
                .map_err(|e| e.to_string())
        }
    };
    let elf = (options.elf.as_deref())
        .map(DefmtElf::read)
        .transpose()
        .map_err(|e| e.to_string())?;
    let mut out = BufWriter::with_capacity(1 << 16, open_output(cli)?);
    let mut total = StreamStats::default();
    let mut per_input = Vec::new();
    for input in &inputs {
        let stats = match print_events(input, mode, elf.as_ref(), &mut out) {
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
    cli: &Options,
    input: &Input,
    options: &tband_threadx::ReadOptions,
    mode: Mode,
) -> Result<ExitCode, String> {
    let buffer = read_threadx(input, options).map_err(|e| e.to_string())?;
    let mut out = BufWriter::with_capacity(1 << 16, open_output(cli)?);
    let written = match mode {
        Mode::Json => tband_threadx::listing::write_json(&mut out, &buffer),
        Mode::Pretty => tband_threadx::listing::write_pretty(&mut out, &buffer),
        Mode::Stats => tband_threadx::listing::write_stats(&mut out, &input.name, &buffer),
    };
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(format!("cannot write output: {e}")),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// Prints the events of a CTF trace (Zephyr), which has some: their fields
/// as the metadata names them, or their counts and the damage the model
/// found.
fn list_ctf(
    cli: &Options,
    trace: &CtfTrace,
    names: Vec<String>,
    mode: Mode,
) -> Result<ExitCode, String> {
    let mut out = BufWriter::with_capacity(1 << 16, open_output(cli)?);
    let mut written = Ok(());
    match mode {
        Mode::Stats => {
            let info = TraceInfo {
                sources: names,
                ..TraceInfo::default()
            };
            let (model, events_by_class) = tband_ctf::build_model_counting(trace, info, None);
            let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
            for (class, &n) in trace.metadata.events.iter().zip(&events_by_class) {
                if n > 0 {
                    *counts.entry(class.name.as_str()).or_default() += n;
                }
            }
            written = write_ctf_stats(&mut out, &model, &counts);
        }
        Mode::Json => tband_ctf::for_each_event(trace, |row| {
            if written.is_ok() {
                written = tband_ctf::write_json_row(&mut out, row);
            }
        }),
        Mode::Pretty => {
            // On the trace's clock, as babeltrace2 shows it, rather than since the first event.
            let clock_origin_ns = tband_ctf::clock_origin_ns(trace);
            let mut previous_ns = None;
            tband_ctf::for_each_event(trace, |row| {
                if written.is_err() {
                    return;
                }
                let on_clock = EventRow {
                    ts_ns: row.ts_ns.map(|t| t.saturating_add(clock_origin_ns)),
                    ..*row
                };
                written = tband_ctf::write_pretty_row(&mut out, &on_clock, previous_ns);
                previous_ns = on_clock.ts_ns;
            });
        }
    }
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(format!("cannot write output: {e}")),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// Lists a SystemView recording's packets as event rows, the way CTF
/// events are listed.
fn list_systemview(cli: &Options, input: &Input, mode: Mode) -> Result<ExitCode, String> {
    let recording = read_systemview(input).map_err(|e| e.to_string())?;
    list_rows(cli, mode, |each| {
        tband_systemview::build_model(&recording, vec![input.name.clone()], Some(each))
    })
}

/// Lists a TraceRecorder recording's events as event rows, the way CTF
/// events are listed.
fn list_tracerecorder(cli: &Options, input: &Input, mode: Mode) -> Result<ExitCode, String> {
    let recording = read_tracerecorder(input).map_err(|e| e.to_string())?;
    list_rows(cli, mode, |each| {
        tband_tracerecorder::build_model(&recording, vec![input.name.clone()], Some(each))
    })
}

/// Lists the event rows an importer hands out while `build` builds the
/// model: as JSON, pretty, or their counts by name and the damage.
fn list_rows(
    cli: &Options,
    mode: Mode,
    build: impl FnOnce(&mut dyn FnMut(&EventRow<'_>)) -> Model,
) -> Result<ExitCode, String> {
    let mut out = BufWriter::with_capacity(1 << 16, open_output(cli)?);
    let mut written = Ok(());
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut previous_ns = None;
    let mut each = |row: &EventRow<'_>| {
        if written.is_err() {
            return;
        }
        match mode {
            Mode::Stats => *counts.entry(row.name.to_string()).or_default() += 1,
            Mode::Json => written = tband_ctf::write_json_row(&mut out, row),
            Mode::Pretty => {
                written = tband_ctf::write_pretty_row(&mut out, row, previous_ns);
                previous_ns = row.ts_ns;
            }
        }
    };
    let model = build(&mut each);
    if let (Mode::Stats, Ok(())) = (mode, &written) {
        written = write_ctf_stats(&mut out, &model, &counts);
    }
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(format!("cannot write output: {e}")),
        _ => Ok(ExitCode::SUCCESS),
    }
}

fn write_ctf_stats<K: std::fmt::Display>(
    out: &mut impl Write,
    model: &Model,
    counts: &BTreeMap<K, u64>,
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

/// Lists one input's events; with the firmware's ELF, a log frame's line
/// shows the log line it decodes to.
fn print_events(
    input: &Input,
    mode: Mode,
    elf: Option<&DefmtElf>,
    out: &mut impl Write,
) -> io::Result<StreamStats> {
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
        let log = match (&frame.result, elf) {
            (Ok(rec), Some(elf)) => listing::defmt_frame(rec).and_then(|f| elf.decode(f).ok()),
            _ => None,
        };
        let written = match (mode, &frame.result, &log) {
            (Mode::Stats, _, _) => Ok(()),
            (Mode::Json, Ok(rec), Some(log)) => listing::write_json_log(out, rec, log),
            (Mode::Json, Ok(rec), None) => listing::write_json_record(out, rec),
            (Mode::Json, Err(e), _) => listing::write_json_invalid(out, e),
            (Mode::Pretty, Ok(rec), Some(log)) => {
                listing::write_pretty_log(out, rec, frame.core, unit, log)
            }
            (Mode::Pretty, Ok(rec), None) => {
                listing::write_pretty_record(out, rec, frame.core, unit)
            }
            (Mode::Pretty, Err(e), _) => listing::write_pretty_invalid(out, frame.offset, e),
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
