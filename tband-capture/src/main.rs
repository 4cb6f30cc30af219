//! `tband-capture`: records a running target's trace to a file.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{ArgGroup, Parser};
use tband_capture::cli::{self, Options};
use tband_capture::flight_cli::{self, Memory};
use tband_capture::record::Limits;
use tband_capture::rtt::Channel;
use tband_capture::source::{ControlBlock, Source};
use tband_capture::start::Start;
use tband_cli::ToolCommand;

/// Record a running target's tband trace to a file, byte for byte as
/// received, from a serial port, a TCP socket (a target with Ethernet,
/// QEMU's `-serial tcp::PORT,server`, OpenOCD's RTT server), or an RTT
/// channel read through a GDB server (QEMU's gdbstub, OpenOCD, pyOCD,
/// J-Link's GDB server) or a debug probe (probe-rs).
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
    group(ArgGroup::new("source").required(true).args(["tcp", "serial", "gdb", "probe", "ram_image"])),
    group(ArgGroup::new("control_block").args(["elf", "scan_ram"]).conflicts_with_all(["tcp", "serial"]))
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

    /// Read an RTT up channel through the GDB server at HOST:PORT, which
    /// halts the target for each read (with --elf or --scan-ram).
    #[arg(long, value_name = "HOST:PORT", requires = "control_block")]
    gdb: Option<String>,

    /// Read an RTT up channel through a debug probe (probe-rs), without
    /// halting the target: the only probe connected, or the one given as
    /// VID:PID[:SERIAL] (with --chip, and --elf or --scan-ram).
    #[arg(
        long,
        value_name = "VID:PID[:SERIAL]",
        num_args = 0..=1,
        default_missing_value = "",
        requires_all = ["chip", "control_block"]
    )]
    probe: Option<String>,

    /// The chip behind the probe, as probe-rs names it (e.g. STM32F407VGTx;
    /// `probe-rs chip list` lists them).
    #[arg(long, value_name = "NAME")]
    chip: Option<String>,

    /// The running firmware's ELF file, for the address of its RTT control
    /// block (the `_SEGGER_RTT` symbol), or with --flight-recorder of its
    /// table (`tband_flight_recorder`) and a crash's function and line.
    #[arg(long, value_name = "FILE")]
    elf: Option<PathBuf>,

    /// Look for the RTT control block in this range of target RAM, as
    /// START:LENGTH (e.g. 0x20000000:0x10000).
    #[arg(long, value_name = "START:LENGTH", value_parser = parse_range)]
    scan_ram: Option<(u32, u32)>,

    /// The RTT up channel to read, by name or number.
    #[arg(long, value_name = "NAME|N", default_value = "tband", conflicts_with_all = ["tcp", "serial"])]
    channel: String,

    /// Start the recording on a target that waits for its host: once the
    /// control block is found, send this tracer's start command on the RTT
    /// down channel numbered as --channel (`systemview`: SEGGER
    /// SystemView's, for firmware that does not call SEGGER_SYSVIEW_Start
    /// itself).
    #[arg(long, value_name = "TRACER", value_parser = start_parser(), requires = "control_block")]
    start: Option<Start>,

    /// Read the post-mortem rings of a halted or crashed target instead of
    /// recording a stream: through --gdb or --probe (the target is halted
    /// only while they are read) or from --ram-image, found by the
    /// firmware's --elf.
    /// Writes the trace to --output and says who crashed, where and why.
    #[arg(
        long,
        requires = "elf",
        conflicts_with_all = ["tcp", "serial", "scan_ram", "duration", "bytes", "tui", "start"]
    )]
    flight_recorder: bool,

    /// With --flight-recorder: a file of the target's RAM (GDB's `dump
    /// memory`, a region a crash handler saved) to read the rings from.
    #[arg(long, value_name = "FILE", requires = "flight_recorder")]
    ram_image: Option<PathBuf>,

    /// The address the RAM image starts at (default: the start of the ELF
    /// file's writable data).
    #[arg(long, value_name = "ADDRESS", value_parser = parse_number, requires = "ram_image")]
    ram_base: Option<u32>,

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

    /// With --tui: a TOML file of lifetime rules for the view, applied
    /// besides the built-in ones (as `tband-tui --rules`).
    #[arg(long, value_name = "FILE", requires = "tui")]
    rules: Option<PathBuf>,
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("`{text}` is not a number of seconds"))
}

fn number(n: &str) -> Option<u32> {
    match n.strip_prefix("0x").or_else(|| n.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => n.parse().ok(),
    }
}

