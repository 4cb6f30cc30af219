//! Protobuf wire encoding written straight into a byte buffer, for the
//! packets written millions of times (track events, scheduling bundles),
//! where building a message first would cost more than encoding it.
//!
//! An [`Encoder`] writes into a slice that [`Buffer::encode`] made large
//! enough beforehand, so that a field costs one bounds check and its stores
//! rather than a `Vec::push` per byte. A [`Short`] writes a message known to
//! take at most [`SHORT_MAX`] bytes (a track-event packet) into a fixed
//! window, where every length takes one byte and no store needs a check.
//! Callers write fields in field-number order, as the generated messages do,
//! so that a hand-encoded packet has the same bytes as the message `prost`
//! would encode (the tests of each encoder compare them).

use prost::Message;

/// Wire type of varint fields.
const VARINT: u32 = 0;
/// Wire type of length-delimited fields (strings, messages, packed arrays).
const LEN: u32 = 2;

/// Bytes a field takes at most besides its string or message contents: a
/// key and a length (or value) varint.
pub const FIELD_MAX: usize = 16;

/// Bytes a varint takes at most.
pub const VARINT_MAX: usize = 10;

/// Bytes the fields of a [`Short`] message may take: its length, and those
/// of the messages nested in it, fit one byte.
pub const SHORT_MAX: usize = 127;

/// The window a [`Short`] message is written into. A message (its key,
/// length and fields) starts at the window's start and takes less than half
/// of it, so a position can be masked to the first half rather than checked,
/// and a run of up to half the window's size stored there needs no check.
const SHORT_WINDOW: usize = 512;
const SHORT_POSITIONS: usize = SHORT_WINDOW / 2;

/// Growable bytes that [`Encoder`]s write into. The vector is kept zero
/// filled to its full size; `len` says how much of it is encoded.
#[derive(Default)]
pub struct Buffer {
    bytes: Vec<u8>,
    len: usize,
}

impl Buffer {
    pub fn with_capacity(capacity: usize) -> Self {
        Buffer {
            bytes: vec![0; capacity],
            len: 0,
        }
    }

    /// Appends what `encode` writes, which must be at most `max_len` bytes.
    #[inline]
    pub fn encode(&mut self, max_len: usize, encode: impl FnOnce(&mut Encoder<'_>)) {
        let end = self.len + max_len;
        if end > self.bytes.len() {
            self.bytes.resize(end.max(2 * self.bytes.len()), 0);
        }
        let mut encoder = Encoder {
            buf: &mut self.bytes[self.len..end],
            pos: 0,
        };
        encode(&mut encoder);
        self.len += encoder.pos;
    }

    /// Appends a message field that `encode` writes, whose fields take at
    /// most [`SHORT_MAX`] bytes.
    #[inline]
    pub fn encode_short(&mut self, field: u32, encode: impl FnOnce(&mut Short<'_>)) {
        let end = self.len + SHORT_WINDOW;
        if end > self.bytes.len() {
            self.bytes.resize(end.max(2 * self.bytes.len()), 0);
        }
        let window = (&mut self.bytes[self.len..end])
            .try_into()
            .expect("a slice of SHORT_WINDOW bytes");
        let mut short = Short { window, pos: 0 };
        let message = short.begin(field);
        encode(&mut short);
        short.end(message);
        debug_assert!(
            short.pos <= 2 + SHORT_MAX,
            "a short message of {} bytes",
            short.pos
        );
        self.len += short.pos;
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }
}

/// Writes protobuf fields in the order they are called for.
pub trait Fields {
    /// An unsigned integer, bool or enum field.
    fn uint(&mut self, field: u32, v: u64);

    /// A string or bytes field, or a packed array already encoded.
    fn bytes(&mut self, field: u32, v: &[u8]);

    /// Starts a message field; [`Fields::end`] fills in its length.
    fn begin(&mut self, field: u32) -> Nested;

    fn end(&mut self, nested: Nested);

    /// A signed (`int32` / `int64`) field: negative values take ten bytes, as
    /// protobuf sign-extends them.
    #[inline]
    fn int(&mut self, field: u32, v: i64) {
        self.uint(field, v as u64);
    }
}

/// The key of a field.
#[inline(always)]
fn key(field: u32, wire_type: u32) -> u64 {
    u64::from(field << 3 | wire_type)
}

/// Writes `v` as a varint, a byte at a time through `put`.
#[inline(always)]
fn write_varint(mut v: u64, mut put: impl FnMut(u8)) {
    while v >= 0x80 {
        put(v as u8 | 0x80);
        v >>= 7;
    }
    put(v as u8);
}

/// Writes the fields of a message of at most [`SHORT_MAX`] bytes into a
/// fixed window (see [`Buffer::encode_short`]).
pub struct Short<'a> {
    window: &'a mut [u8; SHORT_WINDOW],
    pos: usize,
}

impl Short<'_> {
    /// Stores `N` bytes. The position is taken modulo the first half of the
    /// window, which costs no check (a message within its bound never
    /// wraps), and adjacent constant bytes become one store.
    #[inline(always)]
    fn put<const N: usize>(&mut self, bytes: [u8; N]) {
        const { assert!(N <= SHORT_POSITIONS) };
        let at = self.pos % SHORT_POSITIONS;
        self.window[at..at + N].copy_from_slice(&bytes);
        self.pos += N;
    }

