//! `tband-tui`: a terminal timeline of a trace.

use std::process::ExitCode;

use clap::Parser;
use tband_cli::{open_options, InputArgs};
use tband_tui::cli::{self, Options};
use tband_tui::load::PREVIEW_BYTES;

/// Show a trace as a terminal timeline: which task ran on which core, ISRs,
/// task states, markers, values and queue levels. Zoom with + and -, pan with
/// a and d, press ? for all keys.
#[derive(Parser, Debug)]
#[command(name = "tband-tui", version)]
struct Cli {
    #[command(flatten)]
    input: InputArgs,

    /// Print one frame of this size (e.g. 120x40) as plain text and exit.
    #[arg(long, value_name = "WIDTHxHEIGHT", value_parser = parse_size)]
    snapshot: Option<(u16, u16)>,

    /// The time range to show first, as START..END (e.g. 10ms..15ms, ..2s).
    #[arg(long, value_name = "START..END")]
    range: Option<String>,

    /// Open with the summary pane (CPU %, ISRs, queues) shown.
    #[arg(long)]
    summary: bool,

    /// Follow the trace file as another process appends to it (e.g.
    /// `tband-capture -o FILE`): the timeline grows with it and keeps to the
    /// newest data until you pan or zoom; End or f follows again. One tband
    /// stream file only.
    #[arg(long, conflicts_with_all = ["snapshot", "range", "preview_bytes"])]
    follow: bool,

    /// A trace larger than this many bytes is shown from its first part
    /// (about this many bytes) while the whole loads; 0 waits for the whole.
    /// A snapshot always shows the whole trace.
    #[arg(long, value_name = "BYTES", default_value_t = PREVIEW_BYTES)]
    preview_bytes: u64,
}

fn parse_size(text: &str) -> Result<(u16, u16), String> {
    let bad = || format!("`{text}` is not a size; write it like 120x40");
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u16 = w.trim().parse().map_err(|_| bad())?;
    let h: u16 = h.trim().parse().map_err(|_| bad())?;
    if w == 0 || h == 0 {
        return Err(bad());
    }
    Ok((w, h))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tband_cli::exit(
        "tband-tui",
        cli::run(&cli.into()).map(|()| ExitCode::SUCCESS),
    )
}

impl From<Cli> for Options {
    fn from(cli: Cli) -> Options {
        Options {
            input: open_options(&cli.input.format),
            inputs: cli.input.inputs,
            snapshot: cli.snapshot,
            range: cli.range,
            summary: cli.summary,
            preview_bytes: cli.preview_bytes,
            follow: cli.follow,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("120x40"), Ok((120, 40)));
        assert!(parse_size("120").is_err());
        assert!(parse_size("0x10").is_err());
    }
}
