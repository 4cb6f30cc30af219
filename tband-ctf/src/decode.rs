//! Decodes a CTF event stream (events back to back, no packet framing) with the layout from
//! the metadata. Field values borrow from the stream; the caller supplies the vector they are
//! written into, so decoding allocates nothing per event (except to check nested structs).

use std::fmt;

use super::types::{ByteOrder, EnumType, EventClass, IntegerType, Metadata, StructType, Type};

/// One decoded field value. Values are `Copy`: strings borrow the stream, and arrays and
/// structs are decoded from the stream again when their items are asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'a> {
    Unsigned(u64),
    Signed(i64),
    /// Text up to the first NUL: a NUL-terminated string, or an array/sequence of characters.
    String(&'a [u8]),
    Enum(EnumValue<'a>),
    Array(ArrayValue<'a>),
    Struct(StructValue<'a>),
}

impl Value<'_> {
    /// The value of an integer or enum field, if it fits in a `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::Unsigned(v) => Some(v),
            Value::Signed(v) => u64::try_from(v).ok(),
            Value::Enum(e) => u64::try_from(e.value()).ok(),
            _ => None,
        }
    }

    /// The value of an integer or enum field, if it fits in an `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Unsigned(v) => i64::try_from(v).ok(),
            Value::Signed(v) => Some(v),
            Value::Enum(e) => i64::try_from(e.value()).ok(),
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

/// An enum field: its integer and the type that names it.
#[derive(Clone, Copy)]
pub struct EnumValue<'a> {
    raw: u64,
    ty: &'a EnumType,
}

impl<'a> EnumValue<'a> {
    pub fn value(&self) -> i128 {
        if self.ty.container.signed {
            i128::from(sign_extend(self.raw, self.ty.container.size_bytes))
        } else {
            i128::from(self.raw)
        }
    }

    pub fn label(&self) -> Option<&'a str> {
        self.ty.label_of(self.value())
    }
}

impl PartialEq for EnumValue<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.value() == other.value() && self.label() == other.label()
    }
}

impl Eq for EnumValue<'_> {}

impl fmt::Debug for EnumValue<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({:?})", self.value(), self.label())
    }
}

/// An array or sequence of non-character elements, already checked to lie within the stream.
#[derive(Clone, Copy)]
pub struct ArrayValue<'a> {
    data: &'a [u8],
    pos: usize,
    element: &'a Type,
    length: usize,
}

impl<'a> ArrayValue<'a> {
    pub fn len(&self) -> usize {
        self.length
    }

    pub fn is_empty(&self) -> bool {
        self.length == 0
    }

    pub fn items(&self) -> Vec<Value<'a>> {
        let mut pos = self.pos;
        (0..self.length)
            .map_while(|_| decode_value(self.data, &mut pos, self.element).ok())
            .collect()
    }
}

impl PartialEq for ArrayValue<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.items() == other.items()
    }
}

impl Eq for ArrayValue<'_> {}

impl fmt::Debug for ArrayValue<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.items()).finish()
    }
}

/// A struct nested in an event's fields, already checked to lie within the stream.
#[derive(Clone, Copy)]
pub struct StructValue<'a> {
    data: &'a [u8],
    pos: usize,
    ty: &'a StructType,
}

impl<'a> StructValue<'a> {
    pub fn fields(&self) -> Vec<(&'a str, Value<'a>)> {
        let mut values = Vec::with_capacity(self.ty.fields.len());
        let mut pos = self.pos;
        // Checked when the event was decoded, so this reads every field.
        let _ = decode_struct(self.data, &mut pos, self.ty, &mut values);
        let names = self.ty.fields.iter().map(|f| f.name.as_str());
        names.zip(values).collect()
    }
}

impl PartialEq for StructValue<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.fields() == other.fields()
    }
}

impl Eq for StructValue<'_> {}

impl fmt::Debug for StructValue<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.fields()).finish()
    }
}

