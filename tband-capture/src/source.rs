//! Where the trace bytes come from: a TCP socket, a serial port, or an RTT
//! channel read through a GDB server; each read returns within a short
//! time so that the recording can stop between reads.

use std::fmt;
use std::io::{self, Read};
use std::net::TcpStream;
use std::path::{Path, PathBuf};

use crate::gdb::Gdb;
use crate::record::READ_TIMEOUT;
use crate::rtt::{Channel, Location};
use crate::rtt_stream::RttStream;
use crate::start::Start;

/// A source of trace bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A TCP server to connect to, as `HOST:PORT`.
    Tcp(String),
    /// A serial port (its device path) and its baud rate.
    Serial { port: String, baud: u32 },
    /// An RTT up channel, read through the GDB server at `address`
    /// (`start`: the command to send first on the down channel beside it).
    Gdb {
        address: String,
        control_block: ControlBlock,
        channel: Channel,
        start: Option<Start>,
    },
    /// An RTT up channel, read through a debug probe attached to `chip`
    /// (`probe`: which one, as `VID:PID[:SERIAL]`; none: the only one).
    Probe {
        chip: String,
        probe: Option<String>,
        control_block: ControlBlock,
        channel: Channel,
        start: Option<Start>,
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

impl Source {
    /// The firmware's ELF file the command line gave, if any.
    pub fn elf(&self) -> Option<&Path> {
        match self {
            Source::Gdb {
                control_block: ControlBlock::Elf(path),
                ..
            }
            | Source::Probe {
                control_block: ControlBlock::Elf(path),
                ..
            } => Some(path),
            _ => None,
        }
    }
}

impl ControlBlock {
    fn location(&self) -> Result<Location, String> {
        match self {
            ControlBlock::Elf(path) => Location::from_elf(path),
            &ControlBlock::Scan { start, len } => Ok(Location::Scan { start, len }),
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Tcp(address) => write!(f, "{address}"),
            Source::Serial { port, .. } => write!(f, "{port}"),
            Source::Gdb { address, .. } => write!(f, "{address}"),
            Source::Probe { chip, .. } => write!(f, "the probe on the {chip}"),
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
                start,
            } => {
                let location = control_block.location()?;
                let gdb = Gdb::connect(address).map_err(|e| {
                    format!(
                        "cannot attach to the GDB server at {address}: {}; check that QEMU (-gdb), \
                         OpenOCD, pyOCD or the J-Link GDB server is listening there",
                        reason(&e)
                    )
                })?;
                Ok(Box::new(RttStream::new(
                    gdb,
                    location,
                    channel.clone(),
                    *start,
                )))
            }
            #[cfg(feature = "probe")]
            Source::Probe {
                chip,
                probe,
                control_block,
                channel,
                start,
            } => {
                let location = control_block.location()?;
                let probe = crate::probe::Probe::attach(chip, probe.as_deref())?;
                Ok(Box::new(RttStream::new(
                    probe,
                    location,
                    channel.clone(),
                    *start,
                )))
            }
            #[cfg(not(feature = "probe"))]
            Source::Probe { .. } => Err("this tband-capture was built without probe-rs; \
                                         install it with `cargo install --path tband-capture \
                                         --features probe`"
                .into()),
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
            Source::Probe { chip, .. } => format!(
                "reading RTT through the probe failed ({}); check that the probe is still \
                 plugged in and the {chip} powered",
                reason(error)
            ),
        }
    }
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
