//! What the recording tells on stderr: a status line redrawn in place while
//! it runs (on a terminal only), a warning when the data does not look like
//! a trace, and one summary line at the end.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::record::{End, Progress};

/// How often the status line is redrawn.
const REDRAW: Duration = Duration::from_millis(200);

/// Writes the recording's messages to `out` (stderr).
pub struct Status<W: Write> {
    out: W,
    /// Whether `out` is a terminal: only then is the status line drawn.
    terminal: bool,
    /// When the status line was last drawn.
    drawn: Option<Instant>,
    warned: bool,
}

impl<W: Write> Status<W> {
    pub fn new(out: W, terminal: bool) -> Self {
        Status {
            out,
            terminal,
            drawn: None,
            warned: false,
        }
    }

    /// Shows the progress: the status line, at most every [`REDRAW`], and
    /// the warning once if the stream does not look like a trace.
    pub fn update(&mut self, progress: &Progress) {
        if progress.watch.looks_wrong() && !self.warned {
            self.warned = true;
            self.clear_line();
            self.print(&format!(
                "no valid tband frame in the first {} bytes: wrong baud rate, wrong port \
                 or not a tband stream? Recording goes on",
                crate::watch::FIRST_BYTES_CHECKED
            ));
        }
        let due = self.drawn.is_none_or(|at| at.elapsed() >= REDRAW);
        if self.terminal && due {
            self.drawn = Some(Instant::now());
            // Errors writing to stderr are ignored: the recording matters more.
            let _ = write!(self.out, "\r{}\x1b[K", line(progress));
            let _ = self.out.flush();
        }
    }

    /// Replaces the status line with the summary of a recording that ended.
    pub fn finish(&mut self, progress: &Progress, end: End, file: &Path) {
        self.clear_line();
        self.print(&format!(
            "{} bytes to {} in {:.1} s ({}): {}; {}",
            progress.bytes,
            file.display(),
            progress.elapsed.as_secs_f64(),
            rate(progress),
            counts(progress),
            end.describe()
        ));
    }

    /// Takes the status line away (before an error is printed).
    pub fn clear_line(&mut self) {
        if self.drawn.is_some() {
            let _ = write!(self.out, "\r\x1b[K");
            let _ = self.out.flush();
        }
    }

    fn print(&mut self, message: &str) {
        let _ = writeln!(self.out, "tband-capture: {message}");
    }
}

/// The status line.
fn line(progress: &Progress) -> String {
    format!(
        "{}  {}  {}",
        in_units(progress.bytes as f64, "B"),
        rate(progress),
        counts(progress)
    )
}

fn rate(progress: &Progress) -> String {
    let seconds = progress.elapsed.as_secs_f64();
    let per_second = if seconds > 0.0 {
        progress.bytes as f64 / seconds
    } else {
        0.0
    };
    in_units(per_second, "B/s")
}

/// Frames, tasks and drops so far.
fn counts(progress: &Progress) -> String {
    let seen = progress.watch.seen();
    let invalid = if seen.invalid > 0 {
        format!(" ({} invalid)", seen.invalid)
    } else {
        String::new()
    };
    format!(
        "{} frames{invalid}, {} tasks, {} dropped events",
        seen.frames, seen.tasks, seen.dropped
    )
}

/// A quantity with an SI prefix, e.g. `1.5 MB`.
fn in_units(value: f64, unit: &str) -> String {
    const PREFIXES: [&str; 4] = ["", "k", "M", "G"];
    let mut scaled = value;
    let mut prefix = 0;
    while scaled >= 1000.0 && prefix + 1 < PREFIXES.len() {
        scaled /= 1000.0;
        prefix += 1;
    }
    if prefix == 0 {
        format!("{scaled:.0} {unit}")
    } else {
        format!("{scaled:.1} {}{unit}", PREFIXES[prefix])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_take_a_prefix() {
        assert_eq!(in_units(999.0, "B"), "999 B");
        assert_eq!(in_units(1500.0, "B"), "1.5 kB");
        assert_eq!(in_units(12_345_678.0, "B/s"), "12.3 MB/s");
        assert_eq!(in_units(5e12, "B"), "5000.0 GB");
    }

    fn progress(bytes: &[u8], seconds: u64) -> Progress {
        let mut progress = Progress {
            bytes: bytes.len() as u64,
            elapsed: Duration::from_secs(seconds),
            ..Progress::default()
        };
        progress.watch.feed(bytes);
        progress
    }

    #[test]
    fn the_line_is_drawn_in_place_on_a_terminal_only() {
        let progress = progress(&[0; 3000], 2);
        let mut terminal = Status::new(Vec::new(), true);
        terminal.update(&progress);
        terminal.update(&progress);
        terminal.finish(&progress, End::Bytes, Path::new("t.bin"));
        let text = String::from_utf8(terminal.out).unwrap();
        assert_eq!(
            text,
            "\r3.0 kB  1.5 kB/s  0 frames, 0 tasks, 0 dropped events\x1b[K\r\x1b[K\
             tband-capture: 3000 bytes to t.bin in 2.0 s (1.5 kB/s): \
             0 frames, 0 tasks, 0 dropped events; the byte count was reached\n"
        );

        let mut plain = Status::new(Vec::new(), false);
        plain.update(&progress);
        plain.finish(&progress, End::PeerClosed, Path::new("t.bin"));
        let text = String::from_utf8(plain.out).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.ends_with("the other side closed the connection\n"));
    }

    #[test]
    fn data_that_is_not_a_trace_is_said_once() {
        let progress = progress(&[0x55; 5000], 1);
        let mut plain = Status::new(Vec::new(), false);
        plain.update(&progress);
        plain.update(&progress);
        let text = String::from_utf8(plain.out).unwrap();
        assert_eq!(text.matches("wrong baud rate").count(), 1, "{text}");
    }
}
