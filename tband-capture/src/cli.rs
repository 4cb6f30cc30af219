//! The `tband-capture` command: what it does with its arguments, which the
//! binary (`main.rs`) parses.

use std::fs::File;
use std::io::{self, IsTerminal};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::flag;

use crate::record::{record, Failure, Limits};
use crate::source::Source;
use crate::status::Status;

/// What the command line asks for (its options, by the same names).
#[derive(Clone, Debug)]
pub struct Options {
    pub source: Source,
    /// The file the bytes are written to.
    pub output: PathBuf,
    pub limits: Limits,
}

/// Records until the source ends, a limit is reached or the user presses
/// Ctrl-C; every byte received is in the file whether it ends well or not.
pub fn run(options: &Options) -> Result<(), String> {
    let stop = stop_on_signals().map_err(|e| format!("cannot handle Ctrl-C: {e}"))?;
    let mut source = options.source.open()?;
    let file = &options.output;
    let mut out =
        File::create(file).map_err(|e| format!("cannot create {}: {e}", file.display()))?;
    let stderr = io::stderr();
    let terminal = stderr.is_terminal();
    let mut status = Status::new(stderr.lock(), terminal);
    let (progress, end) = record(&mut *source, &mut out, &options.limits, &stop, |p| {
        status.update(p)
    });
    match end {
        Ok(end) => {
            status.finish(&progress, end, file);
            Ok(())
        }
        Err(failure) => {
            status.clear_line();
            let (bytes, file) = (progress.bytes, file.display());
            Err(match failure {
                Failure::Read(e) => format!(
                    "{bytes} bytes received and written to {file}, then {}",
                    options.source.read_failed(&e)
                ),
                Failure::Write(e) => format!(
                    "cannot write to {file} after {bytes} bytes ({e}); check the free space"
                ),
            })
        }
    }
}

/// A flag raised by Ctrl-C (SIGINT) or SIGTERM, for the recording to stop
/// between two reads. A second signal while the first is pending ends the
/// process at once: every read has been written by then.
fn stop_on_signals() -> io::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        flag::register_conditional_shutdown(signal, 1, Arc::clone(&stop))?;
        flag::register(signal, Arc::clone(&stop))?;
    }
    Ok(stop)
}
