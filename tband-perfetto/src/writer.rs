//! Writes trace packets as a Perfetto trace file.
//!
//! A trace file is the `Trace` message: every packet is field 1, length
//! delimited. Packets are encoded into a buffer that is handed on to a
//! [`ChunkSink`] whenever it holds [`CHUNK_BYTES`], so memory stays bounded
//! and the output sees few, large writes. A chunk always ends at a packet
//! boundary, so chunks of different packet sequences may be interleaved.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender};

use flate2::write::GzEncoder;
use flate2::Compression;
use prost::Message;

use crate::protos::TracePacket;
use crate::wire::{self, Nested};

/// `Trace.packet`.
const TRACE_PACKET: u32 = 1;

/// Size at which the packet buffer is handed on.
pub const CHUNK_BYTES: usize = 1 << 20;

/// Where full chunks of packets go.
pub trait ChunkSink {
    /// Takes the packets in `chunk`, leaving it empty.
    fn write_chunk(&mut self, chunk: &mut Vec<u8>) -> io::Result<()>;
}

impl<W: Write> ChunkSink for W {
    fn write_chunk(&mut self, chunk: &mut Vec<u8>) -> io::Result<()> {
        self.write_all(chunk)?;
        chunk.clear();
        Ok(())
    }
}

/// Sends chunks to another thread (see [`Merge`]); the bounded channel
/// blocks the encoder while the writer is behind.
pub struct ChunkSender(pub SyncSender<Vec<u8>>);

impl ChunkSink for ChunkSender {
    fn write_chunk(&mut self, chunk: &mut Vec<u8>) -> io::Result<()> {
        let full = std::mem::replace(chunk, Vec::with_capacity(CHUNK_BYTES));
        self.0
            .send(full)
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the trace writer stopped"))
    }
}

/// Writes its own chunks to `out`, and between them the chunks another
/// thread sent.
pub struct Merge<'a, W: Write> {
    pub out: &'a mut W,
    pub incoming: Receiver<Vec<u8>>,
}

impl<W: Write> Merge<'_, W> {
    /// Writes the other thread's chunks until it is done.
    pub fn drain(self) -> io::Result<()> {
        for chunk in self.incoming {
            self.out.write_all(&chunk)?;
        }
        Ok(())
    }
}

impl<W: Write> ChunkSink for Merge<'_, W> {
    fn write_chunk(&mut self, chunk: &mut Vec<u8>) -> io::Result<()> {
        self.out.write_chunk(chunk)?;
        while let Ok(other) = self.incoming.try_recv() {
            self.out.write_all(&other)?;
        }
        Ok(())
    }
}

pub struct PacketWriter<S: ChunkSink> {
    sink: S,
    buf: Vec<u8>,
    packets: u64,
    bytes: u64,
}

/// A packet being encoded by hand (see [`PacketWriter::begin`]).
#[must_use]
pub struct OpenPacket {
    start: usize,
    fields: Nested,
}

impl<S: ChunkSink> PacketWriter<S> {
    pub fn new(sink: S) -> Self {
        PacketWriter {
            sink,
            // Room for the largest packets without growing.
            buf: Vec::with_capacity(CHUNK_BYTES + CHUNK_BYTES / 4),
            packets: 0,
            bytes: 0,
        }
    }

    pub fn write(&mut self, packet: &TracePacket) -> io::Result<()> {
        let start = self.buf.len();
        wire::len_prefix(&mut self.buf, TRACE_PACKET, packet.encoded_len());
        // The buffer grows as needed, so the length check of `encode` (a
        // second walk over the packet) is not needed.
        packet.encode_raw(&mut self.buf);
        self.packet_done(start)
    }

    /// Starts a packet whose fields the caller appends to [`Self::buf`], in
    /// field-number order; [`Self::end`] finishes it.
    pub fn begin(&mut self) -> OpenPacket {
        OpenPacket {
            start: self.buf.len(),
            fields: wire::begin(&mut self.buf, TRACE_PACKET),
        }
    }

    /// The buffer a packet begun with [`Self::begin`] is encoded into.
    pub fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    pub fn end(&mut self, packet: OpenPacket) -> io::Result<()> {
        wire::end(&mut self.buf, packet.fields);
        self.packet_done(packet.start)
    }

    fn packet_done(&mut self, start: usize) -> io::Result<()> {
        self.packets += 1;
        self.bytes += (self.buf.len() - start) as u64;
        if self.buf.len() >= CHUNK_BYTES {
            self.sink.write_chunk(&mut self.buf)?;
        }
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

    /// Hands on the last packets and returns the sink.
    pub fn finish(mut self) -> io::Result<S> {
        if !self.buf.is_empty() {
            self.sink.write_chunk(&mut self.buf)?;
        }
        Ok(self.sink)
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
        let bytes = w.finish().unwrap();
        let trace = Trace::decode(bytes.as_slice()).unwrap();
        let ts: Vec<_> = trace.packet.iter().map(|p| p.timestamp).collect();
        assert_eq!(ts, [Some(1), Some(300), Some(1 << 40)]);
    }
}
