//! COBS framing exactly as the reference tracer writes it: a payload that
//! ends right after a full 254-byte block is closed by the delimiter without
//! the extra `0x01` code byte.

/// The frame delimiter.
pub const DELIMITER: u8 = 0;

/// Longest frame (including the delimiter) that an `n`-byte payload can take.
pub const fn max_framed_len(payload_len: usize) -> usize {
    if payload_len == 0 {
        2
    } else {
        1 + payload_len.div_ceil(254) + payload_len
    }
}

/// Stuffs payload bytes into a caller's buffer as they are written, patching
/// each block's code byte when the block closes. Writes past the end of the
/// buffer are dropped and reported by [`FrameWriter::finish`].
pub struct FrameWriter<'b> {
    buf: &'b mut [u8],
    code_pos: usize,
    pos: usize,
    closed_full_block: bool,
}

/// Bytes the head of a frame may take: its first code byte and at most
/// [`HEAD_CAPACITY`]` - 1` payload bytes written by
/// [`FrameWriter::head_u8`] and [`FrameWriter::head_varint`].
pub const HEAD_CAPACITY: usize = 32;

impl<'b> FrameWriter<'b> {
    /// A writer into `buf`, or `None` if `buf` is shorter than
    /// [`HEAD_CAPACITY`]: with room for any head assured, head bytes are
    /// stored without a bounds check each (two instructions a byte on the
    /// tracer's hottest path).
    #[inline(always)]
    pub fn new(buf: &'b mut [u8]) -> Option<Self> {
        (buf.len() >= HEAD_CAPACITY).then_some(FrameWriter {
            buf,
            code_pos: 0,
            pos: 1,
            closed_full_block: false,
        })
    }

    #[inline(always)]
    fn store(&mut self, at: usize, b: u8) {
        if let Some(slot) = self.buf.get_mut(at) {
            *slot = b;
        }
    }

    #[inline(always)]
    pub fn byte(&mut self, b: u8) {
        if b == 0 {
            self.store(self.code_pos, (self.pos - self.code_pos) as u8);
            self.code_pos = self.pos;
            self.pos += 1;
            self.closed_full_block = false;
        } else {
            self.nonzero(b);
        }
    }

    /// Writes a byte known not to be zero. `closed_full_block` only matters
    /// when nothing follows the closed block, so the common path leaves it.
    #[inline(always)]
    fn nonzero(&mut self, b: u8) {
        self.store(self.pos, b);
        self.pos += 1;
        if self.pos - self.code_pos == 0xFF {
            self.store(self.code_pos, 0xFF);
            self.code_pos = self.pos;
            self.pos += 1;
            self.closed_full_block = true;
        }
    }

    #[inline(always)]
    pub fn bytes(&mut self, data: &[u8]) {
        for &b in data {
            self.byte(b);
        }
    }

    /// Writes a byte within the head: no block can fill up there, so only a
    /// zero needs handling.
    ///
    /// # Safety
    /// Fewer than [`HEAD_CAPACITY`] bytes have been written before it.
    #[inline(always)]
    unsafe fn head_byte(&mut self, b: u8) {
        debug_assert!(self.pos < HEAD_CAPACITY);
        // SAFETY: `code_pos < pos < HEAD_CAPACITY <= buf.len()` (see `new`).
        unsafe {
            if b == 0 {
                *self.buf.get_unchecked_mut(self.code_pos) = (self.pos - self.code_pos) as u8;
                self.code_pos = self.pos;
            } else {
                *self.buf.get_unchecked_mut(self.pos) = b;
            }
        }
        self.pos += 1;
    }

