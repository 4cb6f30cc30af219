//! Writes trace packets one at a time as a Perfetto trace file.
//!
//! A trace file is the `Trace` message: every packet is field 1, length
//! delimited. Writing each packet as it is made keeps memory bounded by the
//! largest packet.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use flate2::write::GzEncoder;
use flate2::Compression;
use prost::Message;

use crate::protos::TracePacket;

/// Tag of `Trace.packet` (field 1, length-delimited).
const TRACE_PACKET_TAG: u8 = 0x0a;

pub struct PacketWriter<W: Write> {
    out: W,
    buf: Vec<u8>,
    packets: u64,
    bytes: u64,
}

impl<W: Write> PacketWriter<W> {
    pub fn new(out: W) -> Self {
        PacketWriter {
            out,
            buf: Vec::with_capacity(4096),
            packets: 0,
            bytes: 0,
        }
    }

    pub fn write(&mut self, packet: &TracePacket) -> io::Result<()> {
        self.buf.clear();
        self.buf.push(TRACE_PACKET_TAG);
        prost::encoding::encode_varint(packet.encoded_len() as u64, &mut self.buf);
        // The buffer grows as needed, so the length check of `encode` (a
        // second walk over the packet) is not needed.
        packet.encode_raw(&mut self.buf);
        self.out.write_all(&self.buf)?;
        self.packets += 1;
        self.bytes += self.buf.len() as u64;
        Ok(())
    }

    /// Packets written so far.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Bytes written so far (before any compression).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

/// Where a trace goes: a file or stdout, gzip-compressed or not.
pub enum Output {
    Plain(Box<dyn Write>),
    Gzip(GzEncoder<Box<dyn Write>>),
}

impl Output {
    /// Creates `path`, compressing when its name ends in `.gz`.
    pub fn create(path: &Path) -> io::Result<Output> {
        let file = BufWriter::with_capacity(1 << 20, File::create(path)?);
        let gzip = path.extension().is_some_and(|e| e == "gz");
        Ok(Output::new(Box::new(file), gzip))
    }

    pub fn stdout(gzip: bool) -> Output {
        Output::new(
            Box::new(BufWriter::with_capacity(1 << 20, io::stdout())),
            gzip,
        )
    }

    fn new(sink: Box<dyn Write>, gzip: bool) -> Output {
        if gzip {
            Output::Gzip(GzEncoder::new(sink, Compression::fast()))
        } else {
            Output::Plain(sink)
        }
    }

    /// Flushes everything (and ends the gzip stream).
    pub fn finish(self) -> io::Result<()> {
        match self {
            Output::Plain(mut w) => w.flush(),
            Output::Gzip(g) => g.finish()?.flush(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Plain(w) => w.write(buf),
            Output::Gzip(g) => g.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Plain(w) => w.flush(),
            Output::Gzip(g) => g.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protos::Trace;

    #[test]
    fn packets_concatenate_into_a_trace_message() {
        let mut w = PacketWriter::new(Vec::new());
        for ts in [1u64, 300, 1 << 40] {
            w.write(&TracePacket {
                timestamp: Some(ts),
                ..Default::default()
            })
            .unwrap();
        }
        assert_eq!(w.packets(), 3);
        let bytes = w.into_inner();
        let trace = Trace::decode(bytes.as_slice()).unwrap();
        let ts: Vec<_> = trace.packet.iter().map(|p| p.timestamp).collect();
        assert_eq!(ts, [Some(1), Some(300), Some(1 << 40)]);
    }
}
