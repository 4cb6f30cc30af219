//! Decodes a CTF event stream (events back to back, no packet framing) with the layout from
//! the metadata. Field values borrow strings from the stream; the caller supplies the vector
//! they are written into, so decoding allocates nothing per event for scalar and string fields.

use std::fmt;

use super::types::{ByteOrder, EventClass, IntegerType, Metadata, StructType, Type};

/// One decoded field value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value<'a> {
    Unsigned(u64),
    Signed(i64),
    /// Text up to the first NUL: a NUL-terminated string, or an array/sequence of characters.
    String(&'a [u8]),
    Enum {
        value: i128,
        label: Option<&'a str>,
    },
    Array(Vec<Value<'a>>),
    Struct(Vec<(&'a str, Value<'a>)>),
}

impl Value<'_> {
    /// The value of an integer or enum field, if it fits in a `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::Unsigned(v) => Some(v),
            Value::Signed(v) => u64::try_from(v).ok(),
            Value::Enum { value, .. } => u64::try_from(value).ok(),
            _ => None,
        }
    }

    /// The value of an integer or enum field, if it fits in an `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Unsigned(v) => i64::try_from(v).ok(),
            Value::Signed(v) => Some(v),
            Value::Enum { value, .. } => i64::try_from(value).ok(),
            _ => None,
        }
    }

    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::String(bytes) => Some(bytes),
            _ => None,
        }
    }
}

/// babeltrace-style text: integers in decimal, strings quoted, `[ [0] = .. ]`, `{ a = .. }`.
impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Unsigned(v) => write!(f, "{v}"),
            Value::Signed(v) => write!(f, "{v}"),
            Value::String(bytes) => write_quoted(f, bytes),
            Value::Enum { value, label } => match label {
                Some(label) => write!(f, "( \"{label}\" : container = {value} )"),
                None => write!(f, "( <unknown> : container = {value} )"),
            },
            Value::Array(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    let sep = if i == 0 { " " } else { ", " };
                    write!(f, "{sep}[{i}] = {item}")?;
                }
                f.write_str(" ]")
            }
            Value::Struct(members) => {
                let pairs = members.iter().map(|(name, value)| (*name, value));
                write_members(f, pairs)
            }
        }
    }
}

fn write_quoted(f: &mut fmt::Formatter<'_>, bytes: &[u8]) -> fmt::Result {
    f.write_str("\"")?;
    for c in String::from_utf8_lossy(bytes).chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            c if c.is_control() => write!(f, "\\x{:02x}", u32::from(c))?,
            c => write!(f, "{c}")?,
        }
    }
    f.write_str("\"")
}

fn write_members<'v>(
    f: &mut fmt::Formatter<'_>,
    members: impl Iterator<Item = (&'v str, &'v Value<'v>)>,
) -> fmt::Result {
    f.write_str("{")?;
    for (i, (name, value)) in members.enumerate() {
        let sep = if i == 0 { " " } else { ", " };
        write!(f, "{sep}{name} = {value}")?;
    }
    f.write_str(" }")
}

/// An event's payload as babeltrace prints it: `{ a = 1, b = "x" }`, or nothing without fields.
pub struct FieldsDisplay<'v> {
    pub class: &'v EventClass,
    pub values: &'v [Value<'v>],
}

impl fmt::Display for FieldsDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.class.fields.fields.is_empty() {
            return Ok(());
        }
        let names = self
            .class
            .fields
            .fields
            .iter()
            .map(|field| field.name.as_str());
        write_members(f, names.zip(self.values.iter()))
    }
}

/// A decoded event header; the payload went into the caller's vector.
#[derive(Debug, Clone, Copy)]
pub struct EventRecord<'a> {
    /// Byte offset of the event in its stream file.
    pub offset: u64,
    /// Clock value in cycles, unwrapped across overflows of the header's timestamp field.
    pub cycles: u64,
    /// `cycles` converted to nanoseconds from the clock's origin.
    pub ns: i64,
    pub class: &'a EventClass,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// An event id the metadata does not declare: its size is unknown, so decoding stops.
    UnknownEventId,
    /// The stream ends inside an event.
    TruncatedEvent,
}

impl ProblemKind {
    pub fn name(self) -> &'static str {
        match self {
            ProblemKind::UnknownEventId => "unknown_event_id",
            ProblemKind::TruncatedEvent => "truncated_event",
        }
    }
}

/// Damage found in a stream; decoding of that stream stops after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub kind: ProblemKind,
    /// Byte offset of the damaged event in its stream file.
    pub offset: u64,
    pub detail: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at byte {}: {}",
            self.kind.name(),
            self.offset,
            self.detail
        )
    }
}

/// Why a read failed: the data ran out (the only way a stream decode can fail).
struct OutOfData;

