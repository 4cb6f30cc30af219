//! SystemView's encodings: unsigned integers in groups of 7 bits, least
//! significant first, the top bit of a byte saying that another follows
//! (its "U32 encoding"); strings as a length byte, or 255 and a big-endian
//! 16-bit length, then the bytes.

/// The bytes ended inside a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooShort;

/// Reads values from `bytes` from a position on.
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// A U32 takes at most 5 bytes.
const MAX_U32_BYTES: usize = 5;
/// The length byte that says a 16-bit length follows.
const LONG_STRING: u8 = 255;

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8], pos: usize) -> Reader<'a> {
        Reader { bytes, pos }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    pub fn skip_to(&mut self, pos: usize) -> Result<(), TooShort> {
        if pos > self.bytes.len() {
            return Err(TooShort);
        }
        self.pos = pos;
        Ok(())
    }

    fn byte(&mut self) -> Result<u8, TooShort> {
        let b = *self.bytes.get(self.pos).ok_or(TooShort)?;
        self.pos += 1;
        Ok(b)
    }

    /// A U32; bits beyond 32 in a fifth byte are dropped, as the target
    /// never writes them.
    pub fn u32(&mut self) -> Result<u32, TooShort> {
        let mut value = 0u32;
        for i in 0..MAX_U32_BYTES {
            let b = self.byte()?;
            value |= u32::from(b & 0x7f).wrapping_shl(7 * i as u32);
            if b & 0x80 == 0 {
                break;
            }
        }
        Ok(value)
    }

    /// A U32, or 0 where the payload has already ended (a value older
    /// recorders do not send).
    pub fn u32_or_zero(&mut self) -> Result<u32, TooShort> {
        if self.at_end() {
            Ok(0)
        } else {
            self.u32()
        }
    }

    pub fn string(&mut self) -> Result<&'a [u8], TooShort> {
        let mut len = usize::from(self.byte()?);
        if len == usize::from(LONG_STRING) {
            len = usize::from(self.byte()?) << 8 | usize::from(self.byte()?);
        }
        let end = self.pos.checked_add(len).ok_or(TooShort)?;
        let text = self.bytes.get(self.pos..end).ok_or(TooShort)?;
        self.pos = end;
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_of_every_length() {
        let bytes = [
            0x05, 0x80, 0x01, 0xc0, 0xf0, 0xf5, 0x0b, 0xff, 0xff, 0xff, 0xff, 0x0f,
        ];
        let mut r = Reader::new(&bytes, 0);
        assert_eq!(r.u32(), Ok(5));
        assert_eq!(r.u32(), Ok(128));
        assert_eq!(r.u32(), Ok(25_000_000));
        assert_eq!(r.u32(), Ok(u32::MAX));
        assert!(r.at_end());
        assert_eq!(r.u32(), Err(TooShort));
    }

    #[test]
    fn short_and_long_strings() {
        let mut bytes = vec![2, b'o', b'k', LONG_STRING, 0x01, 0x00];
        bytes.extend([b'x'; 256]);
        let mut r = Reader::new(&bytes, 0);
        assert_eq!(r.string(), Ok(&b"ok"[..]));
        assert_eq!(r.string().map(<[u8]>::len), Ok(256));
        assert_eq!(Reader::new(&[3, b'a'], 0).string(), Err(TooShort));
    }
}
