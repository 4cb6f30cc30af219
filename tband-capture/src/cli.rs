//! The `tband-capture` command: what it does with its arguments, which the
//! binary (`main.rs`) parses.

use std::fs::File;
use std::io::{self, IsTerminal};
use std::panic;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};

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
    /// Show the file being written in `tband-tui`'s follow view.
    pub tui: bool,
    /// A file of lifetime rules for the view, besides the built-in ones.
    pub rules: Option<PathBuf>,
}

/// Records until the source ends, a limit is reached or the user presses
/// Ctrl-C; every byte received is in the file whether it ends well or not.
///
/// With [`Options::tui`], `tband-tui`'s follow view of the file runs in
/// this terminal on a thread of its own while the recording goes on, with
/// no status line; quitting the view stops the recording (as Ctrl-C
/// would), and a recording that ends first leaves the view open until it is
/// quit. The summary is printed once the view is gone.
pub fn run(options: &Options) -> Result<(), String> {
    let view = options.tui.then(|| view_options(options)).transpose()?;
    let stop = stop_on_signals().map_err(|e| format!("cannot handle Ctrl-C: {e}"))?;
    let mut source = options.source.open()?;
    let file = &options.output;
    let mut out =
        File::create(file).map_err(|e| format!("cannot create {}: {e}", file.display()))?;
    let stderr = io::stderr();
    let terminal = stderr.is_terminal() && !options.tui;
    // Not locked for the whole run: the view's thread may write to stderr.
    let mut status = Status::new(stderr, terminal);
    let viewer = view.map(|view| spawn_view(view, Arc::clone(&stop)));
    let (progress, end) = record(&mut *source, &mut out, &options.limits, &stop, |p| {
        if !options.tui {
            status.update(p)
        }
    });
    let viewed = viewer.map_or(Ok(()), |viewer| {
        viewer
            .join()
            .unwrap_or_else(|panic| panic::resume_unwind(panic))
    });
    if options.tui {
        // Now that the view is gone: the warning, if the stream does not
        // look like a trace.
        status.update(&progress);
    }
    match end {
        Ok(end) => {
            status.finish(&progress, end, file);
            viewed
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

/// The options of the view, `tband-tui --follow FILE [--rules RULES]
/// [--elf ELF]` (the firmware's ELF, when the recording names one, decodes
/// its defmt lines); the rules are read here, so that a file of them that
/// does not parse stops the command before anything is recorded.
fn view_options(options: &Options) -> Result<tband_tui::cli::Options, String> {
    let mut view = tband_tui::cli::Options::follow(options.output.display().to_string());
    view.input.rules = options.rules.clone();
    view.input.elf = options.source.elf().map(Path::to_path_buf);
    view.input.lifetime_rules().map_err(|e| e.to_string())?;
    Ok(view)
}

/// Runs the view on a thread of its own; when it ends (the user quit, or
/// it failed), `stop` stops the recording.
fn spawn_view(
    view: tband_tui::cli::Options,
    stop: Arc<AtomicBool>,
) -> JoinHandle<Result<(), String>> {
    thread::spawn(move || {
        let viewed = tband_tui::cli::run(&view);
        stop.store(true, Ordering::Relaxed);
        viewed
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rtt::Channel;
    use crate::source::ControlBlock;

    fn options(source: Source) -> Options {
        Options {
            source,
            output: PathBuf::from("trace.bin"),
            limits: Limits::default(),
            tui: true,
            rules: None,
        }
    }

    #[test]
    fn the_view_decodes_with_the_elf_the_recording_found_its_channel_by() {
        let elf = PathBuf::from("firmware.elf");
        let rtt = options(Source::Gdb {
            address: "localhost:3333".into(),
            control_block: ControlBlock::Elf(elf.clone()),
            channel: Channel::Number(0),
            start: None,
        });
        assert_eq!(view_options(&rtt).unwrap().input.elf, Some(elf));
        let tcp = options(Source::Tcp("localhost:9000".into()));
        assert_eq!(view_options(&tcp).unwrap().input.elf, None);
    }
}