    #[inline(always)]
    fn varint(&mut self, v: u64) {
        write_varint(v, |b| self.put([b]));
    }

    /// A key and a varint, in one store when both take a byte (as the key
    /// of a field below 16 and most values do).
    #[inline(always)]
    fn key_and(&mut self, field: u32, wire_type: u32, v: u64) {
        let key = key(field, wire_type);
        if key < 0x80 && v < 0x80 {
            self.put([key as u8, v as u8]);
        } else {
            self.varint(key);
            self.varint(v);
        }
    }
}

impl Fields for Short<'_> {
    #[inline(always)]
    fn uint(&mut self, field: u32, v: u64) {
        self.key_and(field, VARINT, v);
    }

    #[inline]
    fn bytes(&mut self, field: u32, v: &[u8]) {
        self.key_and(field, LEN, v.len() as u64);
        // Copied at once: from a position in the window's first half, a
        // string within the message's bound (or cut to half the window)
        // fits.
        let at = self.pos % SHORT_POSITIONS;
        let n = v.len().min(SHORT_POSITIONS);
        self.window[at..at + n].copy_from_slice(&v[..n]);
        self.pos += v.len();
    }

    #[inline(always)]
    fn begin(&mut self, field: u32) -> Nested {
        self.key_and(field, LEN, 0);
        Nested(self.pos)
    }

    #[inline(always)]
    fn end(&mut self, nested: Nested) {
        self.window[(nested.0 - 1) % SHORT_POSITIONS] = (self.pos - nested.0) as u8;
    }
}

/// Writes protobuf fields into a slice that is large enough for them.
pub struct Encoder<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

/// A length-delimited field being written; [`Encoder::end`] fills in its length.
#[must_use]
pub struct Nested(usize);

impl Encoder<'_> {
    /// The next [`FIELD_MAX`] bytes, which the slice has room for as every
    /// field counts that many towards the length reserved.
    #[inline]
    fn field_bytes(&mut self) -> &mut [u8; FIELD_MAX] {
        let pos = self.pos;
        (&mut self.buf[pos..pos + FIELD_MAX])
            .try_into()
            .expect("a slice of FIELD_MAX bytes")
    }

    /// A key and a varint (a value or a length).
    #[inline]
    fn key_and(&mut self, field: u32, wire_type: u32, v: u64) {
        let bytes = self.field_bytes();
        let mut len = 0;
        let mut put = |b| {
            bytes[len] = b;
            len += 1;
        };
        write_varint(key(field, wire_type), &mut put);
        write_varint(v, &mut put);
        self.pos += len;
    }

    /// Bytes already encoded (whole fields).
    #[inline]
    pub fn raw(&mut self, v: &[u8]) {
        self.buf[self.pos..self.pos + v.len()].copy_from_slice(v);
        self.pos += v.len();
    }

    /// A message field encoded by `prost` (it takes `message.encoded_len()`
    /// bytes besides the field's key and length).
    pub fn message(&mut self, field: u32, message: &impl Message) {
        self.len_prefix(field, message.encoded_len());
        self.fields_of(message);
    }

    /// The fields of a message encoded by `prost` (`message.encoded_len()` bytes).
    pub fn fields_of(&mut self, message: &impl Message) {
        let len = message.encoded_len();
        let mut rest = &mut self.buf[self.pos..];
        message.encode_raw(&mut rest);
        self.pos += len;
    }

    #[inline]
    fn len_prefix(&mut self, field: u32, len: usize) {
        self.key_and(field, LEN, len as u64);
    }

    #[cold]
    fn end_long(&mut self, start: usize, len: usize) {
        let mut prefix = [0; VARINT_MAX];
        let mut extra = 0;
        write_varint(len as u64, |b| {
            prefix[extra] = b;
            extra += 1;
        });
        let extra = extra - 1;
        self.buf.copy_within(start..self.pos, start + extra);
        self.buf[start - 1..start + extra].copy_from_slice(&prefix[..=extra]);
        self.pos += extra;
    }
}