/// Reads events one after another from a stream file.
pub struct StreamDecoder<'a> {
    meta: &'a Metadata,
    data: &'a [u8],
    pos: usize,
    /// Unwrapped clock in cycles.
    clock: u64,
    /// Bits of the header timestamp field (64 or more: never wraps).
    timestamp_bits: u32,
    header: Vec<Value<'a>>,
    finished: bool,
}

impl<'a> StreamDecoder<'a> {
    pub fn new(meta: &'a Metadata, data: &'a [u8]) -> Self {
        let timestamp_bits = meta
            .header_timestamp_field
            .and_then(|i| match &meta.event_header.fields[i].ty {
                Type::Integer(int) => Some(int.bits()),
                _ => None,
            })
            .unwrap_or(64);
        StreamDecoder {
            meta,
            data,
            pos: 0,
            clock: 0,
            timestamp_bits,
            header: Vec::with_capacity(meta.event_header.fields.len()),
            finished: false,
        }
    }

    /// Byte offset of the next event.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Decodes the next event, writing its payload (one value per declared field) into `fields`.
    /// Returns `None` at the end of the stream; after a problem the stream is finished.
    pub fn next_event(
        &mut self,
        fields: &mut Vec<Value<'a>>,
    ) -> Option<Result<EventRecord<'a>, Problem>> {
        if self.finished || self.pos >= self.data.len() {
            return None;
        }
        let start = self.pos;
        let result = self.decode_event(start, fields);
        if result.is_err() {
            self.finished = true;
        }
        Some(result)
    }

    fn decode_event(
        &mut self,
        start: usize,
        fields: &mut Vec<Value<'a>>,
    ) -> Result<EventRecord<'a>, Problem> {
        let meta = self.meta;
        let truncated = |detail: String| Problem {
            kind: ProblemKind::TruncatedEvent,
            offset: start as u64,
            detail,
        };
        self.header.clear();
        let mut pos = start;
        let mut header = std::mem::take(&mut self.header);
        let decoded = decode_struct(self.data, &mut pos, &meta.event_header, &mut header);
        self.header = header;
        if decoded.is_err() {
            let left = self.data.len() - start;
            return Err(truncated(format!(
                "the stream ends inside an event header ({left} bytes left)"
            )));
        }
        let id = self.header[meta.header_id_field].as_u64();
        let Some(class) = id.and_then(|id| meta.event_class(id)) else {
            let shown = id.map_or_else(|| "negative".to_owned(), |id| format!("{id:#x}"));
            let left = self.data.len() - start;
            return Err(Problem {
                kind: ProblemKind::UnknownEventId,
                offset: start as u64,
                detail: format!(
                    "event id {shown} is not declared in the metadata, so the remaining {left} bytes cannot be decoded"
                ),
            });
        };
        if let Some(i) = meta.header_timestamp_field {
            if let Some(raw) = self.header[i].as_u64() {
                self.advance_clock(raw);
            }
        }
        fields.clear();
        if decode_struct(self.data, &mut pos, &class.fields, fields).is_err() {
            return Err(truncated(format!(
                "the stream ends inside event `{}` (id {:#x})",
                class.name, class.id
            )));
        }
        self.pos = pos;
        Ok(EventRecord {
            offset: start as u64,
            cycles: self.clock,
            ns: meta.clock.to_ns(self.clock),
            class,
        })
    }

    /// The header timestamp holds the low bits of the clock: a value below the current low bits
    /// means the field wrapped.
    fn advance_clock(&mut self, raw: u64) {
        if self.timestamp_bits >= 64 {
            self.clock = raw;
            return;
        }
        let span = 1u64 << self.timestamp_bits;
        let low_mask = span - 1;
        let mut high = self.clock & !low_mask;
        if raw < self.clock & low_mask {
            high = high.wrapping_add(span);
        }
        self.clock = high | (raw & low_mask);
    }
}

/// Appends one value per field of `ty` to `out`.
fn decode_struct<'a>(
    data: &'a [u8],
    pos: &mut usize,
    ty: &'a StructType,
    out: &mut Vec<Value<'a>>,
) -> Result<(), OutOfData> {
    align(data, pos, ty.align_bytes)?;
    let base = out.len();
    for field in &ty.fields {
        let value = match &field.ty {
            Type::Sequence {
                element,
                length_field,
            } => {
                let length = out
                    .get(base + length_field)
                    .and_then(Value::as_u64)
                    .ok_or(OutOfData)?;
                decode_run(data, pos, element, length)?
            }
            other => decode_value(data, pos, other)?,
        };
        out.push(value);
    }
    Ok(())
}

