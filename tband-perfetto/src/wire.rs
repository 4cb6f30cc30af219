//! Protobuf wire encoding written straight into a byte buffer, for the
//! packets written millions of times (track events, scheduling bundles),
//! where building a message first would cost more than encoding it.
//!
//! Callers write fields in field-number order, as the generated messages
//! do, so that a hand-encoded packet has the same bytes as the message
//! `prost` would encode (the tests of each encoder compare them).

/// Wire type of varint fields.
const VARINT: u32 = 0;
/// Wire type of length-delimited fields (strings, messages, packed arrays).
const LEN: u32 = 2;

pub fn varint(buf: &mut Vec<u8>, v: u64) {
    let (bytes, len) = varint_bytes(v);
    buf.extend_from_slice(&bytes[..len]);
}

/// The varint encoding of `v` and its length.
fn varint_bytes(mut v: u64) -> ([u8; 10], usize) {
    let mut bytes = [0u8; 10];
    let mut len = 0;
    while v >= 0x80 {
        bytes[len] = v as u8 | 0x80;
        v >>= 7;
        len += 1;
    }
    bytes[len] = v as u8;
    (bytes, len + 1)
}

fn key(buf: &mut Vec<u8>, field: u32, wire_type: u32) {
    varint(buf, u64::from(field << 3 | wire_type));
}

/// An unsigned integer, bool or enum field.
pub fn uint(buf: &mut Vec<u8>, field: u32, v: u64) {
    key(buf, field, VARINT);
    varint(buf, v);
}

/// A signed (`int32` / `int64`) field: negative values take ten bytes, as
/// protobuf sign-extends them.
pub fn int(buf: &mut Vec<u8>, field: u32, v: i64) {
    uint(buf, field, v as u64);
}

/// A string or bytes field, or a packed array already encoded.
pub fn bytes(buf: &mut Vec<u8>, field: u32, v: &[u8]) {
    len_prefix(buf, field, v.len());
    buf.extend_from_slice(v);
}

/// The start of a length-delimited field of `len` bytes.
pub fn len_prefix(buf: &mut Vec<u8>, field: u32, len: usize) {
    key(buf, field, LEN);
    varint(buf, len as u64);
}

/// A length-delimited field being written; [`end`] fills in its length.
#[must_use]
pub struct Nested(usize);

/// Starts a message field. One byte is kept for the length, which is enough
/// for messages under 128 bytes; longer ones are moved up when they end.
pub fn begin(buf: &mut Vec<u8>, field: u32) -> Nested {
    key(buf, field, LEN);
    buf.push(0);
    Nested(buf.len())
}

pub fn end(buf: &mut Vec<u8>, nested: Nested) {
    let start = nested.0;
    let len = buf.len() - start;
    if len < 0x80 {
        buf[start - 1] = len as u8;
    } else {
        let (prefix, prefix_len) = varint_bytes(len as u64);
        buf.splice(start - 1..start, prefix[..prefix_len].iter().copied());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protos::{DebugAnnotation, EventName, InternedData};
    use prost::Message;

    #[test]
    fn fields_match_the_generated_encoding() {
        let mut buf = Vec::new();
        uint(&mut buf, 1, 300);
        int(&mut buf, 4, -2);
        bytes(&mut buf, 6, b"text");
        let expected = DebugAnnotation {
            name_iid: Some(300),
            int_value: Some(-2),
            string_value: Some("text".into()),
            ..Default::default()
        };
        assert_eq!(buf, expected.encode_to_vec());
    }

    #[test]
    fn nested_messages_of_any_length_get_their_length() {
        for name_len in [0, 1, 120, 127, 128, 300, 20_000] {
            let name = "n".repeat(name_len);
            let mut buf = Vec::new();
            let outer = begin(&mut buf, 2);
            uint(&mut buf, 1, 7);
            bytes(&mut buf, 2, name.as_bytes());
            end(&mut buf, outer);
            let expected = InternedData {
                event_names: vec![EventName {
                    iid: Some(7),
                    name: Some(name),
                }],
                ..Default::default()
            };
            assert_eq!(buf, expected.encode_to_vec(), "name of {name_len} bytes");
        }
    }
}
