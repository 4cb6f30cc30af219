//! Where the trace bytes come from: a TCP socket, a serial port, or an RTT
//! channel read through a GDB server; each read returns within a short
//! time so that the recording can stop between reads.

use std::fmt;
use std::io::{self, Read};
use std::net::TcpStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::gdb::{Gdb, Stop};
use crate::rtt::{self, Channel, Location, UpChannel};

/// How long one read waits for bytes before the recording checks whether
/// it should stop.
pub const READ_TIMEOUT: Duration = Duration::from_millis(50);

/// A source of trace bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A TCP server to connect to, as `HOST:PORT`.
    Tcp(String),
    /// A serial port (its device path) and its baud rate.
    Serial { port: String, baud: u32 },
    /// An RTT up channel, read through the GDB server at `address`.
    Gdb {
        address: String,
        control_block: ControlBlock,
        channel: Channel,
    },
}

/// How to find the RTT control block, as the command line says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlBlock {
    /// From the `_SEGGER_RTT` symbol of the firmware's ELF file.
    Elf(PathBuf),
    /// By its magic, in this range of target RAM.
    Scan { start: u32, len: u32 },
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Tcp(address) => write!(f, "{address}"),
            Source::Serial { port, .. } => write!(f, "{port}"),
            Source::Gdb { address, .. } => write!(f, "{address}"),
        }
    }
}

impl Source {
    /// Opens the source for reading; the error is a sentence that says
    /// what to check.
    pub fn open(&self) -> Result<Box<dyn Read>, String> {
        match self {
            Source::Tcp(address) => {
                let stream = TcpStream::connect(address).map_err(|e| {
                    format!(
                        "cannot connect to {address}: {}; check that the target, QEMU or \
                         the RTT server is listening on that host and port",
                        reason(&e)
                    )
                })?;
                stream
                    .set_read_timeout(Some(READ_TIMEOUT))
                    .map_err(|e| format!("cannot set a read timeout on {address}: {e}"))?;
                Ok(Box::new(stream))
            }
            Source::Serial { port, baud } => {
                let serial = serialport::new(port, *baud)
                    .timeout(READ_TIMEOUT)
                    .open()
                    .map_err(|e| {
                        format!(
                            "cannot open serial port {port}: {}; check the device name and \
                             that no other program holds it",
                            as_words(&e.description)
                        )
                    })?;
                Ok(serial)
            }
            Source::Gdb {
                address,
                control_block,
                channel,
            } => {
                let location = match control_block {
                    ControlBlock::Elf(path) => Location::from_elf(path)?,
                    &ControlBlock::Scan { start, len } => Location::Scan { start, len },
                };
                let gdb = Gdb::connect(address).map_err(|e| {
                    format!(
                        "cannot attach to the GDB server at {address}: {}; check that QEMU (-gdb), \
                         OpenOCD, pyOCD or the J-Link GDB server is listening there",
                        reason(&e)
                    )
                })?;
                Ok(Box::new(GdbRtt::new(gdb, location, channel.clone())))
            }
        }
    }

    /// Why a read failed mid-run, and what to check, as the end of a
    /// sentence that starts with what was received.
    pub fn read_failed(&self, error: &io::Error) -> String {
        match self {
            Source::Tcp(address) => format!(
                "the connection to {address} failed ({}); check that the target is still running",
                reason(error)
            ),
            Source::Serial { port, .. } => format!(
                "reading {port} failed ({}); check that the device is still plugged in",
                reason(error)
            ),
            Source::Gdb { address, .. } => format!(
                "reading RTT through the GDB server at {address} failed ({}); check that the \
                 target and the server are still running",
                reason(error)
            ),
        }
    }
}

/// The least time between two reads of a channel that was less than half
/// full: each read halts a target behind an all-stop GDB server.
pub const RTT_POLL_INTERVAL: Duration = Duration::from_millis(10);
/// How long the target may run without setting up its RTT control block.
const CONTROL_BLOCK_WAIT: Duration = Duration::from_secs(10);

/// An RTT up channel read through a GDB server: each poll halts the
/// target, takes what the channel holds, marks it read and lets the target
/// run on.
pub struct GdbRtt {
    gdb: Gdb,
    location: Location,
    channel: Channel,
    found: Option<UpChannel>,
    /// Bytes taken from the target and not yet returned.
    taken: Vec<u8>,
    returned: usize,
    next_poll: Instant,
    started: Instant,
    exited: bool,
    /// Polls so far and the time the target spent halted for them.
    pub polls: u64,
    pub halted: Duration,
}