fn decode_value<'a>(data: &'a [u8], pos: &mut usize, ty: &'a Type) -> Result<Value<'a>, OutOfData> {
    match ty {
        Type::Integer(int) => {
            let raw = read_integer(data, pos, int)?;
            Ok(if int.signed {
                Value::Signed(sign_extend(raw, int))
            } else {
                Value::Unsigned(raw)
            })
        }
        Type::Enum(e) => {
            let raw = read_integer(data, pos, &e.container)?;
            let value = if e.container.signed {
                i128::from(sign_extend(raw, &e.container))
            } else {
                i128::from(raw)
            };
            Ok(Value::Enum {
                value,
                label: e.label_of(value),
            })
        }
        Type::String => {
            let rest = data.get(*pos..).ok_or(OutOfData)?;
            let len = memchr::memchr(0, rest).ok_or(OutOfData)?;
            *pos += len + 1;
            Ok(Value::String(&rest[..len]))
        }
        Type::Array { element, length } => decode_run(data, pos, element, *length as u64),
        Type::Sequence { .. } => Err(OutOfData),
        Type::Struct(s) => {
            let mut values = Vec::with_capacity(s.fields.len());
            decode_struct(data, pos, s, &mut values)?;
            let names = s.fields.iter().map(|f| f.name.as_str());
            Ok(Value::Struct(names.zip(values).collect()))
        }
    }
}

/// `length` elements of `element`: text for character elements, a list otherwise.
fn decode_run<'a>(
    data: &'a [u8],
    pos: &mut usize,
    element: &'a Type,
    length: u64,
) -> Result<Value<'a>, OutOfData> {
    let remaining = data.len().saturating_sub(*pos) as u64;
    if length > remaining && !matches!(element, Type::Struct(s) if s.fields.is_empty()) {
        return Err(OutOfData);
    }
    let length = usize::try_from(length).map_err(|_| OutOfData)?;
    if let Type::Integer(int) = element {
        if int.is_char() {
            align(data, pos, int.align_bytes)?;
            let end = pos.checked_add(length).ok_or(OutOfData)?;
            let bytes = data.get(*pos..end).ok_or(OutOfData)?;
            *pos = end;
            let text_len = memchr::memchr(0, bytes).unwrap_or(bytes.len());
            return Ok(Value::String(&bytes[..text_len]));
        }
    }
    let mut items = Vec::with_capacity(length.min(1024));
    for _ in 0..length {
        items.push(decode_value(data, pos, element)?);
    }
    Ok(Value::Array(items))
}

fn read_integer(data: &[u8], pos: &mut usize, int: &IntegerType) -> Result<u64, OutOfData> {
    align(data, pos, int.align_bytes)?;
    let end = pos.checked_add(int.size_bytes).ok_or(OutOfData)?;
    let bytes = data.get(*pos..end).ok_or(OutOfData)?;
    *pos = end;
    Ok(match (int.byte_order, bytes) {
        (_, &[b]) => u64::from(b),
        (Some(ByteOrder::Big), _) => bytes.iter().fold(0, |acc, &b| (acc << 8) | u64::from(b)),
        (_, &[a, b, c, d]) => u64::from(u32::from_le_bytes([a, b, c, d])),
        (_, _) => bytes
            .iter()
            .rev()
            .fold(0, |acc, &b| (acc << 8) | u64::from(b)),
    })
}

fn sign_extend(raw: u64, int: &IntegerType) -> i64 {
    let unused = 64 - int.bits();
    ((raw << unused) as i64) >> unused
}

