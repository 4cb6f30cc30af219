//! What every tband tool's command line shares: naming the inputs, the
//! `completion` subcommand, how an error ends the process, and the
//! progress bar of long work on a terminal ([`progress`]).
//!
//! The libraries take plain options; clap lives here and in the tools'
//! `main.rs`. The arguments become [`tband_trace::OpenOptions`] through
//! [`open_options`]. The crate's binary is `tband-decode` (listings and
//! the model's summary).

pub mod decode;
pub mod progress;

use std::fmt::Display;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, CommandFactory, Subcommand};
use tband_trace::{DecodeThread, InputFormat, OpenOptions, ThreadxOptions, TimerDirection};

#[derive(Args, Clone, Debug)]
pub struct InputArgs {
    /// Trace files: binary or hex text, `-` for stdin. Append `@CORE` to say
    /// which core a stream was recorded on (e.g. `trace_c1.bin@1`). A CTF
    /// trace (Zephyr) is its directory, or its stream files.
    #[arg(value_name = "TRACE", required = true)]
    pub inputs: Vec<String>,

    #[command(flatten)]
    pub format: FormatArgs,
}

/// How to read the inputs: the options every tool shares besides naming
/// them (tools whose positional arguments differ flatten just these).
#[derive(Args, Clone, Debug, Default)]
pub struct FormatArgs {
    /// Read the inputs as this format instead of recognising it.
    #[arg(long, value_parser = input_format_parser(), value_name = "FORMAT")]
    pub input_format: Option<InputFormat>,

    /// The CTF metadata file for CTF stream files (not needed when the
    /// metadata is beside them or a trace directory is given).
    #[arg(long, value_name = "FILE")]
    pub ctf_metadata: Option<PathBuf>,

    /// ThreadX traces: nanoseconds per timer tick (may be fractional).
    /// ThreadX does not record it; without this option 1 is assumed.
    #[arg(long, value_name = "NS")]
    pub tick_ns: Option<f64>,

    /// ThreadX traces: which way the timer counts, instead of detecting it
    /// from the timestamps.
    #[arg(long, value_parser = timer_direction_parser(), value_name = "DIRECTION")]
    pub timer_direction: Option<TimerDirection>,

    /// A TOML file of lifetime rules (which events begin, end and mark
    /// objects tracked by id, and set their pools' counters), applied
    /// besides the built-in ones for Zephyr's network buffers.
    #[arg(long, value_name = "FILE")]
    pub rules: Option<PathBuf>,

    /// The firmware's ELF: decodes the defmt log lines it sent through
    /// tband (without it they are counted, not shown) and shows a crash's
    /// PC and LR as function and line.
    #[arg(long, value_name = "FILE")]
    pub elf: Option<PathBuf>,
}

/// The values of `--input-format`, each with its description as help.
fn input_format_parser() -> impl TypedValueParser<Value = InputFormat> {
    let values = InputFormat::ALL.map(|f| PossibleValue::new(f.name()).help(f.description()));
    PossibleValuesParser::new(values).map(|name| {
        *InputFormat::ALL
            .iter()
            .find(|f| f.name() == name)
            .expect("the parser accepts only these names")
    })
}

/// The values of `--timer-direction`.
fn timer_direction_parser() -> impl TypedValueParser<Value = TimerDirection> {
    PossibleValuesParser::new(TimerDirection::ALL.map(|d| d.as_str())).map(|name| {
        *TimerDirection::ALL
            .iter()
            .find(|d| d.as_str() == name)
            .expect("the parser accepts only these names")
    })
}

/// The [`OpenOptions`] that a [`FormatArgs`] asks for, with the model built
/// on the threads available.
pub fn open_options(format: &FormatArgs) -> OpenOptions {
    OpenOptions {
        format: format.input_format,
        ctf_metadata: format.ctf_metadata.clone(),
        threadx: ThreadxOptions {
            tick_ns: format.tick_ns,
            timer_direction: format.timer_direction,
        },
        decode_thread: DecodeThread::available(),
        rules: format.rules.clone(),
        elf: format.elf.clone(),
    }
}

/// Reads a byte count with an optional `K`, `M` or `G` suffix (powers of
/// 1024), e.g. `100M`, as `tband-sim --size` does.
pub use tband_size::parse_size;

/// The subcommand every tool has besides its main job.
#[derive(Subcommand, Clone, Debug)]
pub enum ToolCommand {
    /// Print a shell completion script.
    Completion {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

impl ToolCommand {
    /// Carries out the subcommand for the tool whose arguments are `C`.
    pub fn run<C: CommandFactory>(&self) -> ExitCode {
        match self {
            ToolCommand::Completion { shell } => {
                let mut command = C::command();
                let name = command.get_name().to_string();
                // Generated into memory first: the generator panics when it
                // cannot write, e.g. into a pipe closed by `head`.
                let mut script = Vec::new();
                clap_complete::generate(*shell, &mut command, name.as_str(), &mut script);
                match std::io::stdout().write_all(&script) {
                    Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => exit(
                        &name,
                        Err(format!("cannot write the completion script: {e}")),
                    ),
                    _ => ExitCode::SUCCESS,
                }
            }
        }
    }
}

/// How a tool ends: with its own exit code, or with the error as one line
/// `TOOL: message` on stderr and a failure code.
pub fn exit<E: Display>(tool: &str, result: Result<ExitCode, E>) -> ExitCode {
    result.unwrap_or_else(|e| {
        eprintln!("{tool}: {e}");
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(clap::Parser)]
    struct Tool {
        #[command(flatten)]
        format: FormatArgs,
    }

    fn parse(args: &[&str]) -> Result<FormatArgs, clap::Error> {
        use clap::Parser;
        Tool::try_parse_from(std::iter::once("tool").chain(args.iter().copied())).map(|t| t.format)
    }

    #[test]
    fn each_value_names_the_library_variant() {
        for format in InputFormat::ALL {
            let args = parse(&["--input-format", format.name()]).expect("parsed");
            assert_eq!(open_options(&args).format, Some(format));
        }
        for direction in TimerDirection::ALL {
            let args = parse(&["--timer-direction", direction.as_str()]).expect("parsed");
            assert_eq!(open_options(&args).threadx.timer_direction, Some(direction));
        }
        let error = parse(&["--input-format", "pcap"]).expect_err("not a format");
        assert!(error
            .to_string()
            .contains("[possible values: tband, ctf, threadx, systemview, tracerecorder]"));
    }

    #[test]
    fn the_other_options_pass_through() {
        let args = FormatArgs {
            ctf_metadata: Some(PathBuf::from("dir/metadata")),
            tick_ns: Some(2.5),
            ..FormatArgs::default()
        };
        let options = open_options(&args);
        assert_eq!(options.format, None);
        assert_eq!(options.ctf_metadata, Some(PathBuf::from("dir/metadata")));
        assert_eq!(options.threadx.tick_ns, Some(2.5));
        assert_eq!(options.threadx.timer_direction, None);
    }
}
