//! Command-line arguments every tband tool shares for naming its inputs.

use std::path::PathBuf;

use clap::Args;

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
