//! Writes trace packets as a Perfetto trace file.
//!
//! A trace file is the `Trace` message: every packet is field 1, length
//! delimited. Packets are encoded into a buffer that is handed on to a
//! [`ChunkSink`] whenever it holds [`CHUNK_BYTES`], so memory stays bounded
//! and the output sees few, large writes. A chunk always ends at a packet
//! boundary, so chunks of different packet sequences may be interleaved.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use flate2::write::GzEncoder;
use flate2::Compression;
use prost::Message;

use crate::protos::TracePacket;
use crate::wire::{Buffer, Encoder, Fields, Short, FIELD_MAX};
use crate::ExportProgress;

/// `Trace.packet`.
const TRACE_PACKET: u32 = 1;

/// Size at which the packet buffer is handed on.
pub const CHUNK_BYTES: usize = 1 << 20;

/// Where full chunks of packets go.
pub trait ChunkSink {
    /// Takes the packets in `chunk`, leaving it empty. `rows_read` says
    /// how far the encoder has got (see [`PacketWriter::rows_read`]).
    fn write_chunk(&mut self, chunk: &mut Buffer, rows_read: u64) -> io::Result<()>;
}

impl<W: Write> ChunkSink for W {
    fn write_chunk(&mut self, chunk: &mut Buffer, _rows_read: u64) -> io::Result<()> {
        self.write_all(chunk.as_slice())?;
        chunk.clear();
        Ok(())
    }
}

fn new_chunk() -> Buffer {
    // Room for the largest packets without growing.
    Buffer::with_capacity(CHUNK_BYTES + CHUNK_BYTES / 4)
}

/// Chunks a lane may have waiting before its encoder waits for the other.
const LANE_CHUNKS: usize = 8;

/// The progress of a lane that finished.
const FINISHED: u64 = u64::MAX;

/// Writes the chunks of two packet sequences, encoded on two threads
/// (through a [`Lane`] each), to one output in an order that depends only
/// on what they hold, never on timing: every chunk carries how far its
/// encoder had got through the rows it reads, as a fraction, and the
/// chunks are written in the order of that (the first lane's first where
/// two are equal). Each thread writes its own lane's chunks as they come
/// due (without the lock held, so the other thread can hand on meanwhile),
/// and those of the other lane once that one finished; an encoder with more
/// than [`LANE_CHUNKS`] chunks waiting to be written waits for the other,
/// and a finished one until its chunks are written.
pub struct Interleave<'a, W: Write> {
    lanes: Mutex<Lanes<'a, W>>,
    moved: Condvar,
}

struct Lanes<'a, W: Write> {
    /// The output, taken by the thread writing to it.
    out: Option<&'a mut W>,
    /// Chunks handed on and not written yet, with their progress.
    queued: [VecDeque<(u64, Buffer)>; 2],
    /// Progress of the last chunk each lane handed on ([`FINISHED`] once
    /// it finished): its later chunks have at least this.
    reached: [u64; 2],
    /// Written chunks, for reuse.
    spare: Vec<Buffer>,
    /// A write failed or a lane stopped early: nothing more is written.
    broken: bool,
}

/// The error of an encoder whose output stopped because the other
/// encoder's failed.
#[derive(Debug)]
pub struct OtherLaneStopped;

impl std::fmt::Display for OtherLaneStopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the other encoding thread stopped")
    }
}

impl std::error::Error for OtherLaneStopped {}

impl<W: Write> Lanes<'_, W> {
    /// The progress that the next chunk of `lane` has at least.
    fn next_progress(&self, lane: usize) -> u64 {
        self.queued[lane]
            .front()
            .map_or(self.reached[lane], |&(progress, _)| progress)
    }

    /// The lane whose first chunk no chunk still to come precedes.
    fn due(&self) -> Option<usize> {
        if self.queued[0]
            .front()
            .is_some_and(|&(p, _)| p <= self.next_progress(1))
        {
            Some(0)
        } else if self.queued[1]
            .front()
            .is_some_and(|&(p, _)| p < self.next_progress(0))
        {
            Some(1)
        } else {
            None
        }
    }
}

type Guard<'g, 'a, W> = MutexGuard<'g, Lanes<'a, W>>;

impl<'a, W: Write> Interleave<'a, W> {
    pub fn new(out: &'a mut W) -> Self {
        Interleave {
            lanes: Mutex::new(Lanes {
                out: Some(out),
                queued: Default::default(),
                reached: [0; 2],
                spare: Vec::new(),
                broken: false,
            }),
            moved: Condvar::new(),
        }
    }