/// babeltrace-style text: integers in decimal, strings quoted, `[ [0] = .. ]`, `{ a = .. }`.
impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Unsigned(v) => write!(f, "{v}"),
            Value::Signed(v) => write!(f, "{v}"),
            Value::String(bytes) => write_quoted(f, bytes),
            Value::Enum(e) => match e.label() {
                Some(label) => write!(f, "( \"{label}\" : container = {} )", e.value()),
                None => write!(f, "( <unknown> : container = {} )", e.value()),
            },
            Value::Array(array) => {
                f.write_str("[")?;
                for (i, item) in array.items().iter().enumerate() {
                    let sep = if i == 0 { " " } else { ", " };
                    write!(f, "{sep}[{i}] = {item}")?;
                }
                f.write_str(" ]")
            }
            Value::Struct(s) => {
                let members = s.fields();
                write_members(f, members.iter().map(|(name, value)| (*name, value)))
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
    /// Index of `class` in [`Metadata::events`].
    pub class_index: usize,
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
    /// The clock's scale and offset, for converting without 128-bit division when exact.
    ns_per_cycle: Option<u64>,
    offset_ns: i64,
    /// Where the header and its id and timestamp lie, when that is fixed; otherwise the
    /// header is decoded into `header`.
    flat_header: Option<FlatHeader<'a>>,
    header: Vec<Value<'a>>,
    /// The event classes by event id, each with its index and payload layout.
    classes_by_id: Vec<Option<ClassLayout<'a>>>,
    finished: bool,
}

/// An event header whose fields lie at fixed places.
struct FlatHeader<'a> {
    layout: FlatLayout<'a>,
    id: FlatField<'a>,
    timestamp: Option<FlatField<'a>>,
}

impl<'a> FlatHeader<'a> {
    fn of(meta: &'a Metadata) -> Option<Self> {
        let layout = FlatLayout::of(&meta.event_header)?;
        let id = *layout.fields.get(meta.header_id_field)?;
        let timestamp = match meta.header_timestamp_field {
            Some(i) => Some(*layout.fields.get(i)?),
            None => None,
        };
        Some(FlatHeader {
            layout,
            id,
            timestamp,
        })
    }
}