impl GdbRtt {
    /// Reads through `gdb`, whose target is halted; it runs from the first
    /// read on.
    pub fn new(gdb: Gdb, location: Location, channel: Channel) -> GdbRtt {
        let now = Instant::now();
        GdbRtt {
            gdb,
            location,
            channel,
            found: None,
            taken: Vec::new(),
            returned: 0,
            next_poll: now,
            started: now,
            exited: false,
            polls: 0,
            halted: Duration::ZERO,
        }
    }

    /// Takes what the channel holds while the target is halted; the channel
    /// is looked for until it is found.
    fn take(&mut self) -> Result<(), String> {
        if self.found.is_none() {
            self.found = rtt::find_channel(&mut self.gdb, &self.location, &self.channel)?;
        }
        match self.found {
            Some(channel) => {
                let n = channel.take(&mut self.gdb, &mut self.taken)?;
                let half_full = n as u64 * 2 >= u64::from(channel.size());
                if !half_full {
                    self.next_poll = Instant::now() + RTT_POLL_INTERVAL;
                }
                Ok(())
            }
            None if self.started.elapsed() > CONTROL_BLOCK_WAIT => Err(format!(
                "the target set up no RTT control block {} in {} s; check that the ELF is \
                 the running firmware and that it calls rtt_init!",
                match self.location {
                    Location::At(address) => format!("at {address:#010x}"),
                    Location::Scan { start, len } =>
                        format!("in {start:#010x}..{:#010x}", start.saturating_add(len)),
                },
                CONTROL_BLOCK_WAIT.as_secs()
            )),
            None => {
                self.next_poll = Instant::now() + RTT_POLL_INTERVAL;
                Ok(())
            }
        }
    }

    /// One poll: halt, take, resume. `false` once the target has exited or
    /// the server has closed the connection (as QEMU does when the firmware
    /// exits, with or without saying so first).
    fn poll(&mut self) -> io::Result<bool> {
        let halted_at = Instant::now();
        match self.gdb.halt() {
            Ok(Stop::Halted) => {}
            Ok(Stop::Exited) => return Ok(false),
            Err(e) if closed(&e) => return Ok(false),
            Err(e) => return Err(e),
        }
        let taken = self.take();
        self.gdb.resume()?;
        self.polls += 1;
        self.halted += halted_at.elapsed();
        taken.map_err(io::Error::other)?;
        Ok(true)
    }
}

impl Read for GdbRtt {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.returned == self.taken.len() {
            self.taken.clear();
            self.returned = 0;
            if self.exited {
                return Ok(0);
            }
            let wait = self.next_poll.saturating_duration_since(Instant::now());
            if wait > READ_TIMEOUT {
                std::thread::sleep(READ_TIMEOUT);
                return Err(io::ErrorKind::TimedOut.into());
            }
            std::thread::sleep(wait);
            if !self.poll()? {
                self.exited = true;
                return Ok(0);
            }
            if self.taken.is_empty() {
                return Err(io::ErrorKind::TimedOut.into());
            }
        }
        let rest = &self.taken[self.returned..];
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.returned += n;
        Ok(n)
    }
}

impl Drop for GdbRtt {
    /// Leaves the target running when the recording ends.
    fn drop(&mut self) {
        if !self.exited {
            let _ = self.gdb.detach();
        }
    }
}

/// Whether an error says that the other side closed the connection.
fn closed(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset | io::ErrorKind::UnexpectedEof
    )
}

/// An I/O error as words within a sentence.
fn reason(error: &io::Error) -> String {
    as_words(&error.to_string())
}

/// An error's text to go within a sentence: its first letter lower-case,
/// without the `(os error N)` that an I/O error's `Display` adds.
fn as_words(text: &str) -> String {
    let words = text
        .split_once(" (os error")
        .map_or(text, |(words, _)| words);
    let mut chars = words.chars();
    chars
        .next()
        .map(|first| first.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_errors_read_as_words() {
        let refused = io::Error::from_raw_os_error(libc::ECONNREFUSED);
        assert_eq!(reason(&refused), "connection refused");
        let custom = io::Error::other("peer vanished");
        assert_eq!(reason(&custom), "peer vanished");
        assert_eq!(
            as_words("No such file or directory"),
            "no such file or directory"
        );
        assert_eq!(as_words("Device /dev/ttyX busy"), "device /dev/ttyX busy");
    }
}
