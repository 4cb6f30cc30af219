//! External: every frame, metadata included (flagged), goes to the user's
//! function, which does whatever it likes with it. Always recording.

use core::marker::PhantomData;

use super::{with_scratch, Backend, Encode, Hooks, Outcome};

pub struct External<H> {
    hooks: PhantomData<H>,
}

impl<H> Default for External<H> {
    fn default() -> Self {
        Self::new()
    }
}

impl<H> External<H> {
    pub const fn new() -> Self {
        External { hooks: PhantomData }
    }
}

impl<H: Hooks> Backend for External<H> {
    #[inline(always)]
    fn recording(&self, _core: usize) -> bool {
        true
    }

    #[inline]
    fn event(&mut self, core: usize, encode: impl Encode) -> Outcome {
        match with_scratch(encode, |frame| H::external(core, frame, false)) {
            Some(()) => Outcome::Stored,
            None => Outcome::Lost,
        }
    }

    fn metadata(&mut self, core: usize, frame: &[u8], _in_metadata_buf: bool) -> Outcome {
        H::external(core, frame, true);
        Outcome::Stored
    }
}