/// An event class with what decoding its events needs.
struct ClassLayout<'a> {
    /// Index of `class` in [`Metadata::events`].
    index: usize,
    class: &'a EventClass,
    payload: Option<FlatLayout<'a>>,
    /// Whether the caller wants the payload's values (see [`StreamDecoder::skip_values_of`]).
    wanted: bool,
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
            ns_per_cycle: meta.clock.whole_ns_per_cycle(),
            offset_ns: meta.clock.to_ns(0),
            header: Vec::with_capacity(meta.event_header.fields.len()),
            flat_header: FlatHeader::of(meta),
            classes_by_id: meta
                .event_by_id
                .iter()
                .map(|index| {
                    let index = (*index)?;
                    let class = meta.events.get(index)?;
                    Some(ClassLayout {
                        index,
                        class,
                        payload: FlatLayout::of(&class.fields),
                        wanted: true,
                    })
                })
                .collect(),
            finished: false,
        }
    }

    /// Stops decoding the payload values of the events of the classes for which `skip` is true
    /// (by index into [`Metadata::events`]): their events come with no values. Damage is
    /// still found, and a payload whose layout depends on its values is still decoded.
    pub fn skip_values_of(&mut self, skip: impl Fn(usize) -> bool) {
        for class in self.classes_by_id.iter_mut().flatten() {
            class.wanted = !skip(class.index);
        }
    }

    /// Byte offset of the next event.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Decodes the next event, writing its payload (one value per declared field) into `fields`.
    /// Returns `None` at the end of the stream; after a problem the stream is finished.
    #[inline]
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
        let truncated = |detail: String| Problem {
            kind: ProblemKind::TruncatedEvent,
            offset: start as u64,
            detail,
        };
        let mut pos = start;
        let Ok((id, timestamp)) = self.decode_header(&mut pos) else {
            let left = self.data.len() - start;
            return Err(truncated(format!(
                "the stream ends inside an event header ({left} bytes left)"
            )));
        };
        let known = id
            .and_then(|id| usize::try_from(id).ok())
            .and_then(|slot| self.classes_by_id.get(slot)?.as_ref());
        let Some(&ClassLayout {
            index,
            class,
            ref payload,
            wanted,
        }) = known
        else {
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
        fields.clear();
        let decoded = match payload {
            Some(layout) if !wanted => layout.take(self.data, &mut pos).map(|_| ()),
            _ => decode_fields(self.data, &mut pos, &class.fields, payload.as_ref(), fields),
        };
        if decoded.is_err() {
            return Err(truncated(format!(
                "the stream ends inside event `{}` (id {:#x})",
                class.name, class.id
            )));
        }
        if let Some(raw) = timestamp {
            self.advance_clock(raw);
        }
        self.pos = pos;
        Ok(EventRecord {
            offset: start as u64,
            cycles: self.clock,
            ns: self.clock_ns(),
            class,
            class_index: index,
        })
    }

    /// Reads the event header at `pos`: the event id and the raw timestamp, each when it is a
    /// non-negative integer.
    fn decode_header(&mut self, pos: &mut usize) -> Result<(Option<u64>, Option<u64>), OutOfData> {
        let meta = self.meta;
        if let Some(header) = &self.flat_header {
            let bytes = header.layout.take(self.data, pos)?;
            let id = header.id.number(bytes);
            let timestamp = match header.timestamp {
                Some(field) => field.number(bytes),
                None => None,
            };
            return Ok((id, timestamp));
        }
        self.header.clear();
        decode_struct(self.data, pos, &meta.event_header, &mut self.header)?;
        let number = |i: usize| self.header.get(i).and_then(Value::as_u64);
        Ok((
            number(meta.header_id_field),
            meta.header_timestamp_field.and_then(number),
        ))
    }

    fn clock_ns(&self) -> i64 {
        let scaled = self
            .ns_per_cycle
            .and_then(|k| self.clock.checked_mul(k))
            .and_then(|ns| i64::try_from(ns).ok())
            .and_then(|ns| ns.checked_add(self.offset_ns));
        scaled.unwrap_or_else(|| self.meta.clock.to_ns(self.clock))
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

/// Where each field of a struct lies once the struct's start is aligned: known in advance when
/// every field is an integer, an enum or a character array, which is what embedded tracers emit.
struct FlatLayout<'a> {
    align_bytes: usize,
    size: usize,
    fields: Vec<FlatField<'a>>,
}

#[derive(Clone, Copy)]
struct FlatField<'a> {
    offset: usize,
    kind: FlatKind<'a>,
}

#[derive(Clone, Copy)]
enum FlatKind<'a> {
    Unsigned(IntegerRead),
    Signed(IntegerRead),
    Enum(IntegerRead, &'a EnumType),
    Chars(usize),
}

/// How an integer's bytes are read, taken from its type once for every event.
#[derive(Clone, Copy)]
struct IntegerRead {
    size_bytes: usize,
    big_endian: bool,
}

impl IntegerRead {
    fn of(int: &IntegerType) -> Self {
        IntegerRead {
            size_bytes: int.size_bytes,
            big_endian: int.byte_order == Some(ByteOrder::Big),
        }
    }

    /// The integer at the start of `bytes`.
    #[inline(always)]
    fn raw(self, bytes: &[u8]) -> Result<u64, OutOfData> {
        let bytes = bytes.get(..self.size_bytes).ok_or(OutOfData)?;
        Ok(match (self.big_endian, bytes) {
            (_, &[b]) => u64::from(b),
            (false, &[a, b, c, d]) => u64::from(u32::from_le_bytes([a, b, c, d])),
            (false, _) => bytes
                .iter()
                .rev()
                .fold(0, |acc, &b| (acc << 8) | u64::from(b)),
            (true, _) => bytes.iter().fold(0, |acc, &b| (acc << 8) | u64::from(b)),
        })
    }

    /// A signed integer's raw bits as an `i64`.
    fn sign_extend(self, raw: u64) -> i64 {
        sign_extend(raw, self.size_bytes)
    }
}

