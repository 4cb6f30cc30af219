//! Decodes one input stream frame by frame, tracking which core the events
//! belong to (`core_id` events switch it) and counting what it saw.

use std::ops::ControlFlow;

use tband::varint::{JoinGroups, Portable};
use tband::{Event, EventKind, Record};

use crate::cpu_features::{with_best_join_groups, WithJoinGroups};
use crate::frames::{decode_frame_with, FrameError, Frames};

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

/// A cursor over the frames of one stream. Each frame borrows the decoder
/// until the next call, so strings are never copied.
pub struct StreamDecoder<'a> {
    frames: Frames<'a>,
    scratch: Vec<u8>,
    core: u32,
    /// Decoded frames by event id, indexed without a bounds check.
    by_id: Box<[u64; 256]>,
    /// Everything else [`stats`](Self::stats) reports (its `by_id` is filled in there).
    stats: StreamStats,
}

impl<'a> StreamDecoder<'a> {
    pub fn new(bytes: &'a [u8], core: u32) -> Self {
        StreamDecoder {
            frames: Frames::new(bytes),
            scratch: Vec::new(),
            core,
            by_id: Box::new([0; 256]),
            stats: StreamStats {
                bytes: bytes.len() as u64,
                ..StreamStats::default()
            },
        }
    }

    /// Decodes the next frame, or `None` at the end of the stream.
    ///
    /// This reads integers the portable way; [`for_each_frame`](Self::for_each_frame)
    /// decodes the same frames faster on CPUs with bit-manipulation
    /// instructions.
    #[inline(always)]
    pub fn next_frame(&mut self) -> Option<DecodedFrame<'_>> {
        self.next_frame_with(Portable)
    }

    /// Calls `f` with each remaining frame in order, until `f` breaks or
    /// the stream ends; returns the value `f` broke with, if it did. The frames are those
    /// [`next_frame`](Self::next_frame) gives.
    ///
    /// The loop runs with the best [`JoinGroups`] the CPU has
    /// ([`with_best_join_groups`]): on x86-64 CPUs with BMI2 it is a copy
    /// compiled for BMI2, with `f` inlined into it, which joins varints' groups
    /// with one `pext`.
    pub fn for_each_frame<B>(
        &mut self,
        f: impl FnMut(DecodedFrame<'_>) -> ControlFlow<B>,
    ) -> Option<B> {
        /// The frame loop, for [`with_best_join_groups`].
        struct Loop<'d, 'a, F> {
            decoder: &'d mut StreamDecoder<'a>,
            f: F,
        }
        impl<B, F: FnMut(DecodedFrame<'_>) -> ControlFlow<B>> WithJoinGroups for Loop<'_, '_, F> {
            type Output = Option<B>;
            #[inline(always)]
            fn run<J: JoinGroups>(self, join: J) -> Option<B> {
                self.decoder.for_each_frame_with(join, self.f)
            }
        }
        with_best_join_groups(Loop { decoder: self, f })
    }

    #[inline(always)]
    fn for_each_frame_with<J: JoinGroups, B>(
        &mut self,
        join: J,
        mut f: impl FnMut(DecodedFrame<'_>) -> ControlFlow<B>,
    ) -> Option<B> {
        while let Some(frame) = self.next_frame_with(join) {
            if let ControlFlow::Break(value) = f(frame) {
                return Some(value);
            }
        }
        None
    }

    #[inline(always)]
    fn next_frame_with<J: JoinGroups>(&mut self, join: J) -> Option<DecodedFrame<'_>> {
        let raw = self.frames.next()?;
        self.stats.frames += 1;
        let result = decode_frame_with(join, &raw, &mut self.scratch);
        match &result {
            Ok(rec) => {
                self.by_id[usize::from(rec.event.kind().id())] += 1;
                if let Event::CoreId { core_id } = rec.event {
                    self.core = core_id;
                }
            }
            Err(e) => self.stats.count_error(e.kind(), 1),
        }
        Some(DecodedFrame {
            offset: raw.offset,
            core: self.core,
            result,
        })
    }

    /// What the stream held so far.
    pub fn stats(&self) -> StreamStats {
        StreamStats {
            empty_frames: self.frames.empty_frames(),
            by_id: self.by_id.to_vec(),
            ..self.stats.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tband::encode_frame;

    #[test]
    fn tracks_core_and_counts() {
        let mut bytes = vec![0u8; 64];
        let mut n = encode_frame(&mut bytes, 0, &Event::CoreId { core_id: 3 }).unwrap();
        n += encode_frame(&mut bytes[n..], 5, &Event::IsrEnter { isr_id: 1 }).unwrap();
        bytes.truncate(n);
        bytes.extend_from_slice(&[0, 2, 200, 0]);
        let mut dec = StreamDecoder::new(&bytes, 0);
        let mut cores = Vec::new();
        while let Some(f) = dec.next_frame() {
            cores.push((f.core, f.result.is_ok()));
        }
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
}
