//! Snapshot: each core fills its own static buffer once triggered, and stops
//! when the next frame does not fit (calling the full hook once). The trace
//! is the core's metadata buffer followed by its snapshot buffer.

use core::marker::PhantomData;

use super::{Backend, Encode, Hooks, Outcome};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotState {
    /// Not triggered since the last reset.
    Idle,
    Recording,
    /// Stopped by the API or because the buffer filled up.
    Finished,
}

/// The fill level and state come before the buffer (`repr(C)` keeps that
/// order) so that recording reaches them at a short offset from one address
/// instead of building a second address past the buffer.
#[repr(C)]
struct CoreBuf<const N: usize> {
    len: usize,
    state: SnapshotState,
    bytes: [u8; N],
}

pub struct Snapshot<H, const N: usize, const CORES: usize> {
    cores: [CoreBuf<N>; CORES],
    hooks: PhantomData<H>,
}

impl<H, const N: usize, const CORES: usize> Default for Snapshot<H, N, CORES> {
    fn default() -> Self {
        Self::new()
    }
}

impl<H, const N: usize, const CORES: usize> Snapshot<H, N, CORES> {
    pub const fn new() -> Self {
        Snapshot {
            cores: [const {
                CoreBuf {
                    len: 0,
                    state: SnapshotState::Idle,
                    bytes: [0; N],
                }
            }; CORES],
            hooks: PhantomData,
        }
    }

    /// Starts recording on every core that is idle. Returns whether any
    /// core is recording afterwards.
    pub fn trigger(&mut self) -> bool {
        for c in &mut self.cores {
            if c.state == SnapshotState::Idle {
                c.state = SnapshotState::Recording;
            }
        }
        self.cores
            .iter()
            .any(|c| c.state == SnapshotState::Recording)
    }

    /// Stops recording on every core; the buffers keep their contents.
    pub fn stop(&mut self) {
        for c in &mut self.cores {
            if c.state == SnapshotState::Recording {
                c.state = SnapshotState::Finished;
            }
        }
    }

    /// Empties every buffer; a new trigger records from scratch.
    pub fn reset(&mut self) {
        for c in &mut self.cores {
            c.len = 0;
            c.state = SnapshotState::Idle;
        }
    }

    pub fn state(&self, core: usize) -> Option<SnapshotState> {
        self.cores.get(core).map(|c| c.state)
    }

    /// The frames `core` recorded.
    pub fn bytes(&self, core: usize) -> &[u8] {
        self.cores
            .get(core)
            .map_or(&[], |c| c.bytes.split_at(c.len.min(N)).0)
    }
}

impl<const N: usize> CoreBuf<N> {
    /// Writes a frame in place after the last one; on overflow the
    /// snapshot is finished (the partial frame lies beyond `len`).
    #[inline(always)]
    fn store<H: Hooks>(&mut self, core: usize, encode: impl Encode) -> Outcome {
        let Some(free) = self.bytes.get_mut(self.len..) else {
            return Outcome::Ignored;
        };
        match encode(free) {
            Some(n) => {
                self.len += n;
                Outcome::Stored
            }
            None => {
                self.state = SnapshotState::Finished;
                H::snapshot_full(core);
                Outcome::Ignored
            }
        }
    }
}

impl<H: Hooks, const N: usize, const CORES: usize> Backend for Snapshot<H, N, CORES> {
    #[inline(always)]
    fn recording(&self, core: usize) -> bool {
        self.cores
            .get(core)
            .is_some_and(|c| c.state == SnapshotState::Recording)
    }

    #[inline(always)]
    fn event(&mut self, core: usize, encode: impl Encode) -> Outcome {
        match self.cores.get_mut(core) {
            Some(c) => c.store::<H>(core, encode),
            None => Outcome::Ignored,
        }
    }

    fn metadata(&mut self, core: usize, frame: &[u8], in_metadata_buf: bool) -> Outcome {
        if in_metadata_buf || !self.recording(core) {
            return Outcome::Ignored;
        }
        match self.cores.get_mut(core) {
            Some(c) => c.store::<H>(core, |dst: &mut [u8]| {
                let dst = dst.get_mut(..frame.len())?;
                dst.copy_from_slice(frame);
                Some(frame.len())
            }),
            None => Outcome::Ignored,
        }
    }
}
