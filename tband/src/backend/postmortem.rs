//! Post-mortem: each core writes into a ring buffer that always overwrites
//! its oldest bytes, so that after a fault or a stop the last `N` bytes of
//! the trace can be read out. Reading starts at the first frame boundary of
//! what survived, so the output begins with a whole frame.

use super::{with_scratch, Backend, Encode, Outcome};

struct Ring<const N: usize> {
    bytes: [u8; N],
    /// Where the next byte goes.
    head: usize,
    /// Whether `head` went round at least once (older bytes follow it).
    wrapped: bool,
}

impl<const N: usize> Ring<N> {
    fn push(&mut self, frame: &[u8]) -> bool {
        if frame.len() > N {
            return false;
        }
        let (before, after) = self.bytes.split_at_mut(self.head.min(N));
        let (a, b) = frame.split_at(frame.len().min(after.len()));
        let (Some(a_dst), Some(b_dst)) = (after.get_mut(..a.len()), before.get_mut(..b.len()))
        else {
            return false;
        };
        a_dst.copy_from_slice(a);
        b_dst.copy_from_slice(b);
        self.head += a.len();
        if self.head >= N || !b.is_empty() {
            self.head = b.len();
            self.wrapped = true;
        }
        true
    }

    /// The surviving bytes, oldest first, as up to two slices, starting
    /// after the first delimiter of the oldest (possibly cut) frame.
    fn oldest_first(&self) -> (&[u8], &[u8]) {
        let (newer, older) = self.bytes.split_at(self.head.min(N));
        if !self.wrapped {
            return (newer, &[]);
        }
        match older.iter().position(|&b| b == 0) {
            Some(i) => (older.get(i + 1..).unwrap_or_default(), newer),
            None => {
                let i = newer
                    .iter()
                    .position(|&b| b == 0)
                    .map_or(newer.len(), |i| i + 1);
                (newer.get(i..).unwrap_or_default(), &[])
            }
        }
    }
}

pub struct PostMortem<const N: usize, const CORES: usize> {
    cores: [Ring<N>; CORES],
    /// Stopped rather than running, so that the initial state is zeros.
    stopped: bool,
}

impl<const N: usize, const CORES: usize> Default for PostMortem<N, CORES> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const CORES: usize> PostMortem<N, CORES> {
    /// A post-mortem recorder that records from the start.
    pub const fn new() -> Self {
        PostMortem {
            cores: [const {
                Ring {
                    bytes: [0; N],
                    head: 0,
                    wrapped: false,
                }
            }; CORES],
            stopped: false,
        }
    }

    /// Freezes every ring (for example in a fault handler) so that what it
    /// holds can be read out.
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    /// Records again, continuing after what the rings hold.
    pub fn start(&mut self) {
        self.stopped = false;
    }

    /// Empties every ring.
    pub fn reset(&mut self) {
        for r in &mut self.cores {
            r.head = 0;
            r.wrapped = false;
        }
    }

    pub const fn running(&self) -> bool {
        !self.stopped
    }

    /// `core`'s surviving bytes in order, in two pieces (either may be
    /// empty), starting at a frame boundary.
    pub fn read(&self, core: usize) -> [&[u8]; 2] {
        self.cores.get(core).map_or([&[], &[]], |ring| {
            let (a, b) = ring.oldest_first();
            [a, b]
        })
    }
}

impl<const N: usize, const CORES: usize> Backend for PostMortem<N, CORES> {
    #[inline(always)]
    fn recording(&self, _core: usize) -> bool {
        !self.stopped
    }

    #[inline]
    fn event(&mut self, core: usize, encode: impl Encode) -> Outcome {
        let Some(ring) = self.cores.get_mut(core) else {
            return Outcome::Ignored;
        };
        match with_scratch(encode, |frame| ring.push(frame)) {
            Some(true) => Outcome::Stored,
            _ => Outcome::Lost,
        }
    }

    fn metadata(&mut self, core: usize, frame: &[u8], in_metadata_buf: bool) -> Outcome {
        if in_metadata_buf || self.stopped {
            return Outcome::Ignored;
        }
        match self.cores.get_mut(core).map(|ring| ring.push(frame)) {
            Some(true) => Outcome::Stored,
            Some(false) => Outcome::Lost,
            None => Outcome::Ignored,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    extern crate std;

    fn read_all<const N: usize>(pm: &PostMortem<N, 1>) -> std::vec::Vec<u8> {
        pm.read(0).concat()
    }

    #[test]
    fn ring_keeps_the_newest_whole_frames() {
        let mut pm = PostMortem::<10, 1>::new();
        for frame in [[1u8, 1, 0], [2, 2, 0], [3, 3, 0]] {
            assert!(pm.cores[0].push(&frame));
        }
        assert_eq!(read_all(&pm), [1, 1, 0, 2, 2, 0, 3, 3, 0]);
        // Wraps: the first frame is overwritten, the cut second one skipped.
        pm.cores[0].push(&[4, 4, 0]);
        pm.cores[0].push(&[5, 5, 0]);
        assert_eq!(read_all(&pm), [3, 3, 0, 4, 4, 0, 5, 5, 0]);
        assert!(!pm.cores[0].push(&[9; 11]));
    }

    #[test]
    fn after_a_wrap_the_oldest_frame_is_skipped_even_if_whole() {
        // Whether the byte at the write position starts a frame is not
        // known once the ring went round, so reading skips to the first
        // delimiter.
        let mut pm = PostMortem::<6, 1>::new();
        pm.cores[0].push(&[1, 1, 0]);
        pm.cores[0].push(&[2, 2, 0]);
        assert_eq!(pm.cores[0].head, 0);
        assert_eq!(read_all(&pm), [2, 2, 0]);
        pm.cores[0].push(&[3, 0]);
        assert_eq!(read_all(&pm), [2, 2, 0, 3, 0]);
    }
}
