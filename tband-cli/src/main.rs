//! `tband-decode`: prints the events of tband traces.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tband_cli::decode::{self, Options};
use tband_cli::{open_options, InputArgs, ToolCommand};

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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match &cli.command {
        Some(command) => command.run::<Cli>(),
        None => tband_cli::exit("tband-decode", decode::run(&cli.into())),
    }
}

impl From<Cli> for Options {
    fn from(cli: Cli) -> Options {
        Options {
            input: open_options(&cli.input.format),
            inputs: cli.input.inputs,
            pretty: cli.pretty,
            json: cli.json,
            stats: cli.stats,
            summary: cli.summary,
            output: cli.output,
        }
    }
}
