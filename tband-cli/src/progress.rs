//! Progress of long work on a terminal, as cargo shows it: a bar on stderr
//! with a verb before it (`Reading`, `Writing`), how far the work has got
//! and how long it has taken, cleared when the work ends. When stderr is
//! not a terminal (a pipe, a file, a test) nothing is drawn at all, so
//! what a tool prints there stays the same.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tband_trace::{OpenOptions, Source, Trace, TraceError};

/// A bar on stderr, cleared when dropped.
pub struct Progress {
    bar: ProgressBar,
}

/// The verb's column, as wide as cargo's.
const VERB: &str = "{prefix:>12.cyan.bold} ";

impl Progress {
    /// A bar for `total` bytes: bytes done, rate and time taken.
    pub fn bytes(verb: &str, total: u64) -> Progress {
        Progress::new(
            verb,
            total,
            "[{bar:27}] {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} {elapsed}",
        )
    }

    /// A bar for `total` steps of work counted in a unit of its own (rows,
    /// records): the share done and time taken.
    pub fn share(verb: &str, total: u64) -> Progress {
        Progress::new(verb, total, "[{bar:27}] {percent:>3}% {elapsed}")
    }

    fn new(verb: &str, total: u64, template: &str) -> Progress {
        let style = ProgressStyle::with_template(&format!("{VERB}{template}"))
            .expect("the templates are valid")
            .progress_chars("=> ");
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
            .with_style(style)
            .with_prefix(verb.to_string());
        // Redrawn on a clock too (a thread), so that the time taken moves
        // on while the work reports nothing.
        if !bar.is_hidden() {
            // Drawn at once, so that even work shorter than a tick shows.
            bar.tick();
            bar.enable_steady_tick(Duration::from_millis(250));
        }
        Progress { bar }
    }

    /// `done` of the total is done.
    pub fn set(&self, done: u64) {
        self.bar.set_position(done);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// Opens the trace `inputs` name and builds its model as
/// [`Trace::open`] does, showing how much of it has been read.
pub fn open_trace(inputs: &[String], options: &OpenOptions) -> Result<Trace, TraceError> {
    let source = Source::open(inputs, options)?;
    let bar = Progress::bytes("Reading", source.byte_count());
    Trace::build_with_progress(source, options, &|read| bar.set(read))
}

/// Runs `work` with a bar of `total` steps (see [`Progress::share`]) shown,
/// handing it the function that moves the bar; clears the bar when `work`
/// returns.
pub fn showing_share<T>(
    verb: &str,
    total: u64,
    work: impl FnOnce(&(dyn Fn(u64) + Sync)) -> T,
) -> T {
    let bar = Progress::share(verb, total);
    work(&|done| bar.set(done))
}
