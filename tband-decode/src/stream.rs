//! Lists one input stream frame by frame, in its order, with the core each
//! frame belongs to (`core_id` events switch it), counting what it held:
//! the sequencer's pass over that one stream.

use std::ops::ControlFlow;

use tband::{EventKind, Record};

use crate::frames::FrameError;
use crate::sequencer::{sequence, Clock, Position, Stream, Visitor};

/// One decoded (or rejected) frame of a stream.
#[derive(Debug)]
pub struct DecodedFrame<'s> {
    /// Byte offset of the frame in the stream.
    pub offset: usize,
    /// The core the frame belongs to.
    pub core: u32,
    pub result: Result<Record<'s>, FrameError>,
}

/// Counts of what a stream held.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamStats {
    pub bytes: u64,
    pub frames: u64,
    pub empty_frames: u64,
    /// Decoded frames by event id.
    pub by_id: Vec<u64>,
    /// Rejected frames by [`FrameError::kind`], in first-seen order.
    pub errors: Vec<(&'static str, u64)>,
}

impl StreamStats {
    pub fn decoded(&self) -> u64 {
        self.by_id.iter().sum()
    }

    pub fn invalid(&self) -> u64 {
        self.errors.iter().map(|(_, n)| n).sum()
    }

    /// Decoded frames per event kind, in schema order, leaving out zeros.
    pub fn by_kind(&self) -> impl Iterator<Item = (EventKind, u64)> + '_ {
        EventKind::ALL
            .iter()
            .map(|&k| (k, self.by_id[k.id() as usize]))
            .filter(|&(_, n)| n > 0)
    }

    pub fn add(&mut self, other: &StreamStats) {
        self.bytes += other.bytes;
        self.frames += other.frames;
        self.empty_frames += other.empty_frames;
        for (a, b) in self.by_id.iter_mut().zip(&other.by_id) {
            *a += b;
        }
        for &(kind, n) in &other.errors {
            self.count_error(kind, n);
        }
    }

    fn count_error(&mut self, kind: &'static str, n: u64) {
        match self.errors.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, count)) => *count += n,
            None => self.errors.push((kind, n)),
        }
    }
}

/// The frames of one stream, for listings: each with its offset and core,
/// as it decoded or why it did not.
pub struct StreamDecoder<'a> {
    stream: Stream<'a>,
    /// Decoded frames by event id, indexed without a bounds check.
    by_id: Box<[u64; 256]>,
    /// Everything else [`stats`](Self::stats) reports (its `by_id` is filled in there).
    stats: StreamStats,
}

/// A listing shows the ticks as recorded, so the pass's own times (which
/// it does not show) are left in ticks.
const RAW_TICKS: Clock = Clock::new(1, 0);

impl<'a> StreamDecoder<'a> {
    pub fn new(bytes: &'a [u8], core: u32) -> Self {
        StreamDecoder {
            stream: Stream::new(bytes, core),
            by_id: Box::new([0; 256]),
            stats: StreamStats {
                bytes: bytes.len() as u64,
                ..StreamStats::default()
            },
        }
    }

    /// Calls `f` with each frame in order, until `f` breaks or the stream
    /// ends; returns the value `f` broke with, if it did. The stream is
    /// read once: a second call finds no frame.
    pub fn for_each_frame<B>(
        &mut self,
        f: impl FnMut(DecodedFrame<'_>) -> ControlFlow<B>,
    ) -> Option<B> {
        let stream = std::mem::replace(&mut self.stream, Stream::new(&[], 0));
        let mut lister = Lister {
            f,
            broke: None,
            by_id: &mut self.by_id,
            stats: &mut self.stats,
        };
        let counts = sequence(&[stream], &RAW_TICKS, &mut lister);
        let broke = lister.broke;
        self.stats.empty_frames += counts.empty_frames;
        broke
    }

    /// What the stream held so far.
    pub fn stats(&self) -> StreamStats {
        StreamStats {
            by_id: self.by_id.to_vec(),
            ..self.stats.clone()
        }
    }
}

/// The visitor of a listing's pass: hands each frame to `f` until it
/// breaks, and counts them.
struct Lister<'d, F, B> {
    f: F,
    broke: Option<B>,
    by_id: &'d mut [u64; 256],
    stats: &'d mut StreamStats,
}

impl<F: FnMut(DecodedFrame<'_>) -> ControlFlow<B>, B> Lister<'_, F, B> {
    #[inline(always)]
    fn hand_over(&mut self, at: Position, result: Result<Record<'_>, FrameError>) {
        self.stats.frames += 1;
        if self.broke.is_some() {
            return;
        }
        let frame = DecodedFrame {
            offset: at.offset,
            core: at.core,
            result,
        };
        if let ControlFlow::Break(value) = (self.f)(frame) {
            self.broke = Some(value);
        }
    }
}

impl<F: FnMut(DecodedFrame<'_>) -> ControlFlow<B>, B> Visitor for Lister<'_, F, B> {
    #[inline(always)]
    fn event(&mut self, at: Position, rec: &Record<'_>) {
        self.by_id[usize::from(rec.event.kind().id())] += 1;
        self.hand_over(at, Ok(*rec));
    }

    fn invalid(&mut self, at: Position, err: &FrameError) {
        self.stats.count_error(err.kind(), 1);
        self.hand_over(at, Err(*err));
    }

    fn time_backwards(&mut self, _: Position, _: u64, _: u64) {}

    fn progress(&mut self, _: usize, _: usize) {}

    fn stopped(&self) -> bool {
        self.broke.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tband::{encode_frame, Event};

    #[test]
    fn tracks_core_and_counts() {
        let mut bytes = vec![0u8; 64];
        let mut n = encode_frame(&mut bytes, 0, &Event::CoreId { core_id: 3 }).unwrap();
        n += encode_frame(&mut bytes[n..], 5, &Event::IsrEnter { isr_id: 1 }).unwrap();
        bytes.truncate(n);
        bytes.extend_from_slice(&[0, 2, 200, 0]);
        let mut dec = StreamDecoder::new(&bytes, 0);
        let mut cores = Vec::new();
        dec.for_each_frame(|f| {
            cores.push((f.core, f.result.is_ok()));
            ControlFlow::<()>::Continue(())
        });
        assert_eq!(cores, [(3, true), (3, true), (3, false)]);
        let stats = dec.stats();
        assert_eq!(
            (
                stats.frames,
                stats.empty_frames,
                stats.decoded(),
                stats.invalid()
            ),
            (3, 1, 2, 1)
        );
        assert_eq!(stats.errors, [("unknown id", 1)]);
    }

    #[test]
    fn hands_over_no_frame_after_a_break() {
        let mut bytes = vec![0u8; 64];
        let mut n = 0;
        for isr_id in 1..=3 {
            n += encode_frame(&mut bytes[n..], 5, &Event::IsrEnter { isr_id }).unwrap();
        }
        bytes.truncate(n);
        let mut dec = StreamDecoder::new(&bytes, 0);
        let mut offsets = Vec::new();
        let broke = dec.for_each_frame(|f| {
            offsets.push(f.offset);
            match offsets.len() {
                2 => ControlFlow::Break("second"),
                _ => ControlFlow::Continue(()),
            }
        });
        assert_eq!((broke, offsets.len()), (Some("second"), 2));
        assert_eq!(dec.for_each_frame(|_| ControlFlow::Break(())), None);
    }
}
