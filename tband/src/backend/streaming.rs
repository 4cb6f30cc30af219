//! Streaming: every frame goes to the user's send function as it happens;
//! a refused frame is a dropped event. Starting a stream first sends every
//! core's metadata buffer (see [`Tracer::start_streaming`](crate::Tracer::start_streaming)).

use core::marker::PhantomData;

use super::{with_scratch, Backend, Encode, Hooks, Outcome};

pub struct Streaming<H> {
    running: bool,
    hooks: PhantomData<H>,
}

impl<H> Default for Streaming<H> {
    fn default() -> Self {
        Self::new()
    }
}

impl<H> Streaming<H> {
    pub const fn new() -> Self {
        Streaming {
            running: false,
            hooks: PhantomData,
        }
    }

    pub const fn running(&self) -> bool {
        self.running
    }

    pub(crate) fn set_running(&mut self, running: bool) {
        self.running = running;
    }
}

impl<H: Hooks> Streaming<H> {
    /// Sends raw bytes of `core`'s stream.
    pub(crate) fn send(&self, core: usize, bytes: &[u8]) -> bool {
        H::stream_write(core, bytes)
    }
}

impl<H: Hooks> Backend for Streaming<H> {
    #[inline(always)]
    fn recording(&self, _core: usize) -> bool {
        self.running
    }

    #[inline]
    fn event(&mut self, core: usize, encode: impl Encode) -> Outcome {
        match with_scratch(encode, |frame| H::stream_write(core, frame)) {
            Some(true) => Outcome::Stored,
            _ => Outcome::Lost,
        }
    }

    fn metadata(&mut self, core: usize, frame: &[u8], _in_metadata_buf: bool) -> Outcome {
        if !self.running {
            Outcome::Ignored
        } else if H::stream_write(core, frame) {
            Outcome::Stored
        } else {
            Outcome::Lost
        }
    }
}