impl Fields for Encoder<'_> {
    #[inline]
    fn uint(&mut self, field: u32, v: u64) {
        self.key_and(field, VARINT, v);
    }

    #[inline]
    fn bytes(&mut self, field: u32, v: &[u8]) {
        self.len_prefix(field, v.len());
        self.raw(v);
    }

    /// One byte is kept for the length, which is enough for messages under
    /// 128 bytes; longer ones are moved up when they end (so the slice needs
    /// [`FIELD_MAX`] bytes per message).
    #[inline]
    fn begin(&mut self, field: u32) -> Nested {
        self.len_prefix(field, 0);
        Nested(self.pos)
    }

    #[inline]
    fn end(&mut self, nested: Nested) {
        let start = nested.0;
        let len = self.pos - start;
        if len < 0x80 {
            self.buf[start - 1] = len as u8;
        } else {
            self.end_long(start, len);
        }
    }
}

/// Values a [`PackedArray`] holds at most.
pub const PACKED_VALUES: usize = 4096;

/// Room kept for a [`PackedArray`]: more than its values can take, and a
/// power of two, so that a position masked to it needs no check.
const PACKED_ROOM: usize = 1 << 16;

/// A packed array of varints being built, of at most [`PACKED_VALUES`]
/// values. Room for all of them is kept, so a byte costs a store.
pub struct PackedArray {
    bytes: Box<[u8; PACKED_ROOM]>,
    len: usize,
}

impl Default for PackedArray {
    fn default() -> Self {
        PackedArray {
            bytes: vec![0; PACKED_ROOM]
                .into_boxed_slice()
                .try_into()
                .expect("a slice of PACKED_ROOM bytes"),
            len: 0,
        }
    }
}

impl PackedArray {
    #[inline]
    pub fn push(&mut self, v: u64) {
        write_varint(v, |b| {
            self.bytes[self.len % PACKED_ROOM] = b;
            self.len += 1;
        });
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len.min(PACKED_ROOM)]
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protos::{DebugAnnotation, EventName, InternedData};

    #[test]
    fn fields_match_the_generated_encoding() {
        let mut buf = Buffer::default();
        buf.encode(3 * FIELD_MAX + 4, |e| {
            e.uint(1, 300);
            e.int(4, -2);
            e.bytes(6, b"text");
        });
        let expected = DebugAnnotation {
            name_iid: Some(300),
            int_value: Some(-2),
            string_value: Some("text".into()),
            ..Default::default()
        };
        assert_eq!(buf.as_slice(), expected.encode_to_vec());
        let mut again = Buffer::default();
        again.encode(expected.encoded_len() + FIELD_MAX, |e| {
            e.message(3, &expected)
        });
        let mut prefixed = vec![3 << 3 | LEN as u8, buf.len() as u8];
        prefixed.extend_from_slice(buf.as_slice());
        assert_eq!(again.as_slice(), prefixed);
    }

    #[test]
    fn nested_messages_of_any_length_get_their_length() {
        for name_len in [0, 1, 120, 127, 128, 300, 20_000] {
            let name = "n".repeat(name_len);
            let mut buf = Buffer::with_capacity(1);
            buf.encode(name_len + 3 * FIELD_MAX, |e| {
                let outer = e.begin(2);
                e.uint(1, 7);
                e.bytes(2, name.as_bytes());
                e.end(outer);
            });
            let expected = InternedData {
                event_names: vec![EventName {
                    iid: Some(7),
                    name: Some(name),
                }],
                ..Default::default()
            };
            assert_eq!(
                buf.as_slice(),
                expected.encode_to_vec(),
                "name of {name_len} bytes"
            );
        }
    }
}
