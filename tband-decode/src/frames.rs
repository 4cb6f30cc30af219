//! Splits a byte stream into COBS frames and decodes each into a typed
//! [`Record`]. Damage stays local to a frame: the splitter resynchronises on
//! every zero byte.

use std::fmt;

use memchr::memchr;
use tband::cobs::{self, CobsError};
use tband::schema::PayloadError;
use tband::varint::{JoinGroups, Portable};
use tband::Record;

/// One frame's bytes (without the delimiter) and where it starts in the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawFrame<'a> {
    pub offset: usize,
    pub bytes: &'a [u8],
    /// The stream ended before this frame's delimiter.
    pub unterminated: bool,
    /// The stream from the frame's first byte to its end: the bytes after
    /// the frame let its last fields be loaded a word at a time.
    rest: &'a [u8],
}

/// Iterates over the frames of a stream, skipping empty ones.
#[derive(Clone, Debug)]
pub struct Frames<'a> {
    /// The stream from the next frame on.
    rest: &'a [u8],
    /// Stream offset of `rest`.
    pos: usize,
    empty_frames: u64,
}

impl<'a> Frames<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Frames::at(data, 0)
    }

    /// The frames of `data`, the part of a stream from offset `offset` on.
    pub fn at(data: &'a [u8], offset: usize) -> Self {
        Frames {
            rest: data,
            pos: offset,
            empty_frames: 0,
        }
    }

    /// Empty frames (two zeros in a row) skipped so far.
    pub fn empty_frames(&self) -> u64 {
        self.empty_frames
    }

    /// Stream offset of the next frame.
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl<'a> Iterator for Frames<'a> {
    type Item = RawFrame<'a>;

    #[inline(always)]
    fn next(&mut self) -> Option<RawFrame<'a>> {
        loop {
            let rest = self.rest;
            if rest.is_empty() {
                return None;
            }
            let offset = self.pos;
            let Some(len) = find_delimiter(rest) else {
                self.rest = &[];
                self.pos += rest.len();
                return Some(RawFrame {
                    offset,
                    bytes: rest,
                    unterminated: true,
                    rest,
                });
            };
            let (bytes, after) = rest.split_at_checked(len)?;
            self.rest = after.get(1..).unwrap_or_default();
            self.pos += len + 1;
            if len == 0 {
                self.empty_frames += 1;
                continue;
            }
            return Some(RawFrame {
                offset,
                bytes,
                unterminated: false,
                rest,
            });
        }
    }
}

/// Index of the first delimiter in `data`. Most frames are a dozen bytes
/// long, so the first 16 bytes are searched inline, all at once, before
/// handing over to `memchr`.
#[inline(always)]
fn find_delimiter(data: &[u8]) -> Option<usize> {
    const _: () = assert!(
        cobs::DELIMITER == 0,
        "the inline search looks for zero bytes"
    );
    let Some(head) = data.first_chunk::<16>() else {
        return memchr(cobs::DELIMITER, data);
    };
    if let Some(i) = first_zero(head) {
        return Some(i);
    }
    memchr(cobs::DELIMITER, data.get(16..)?).map(|i| 16 + i)
}

/// Index of the first zero among 16 bytes: one SSE2 compare (part of
/// x86-64).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn first_zero(head: &[u8; 16]) -> Option<usize> {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_setzero_si128,
    };
    // SAFETY: every x86-64 CPU has SSE2; the unaligned load reads the 16
    // bytes of `head`.
    let zeros = unsafe {
        let bytes = _mm_loadu_si128(head.as_ptr().cast::<__m128i>());
        _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_setzero_si128()))
    };
    (zeros != 0).then(|| zeros.trailing_zeros() as usize)
}

/// Index of the first zero among 16 bytes, as one 128-bit word (no branch
/// on which half holds the zero).
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
fn first_zero_in_word(head: &[u8; 16]) -> Option<usize> {
    const ONES: u128 = u128::MAX / 0xFF;
    const HIGH_BITS: u128 = ONES << 7;
    let word = u128::from_le_bytes(*head);
    // The lowest flagged byte is the first zero (borrows only flag bytes above it).
    let zeros = word.wrapping_sub(ONES) & !word & HIGH_BITS;
    (zeros != 0).then(|| zeros.trailing_zeros() as usize / 8)
}