impl<'a> FlatLayout<'a> {
    fn of(ty: &'a StructType) -> Option<Self> {
        let mut size = 0usize;
        let mut fields = Vec::with_capacity(ty.fields.len());
        for field in &ty.fields {
            let (kind, len) = match &field.ty {
                Type::Integer(int) if int.signed => {
                    (FlatKind::Signed(IntegerRead::of(int)), int.size_bytes)
                }
                Type::Integer(int) => (FlatKind::Unsigned(IntegerRead::of(int)), int.size_bytes),
                Type::Enum(e) => (
                    FlatKind::Enum(IntegerRead::of(&e.container), e),
                    e.container.size_bytes,
                ),
                Type::Array { element, length } => match &**element {
                    Type::Integer(int) if int.is_char() => (FlatKind::Chars(*length), *length),
                    _ => return None,
                },
                _ => return None,
            };
            let offset = size.checked_next_multiple_of(field.ty.align_bytes())?;
            size = offset.checked_add(len)?;
            fields.push(FlatField { offset, kind });
        }
        Some(FlatLayout {
            align_bytes: ty.align_bytes,
            size,
            fields,
        })
    }

    /// The struct's bytes at `pos` (aligned first), moving `pos` past them.
    fn take(&self, data: &'a [u8], pos: &mut usize) -> Result<&'a [u8], OutOfData> {
        align(data, pos, self.align_bytes)?;
        let end = pos.checked_add(self.size).ok_or(OutOfData)?;
        let bytes = data.get(*pos..end).ok_or(OutOfData)?;
        *pos = end;
        Ok(bytes)
    }
}

impl<'a> FlatField<'a> {
    /// The field's value in `bytes`, the struct's bytes.
    #[inline(always)]
    fn value(&self, bytes: &'a [u8]) -> Result<Value<'a>, OutOfData> {
        let at = bytes.get(self.offset..).ok_or(OutOfData)?;
        Ok(match self.kind {
            FlatKind::Unsigned(read) => Value::Unsigned(read.raw(at)?),
            FlatKind::Signed(read) => Value::Signed(read.sign_extend(read.raw(at)?)),
            FlatKind::Enum(read, e) => enum_value(read.raw(at)?, e),
            FlatKind::Chars(len) => chars_value(at.get(..len).ok_or(OutOfData)?),
        })
    }

    /// The field in the struct's `bytes` as a `u64`, if it is an integer or enum that fits
    /// (as [`Value::as_u64`] gives it, without making the value).
    #[inline(always)]
    fn number(&self, bytes: &[u8]) -> Option<u64> {
        let at = bytes.get(self.offset..)?;
        match self.kind {
            FlatKind::Unsigned(read) => read.raw(at).ok(),
            FlatKind::Signed(read) => u64::try_from(read.sign_extend(read.raw(at).ok()?)).ok(),
            FlatKind::Enum(read, e) => {
                let raw = read.raw(at).ok()?;
                if e.container.signed {
                    u64::try_from(read.sign_extend(raw)).ok()
                } else {
                    Some(raw)
                }
            }
            FlatKind::Chars(_) => None,
        }
    }
}

/// Appends one value per field of `ty` to `out`, through its flat layout when it has one.
fn decode_fields<'a>(
    data: &'a [u8],
    pos: &mut usize,
    ty: &'a StructType,
    layout: Option<&FlatLayout<'a>>,
    out: &mut Vec<Value<'a>>,
) -> Result<(), OutOfData> {
    let Some(layout) = layout else {
        return decode_struct(data, pos, ty, out);
    };
    let bytes = layout.take(data, pos)?;
    out.reserve(layout.fields.len());
    for field in &layout.fields {
        out.push(field.value(bytes)?);
    }
    Ok(())
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
        Type::Integer(int) => Ok(integer_value(read_integer(data, pos, int)?, int)),
        Type::Enum(e) => Ok(enum_value(read_integer(data, pos, &e.container)?, e)),
        Type::String => {
            let rest = data.get(*pos..).ok_or(OutOfData)?;
            let len = memchr::memchr(0, rest).ok_or(OutOfData)?;
            *pos += len + 1;
            Ok(Value::String(&rest[..len]))
        }
        Type::Array { element, length } => decode_run(data, pos, element, *length as u64),
        Type::Sequence { .. } => Err(OutOfData),
        Type::Struct(ty) => {
            let start = *pos;
            let mut scratch = Vec::with_capacity(ty.fields.len());
            decode_struct(data, pos, ty, &mut scratch)?;
            Ok(Value::Struct(StructValue {
                data,
                pos: start,
                ty,
            }))
        }
    }
}

