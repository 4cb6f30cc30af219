//! `tband-capture`: records a running target's trace to a file.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{ArgGroup, Parser};
use tband_capture::cli::{self, Options};
use tband_capture::record::Limits;
use tband_capture::source::Source;
use tband_cli::ToolCommand;

/// Record a running target's tband trace to a file, byte for byte as
/// received, from a serial port or a TCP socket (a target with Ethernet,
/// QEMU's `-serial tcp::PORT,server`, OpenOCD's RTT server).
///
/// Stops on Ctrl-C, after --duration or --bytes, or when the other side
/// closes; every byte received is in the file. While it runs, stderr shows
/// what the stream holds so far.
#[derive(Parser, Debug)]
#[command(
    name = "tband-capture",
    version,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    group(ArgGroup::new("source").required(true).args(["tcp", "serial"]))
)]
struct Cli {
    #[command(subcommand)]
    command: Option<ToolCommand>,

    /// Read from a TCP server at HOST:PORT.
    #[arg(long, value_name = "HOST:PORT")]
    tcp: Option<String>,

    /// Read from a serial port (e.g. /dev/ttyUSB0), at --baud.
    #[arg(long, value_name = "PORT", requires = "baud")]
    serial: Option<String>,

    /// The serial port's baud rate (e.g. 115200).
    #[arg(long, value_name = "N", requires = "serial")]
    baud: Option<u32>,

    /// The file to write the trace to.
    #[arg(short, long, value_name = "FILE", required = true)]
    output: Option<PathBuf>,

    /// Stop after this many seconds (may be fractional).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    duration: Option<Duration>,

    /// Stop after this many bytes.
    #[arg(long, value_name = "N")]
    bytes: Option<u64>,

    /// Show the trace as it is recorded, in tband-tui's follow view in this
    /// terminal (instead of the status line); quitting the view stops the
    /// recording.
    #[arg(long)]
    tui: bool,
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("`{text}` is not a number of seconds"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match &cli.command {
        Some(command) => command.run::<Cli>(),
        None => tband_cli::exit(
            "tband-capture",
            cli::run(&cli.into()).map(|()| ExitCode::SUCCESS),
        ),
    }
}

impl From<Cli> for Options {
    fn from(cli: Cli) -> Options {
        let source = match (cli.tcp, cli.serial, cli.baud) {
            (Some(address), _, _) => Source::Tcp(address),
            (None, Some(port), Some(baud)) => Source::Serial { port, baud },
            _ => unreachable!("clap requires --tcp, or --serial with --baud"),
        };
        Options {
            source,
            output: cli.output.expect("clap requires --output"),
            limits: Limits {
                duration: cli.duration,
                bytes: cli.bytes,
            },
            tui: cli.tui,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Options, clap::Error> {
        Cli::try_parse_from(std::iter::once("tband-capture").chain(args.iter().copied()))
            .map(Options::from)
    }

    #[test]
    fn one_source_is_required() {
        let options = parse(&["--tcp", "localhost:4000", "-o", "t.bin"]).unwrap();
        assert_eq!(options.source, Source::Tcp("localhost:4000".into()));
        let options = parse(&[
            "--serial",
            "/dev/ttyUSB0",
            "--baud",
            "921600",
            "-o",
            "t.bin",
        ]);
        assert_eq!(
            options.unwrap().source,
            Source::Serial {
                port: "/dev/ttyUSB0".into(),
                baud: 921_600
            }
        );
        assert!(parse(&["-o", "t.bin"]).is_err());
        assert!(parse(&["--serial", "/dev/ttyUSB0", "-o", "t.bin"]).is_err());
        let both = [
            "--tcp",
            "h:1",
            "--serial",
            "/dev/ttyUSB0",
            "--baud",
            "9600",
            "-o",
            "t",
        ];
        assert!(parse(&both).is_err());
    }

    #[test]
    fn completion_needs_no_source() {
        let cli = Cli::try_parse_from(["tband-capture", "completion", "bash"]).unwrap();
        assert!(matches!(cli.command, Some(ToolCommand::Completion { .. })));
    }

    #[test]
    fn limits() {
        let options = parse(&[
            "--tcp",
            "h:1",
            "-o",
            "t",
            "--duration",
            "1.5",
            "--bytes",
            "10",
        ]);
        let limits = options.unwrap().limits;
        assert_eq!(limits.duration, Some(Duration::from_millis(1500)));
        assert_eq!(limits.bytes, Some(10));
        for bad in ["-1", "soon"] {
            assert!(parse(&["--tcp", "h:1", "-o", "t", "--duration", bad]).is_err());
        }
    }
}
