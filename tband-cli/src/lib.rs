//! What every tband tool's command line shares: naming the inputs, the
//! `completion` subcommand, and how an error ends the process.
//!
//! The libraries take plain options; clap lives here and in the tools'
//! `main.rs`. This crate does not depend on tband-decode, whose own binary
//! uses it (Cargo refuses the cycle): the arguments become
//! `tband_decode::OpenOptions` through [`open_options!`], which expands in
//! the tool.

use std::fmt::Display;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Subcommand, ValueEnum};

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
    #[arg(long, value_enum, value_name = "FORMAT")]
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
    #[arg(long, value_enum, value_name = "DIRECTION")]
    pub timer_direction: Option<TimerDirection>,
}

/// The values of `--input-format`: `tband_decode::trace::InputFormat`,
/// variant for variant. The doc comments are the help of each value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// COBS frames of the tband wire format (also the reference C tracer's).
    Tband,
    /// Common Trace Format (Zephyr's tracing): a directory with `metadata`
    /// and stream files, or a stream file (metadata beside it or given).
    Ctf,
    /// A ThreadX event-trace buffer (TraceX `.trx`), starting with "TXTB".
    Threadx,
}

/// The values of `--timer-direction`: `tband_decode::threadx::TimerDirection`,
/// variant for variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TimerDirection {
    Up,
    Down,
}

/// The `tband_decode::OpenOptions` that a [`FormatArgs`] asks for, with the
/// model built on the threads available.
///
/// A macro rather than a method because this crate cannot depend on
/// tband-decode (see the crate's documentation); it expands in the tool,
/// which does.
///
/// ```
/// use tband_cli::{open_options, FormatArgs};
///
/// let options: tband_decode::OpenOptions = open_options!(&FormatArgs::default());
/// assert_eq!(options.format, None);
/// ```
#[macro_export]
macro_rules! open_options {
    ($format:expr) => {{
        let format: &$crate::FormatArgs = $format;
        ::tband_decode::OpenOptions {
            format: format.input_format.map(|f| match f {
                $crate::InputFormat::Tband => ::tband_decode::trace::InputFormat::Tband,
                $crate::InputFormat::Ctf => ::tband_decode::trace::InputFormat::Ctf,
                $crate::InputFormat::Threadx => ::tband_decode::trace::InputFormat::Threadx,
            }),
            ctf_metadata: format.ctf_metadata.clone(),
            threadx: ::tband_decode::threadx::ReadOptions {
                tick_ns: format.tick_ns,
                timer_direction: format.timer_direction.map(|d| match d {
                    $crate::TimerDirection::Up => ::tband_decode::threadx::TimerDirection::Up,
                    $crate::TimerDirection::Down => ::tband_decode::threadx::TimerDirection::Down,
                }),
            },
            decode_thread: ::tband_decode::interpret::DecodeThread::available(),
        }
    }};
}

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

    /// Each value means the library's variant of the same name.
    #[test]
    fn values_are_the_library_names() {
        for &value in InputFormat::value_variants() {
            let args = FormatArgs {
                input_format: Some(value),
                ..FormatArgs::default()
            };
            let format = open_options!(&args).format.expect("a format");
            let name = value.to_possible_value().expect("a value");
            assert_eq!(name.get_name(), format.name());
        }
        for &value in TimerDirection::value_variants() {
            let args = FormatArgs {
                timer_direction: Some(value),
                ..FormatArgs::default()
            };
            let direction = open_options!(&args).threadx.timer_direction;
            let name = value.to_possible_value().expect("a value");
            assert_eq!(name.get_name(), direction.expect("a direction").as_str());
        }
    }

    #[test]
    fn the_other_options_pass_through() {
        let args = FormatArgs {
            ctf_metadata: Some(PathBuf::from("dir/metadata")),
            tick_ns: Some(2.5),
            ..FormatArgs::default()
        };
        let options = open_options!(&args);
        assert_eq!(options.format, None);
        assert_eq!(options.ctf_metadata, Some(PathBuf::from("dir/metadata")));
        assert_eq!(options.threadx.tick_ns, Some(2.5));
        assert_eq!(options.threadx.timer_direction, None);
    }
}
