//! Post-mortem: each core writes into a ring buffer that always overwrites
//! its oldest frames, so that after a fault or a stop the last `N` bytes of
//! the trace can be read out, by the firmware ([`PostMortem::read`]) or by
//! a debugger from the target's memory (the flight recorder: the layout is
//! the book's format page's). A frame that does not fit makes room by
//! dropping whole frames from the oldest end, so what the ring holds always
//! starts with a whole frame, and the frames dropped are counted exactly.

use super::{with_scratch, Backend, Encode, Outcome};

/// One core's ring. `repr(C)` and `u32` fields: a debugger reads it by
/// this layout (the book's format page).
#[repr(C)]
pub struct Ring<const N: usize> {
    /// Where the next byte goes.
    head: u32,
    /// Bytes held: the frames from `head - used` (modulo `N`) to `head`.
    used: u32,
    /// Frames dropped to make room, whole or in part: all of them lost.
    overwritten: u32,
    bytes: [u8; N],
}

impl<const N: usize> Ring<N> {
    const fn new() -> Self {
        Ring {
            head: 0,
            used: 0,
            overwritten: 0,
            bytes: [0; N],
        }
    }

    /// Where the oldest held frame starts.
    fn oldest(&self) -> usize {
        (self.head as usize + N - self.used as usize) % N.max(1)
    }

    /// Drops the oldest frame: the bytes up to its delimiter.
    fn drop_oldest(&mut self) {
        let start = self.oldest();
        let used = self.used as usize;
        let (to_end, from_start) = self.bytes.split_at(start);
        let len = from_start
            .iter()
            .chain(to_end)
            .take(used)
            .position(|&b| b == 0)
            .map_or(used, |i| i + 1);
        self.used -= len as u32;
        self.overwritten = self.overwritten.saturating_add(1);
    }

    fn push(&mut self, frame: &[u8]) -> bool {
        if frame.len() > N || frame.is_empty() {
            return false;
        }
        while N - (self.used as usize) < frame.len() {
            self.drop_oldest();
        }
        let head = self.head as usize;
        let (before, after) = self.bytes.split_at_mut(head.min(N));
        let (a, b) = frame.split_at(frame.len().min(after.len()));
        let (Some(a_dst), Some(b_dst)) = (after.get_mut(..a.len()), before.get_mut(..b.len()))
        else {
            return false;
        };
        a_dst.copy_from_slice(a);
        b_dst.copy_from_slice(b);
        self.head = ((head + frame.len()) % N) as u32;
        self.used += frame.len() as u32;
        true
    }

    /// The held bytes, oldest first, as up to two slices.
    fn oldest_first(&self) -> (&[u8], &[u8]) {
        let start = self.oldest();
        let used = self.used as usize;
        let (to_end, from_start) = self.bytes.split_at(start);
        let first = from_start
            .get(..used.min(from_start.len()))
            .unwrap_or_default();
        let second = to_end.get(..used - first.len()).unwrap_or_default();
        (first, second)
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
            cores: [const { Ring::new() }; CORES],
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
            r.used = 0;
            r.overwritten = 0;
        }
    }

    pub const fn running(&self) -> bool {
        !self.stopped
    }

    /// `core`'s frames dropped to make room for newer ones.
    pub fn overwritten(&self, core: usize) -> u32 {
        self.cores.get(core).map_or(0, |r| r.overwritten)
    }

    /// Where `core`'s ring lies within the recorder at `this`, for the
    /// flight recorder's table of addresses (computed at compile time).
    ///
    /// # Safety
    /// `this` points to a recorder (only an address is computed; nothing
    /// is read).
    pub const unsafe fn ring_ptr(this: *const Self, core: usize) -> *const Ring<N> {
        // SAFETY: as the caller promises.
        unsafe { &raw const (*this).cores[core] }
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
    fn ring_keeps_the_newest_whole_frames_and_counts_the_dropped() {
        let mut pm = PostMortem::<10, 1>::new();
        for frame in [[1u8, 1, 0], [2, 2, 0], [3, 3, 0]] {
            assert!(pm.cores[0].push(&frame));
        }
        assert_eq!(read_all(&pm), [1, 1, 0, 2, 2, 0, 3, 3, 0]);
        assert_eq!(pm.overwritten(0), 0);
        // Wraps: the first two frames make room for the next two.
        pm.cores[0].push(&[4, 4, 0]);
        pm.cores[0].push(&[5, 5, 0]);
        assert_eq!(read_all(&pm), [3, 3, 0, 4, 4, 0, 5, 5, 0]);
        assert_eq!(pm.overwritten(0), 2);
        assert!(!pm.cores[0].push(&[9; 11]));
    }

    #[test]
    fn a_ring_that_went_round_many_times_starts_with_a_whole_frame() {
        let mut pm = PostMortem::<7, 1>::new();
        let frames: std::vec::Vec<std::vec::Vec<u8>> = (1..=200u8)
            .map(|i| {
                std::iter::repeat_n(i, usize::from(i % 3))
                    .chain([0])
                    .collect()
            })
            .collect();
        for f in &frames {
            assert!(pm.cores[0].push(f));
        }
        let held = read_all(&pm);
        // The newest frames that fit, whole, and every older one counted.
        let mut kept = 0;
        let mut len = 0;
        for f in frames.iter().rev() {
            if len + f.len() > 7 {
                break;
            }
            len += f.len();
            kept += 1;
        }
        assert_eq!(held, frames[200 - kept..].concat());
        assert_eq!(pm.overwritten(0) as usize, 200 - kept);
    }
}
