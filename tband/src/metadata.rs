//! The metadata buffer: every metadata frame (names, kinds, the timer
//! resolution) of one core, kept whether or not tracing runs, so that a
//! stream started later or a snapshot read out later can be decoded.

/// One core's metadata frames, `N` bytes at most (`N == 0`: no buffer).
/// `repr(C)` and `u32` counts: a debugger reads it by this layout (the
/// book's format page, "The flight recorder").
#[repr(C)]
pub struct MetadataBuf<const N: usize> {
    len: u32,
    lost: u32,
    bytes: [u8; N],
}

impl<const N: usize> Default for MetadataBuf<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> MetadataBuf<N> {
    pub const fn new() -> Self {
        MetadataBuf {
            len: 0,
            lost: 0,
            bytes: [0; N],
        }
    }

    /// Appends one frame; a frame that does not fit is counted as lost.
    /// Returns whether it was stored.
    pub fn push(&mut self, frame: &[u8]) -> bool {
        let len = self.len as usize;
        match self.bytes.get_mut(len..len + frame.len()) {
            Some(dst) => {
                dst.copy_from_slice(frame);
                self.len += frame.len() as u32;
                true
            }
            None => {
                self.lost = self.lost.saturating_add(1);
                false
            }
        }
    }

    /// The frames stored so far.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.split_at((self.len as usize).min(N)).0
    }

    /// Metadata frames that did not fit.
    pub const fn lost(&self) -> u32 {
        self.lost
    }

    pub const fn overflowed(&self) -> bool {
        self.lost != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_frames_until_full_and_counts_the_rest() {
        let mut m = MetadataBuf::<8>::new();
        assert!(m.push(&[1, 2, 3, 0]));
        assert!(!m.push(&[4, 5, 6, 7, 0]));
        assert!(m.push(&[8, 9, 0]));
        assert_eq!(m.as_bytes(), [1, 2, 3, 0, 8, 9, 0]);
        assert_eq!(m.lost(), 1);
        assert!(m.overflowed());
    }

    #[test]
    fn zero_sized_buffer_stores_nothing() {
        let mut m = MetadataBuf::<0>::new();
        assert!(!m.push(&[1, 0]));
        assert!(m.as_bytes().is_empty());
    }
}