    /// Writes a varint with 7 bits per byte, least significant group first,
    /// within the head: the frame's first payload bytes (the id, timestamp
    /// and integer fields come before any string and take at most 31 bytes,
    /// so no block fills up there).
    /// Values that fit 32 bits take 32-bit arithmetic.
    ///
    /// # Safety
    /// Together with the other head bytes, at most [`HEAD_CAPACITY`]` - 1`
    /// bytes are written with [`Self::head_u8`] and `head_varint` (a varint
    /// takes at most 10).
    #[inline(always)]
    pub unsafe fn head_varint(&mut self, v: u64) {
        match u32::try_from(v) {
            Ok(mut v) => {
                while v >= 0x80 {
                    self.head_byte(v as u8 | 0x80);
                    v >>= 7;
                }
                self.head_byte(v as u8);
            }
            Err(_) => {
                let mut v = v;
                while v >= 0x80 {
                    self.head_byte(v as u8 | 0x80);
                    v >>= 7;
                }
                self.head_byte(v as u8);
            }
        }
    }

    /// Writes a single byte within the head.
    ///
    /// # Safety
    /// As for [`Self::head_varint`].
    #[inline(always)]
    pub unsafe fn head_u8(&mut self, b: u8) {
        unsafe { self.head_byte(b) };
    }

    /// Closes the frame with its delimiter. Returns the frame length, or
    /// `None` if the buffer was too small to hold it.
    #[inline(always)]
    pub fn finish(mut self) -> Option<usize> {
        let end = if self.closed_full_block && self.pos == self.code_pos + 1 {
            self.code_pos
        } else {
            self.store(self.code_pos, (self.pos - self.code_pos) as u8);
            self.pos
        };
        *self.buf.get_mut(end)? = DELIMITER;
        Some(end + 1)
    }
}

/// Why a frame is not valid COBS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CobsError {
    /// A code byte announces more bytes than the frame has.
    BlockOverrun,
    /// A zero byte where a code byte belongs (frames are split at zeros).
    ZeroInFrame,
    /// The output buffer is shorter than the frame.
    OutputTooSmall,
}

/// Decodes one frame into `out`, which must be at least as long as the
/// frame, and returns the payload length. `frame` is a frame as split from a
/// stream at its zero bytes, without the delimiter: a zero where a code byte
/// belongs is an error, zeros among the data bytes are not looked for (a
/// split frame has none). Accepts both the reference ending (delimiter right
/// after a full block) and the `0x01` form.
#[inline]
pub fn decode(frame: &[u8], out: &mut [u8]) -> Result<usize, CobsError> {
    let out = out
        .get_mut(..frame.len())
        .ok_or(CobsError::OutputTooSmall)?;
    let Some((&first_code, data)) = frame.split_first() else {
        return Ok(0);
    };
    // Without full blocks, the payload is the frame without its first code
    // byte, with every later code byte replaced by a zero.
    copy_bytes(out, data);
    let mut code = first_code;
    let mut code_at = 0;
    loop {
        match code {
            0 => return Err(CobsError::ZeroInFrame),
            0xFF => return decode_with_full_blocks(frame, out),
            _ => {}
        }
        code_at += usize::from(code);
        match frame.get(code_at) {
            Some(&next) => {
                if let Some(zero) = out.get_mut(code_at - 1) {
                    *zero = 0;
                }
                code = next;
            }
            None if code_at > frame.len() => return Err(CobsError::BlockOverrun),
            None => return Ok(data.len()),
        }
    }
}

/// Copies `src` to the start of `out` (at least as long). Frames are mostly
/// a dozen bytes: two overlapping fixed-size copies move up to 32 bytes
/// without a call to `memcpy`.
#[inline(always)]
fn copy_bytes(out: &mut [u8], src: &[u8]) {
    let n = src.len();
    let Some(out) = out.get_mut(..n) else { return };
    if (16..=32).contains(&n) {
        copy_ends::<16>(out, src);
    } else if (8..16).contains(&n) {
        copy_ends::<8>(out, src);
    } else if (4..8).contains(&n) {
        copy_ends::<4>(out, src);
    } else {
        out.copy_from_slice(src);
    }
}

/// Copies the first and the last `N` bytes of `src` (`N <= len <= 2 N`,
/// `out` as long as `src`), which together cover all of it.
#[inline(always)]
fn copy_ends<const N: usize>(out: &mut [u8], src: &[u8]) {
    if let (Some(o), Some(s)) = (out.first_chunk_mut::<N>(), src.first_chunk::<N>()) {
        *o = *s;
    }
    if let (Some(o), Some(s)) = (out.last_chunk_mut::<N>(), src.last_chunk::<N>()) {
        *o = *s;
    }
}

