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
use std::sync::mpsc::{Receiver, Sender, SyncSender};

use flate2::write::GzEncoder;
use flate2::Compression;
use prost::Message;

use crate::protos::TracePacket;
use crate::wire::{Buffer, Encoder, Fields, Short, FIELD_MAX};

/// `Trace.packet`.
const TRACE_PACKET: u32 = 1;

/// Size at which the packet buffer is handed on.
pub const CHUNK_BYTES: usize = 1 << 20;

/// Where full chunks of packets go.
pub trait ChunkSink {
    /// Takes the packets in `chunk`, leaving it empty.
    fn write_chunk(&mut self, chunk: &mut Buffer) -> io::Result<()>;
}

impl<W: Write> ChunkSink for W {
    fn write_chunk(&mut self, chunk: &mut Buffer) -> io::Result<()> {
        self.write_all(chunk.as_slice())?;
        chunk.clear();
        Ok(())
    }
}

fn new_chunk() -> Buffer {
    // Room for the largest packets without growing.
    Buffer::with_capacity(CHUNK_BYTES + CHUNK_BYTES / 4)
}

/// Sends chunks to the thread that writes them (see [`Merge`]), which sends
/// the emptied buffers back. The bounded channel blocks the encoder while
/// the writer is behind.
pub struct ChunkSender {
    pub full: SyncSender<Buffer>,
    pub emptied: Receiver<Buffer>,
}

impl ChunkSink for ChunkSender {
    fn write_chunk(&mut self, chunk: &mut Buffer) -> io::Result<()> {
        let empty = self.emptied.try_recv().unwrap_or_else(|_| new_chunk());
        self.full
            .send(std::mem::replace(chunk, empty))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the trace writer stopped"))
    }
}

/// Writes its own chunks to `out`, and between them the chunks another
/// thread sent.
pub struct Merge<'a, W: Write> {
    pub out: &'a mut W,
    pub incoming: Receiver<Buffer>,
    pub emptied: Sender<Buffer>,
}

impl<W: Write> Merge<'_, W> {
    fn write_other(&mut self, mut chunk: Buffer) -> io::Result<()> {
        self.out.write_chunk(&mut chunk)?;
        // The other thread may be done and gone.
        let _ = self.emptied.send(chunk);
        Ok(())
    }

    /// Writes the other thread's chunks until it is done.
    pub fn drain(mut self) -> io::Result<()> {
        while let Ok(chunk) = self.incoming.recv() {
            self.write_other(chunk)?;
        }
        Ok(())
    }
}

impl<W: Write> ChunkSink for Merge<'_, W> {
    fn write_chunk(&mut self, chunk: &mut Buffer) -> io::Result<()> {
        self.out.write_chunk(chunk)?;
        while let Ok(other) = self.incoming.try_recv() {
            self.write_other(other)?;
        }
        Ok(())
    }
}

pub struct PacketWriter<S: ChunkSink> {
    sink: S,
    buf: Buffer,
    packets: u64,
    /// Bytes of the chunks handed on.
    handed_on: u64,
}

impl<S: ChunkSink> PacketWriter<S> {
    pub fn new(sink: S) -> Self {
        PacketWriter {
            sink,
            buf: new_chunk(),
            packets: 0,
            handed_on: 0,
        }
    }

    pub fn write(&mut self, packet: &TracePacket) -> io::Result<()> {
        self.packet(packet.encoded_len(), |e| e.fields_of(packet))
    }

    /// Writes a packet whose fields `encode` writes (in field-number order),
    /// which take at most `max_len` bytes.
    #[inline]
    pub fn packet(
        &mut self,
        max_len: usize,
        encode: impl FnOnce(&mut Encoder<'_>),
    ) -> io::Result<()> {
        self.buf.encode(max_len + FIELD_MAX, |e| {
            let packet = e.begin(TRACE_PACKET);
            encode(e);
            e.end(packet);
        });
        self.written()
    }

    /// Writes a packet whose fields `encode` writes (in field-number order),
    /// which take at most [`crate::wire::SHORT_MAX`] bytes.
    #[inline]
    pub fn short_packet(&mut self, encode: impl FnOnce(&mut Short<'_>)) -> io::Result<()> {
        self.buf.encode_short(TRACE_PACKET, encode);
        self.written()
    }

    /// Counts a packet just written, and hands the chunk on once it is full.
    #[inline]
    fn written(&mut self) -> io::Result<()> {
        self.packets += 1;
        if self.buf.len() >= CHUNK_BYTES {
            self.hand_on()?;
        }
        Ok(())
    }

    fn hand_on(&mut self) -> io::Result<()> {
        self.handed_on += self.buf.len() as u64;
        self.sink.write_chunk(&mut self.buf)
    }

    /// Packets written so far.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Bytes written so far (before any compression).
    pub fn bytes(&self) -> u64 {
        self.handed_on + self.buf.len() as u64
    }

    /// Hands on the last packets and returns the sink.
    pub fn finish(mut self) -> io::Result<S> {
        if !self.buf.is_empty() {
            self.hand_on()?;
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