fn parse_number(text: &str) -> Result<u32, String> {
    number(text).ok_or_else(|| format!("`{text}` is not an address, e.g. 0x20000000"))
}

fn parse_range(text: &str) -> Result<(u32, u32), String> {
    text.split_once(':')
        .and_then(|(start, len)| Some((number(start)?, number(len)?)))
        .filter(|&(_, len)| len > 0)
        .ok_or_else(|| format!("`{text}` is not START:LENGTH, e.g. 0x20000000:0x10000"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(command) = &cli.command {
        return command.run::<Cli>();
    }
    let done = match cli.flight_recorder {
        true => flight_cli::run(&cli.into(), &mut std::io::stdout().lock()),
        false => cli::run(&cli.into()),
    };
    tband_cli::exit("tband-capture", done.map(|()| ExitCode::SUCCESS))
}

impl From<Cli> for flight_cli::Options {
    fn from(cli: Cli) -> flight_cli::Options {
        let memory = match (cli.gdb, cli.ram_image, cli.probe) {
            (Some(address), ..) => Memory::Gdb(address),
            (None, Some(path), _) => Memory::RamImage {
                path,
                base: cli.ram_base,
            },
            (None, None, Some(probe)) => Memory::Probe {
                chip: cli.chip.expect("clap requires --chip with --probe"),
                probe: Some(probe).filter(|p| !p.is_empty()),
            },
            (None, None, None) => {
                unreachable!("clap requires a source, and --flight-recorder excludes the others")
            }
        };
        flight_cli::Options {
            elf: cli.elf.expect("clap requires --elf with --flight-recorder"),
            memory,
            output: cli.output.expect("clap requires --output"),
        }
    }
}

impl From<Cli> for Options {
    fn from(cli: Cli) -> Options {
        let control_block = match (cli.elf, cli.scan_ram) {
            (Some(elf), _) => Some(ControlBlock::Elf(elf)),
            (None, Some((start, len))) => Some(ControlBlock::Scan { start, len }),
            (None, None) => None,
        };
        let channel = Channel::parse(&cli.channel);
        let source = match (cli.tcp, cli.serial, cli.baud, cli.gdb, cli.probe) {
            (Some(address), ..) => Source::Tcp(address),
            (None, Some(port), Some(baud), ..) => Source::Serial { port, baud },
            (None, None, _, Some(address), _) => Source::Gdb {
                address,
                control_block: control_block.expect("clap requires --elf or --scan-ram"),
                channel,
                start: cli.start,
            },
            (None, None, _, None, Some(probe)) => Source::Probe {
                chip: cli.chip.expect("clap requires --chip"),
                probe: Some(probe).filter(|p| !p.is_empty()),
                control_block: control_block.expect("clap requires --elf or --scan-ram"),
                channel,
                start: cli.start,
            },
            _ => unreachable!("clap requires --tcp, --serial with --baud, --gdb or --probe"),
        };
        Options {
            source,
            output: cli.output.expect("clap requires --output"),
            limits: Limits {
                duration: cli.duration,
                bytes: cli.bytes,
            },
            tui: cli.tui,
            rules: cli.rules,
        }
    }
}

/// The values of `--start`.
fn start_parser() -> impl TypedValueParser<Value = Start> {
    PossibleValuesParser::new(Start::ALL.map(Start::name)).map(|name| {
        *Start::ALL
            .iter()
            .find(|s| s.name() == name)
            .expect("the parser accepts only these names")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Options, clap::Error> {
        Cli::try_parse_from(std::iter::once("tband-capture").chain(args.iter().copied()))
            .map(Options::from)
    }

    fn parse_flight(args: &[&str]) -> Result<flight_cli::Options, clap::Error> {
        Cli::try_parse_from(std::iter::once("tband-capture").chain(args.iter().copied()))
            .map(flight_cli::Options::from)
    }

    #[test]
    fn the_flight_recorder_reads_through_gdb_a_probe_or_an_image() {
        let gdb = parse_flight(&[
            "--flight-recorder",
            "--gdb",
            "h:1",
            "--elf",
            "fw",
            "-o",
            "t",
        ]);
        assert_eq!(
            gdb.unwrap(),
            flight_cli::Options {
                elf: "fw".into(),
                memory: Memory::Gdb("h:1".into()),
                output: "t".into(),
            }
        );
        let image = [
            "--flight-recorder",
            "--ram-image",
            "ram.bin",
            "--ram-base",
            "0x20000000",
            "--elf",
            "fw",
            "-o",
            "t",
        ];
        assert_eq!(
            parse_flight(&image).unwrap().memory,
            Memory::RamImage {
                path: "ram.bin".into(),
                base: Some(0x2000_0000)
            }
        );
        let probe = [
            "--flight-recorder",
            "--probe",
            "--chip",
            "x",
            "--elf",
            "fw",
            "-o",
            "t",
        ];
        assert_eq!(
            parse_flight(&probe).unwrap().memory,
            Memory::Probe {
                chip: "x".into(),
                probe: None
            }
        );
        // The table is found through the ELF file only; a stream's options
        // do not apply.
        assert!(parse_flight(&["--flight-recorder", "--gdb", "h:1", "-o", "t"]).is_err());
        let scan = [
            "--flight-recorder",
            "--gdb",
            "h:1",
            "--scan-ram",
            "0x0:1",
            "-o",
            "t",
        ];
        assert!(parse_flight(&scan).is_err());
        let timed = [
            "--flight-recorder",
            "--gdb",
            "h:1",
            "--elf",
            "fw",
            "--duration",
            "1",
            "-o",
            "t",
        ];
        assert!(parse_flight(&timed).is_err());
        assert!(parse_flight(&["--ram-image", "ram.bin", "--elf", "fw", "-o", "t"]).is_err());
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
    fn gdb_needs_a_way_to_the_control_block() {
        let options = parse(&["--gdb", "localhost:1234", "--elf", "fw.elf", "-o", "t"]);
        assert_eq!(
            options.unwrap().source,
            Source::Gdb {
                address: "localhost:1234".into(),
                control_block: ControlBlock::Elf("fw.elf".into()),
                channel: Channel::Name("tband".into()),
                start: None,
            }
        );
        let scan = [
            "--gdb",
            "h:1",
            "--scan-ram",
            "0x20000000:65536",
            "--channel",
            "1",
            "-o",
            "t",
        ];
        assert_eq!(
            parse(&scan).unwrap().source,
            Source::Gdb {
                address: "h:1".into(),
                control_block: ControlBlock::Scan {
                    start: 0x2000_0000,
                    len: 0x1_0000
                },
                channel: Channel::Number(1),
                start: None,
            }
        );
        assert!(parse(&["--gdb", "h:1", "-o", "t"]).is_err());
        let probe = parse(&[
            "--probe",
            "--chip",
            "nRF52840_xxAA",
            "--elf",
            "fw",
            "-o",
            "t",
        ]);
        assert_eq!(
            probe.unwrap().source,
            Source::Probe {
                chip: "nRF52840_xxAA".into(),
                probe: None,
                control_block: ControlBlock::Elf("fw".into()),
                channel: Channel::Name("tband".into()),
                start: None,
            }
        );
        let chosen = parse(&[
            "--probe=1366:1051:000683",
            "--chip",
            "x",
            "--scan-ram",
            "0x20000000:0x100",
            "-o",
            "t",
        ]);
        assert!(matches!(
            chosen.unwrap().source,
            Source::Probe { probe: Some(p), .. } if p == "1366:1051:000683"
        ));
        assert!(parse(&["--probe", "--elf", "fw", "-o", "t"]).is_err());
        assert!(parse(&["--probe", "--chip", "x", "-o", "t"]).is_err());
        assert!(parse(&["--tcp", "h:1", "--elf", "fw.elf", "-o", "t"]).is_err());
        for bad in ["0x20000000", "x:1", "0x20000000:0"] {
            assert!(parse(&["--gdb", "h:1", "--scan-ram", bad, "-o", "t"]).is_err());
        }
    }

    #[test]
    fn the_start_command_goes_with_an_rtt_channel() {
        let options = parse(&[
            "--gdb",
            "h:1",
            "--elf",
            "fw",
            "--channel",
            "SysView",
            "--start",
            "systemview",
            "-o",
            "t",
        ]);
        assert!(matches!(
            options.unwrap().source,
            Source::Gdb {
                start: Some(Start::Systemview),
                ..
            }
        ));
        assert!(parse(&["--tcp", "h:1", "--start", "systemview", "-o", "t"]).is_err());
        assert!(parse(&["--gdb", "h:1", "--elf", "fw", "--start", "tband", "-o", "t"]).is_err());
    }

    #[test]
    fn rules_go_with_the_view() {
        assert!(parse(&["--tcp", "h:1", "-o", "t", "--rules", "r.toml"]).is_err());
        let options = parse(&["--tcp", "h:1", "-o", "t", "--tui", "--rules", "r.toml"]);
        assert_eq!(options.unwrap().rules, Some(PathBuf::from("r.toml")));
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
