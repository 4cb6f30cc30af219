//! The integer field encodings of the wire format: LEB128-style unsigned
//! varints and sign-magnitude signed varints.

/// Longest encoding of a `u32` field.
pub const MAX_U32_LEN: usize = 5;
/// Longest encoding of a `u64` or `s64` field.
pub const MAX_U64_LEN: usize = 10;

/// Why a varint could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarintError {
    /// The frame ended before the last byte of the varint.
    Truncated,
    /// More bytes, or more significant bits, than the field's type allows.
    Overlong,
}

/// Maps a signed value to its sign-magnitude form (`magnitude << 1 | sign`).
/// `i64::MIN`, whose magnitude does not fit, becomes "negative zero" (`1`).
#[inline]
pub const fn to_sign_magnitude(v: i64) -> u64 {
    if v < 0 {
        (v.unsigned_abs() << 1) | 1
    } else {
        (v as u64) << 1
    }
}

/// Inverse of [`to_sign_magnitude`].
#[inline]
pub const fn from_sign_magnitude(u: u64) -> i64 {
    let magnitude = (u >> 1) as i64;
    if u & 1 == 0 {
        magnitude
    } else if magnitude == 0 {
        i64::MIN
    } else {
        -magnitude
    }
}

/// Number of bytes the varint encoding of `v` takes.
#[inline]
pub const fn encoded_len(v: u64) -> usize {
    let bits = 64 - (v | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Reads an unsigned varint of at most `max_len` bytes whose last byte may
/// only use `last_byte_bits` bits, one byte at a time. Returns the value and
/// the bytes consumed. The word-at-a-time readers below fall back to it for
/// long varints and errors.
#[cold]
#[inline(never)]
fn read_bytewise(
    data: &[u8],
    max_len: usize,
    last_byte_bits: u32,
) -> Result<(u64, usize), VarintError> {
    let mut value = 0u64;
    for (i, &b) in data.iter().enumerate().take(max_len) {
        value |= u64::from(b & 0x7F) << (7 * i);
        if b & 0x80 == 0 {
            if i + 1 == max_len && u32::from(b) >> last_byte_bits != 0 {
                return Err(VarintError::Overlong);
            }
            return Ok((value, i + 1));
        }
    }
    if data.len() >= max_len {
        Err(VarintError::Overlong)
    } else {
        Err(VarintError::Truncated)
    }
}

/// The continuation bits of 8 varint bytes loaded as a little-endian word
/// (the top bit of each byte), for a [`JoinGroups`] to mask out.
pub const CONTINUATION_BITS: u64 = 0x8080_8080_8080_8080;

/// The first `min(data.len(), 8)` bytes of `data`, little-endian, zero-extended,
/// loaded without a byte loop.
#[inline(always)]
fn load_le(data: &[u8]) -> u64 {
    let n = data.len();
    if let Some(&word) = data.first_chunk::<8>() {
        return u64::from_le_bytes(word);
    }
    if n >= 4 {
        // Two overlapping 4-byte loads; shared bytes are equal, so OR joins them.
        let (Some(&lo), Some(&hi)) = (data.first_chunk::<4>(), data.last_chunk::<4>()) else {
            return 0;
        };
        return u64::from(u32::from_le_bytes(lo))
            | u64::from(u32::from_le_bytes(hi)) << (8 * (n - 4));
    }
    match data {
        [] => 0,
        [a] => u64::from(*a),
        [a, b] => u64::from(*a) | u64::from(*b) << 8,
        [a, b, c, ..] => u64::from(*a) | u64::from(*b) << 8 | u64::from(*c) << 16,
    }
}

/// How the 7-bit groups of a varint are joined once the continuation bits
/// are known. The readers below are generic over it so that a decoder can
/// be compiled once per way, each inlined into its own loop. This crate
/// has [`Portable`], which runs on any CPU and is all the firmware needs;
/// host crates implement faster ways with instructions of their CPU
/// (`tband-decode` has one for x86-64 with BMI2, and picks the best way
/// the CPU has at run time).
///
/// # Contract
///
/// [`join_groups`](JoinGroups::join_groups) must return what [`Portable`] returns for
/// every `word` and every `stop_bit` that is a continuation bit (7, 15, …,
/// 63), the only ones the readers pass. The readers trust its
/// result as the varint's value: an implementation that differs makes
/// them return wrong values (never undefined behaviour, as the trait is
/// safe and nothing unsafe relies on it). An implementation that needs a
/// CPU feature must make sure the CPU has it, e.g. by only letting code
/// that has checked make a value of it. It should be `#[inline(always)]`
/// and cheap to copy: it is called for every varint of every frame.
pub trait JoinGroups: Copy {
    /// The 7-bit groups of `word` (8 bytes, little-endian) up to bit
    /// `stop_bit` (the clear continuation bit of the varint's last byte),
    /// joined, low group first; the bits above `stop_bit` and the
    /// continuation bits ([`CONTINUATION_BITS`]) are not part of the value.
    fn join_groups(self, word: u64, stop_bit: u32) -> u64;
}

/// Joins the 7-bit groups with masks and shifts (any CPU).
#[derive(Clone, Copy, Debug, Default)]
pub struct Portable;

impl JoinGroups for Portable {
    #[inline(always)]
    fn join_groups(self, word: u64, stop_bit: u32) -> u64 {
        let mut v = word & (u64::MAX >> (63 - stop_bit)) & !CONTINUATION_BITS;
        // 7-bit groups → 14 → 28 → 56 bits.
        v = (v & 0x007F_007F_007F_007F) | ((v & 0x7F00_7F00_7F00_7F00) >> 1);
        v = (v & 0x0000_3FFF_0000_3FFF) | ((v & 0x3FFF_0000_3FFF_0000) >> 2);
        (v & 0x0000_0000_0FFF_FFFF) | ((v & 0x0FFF_FFFF_0000_0000) >> 4)
    }
}

/// The value and length of the varint at the start of `word` (8 bytes,
/// little-endian), or `None` if all 8 bytes have the continuation bit.
#[inline(always)]
fn decode_word<J: JoinGroups>(join: J, word: u64) -> Option<(u64, usize)> {
    let stops = !word & CONTINUATION_BITS;
    if stops == 0 {
        return None;
    }
    let stop_bit = stops.trailing_zeros();
    Some((join.join_groups(word, stop_bit), stop_bit as usize / 8 + 1))
}

/// The varint at the start of `data[..len]` read a word at a time: its value
/// and length if it ends within the first 8 bytes and within `len`, else
/// `None`. Bytes of `data` past `len` do not belong to the field; when
/// there are at least 8 bytes in all, they are loaded with it (and ignored),
/// which saves the partial load at the end of a frame.
#[inline(always)]
fn read_word<J: JoinGroups>(join: J, data: &[u8], len: usize) -> Option<(u64, usize)> {
    let word = match data.first_chunk::<8>() {
        Some(&word) => u64::from_le_bytes(word),
        None => load_le(data),
    };
    // Zero-extension, and bytes past `len`, can make a varint cut by the
    // end of the field's data look terminated, hence the length check.
    decode_word(join, word).filter(|&(_, n)| n <= len)
}

/// The bytes of `data[..len]` (all of `data` if it is shorter).
#[inline(always)]
fn field_bytes(data: &[u8], len: usize) -> &[u8] {
    data.get(..len).unwrap_or(data)
}

/// Reads a `u32` field (at most 5 bytes, the 5th using only its low 4 bits)
/// from `data[..len]`; `data` may go on past `len` (see [`read_u64`]).
#[inline(always)]
pub fn read_u32<J: JoinGroups>(
    join: J,
    data: &[u8],
    len: usize,
) -> Result<(u32, usize), VarintError> {
    match data.first() {
        Some(&b) if b & 0x80 == 0 && len != 0 => return Ok((u32::from(b), 1)),
        _ => {}
    }
    match read_word(join, data, len) {
        Some((v, n)) if n <= MAX_U32_LEN => match u32::try_from(v) {
            Ok(v) => Ok((v, n)),
            Err(_) => Err(VarintError::Overlong),
        },
        _ => read_bytewise(field_bytes(data, len), MAX_U32_LEN, 4).map(|(v, n)| (v as u32, n)),
    }
}

/// Reads a `u64` field (at most 10 bytes, the 10th using only its lowest bit)
/// from `data[..len]`. Returns the value and the bytes consumed. `data` may go
/// on past `len` with bytes that are not part of the field's data (the rest
/// of a stream or a buffer): they are never decoded, but let the common
/// varints be read with one 8-byte load.
///
/// Unlike [`read_u32`], there is no separate path for one-byte values: the
/// common `u64` field is a timestamp, which is rarely that small.
#[inline(always)]
pub fn read_u64<J: JoinGroups>(
    join: J,
    data: &[u8],
    len: usize,
) -> Result<(u64, usize), VarintError> {
    match read_word(join, data, len) {
        Some(found) => Ok(found),
        None => read_bytewise(field_bytes(data, len), MAX_U64_LEN, 1),
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;

    fn encode(mut v: u64) -> ([u8; MAX_U64_LEN], usize) {
        let mut out = [0u8; MAX_U64_LEN];
        let mut n = 0;
        loop {
            let low = (v & 0x7F) as u8;
            v >>= 7;
            if v == 0 {
                out[n] = low;
                return (out, n + 1);
            }
            out[n] = low | 0x80;
            n += 1;
        }
    }

    #[test]
    fn u32_limits() {
        u32_limits_with(Portable);
    }

    /// The limits of `read_u32` with `w` (`tband-decode` checks that its
    /// own [`JoinGroups`] reads every boundary as `Portable` does).
    fn u32_limits_with<J: JoinGroups>(w: J) {
        let whole = |data: &[u8]| read_u32(w, data, data.len());
        assert_eq!(whole(&[0x00]), Ok((0, 1)));
        assert_eq!(whole(&[0x7F]), Ok((127, 1)));
        assert_eq!(whole(&[0x80, 0x01]), Ok((128, 2)));
        assert_eq!(whole(&[0xFF, 0xFF, 0xFF, 0xFF, 0x0F]), Ok((u32::MAX, 5)));
        assert_eq!(
            whole(&[0xFF, 0xFF, 0xFF, 0xFF, 0x1F]),
            Err(VarintError::Overlong)
        );
        assert_eq!(
            whole(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00]),
            Err(VarintError::Overlong)
        );
        assert_eq!(whole(&[0x80, 0x80]), Err(VarintError::Truncated));
        assert_eq!(whole(&[]), Err(VarintError::Truncated));
        // Bytes past the field's data are not read as part of it.
        assert_eq!(read_u32(w, &[0x05, 0x01], 0), Err(VarintError::Truncated));
        assert_eq!(
            read_u32(w, &[0x85, 0x01, 0, 0, 0, 0, 0, 0], 1),
            Err(VarintError::Truncated)
        );
    }

    #[test]
    fn u64_limits() {
        u64_limits_with(Portable);
    }

    fn u64_limits_with<J: JoinGroups>(w: J) {
        let (buf, n) = encode(u64::MAX);
        assert_eq!(n, 10);
        assert_eq!(buf[9], 0x01);
        assert_eq!(read_u64(w, &buf[..n], n), Ok((u64::MAX, 10)));
        let mut bad = buf;
        bad[9] = 0x02;
        assert_eq!(read_u64(w, &bad, 10), Err(VarintError::Overlong));
        assert_eq!(read_u64(w, &buf[..9], 9), Err(VarintError::Truncated));
        assert_eq!(read_u64(w, &buf, 9), Err(VarintError::Truncated));
    }

    #[test]
    fn encoded_len_matches_encoding() {
        for v in [
            0,
            1,
            127,
            128,
            16383,
            16384,
            u32::MAX as u64,
            1 << 56,
            u64::MAX,
        ] {
            assert_eq!(encoded_len(v), encode(v).1, "{v}");
        }
    }

    proptest::proptest! {
        #[test]
        /// Reading `data[..len]` from all of `data` (with the bytes after
        /// it in view) or from just those bytes gives what the byte loop gives.
        fn word_readers_agree_with_bytewise(data in proptest::collection::vec(
            proptest::prop_oneof![proptest::num::u8::ANY, 0x80u8..=0xFF], 0..13)
        ) {
            agree_with_bytewise(Portable, &data)?;
        }
    }

    fn agree_with_bytewise<J: JoinGroups>(
        w: J,
        data: &[u8],
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        for len in 0..=data.len() {
            let d = &data[..len];
            let u32_ref = read_bytewise(d, MAX_U32_LEN, 4).map(|(v, n)| (v as u32, n));
            let u64_ref = read_bytewise(d, MAX_U64_LEN, 1);
            proptest::prop_assert_eq!(read_u32(w, d, len), u32_ref);
            proptest::prop_assert_eq!(read_u32(w, data, len), u32_ref);
            proptest::prop_assert_eq!(read_u64(w, d, len), u64_ref);
            proptest::prop_assert_eq!(read_u64(w, data, len), u64_ref);
        }
        Ok(())
    }

    #[test]
    fn sign_magnitude() {
        assert_eq!(to_sign_magnitude(0), 0);
        assert_eq!(to_sign_magnitude(-1), 3);
        assert_eq!(to_sign_magnitude(1), 2);
        assert_eq!(to_sign_magnitude(i64::MIN), 1);
        assert_eq!(to_sign_magnitude(i64::MAX), u64::MAX - 1);
        for v in [0, 1, -1, 63, -64, i64::MIN, i64::MIN + 1, i64::MAX] {
            assert_eq!(from_sign_magnitude(to_sign_magnitude(v)), v);
        }
    }
}