fn align(data: &[u8], pos: &mut usize, align_bytes: usize) -> Result<(), OutOfData> {
    if align_bytes > 1 {
        let aligned = pos
            .checked_next_multiple_of(align_bytes)
            .filter(|&p| p <= data.len())
            .ok_or(OutOfData)?;
        *pos = aligned;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctf::parse_metadata;

    fn decode_all<'a>(
        meta: &'a Metadata,
        data: &'a [u8],
    ) -> Vec<Result<(EventRecord<'a>, Vec<Value<'a>>), Problem>> {
        let mut decoder = StreamDecoder::new(meta, data);
        let mut values = Vec::new();
        let mut out = Vec::new();
        while let Some(next) = decoder.next_event(&mut values) {
            out.push(next.map(|record| (record, values.clone())));
        }
        out
    }

    #[test]
    fn unwraps_a_narrow_timestamp_and_converts_cycles_with_the_clock() {
        let meta = parse_metadata(
            "/* CTF 1.8 */
            typealias integer { size = 8; } := u8;
            clock { name = c; freq = 1000; };
            trace { byte_order = le; };
            stream { event.header := struct { integer { size = 8; map = clock.c.value; } timestamp; u8 id; }; };
            event { name = tick; id = 7; };",
        )
        .unwrap();
        let data = [250, 7, 5, 7, 5, 7, 4, 7, 255, 7];
        let cycles: Vec<u64> = decode_all(&meta, &data)
            .into_iter()
            .map(|e| e.unwrap().0.cycles)
            .collect();
        assert_eq!(cycles, [250, 261, 261, 516, 767]);
        let first = decode_all(&meta, &data[..2]).remove(0).unwrap().0;
        assert_eq!(first.ns, 250_000_000);
    }

    #[test]
    fn decodes_every_supported_type() {
        let meta = parse_metadata(
            "/* CTF 1.8 */
            typealias integer { size = 8; signed = false; } := u8;
            typealias integer { size = 16; signed = true; byte_order = be; } := s16be;
            typealias integer { size = 32; align = 32; signed = false; } := u32;
            typealias integer { size = 24; signed = true; } := s24;
            typealias integer { size = 8; encoding = ASCII; } := char;
            trace { byte_order = le; };
            stream { event.header := struct { u8 id; }; };
            event {
                name = all;
                id = 1;
                fields := struct {
                    s16be minus_two;
                    u32 aligned;
                    s24 small;
                    enum : u8 { OFF, ON } mode;
                    string text;
                    u8 count;
                    char chars[count];
                    u8 list[2];
                    struct { u8 a; char name[4]; } point;
                };
            };",
        )
        .unwrap();
        // id, padding (the struct aligns to its widest member), s16be -2, padding
        let mut data = vec![1, 0, 0, 0, 0xff, 0xfe, 0, 0];
        data.extend_from_slice(&0xdead_beef_u32.to_le_bytes());
        data.extend_from_slice(&[0xfe, 0xff, 0xff]); // s24 -2
        data.push(1); // ON
        data.extend_from_slice(b"hi\0");
        data.push(3);
        data.extend_from_slice(b"a\0c");
        data.extend_from_slice(&[9, 8]);
        data.extend_from_slice(&[5, b'x', b'y', 0, 0]);
        let events = decode_all(&meta, &data);
        assert_eq!(events.len(), 1);
        let (record, values) = events[0].as_ref().unwrap();
        assert_eq!(record.offset, 0);
        assert_eq!(
            values,
            &[
                Value::Signed(-2),
                Value::Unsigned(0xdead_beef),
                Value::Signed(-2),
                Value::Enum {
                    value: 1,
                    label: Some("ON")
                },
                Value::String(b"hi"),
                Value::Unsigned(3),
                Value::String(b"a"),
                Value::Array(vec![Value::Unsigned(9), Value::Unsigned(8)]),
                Value::Struct(vec![
                    ("a", Value::Unsigned(5)),
                    ("name", Value::String(b"xy"))
                ]),
            ]
        );
        assert_eq!(
            FieldsDisplay { class: record.class, values }.to_string(),
            "{ minus_two = -2, aligned = 3735928559, small = -2, mode = ( \"ON\" : container = 1 ), \
             text = \"hi\", count = 3, chars = \"a\", list = [ [0] = 9, [1] = 8 ], point = { a = 5, name = \"xy\" } }"
        );
    }

    #[test]
    fn reports_damage_and_stops() {
        let meta = parse_metadata(
            "/* CTF 1.8 */
            typealias integer { size = 8; } := u8;
            trace { byte_order = le; };
            stream { event.header := struct { u8 id; }; };
            event { name = seq; id = 1; fields := struct { u8 n; u8 data[n]; }; };
            event { name = str; id = 2; fields := struct { string s; }; };",
        )
        .unwrap();
        let problem = |data: &[u8]| decode_all(&meta, data).pop().unwrap().unwrap_err();

        let long_sequence = problem(&[2, b'a', 0, 1, 200, 1, 2]);
        assert_eq!(long_sequence.kind, ProblemKind::TruncatedEvent);
        assert_eq!(long_sequence.offset, 3);
        assert_eq!(
            long_sequence.detail,
            "the stream ends inside event `seq` (id 0x1)"
        );

        let open_string = problem(&[2, b'a', b'b']);
        assert_eq!(open_string.kind, ProblemKind::TruncatedEvent);

        let unknown = problem(&[1, 0, 9, 1, 2]);
        assert_eq!(unknown.kind, ProblemKind::UnknownEventId);
        assert_eq!(unknown.offset, 2);
        assert_eq!(decode_all(&meta, &[1, 0, 9, 1, 2]).len(), 2);
    }

    #[test]
    fn quotes_text_like_babeltrace() {
        assert_eq!(Value::String(b"a\"b\\c\n").to_string(), r#""a\"b\\c\x0a""#);
        assert_eq!(
            Value::Enum {
                value: -3,
                label: None
            }
            .to_string(),
            "( <unknown> : container = -3 )"
        );
    }
}
