//! Where frames go. Each backend is a plain generic type, so all of them
//! are tested on the host side by side; the crate's global tracer uses the
//! one selected by cargo feature.

pub mod external;
pub mod postmortem;
pub mod snapshot;
pub mod streaming;

/// What became of an event handed to a backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The frame is in the trace.
    Stored,
    /// The backend wanted the frame but could not take it: a dropped event.
    Lost,
    /// The backend is not recording (stopped, not triggered, or full).
    Ignored,
}

/// The user's functions that backends call, registered with
/// `set_port!` for the global tracer.
pub trait Hooks {
    /// Streaming: sends bytes (one or more whole frames) of `core`'s
    /// stream; `false` if they could not be sent.
    fn stream_write(core: usize, bytes: &[u8]) -> bool;
    /// External: receives every frame of `core`.
    fn external(core: usize, frame: &[u8], is_metadata: bool);
    /// Snapshot: `core`'s buffer just filled up (called once per fill).
    fn snapshot_full(core: usize);
}

/// A frame encoder: writes one frame into the buffer it is given and
/// returns its length, or `None` if the buffer is too short.
pub trait Encode: FnOnce(&mut [u8]) -> Option<usize> {}
impl<F: FnOnce(&mut [u8]) -> Option<usize>> Encode for F {}

/// A destination for frames.
pub trait Backend {
    /// Whether `core`'s events are recorded now; events are not encoded
    /// (and not counted as dropped) while this is false.
    fn recording(&self, core: usize) -> bool;

    /// Stores the timed event frame that `encode` writes.
    fn event(&mut self, core: usize, encode: impl Encode) -> Outcome;

    /// Takes a metadata frame. `in_metadata_buf`: the frame is also kept in
    /// the core's metadata buffer, which readers see before the data (so a
    /// backend that stores metadata must not store it a second time).
    fn metadata(&mut self, core: usize, frame: &[u8], in_metadata_buf: bool) -> Outcome;
}

/// Longest frame any event can take with strings cut to
/// [`MAX_STR_LEN`](crate::config::MAX_STR_LEN) and, with feature `defmt`,
/// defmt frames to [`DEFMT_FRAME_BYTES`](crate::config::DEFMT_FRAME_BYTES).
pub const MAX_FRAME_LEN: usize = {
    let mut max = 0;
    let mut i = 0;
    while i < crate::EVENTS.len() {
        let spec = &crate::EVENTS[i];
        let str_len = if matches!(spec.group, crate::schema::Group::Log) {
            if cfg!(feature = "defmt") {
                crate::config::DEFMT_FRAME_BYTES
            } else {
                0
            }
        } else {
            crate::config::MAX_STR_LEN
        };
        let len = spec.max_framed_len(str_len);
        if len > max {
            max = len;
        }
        i += 1;
    }
    max
};

/// Runs `encode` on a stack buffer, for backends that cannot encode in
/// place; `None` if the frame did not fit (a bug in the length bound).
#[inline(always)]
pub(crate) fn with_scratch<R>(encode: impl Encode, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
    let mut scratch = [0u8; MAX_FRAME_LEN];
    let n = encode(&mut scratch)?;
    scratch.get(..n).map(f)
}

#[cfg(test)]
pub(crate) mod test_hooks {
    //! Hooks that record what backends hand them, per test thread.
    extern crate std;
    use std::cell::RefCell;
    use std::vec::Vec;

    std::thread_local! {
        /// (core, bytes, is_metadata) per call.
        pub static WRITES: RefCell<Vec<(usize, Vec<u8>, bool)>> = const { RefCell::new(Vec::new()) };
        /// Refuse every `period`-th stream write (counting from 1); 0: never.
        pub static REFUSE_EVERY: RefCell<usize> = const { RefCell::new(0) };
        static CALLS: RefCell<usize> = const { RefCell::new(0) };
        pub static FULL: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
    }

    pub struct Recorder;

    impl super::Hooks for Recorder {
        fn stream_write(core: usize, bytes: &[u8]) -> bool {
            let n = CALLS.with_borrow_mut(|c| {
                *c += 1;
                *c
            });
            let period = REFUSE_EVERY.with_borrow(|p| *p);
            if period != 0 && n.is_multiple_of(period) {
                return false;
            }
            WRITES.with_borrow_mut(|w| w.push((core, bytes.to_vec(), false)));
            true
        }
        fn external(core: usize, frame: &[u8], is_metadata: bool) {
            WRITES.with_borrow_mut(|w| w.push((core, frame.to_vec(), is_metadata)));
        }
        fn snapshot_full(core: usize) {
            FULL.with_borrow_mut(|f| f.push(core));
        }
    }

    /// Forgets everything recorded (tests may share a thread).
    pub fn reset() {
        WRITES.with_borrow_mut(|w| w.clear());
        REFUSE_EVERY.with_borrow_mut(|p| *p = 0);
        CALLS.with_borrow_mut(|c| *c = 0);
        FULL.with_borrow_mut(|f| f.clear());
    }

    /// Everything written so far, concatenated per core.
    pub fn bytes_of(core: usize) -> Vec<u8> {
        WRITES.with_borrow(|w| {
            w.iter()
                .filter(|(c, _, _)| *c == core)
                .flat_map(|(_, b, _)| b.iter().copied())
                .collect()
        })
    }
}