/// `length` elements of `element`: text for character elements, a checked array otherwise.
fn decode_run<'a>(
    data: &'a [u8],
    pos: &mut usize,
    element: &'a Type,
    length: u64,
) -> Result<Value<'a>, OutOfData> {
    // Every element but an empty struct takes a byte at least; a run longer than what is left
    // is damage (and bounds the work a corrupt length can cause).
    let remaining = data.len().saturating_sub(*pos) as u64;
    if length > remaining {
        return Err(OutOfData);
    }
    let length = usize::try_from(length).map_err(|_| OutOfData)?;
    if let Type::Integer(int) = element {
        if int.is_char() {
            align(data, pos, int.align_bytes)?;
            let end = pos.checked_add(length).ok_or(OutOfData)?;
            let bytes = data.get(*pos..end).ok_or(OutOfData)?;
            *pos = end;
            return Ok(chars_value(bytes));
        }
    }
    let start = *pos;
    for _ in 0..length {
        decode_value(data, pos, element)?;
    }
    Ok(Value::Array(ArrayValue {
        data,
        pos: start,
        element,
        length,
    }))
}

fn read_integer(data: &[u8], pos: &mut usize, int: &IntegerType) -> Result<u64, OutOfData> {
    align(data, pos, int.align_bytes)?;
    let raw = IntegerRead::of(int).raw(data.get(*pos..).ok_or(OutOfData)?)?;
    *pos += int.size_bytes;
    Ok(raw)
}

fn integer_value<'a>(raw: u64, int: &IntegerType) -> Value<'a> {
    if int.signed {
        Value::Signed(sign_extend(raw, int.size_bytes))
    } else {
        Value::Unsigned(raw)
    }
}

fn enum_value(raw: u64, ty: &EnumType) -> Value<'_> {
    Value::Enum(EnumValue { raw, ty })
}

/// Characters up to the first NUL.
fn chars_value(bytes: &[u8]) -> Value<'_> {
    // Tracers' names are short: a plain loop finds their end before `memchr` has started.
    let nul = if bytes.len() <= 32 {
        bytes.iter().position(|&b| b == 0)
    } else {
        memchr::memchr(0, bytes)
    };
    let text_len = nul.unwrap_or(bytes.len());
    Value::String(&bytes[..text_len])
}

/// The raw bits of a signed integer of `size_bytes` as an `i64`.
fn sign_extend(raw: u64, size_bytes: usize) -> i64 {
    let unused = 64 - size_bytes as u32 * 8;
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
    use crate::parse_metadata;

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
            values[..3],
            [
                Value::Signed(-2),
                Value::Unsigned(0xdead_beef),
                Value::Signed(-2)
            ]
        );
        let Value::Enum(mode) = values[3] else {
            panic!("{:?}", values[3])
        };
        assert_eq!((mode.value(), mode.label()), (1, Some("ON")));
        assert_eq!(
            values[4..7],
            [
                Value::String(b"hi"),
                Value::Unsigned(3),
                Value::String(b"a")
            ]
        );
        let Value::Array(list) = values[7] else {
            panic!("{:?}", values[7])
        };
        assert_eq!(list.items(), [Value::Unsigned(9), Value::Unsigned(8)]);
        let Value::Struct(point) = values[8] else {
            panic!("{:?}", values[8])
        };
        assert_eq!(
            point.fields(),
            [("a", Value::Unsigned(5)), ("name", Value::String(b"xy"))]
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
        let ty = EnumType {
            container: IntegerType {
                size_bytes: 1,
                signed: true,
                align_bytes: 1,
                byte_order: None,
                encoding: crate::Encoding::None,
                clock: None,
            },
            mappings: Vec::new(),
        };
        assert_eq!(
            enum_value(0xfd, &ty).to_string(),
            "( <unknown> : container = -3 )"
        );
    }
}