/// Decodes a frame that has 254-byte blocks (which imply no zero), block by block.
fn decode_with_full_blocks(frame: &[u8], out: &mut [u8]) -> Result<usize, CobsError> {
    let mut i = 0;
    let mut o = 0;
    while let Some(&code) = frame.get(i) {
        if code == 0 {
            return Err(CobsError::ZeroInFrame);
        }
        let data = frame
            .get(i + 1..i + usize::from(code))
            .ok_or(CobsError::BlockOverrun)?;
        out[o..o + data.len()].copy_from_slice(data);
        o += data.len();
        i += usize::from(code);
        if code != 0xFF && i < frame.len() {
            out[o] = 0;
            o += 1;
        }
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(payload: &[u8]) -> ([u8; 600], usize) {
        let mut buf = [0xAAu8; 600];
        let mut w = FrameWriter::new(&mut buf).unwrap();
        w.bytes(payload);
        let n = w.finish().unwrap();
        (buf, n)
    }

    fn round_trip(payload: &[u8]) -> usize {
        let (buf, n) = frame(payload);
        assert_eq!(buf[n - 1], 0);
        assert!(!buf[..n - 1].contains(&0));
        assert!(n <= max_framed_len(payload.len()));
        let mut out = [0u8; 600];
        let m = decode(&buf[..n - 1], &mut out).unwrap();
        assert_eq!(&out[..m], payload);
        n
    }

    #[test]
    fn small_frames() {
        assert_eq!(frame(&[]).0[..2], [1, 0]);
        assert_eq!(frame(&[0]).0[..3], [1, 1, 0]);
        assert_eq!(frame(&[5, 0]).0[..4], [2, 5, 1, 0]);
        assert_eq!(frame(&[4, 0, 7]).0[..5], [2, 4, 2, 7, 0]);
        round_trip(&[0, 0, 0]);
    }

    #[test]
    fn full_block_ends_without_extra_code_byte() {
        let payload = [7u8; 254];
        let (buf, n) = frame(&payload);
        assert_eq!(n, 256);
        assert_eq!(buf[0], 0xFF);
        assert_eq!(buf[255], 0);
        assert_eq!(round_trip(&payload), max_framed_len(254));
        // The other encoders' form, with a trailing 0x01 block, decodes the same.
        let mut alt = [0u8; 256];
        alt[..255].copy_from_slice(&buf[..255]);
        alt[255] = 1;
        let mut out = [0u8; 256];
        assert_eq!(decode(&alt, &mut out), Ok(254));
        assert_eq!(out[..254], payload);
    }

    #[test]
    fn blocks_around_the_boundary() {
        for len in [253, 254, 255, 256, 507, 508, 509, 590] {
            let mut p = [9u8; 590];
            round_trip(&p[..len]);
            p[253] = 0;
            round_trip(&p[..len]);
            p[254] = 0;
            round_trip(&p[..len]);
        }
    }

    #[test]
    fn bad_frames() {
        let mut out = [0u8; 16];
        assert_eq!(decode(&[5, 1, 2], &mut out), Err(CobsError::BlockOverrun));
        assert_eq!(decode(&[2, 3, 0, 1], &mut out), Err(CobsError::ZeroInFrame));
        assert_eq!(decode(&[0], &mut out), Err(CobsError::ZeroInFrame));
        assert_eq!(decode(&[1; 17], &mut out), Err(CobsError::OutputTooSmall));
    }

    #[test]
    fn too_small_buffer_is_reported() {
        let mut buf = [0u8; HEAD_CAPACITY];
        let mut w = FrameWriter::new(&mut buf).unwrap();
        w.bytes(&[1; HEAD_CAPACITY]);
        assert_eq!(w.finish(), None);
        assert!(FrameWriter::new(&mut buf[1..]).is_none());
    }
}