    /// The sink of the first (`first`) or second packet sequence, whose
    /// encoder reads `rows` rows in all.
    pub fn lane(&self, first: bool, rows: u64) -> Lane<'_, 'a, W> {
        Lane {
            interleave: self,
            index: usize::from(!first),
            rows: rows.max(1),
            finished: false,
        }
    }

    fn lock(&self) -> io::Result<Guard<'_, 'a, W>> {
        self.lanes
            .lock()
            .map_err(|_| io::Error::other(OtherLaneStopped))
    }

    /// Writes the chunks that are due while they are `lane`'s (anyone's
    /// once the other lane finished), one at a time without the lock held,
    /// unless the other thread is writing (it then writes them). A chunk of
    /// the other lane is left to its own thread, which is woken in case it
    /// waits: the encoder that is ahead, whose chunks wait longer, so
    /// writes them, and the one behind is not slowed by them.
    fn write_due<'g>(
        &'g self,
        lane: usize,
        mut lanes: Guard<'g, 'a, W>,
    ) -> io::Result<Guard<'g, 'a, W>> {
        while let Some(due) = lanes.due() {
            if due != lane && lanes.reached[1 - lane] != FINISHED {
                self.moved.notify_all();
                break;
            }
            let Some(out) = lanes.out.take() else { break };
            let Some((_, mut chunk)) = lanes.queued[due].pop_front() else {
                lanes.out = Some(out);
                break;
            };
            drop(lanes);
            let written = out.write_chunk(&mut chunk, 0);
            lanes = self.lock()?;
            lanes.out = Some(out);
            lanes.spare.push(chunk);
            lanes.broken |= written.is_err();
            self.moved.notify_all();
            written?;
        }
        Ok(lanes)
    }

    /// Waits until something moved, then writes what is due of `lane`.
    fn wait<'g>(&'g self, lane: usize, lanes: Guard<'g, 'a, W>) -> io::Result<Guard<'g, 'a, W>> {
        let lanes = self
            .moved
            .wait(lanes)
            .map_err(|_| io::Error::other(OtherLaneStopped))?;
        self.write_due(lane, lanes)
    }

    /// Queues a chunk of `lane` and writes what is due; waits while the
    /// lane has too many chunks waiting.
    fn hand_on(&self, lane: usize, progress: u64, chunk: &mut Buffer) -> io::Result<()> {
        let mut lanes = self.lock()?;
        let empty = lanes.spare.pop().unwrap_or_else(new_chunk);
        let full = std::mem::replace(chunk, empty);
        lanes.queued[lane].push_back((progress, full));
        lanes.reached[lane] = progress;
        lanes = self.write_due(lane, lanes)?;
        while lanes.queued[lane].len() > LANE_CHUNKS && !lanes.broken {
            lanes = self.wait(lane, lanes)?;
        }
        if lanes.broken {
            return Err(io::Error::other(OtherLaneStopped));
        }
        Ok(())
    }

    /// Marks `lane` as finished (`whole`) or stopped; a finished lane's
    /// chunks are written (by this thread, as they come due) before it
    /// returns.
    fn close(&self, lane: usize, whole: bool) -> io::Result<()> {
        let mut lanes = self.lock()?;
        lanes.reached[lane] = FINISHED;
        lanes.broken |= !whole;
        self.moved.notify_all();
        if !lanes.broken {
            lanes = self.write_due(lane, lanes)?;
            while !lanes.queued[lane].is_empty() && !lanes.broken {
                lanes = self.wait(lane, lanes)?;
            }
        }
        Ok(())
    }
}

/// The sink of one of the two packet sequences of an [`Interleave`].
pub struct Lane<'i, 'a, W: Write> {
    interleave: &'i Interleave<'a, W>,
    index: usize,
    /// Rows the encoder reads in all.
    rows: u64,
    finished: bool,
}

impl<W: Write> Lane<'_, '_, W> {
    /// Says that the lane's last chunk was handed on; writes what is due.
    pub fn finish(mut self) -> io::Result<()> {
        self.finished = true;
        self.interleave.close(self.index, true)
    }
}

impl<W: Write> Drop for Lane<'_, '_, W> {
    fn drop(&mut self) {
        // An encoder that stopped early: the other must not wait for it.
        if !self.finished {
            let _ = self.interleave.close(self.index, false);
        }
    }
}

