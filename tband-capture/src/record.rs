//! The recording: bytes from the source to the file as they arrive, each
//! read written before the next, until a limit, a stop request, the peer's
//! end or an error.

use std::io::{self, ErrorKind, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::watch::Watch;

/// The largest read: big enough for a fast link, small enough that the
/// status follows the stream closely.
const READ_BYTES: usize = 64 << 10;

/// How long one read of a source may wait for bytes: the recording checks
/// between reads whether it should stop.
pub const READ_TIMEOUT: Duration = Duration::from_millis(50);

/// When a recording stops by itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub duration: Option<Duration>,
    pub bytes: Option<u64>,
}

/// Why a recording ended normally.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The stop flag was raised (Ctrl-C).
    Stopped,
    Duration,
    Bytes,
    /// The other side closed the connection.
    PeerClosed,
}

impl End {
    /// The end, said as the close of the summary line.
    pub fn describe(&self) -> &'static str {
        match self {
            End::Stopped => "stopped on request",
            End::Duration => "the duration was reached",
            End::Bytes => "the byte count was reached",
            End::PeerClosed => "the other side closed the connection",
        }
    }
}

/// Why a recording failed.
#[derive(Debug)]
pub enum Failure {
    Read(io::Error),
    Write(io::Error),
}

/// What has been recorded so far.
#[derive(Debug, Default)]
pub struct Progress {
    /// Bytes received, all of them written.
    pub bytes: u64,
    pub elapsed: Duration,
    pub watch: Watch,
}

/// Records from `source` into `out` until an end or a failure; `report` is
/// called after every read, and after every wait for data that timed out.
pub fn record(
    source: &mut dyn Read,
    out: &mut dyn Write,
    limits: &Limits,
    stop: &AtomicBool,
    mut report: impl FnMut(&Progress),
) -> (Progress, Result<End, Failure>) {
    let start = Instant::now();
    let mut progress = Progress::default();
    let mut buf = vec![0; READ_BYTES];
    let end = loop {
        if stop.load(Ordering::Relaxed) {
            break Ok(End::Stopped);
        }
        if limits.duration.is_some_and(|d| start.elapsed() >= d) {
            break Ok(End::Duration);
        }
        let wanted = match limits.bytes {
            Some(limit) if progress.bytes >= limit => break Ok(End::Bytes),
            Some(limit) => buf.len().min((limit - progress.bytes) as usize),
            None => buf.len(),
        };
        match source.read(&mut buf[..wanted]) {
            Ok(0) => break Ok(End::PeerClosed),
            Ok(n) => {
                let received = &buf[..n];
                if let Err(e) = out.write_all(received) {
                    break Err(Failure::Write(e));
                }
                progress.bytes += n as u64;
                progress.watch.feed(received);
            }
            Err(e) if is_wait(&e) => {}
            Err(e) => break Err(Failure::Read(e)),
        }
        progress.elapsed = start.elapsed();
        report(&progress);
    };
    progress.elapsed = start.elapsed();
    (progress, end)
}

/// A read that found no data in time (or was cut short by a signal): the
/// recording goes on.
fn is_wait(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        ErrorKind::TimedOut | ErrorKind::WouldBlock | ErrorKind::Interrupted
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: usize) -> Vec<u8> {
        (0..=255).cycle().take(len).collect()
    }

    #[test]
    fn every_byte_is_written_before_the_end() {
        let stop = AtomicBool::new(false);
        let data = data(200_000);
        let mut out = Vec::new();
        let mut reads = 0;
        let (progress, end) = record(&mut &data[..], &mut out, &Limits::default(), &stop, |_| {
            reads += 1
        });
        assert_eq!(end.unwrap(), End::PeerClosed);
        assert_eq!((progress.bytes, &out), (200_000, &data));
        assert_eq!(reads, 200_000usize.div_ceil(READ_BYTES));
    }

    #[test]
    fn a_byte_limit_is_met_exactly() {
        let stop = AtomicBool::new(false);
        let data = data(200_000);
        for limit in [0, 1234, READ_BYTES as u64 + 1] {
            let limits = Limits {
                bytes: Some(limit),
                ..Limits::default()
            };
            let mut out = Vec::new();
            let (progress, end) = record(&mut &data[..], &mut out, &limits, &stop, |_| {});
            assert_eq!(end.unwrap(), End::Bytes);
            assert_eq!(progress.bytes, limit);
            assert_eq!(out, data[..limit as usize]);
        }
    }

    #[test]
    fn the_stop_flag_ends_it_between_reads() {
        let stop = AtomicBool::new(false);
        let data = data(200_000);
        let mut out = Vec::new();
        let (progress, end) = record(&mut &data[..], &mut out, &Limits::default(), &stop, |_| {
            stop.store(true, Ordering::Relaxed)
        });
        assert_eq!(end.unwrap(), End::Stopped);
        assert_eq!(progress.bytes, READ_BYTES as u64);
        assert_eq!(out, data[..READ_BYTES]);
    }

    #[test]
    fn a_file_that_cannot_be_written_is_a_failure() {
        let stop = AtomicBool::new(false);
        let mut full = std::fs::File::options()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let (_, end) = record(
            &mut &data(10)[..],
            &mut full,
            &Limits::default(),
            &stop,
            |_| {},
        );
        assert!(matches!(end, Err(Failure::Write(_))));
    }
}
