//! A client of the GDB remote serial protocol, as much of it as reading RTT
//! needs: halt, read and write memory, continue, detach. It talks to any
//! GDB server — QEMU's gdbstub, OpenOCD, pyOCD, J-Link's, probe-rs'.
//!
//! Servers in all-stop mode (QEMU's is one) answer memory reads only while
//! the target is halted, so every access to a running target is framed by
//! [`Gdb::halt`] and [`Gdb::resume`].

use std::io::{self, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::rtt::TargetMemory;
use crate::rtt_stream::Attached;

/// How long a reply may take before the server counts as gone.
const REPLY_TIMEOUT: Duration = Duration::from_secs(5);
/// The interrupt request: a raw byte outside any packet.
const INTERRUPT: u8 = 0x03;
/// The most memory read with one packet when the server does not say.
const DEFAULT_READ_BYTES: usize = 1024;

/// How a halted target came to stop running, from a stop reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Halted (by a signal, a breakpoint or our interrupt): it can resume.
    Halted,
    /// The program exited, or was killed: nothing more will come.
    Exited,
}

/// A connection to a GDB server.
pub struct Gdb {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    /// Whether the server still expects `+` acknowledgements.
    acks: bool,
    /// The most memory bytes read with one `m` packet.
    read_bytes: usize,
    running: bool,
}

impl Gdb {
    /// Connects and leaves the target halted (servers halt it when a
    /// client attaches; this makes sure).
    pub fn connect(address: &str) -> io::Result<Gdb> {
        let stream = TcpStream::connect(address)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(REPLY_TIMEOUT))?;
        let mut gdb = Gdb {
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
            acks: true,
            read_bytes: DEFAULT_READ_BYTES,
            running: false,
        };
        let features = gdb.request("qSupported:swbreak+;hwbreak+")?;
        if let Some(size) = packet_size(&features) {
            // A reply carries each byte as two hex digits, inside `$`, `#` and
            // two checksum digits.
            gdb.read_bytes = (size.saturating_sub(4) / 2).max(16);
        }
        if features.split(';').any(|f| f == "QStartNoAckMode+")
            && gdb.request("QStartNoAckMode")? == "OK"
        {
            gdb.acks = false;
        }
        if gdb.stop_reason()? == Stop::Exited {
            return Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "the target has exited",
            ));
        }
        Ok(gdb)
    }

    /// Why the target is stopped (`?`).
    fn stop_reason(&mut self) -> io::Result<Stop> {
        let reply = self.request("?")?;
        parse_stop(&reply)
    }

    /// Halts the running target.
    pub fn halt(&mut self) -> io::Result<Stop> {
        if !self.running {
            return Ok(Stop::Halted);
        }
        self.writer.write_all(&[INTERRUPT])?;
        self.running = false;
        let reply = self.receive()?;
        parse_stop(&reply)
    }

    /// Lets the halted target run on; no reply comes until it stops.
    pub fn resume(&mut self) -> io::Result<()> {
        self.send("c")?;
        self.running = true;
        Ok(())
    }

    /// Detaches, leaving the target running.
    pub fn detach(&mut self) -> io::Result<()> {
        self.halt()?;
        self.request("D").map(drop)
    }

    /// Sends a packet and returns the reply's payload.
    fn request(&mut self, payload: &str) -> io::Result<String> {
        self.send(payload)?;
        self.receive()
    }

    fn send(&mut self, payload: &str) -> io::Result<()> {
        let packet = format!("${payload}#{:02x}", checksum(payload.as_bytes()));
        loop {
            self.writer.write_all(packet.as_bytes())?;
            if !self.acks {
                return Ok(());
            }
            loop {
                match self.next_byte()? {
                    b'+' => return Ok(()),
                    b'-' => break,
                    // A stop reply sent unasked: QEMU's, when a client
                    // attaches to a running machine and stops it.
                    b'$' => self.skip_packet()?,
                    other => {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!("expected an acknowledgement, got byte {other:#04x}"),
                        ))
                    }
                }
            }
        }
    }

    /// Reads the rest of a packet whose `$` was read, and acknowledges it.
    fn skip_packet(&mut self) -> io::Result<()> {
        while self.next_byte()? != b'#' {}
        let mut sum = [0u8; 2];
        self.reader.read_exact(&mut sum)?;
        self.writer.write_all(b"+")
    }

    /// The payload of the next packet, run-length encoding expanded;
    /// notifications (`%`) are skipped.
    fn receive(&mut self) -> io::Result<String> {
        loop {
            let start = loop {
                match self.next_byte()? {
                    b @ (b'$' | b'%') => break b,
                    _ => continue,
                }
            };
            let mut raw = Vec::new();
            loop {
                match self.next_byte()? {
                    b'#' => break,
                    b => raw.push(b),
                }
            }
            let mut sum = [0u8; 2];
            self.reader.read_exact(&mut sum)?;
            let good = std::str::from_utf8(&sum)
                .ok()
                .and_then(|s| u8::from_str_radix(s, 16).ok())
                == Some(checksum(&raw));
            if start == b'%' {
                continue;
            }
            if self.acks {
                self.writer.write_all(if good { b"+" } else { b"-" })?;
                if !good {
                    continue;
                }
            }
            let payload = expand_runs(&raw).ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    "a malformed run-length encoding",
                )
            })?;
            return String::from_utf8(payload).map_err(|_| {
                io::Error::new(io::ErrorKind::InvalidData, "a reply that is not text")
            });
        }
    }

    fn next_byte(&mut self) -> io::Result<u8> {
        let mut byte = [0u8; 1];
        match self.reader.read(&mut byte)? {
            0 => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the GDB server closed the connection",
            )),
            _ => Ok(byte[0]),
        }
    }
}