impl<W: Write> ChunkSink for Lane<'_, '_, W> {
    fn write_chunk(&mut self, chunk: &mut Buffer, rows_read: u64) -> io::Result<()> {
        let progress = (u128::from(rows_read.min(self.rows)) << 32) / u128::from(self.rows);
        self.interleave.hand_on(self.index, progress as u64, chunk)
    }
}

/// A sink that passes chunks on to another, telling an
/// [`ExportProgress`] how many rows the encoders sharing `read` have read
/// together.
pub struct Telling<'p, S: ChunkSink> {
    sink: S,
    /// Rows this encoder had read at its last chunk.
    told: u64,
    read: &'p AtomicU64,
    progress: ExportProgress<'p>,
}

impl<'p, S: ChunkSink> Telling<'p, S> {
    pub fn new(sink: S, read: &'p AtomicU64, progress: ExportProgress<'p>) -> Self {
        Telling {
            sink,
            told: 0,
            read,
            progress,
        }
    }

    pub fn into_inner(self) -> S {
        self.sink
    }
}

impl<S: ChunkSink> ChunkSink for Telling<'_, S> {
    fn write_chunk(&mut self, chunk: &mut Buffer, rows_read: u64) -> io::Result<()> {
        let new = rows_read.saturating_sub(self.told);
        self.told += new;
        (self.progress)(self.read.fetch_add(new, Ordering::Relaxed) + new);
        self.sink.write_chunk(chunk, rows_read)
    }
}

pub struct PacketWriter<S: ChunkSink> {
    sink: S,
    buf: Buffer,
    packets: u64,
    /// Bytes of the chunks handed on.
    handed_on: u64,
    /// How many rows of the model the encoder has read, which it counts
    /// for a sink that orders chunks by it (see [`Interleave`]).
    pub rows_read: u64,
}

impl<S: ChunkSink> PacketWriter<S> {
    pub fn new(sink: S) -> Self {
        PacketWriter {
            sink,
            buf: new_chunk(),
            packets: 0,
            handed_on: 0,
            rows_read: 0,
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
        self.sink.write_chunk(&mut self.buf, self.rows_read)
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
    Plain(Box<dyn Write + Send>),
    Gzip(GzEncoder<Box<dyn Write + Send>>),
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

    fn new(sink: Box<dyn Write + Send>, gzip: bool) -> Output {
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

    /// Hands on one-byte chunks (the chunk's number) at the given rows read
    /// of 100, pausing before each when `slow`.
    fn feed<W: Write>(lane: Lane<'_, '_, W>, chunks: &[(u8, u64)], slow: bool) {
        let mut lane = lane;
        for &(byte, rows_read) in chunks {
            if slow {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            let mut chunk = Buffer::default();
            chunk.encode(1, |e| e.raw(&[byte]));
            lane.write_chunk(&mut chunk, rows_read).unwrap();
        }
        lane.finish().unwrap();
    }

    #[test]
    fn two_lanes_interleave_by_progress_whatever_the_timing() {
        // More chunks than a lane may have waiting, so that the faster
        // thread waits for the slower.
        let first: Vec<(u8, u64)> = (0..20).map(|i| (i, u64::from(i) * 5)).collect();
        let second: Vec<(u8, u64)> = (0..20).map(|i| (100 + i, u64::from(i) * 3)).collect();
        let run = |first_slow: bool| {
            let mut out = Vec::new();
            let interleave = Interleave::new(&mut out);
            std::thread::scope(|scope| {
                let lane = interleave.lane(false, 100);
                scope.spawn(|| feed(lane, &second, !first_slow));
                feed(interleave.lane(true, 100), &first, first_slow);
            });
            out
        };
        let mut expected: Vec<(u64, bool, u8)> = first
            .iter()
            .map(|&(b, p)| (p, false, b))
            .chain(second.iter().map(|&(b, p)| (p, true, b)))
            .collect();
        expected.sort();
        let expected: Vec<u8> = expected.into_iter().map(|(_, _, b)| b).collect();
        assert_eq!(run(true), expected);
        assert_eq!(run(false), expected);
    }

    #[test]
    fn a_lane_that_stops_early_stops_the_other() {
        let mut out = Vec::new();
        let interleave = Interleave::new(&mut out);
        let stopped = interleave.lane(true, 100);
        let mut other = interleave.lane(false, 100);
        drop(stopped);
        let mut chunk = Buffer::default();
        chunk.encode(1, |e| e.raw(&[1]));
        let error = other.write_chunk(&mut chunk, 50).unwrap_err();
        assert!(error.get_ref().is_some_and(|e| e.is::<OtherLaneStopped>()));
    }
}