#[cfg(not(target_arch = "x86_64"))]
use first_zero_in_word as first_zero;

/// Why a frame did not decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameError {
    /// The stream ended inside the frame.
    Unterminated,
    Cobs(CobsError),
    Payload(PayloadError),
}

impl FrameError {
    /// A short stable name for counting errors by kind.
    pub fn kind(&self) -> &'static str {
        match self {
            FrameError::Unterminated => "unterminated frame",
            FrameError::Cobs(_) => "bad COBS",
            FrameError::Payload(PayloadError::Empty) => "empty payload",
            FrameError::Payload(PayloadError::UnknownId(_)) => "unknown id",
            FrameError::Payload(PayloadError::TruncatedVarint { .. }) => "truncated varint",
            FrameError::Payload(PayloadError::OverlongVarint { .. }) => "overlong varint",
            FrameError::Payload(PayloadError::MissingByte { .. }) => "missing byte",
            FrameError::Payload(PayloadError::TrailingBytes(_)) => "trailing bytes",
        }
    }
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Unterminated => f.write_str("stream ends inside this frame"),
            FrameError::Cobs(CobsError::BlockOverrun) => {
                f.write_str("bad COBS: a code byte points past the end of the frame")
            }
            FrameError::Cobs(e) => write!(f, "bad COBS: {e:?}"),
            FrameError::Payload(PayloadError::Empty) => f.write_str("empty payload"),
            FrameError::Payload(PayloadError::UnknownId(id)) => write!(f, "unknown event id {id}"),
            FrameError::Payload(PayloadError::TruncatedVarint { field }) => {
                write!(f, "truncated varint in field {field}")
            }
            FrameError::Payload(PayloadError::OverlongVarint { field }) => {
                write!(f, "overlong varint in field {field}")
            }
            FrameError::Payload(PayloadError::MissingByte { field }) => {
                write!(f, "frame ends before field {field}")
            }
            FrameError::Payload(PayloadError::TrailingBytes(n)) => {
                write!(f, "{n} trailing bytes after the last field")
            }
        }
    }
}

/// Bytes kept in `scratch` after an unstuffed payload, so that its last
/// fields can be loaded a word at a time as in place.
const SCRATCH_SLACK: usize = 8;

/// Decodes one frame. Single-block frames (the common case: no zero in the
/// payload) are read in place; others are unstuffed into `scratch`.
///
/// The reason a frame fails is worked out out of line, so that the inlined
/// path carries nothing but the decoded record.
#[inline(always)]
pub fn decode_frame<'s>(
    frame: &RawFrame<'s>,
    scratch: &'s mut Vec<u8>,
) -> Result<Record<'s>, FrameError> {
    decode_frame_with(Portable, frame, scratch)
}

/// [`decode_frame`], joining the varints' groups with `join`.
#[inline(always)]
pub fn decode_frame_with<'s, J: JoinGroups>(
    join: J,
    frame: &RawFrame<'s>,
    scratch: &'s mut Vec<u8>,
) -> Result<Record<'s>, FrameError> {
    let (data, len) = match payload(frame, scratch) {
        Ok(payload) => payload,
        Err(e) => return rejected(e),
    };
    match Record::try_decode_within(join, data, len) {
        Some(record) => Ok(record),
        None => decode_payload_reporting(data, len),
    }
}

/// [`decode_frame_with`] without the reason for a failure (which
/// [`decode_frame`] tells): the record is handed on as it was read.
#[inline(always)]
pub fn try_decode_frame_with<'s, J: JoinGroups>(
    join: J,
    frame: &RawFrame<'s>,
    scratch: &'s mut Vec<u8>,
) -> Option<Record<'s>> {
    let (data, len) = payload(frame, scratch).ok()?;
    Record::try_decode_within(join, data, len)
}