impl TargetMemory for Gdb {
    fn read(&mut self, address: u32, buf: &mut [u8]) -> io::Result<()> {
        let step = self.read_bytes;
        for (i, part) in buf.chunks_mut(step).enumerate() {
            let at = address.wrapping_add((i * step) as u32);
            let reply = self.request(&format!("m{at:x},{:x}", part.len()))?;
            refused(&reply)?;
            let bytes = from_hex(&reply).filter(|b| b.len() == part.len());
            part.copy_from_slice(&bytes.ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("a malformed reply `{reply}`"),
                )
            })?);
        }
        Ok(())
    }

    fn write(&mut self, address: u32, bytes: &[u8]) -> io::Result<()> {
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let reply = self.request(&format!("M{address:x},{:x}:{hex}", bytes.len()))?;
        refused(&reply)
    }
}

impl Attached for Gdb {
    /// Halts the target. A server that has closed the connection counts as
    /// a target that is gone: QEMU closes it when the firmware exits, with
    /// or without saying so first.
    fn pause(&mut self) -> io::Result<bool> {
        match self.halt() {
            Ok(Stop::Halted) => Ok(true),
            Ok(Stop::Exited) => Ok(false),
            Err(e) if closed(&e) => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn resume(&mut self) -> io::Result<()> {
        Gdb::resume(self)
    }

    fn release(&mut self) {
        let _ = self.detach();
    }
}

/// Whether an error says that the other side closed the connection.
fn closed(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset | io::ErrorKind::UnexpectedEof
    )
}

/// An `Exx` reply as an error.
fn refused(reply: &str) -> io::Result<()> {
    if reply.len() == 3 && reply.starts_with('E') {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("the server refused with error {}", &reply[1..]),
        ));
    }
    Ok(())
}

fn parse_stop(reply: &str) -> io::Result<Stop> {
    match reply.as_bytes().first() {
        Some(b'T' | b'S') => Ok(Stop::Halted),
        Some(b'W' | b'X') => Ok(Stop::Exited),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("an unexpected stop reply `{reply}`"),
        )),
    }
}

fn packet_size(features: &str) -> Option<usize> {
    features
        .split(';')
        .find_map(|f| f.strip_prefix("PacketSize="))
        .and_then(|size| usize::from_str_radix(size, 16).ok())
}

fn checksum(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0u8, |sum, &b| sum.wrapping_add(b))
}

/// Expands `X*N`: the byte X repeated N - 29 more times.
fn expand_runs(raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(raw.len());
    let mut bytes = raw.iter();
    while let Some(&b) = bytes.next() {
        if b == b'*' {
            let &last = out.last()?;
            let count = bytes.next()?.checked_sub(29)?;
            out.extend(std::iter::repeat_n(last, usize::from(count)));
        } else {
            out.push(b);
        }
    }
    Some(out)
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    let digits = text.as_bytes();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    digits
        .chunks(2)
        .map(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|p| u8::from_str_radix(p, 16).ok())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_are_checksummed_and_runs_expand() {
        assert_eq!(checksum(b"OK"), 0x9a);
        assert_eq!(expand_runs(b"0* ").unwrap(), b"0000");
        assert_eq!(expand_runs(b"ab*\"c").unwrap(), b"abbbbbbc");
        assert_eq!(expand_runs(b"*!"), None);
        assert_eq!(from_hex("00ff10").unwrap(), [0, 255, 16]);
        assert_eq!(from_hex("0"), None);
        assert_eq!(
            packet_size("PacketSize=1000;qXfer:features:read+"),
            Some(4096)
        );
        assert_eq!(parse_stop("T05thread:01;").unwrap(), Stop::Halted);
        assert_eq!(parse_stop("W00").unwrap(), Stop::Exited);
        assert!(parse_stop("OK").is_err());
        assert!(refused("E14").is_err());
        assert!(refused("OK").is_ok());
    }
}
