//! What every tband tool's command line shares: naming the inputs, the
//! `completion` subcommand, and how an error ends the process.

use std::fmt::Display;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Subcommand};

use crate::interpret::Threads;
use crate::threadx::{ReadOptions, TimerDirection};
use crate::trace::{InputFormat, OpenOptions, Trace, TraceError};

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

impl FormatArgs {
    pub fn options(&self) -> OpenOptions {
        OpenOptions {
            format: self.input_format,
            ctf_metadata: self.ctf_metadata.clone(),
            threadx: ReadOptions {
                tick_ns: self.tick_ns,
                timer_direction: self.timer_direction,
            },
            threads: Threads::available(),
        }
    }
}

impl InputArgs {
    pub fn options(&self) -> OpenOptions {
        self.format.options()
    }

    /// Opens the trace these arguments name.
    pub fn open(&self) -> Result<Trace, TraceError> {
        Trace::open(&self.inputs, &self.options())
    }
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