/// A frame's payload as `data[..len]`: in place for a single-block frame,
/// else COBS-decoded into `scratch` (with room after it for word loads).
#[inline(always)]
fn payload<'s>(
    frame: &RawFrame<'s>,
    scratch: &'s mut Vec<u8>,
) -> Result<(&'s [u8], usize), FrameError> {
    let bytes = frame.bytes;
    match bytes.first() {
        _ if frame.unterminated => Err(FrameError::Unterminated),
        Some(&code) if usize::from(code) == bytes.len() => {
            Ok((frame.rest.get(1..).unwrap_or_default(), bytes.len() - 1))
        }
        _ => {
            let needed = bytes.len() + SCRATCH_SLACK;
            if scratch.len() < needed {
                scratch.resize(needed, 0);
            }
            match cobs::decode(bytes, scratch) {
                Ok(n) => Ok((scratch, n)),
                Err(e) => Err(FrameError::Cobs(e)),
            }
        }
    }
}

#[cold]
#[inline(never)]
fn rejected<'s>(error: FrameError) -> Result<Record<'s>, FrameError> {
    Err(error)
}

/// Decodes a payload that failed the fast path again, with the reason.
#[cold]
#[inline(never)]
fn decode_payload_reporting(data: &[u8], len: usize) -> Result<Record<'_>, FrameError> {
    Record::decode_within(data, len).map_err(FrameError::Payload)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tband::{encode_frame, Event};

    #[test]
    fn splits_skips_empty_and_reports_unterminated() {
        let data = [2, 7, 0, 0, 0, 1, 0, 3, 9];
        let mut frames = Frames::new(&data);
        let got: Vec<_> = frames.by_ref().collect();
        assert_eq!(got.len(), 3);
        assert_eq!((got[0].offset, got[0].bytes), (0, &[2u8, 7][..]));
        assert_eq!((got[1].offset, got[1].bytes), (5, &[1u8][..]));
        assert!(got[2].unterminated);
        assert_eq!(frames.empty_frames(), 2);
    }

    #[test]
    fn finds_the_first_delimiter_at_any_position() {
        for fill in [0x01, 0x80, 0xFF] {
            for len in 0..40 {
                for zero in 0..len {
                    let mut data = vec![fill; len];
                    data[zero] = 0;
                    if zero + 1 < len {
                        data[len - 1] = 0;
                    }
                    assert_eq!(find_delimiter(&data), Some(zero), "{fill} {len} {zero}");
                }
                assert_eq!(find_delimiter(&vec![fill; len]), None);
            }
        }
    }

    #[test]
    fn both_zero_searches_agree() {
        for fill in [0x01, 0x80, 0xFF] {
            let mut head = [fill; 16];
            assert_eq!(first_zero(&head), None);
            assert_eq!(first_zero_in_word(&head), None);
            for zero in (0..16).rev() {
                head[zero] = 0;
                assert_eq!(first_zero(&head), Some(zero));
                assert_eq!(first_zero_in_word(&head), Some(zero));
            }
        }
    }

    #[test]
    fn decodes_both_paths() {
        let mut buf = [0u8; 32];
        let mut scratch = Vec::new();
        for ev in [Event::IsrEnter { isr_id: 5 }, Event::IsrEnter { isr_id: 0 }] {
            let n = encode_frame(&mut buf, 300, &ev).unwrap();
            let frame = Frames::new(&buf[..n]).next().unwrap();
            let rec = decode_frame(&frame, &mut scratch).unwrap();
            assert_eq!((rec.ts, rec.event), (Some(300), ev));
        }
    }

    #[test]
    fn errors_name_the_problem() {
        let mut scratch = Vec::new();
        // The next frame's bytes are in view but not part of this one.
        let frame = Frames::new(&[3, 4, 1, 0, 2, 5, 0]).next().unwrap();
        let err = decode_frame(&frame, &mut scratch).unwrap_err();
        assert_eq!(err.to_string(), "truncated varint in field isr_id");
        let frame = Frames::new(&[9, 4, 0]).next().unwrap();
        assert_eq!(
            decode_frame(&frame, &mut scratch).unwrap_err().kind(),
            "bad COBS"
        );
    }
}
