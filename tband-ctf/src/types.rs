//! The layout a CTF metadata file describes: field types, event classes, the stream's event header.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteOrder {
    Little,
    Big,
}

/// How an integer's bytes are meant to be read as text, when they are characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    None,
    Text,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntegerType {
    /// Whole bytes, 1 to 8.
    pub size_bytes: usize,
    pub signed: bool,
    pub align_bytes: usize,
    /// `None` until the trace block's byte order is known (the "native" order of TSDL).
    pub byte_order: Option<ByteOrder>,
    pub encoding: Encoding,
    /// The clock this integer counts, from `map = clock.NAME.value`.
    pub clock: Option<String>,
}

impl IntegerType {
    pub fn bits(&self) -> u32 {
        // size_bytes is at most 8, so this cannot overflow.
        self.size_bytes as u32 * 8
    }

    /// An 8-bit integer with a text encoding: arrays and sequences of it are strings.
    pub fn is_char(&self) -> bool {
        self.size_bytes == 1 && self.encoding == Encoding::Text
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumMapping {
    pub label: String,
    pub first: i128,
    pub last: i128,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumType {
    pub container: IntegerType,
    pub mappings: Vec<EnumMapping>,
}

impl EnumType {
    pub fn label_of(&self, value: i128) -> Option<&str> {
        self.mappings
            .iter()
            .find(|m| (m.first..=m.last).contains(&value))
            .map(|m| m.label.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub ty: Type,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructType {
    pub fields: Vec<Field>,
    pub align_bytes: usize,
}

impl StructType {
    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Type {
    Integer(IntegerType),
    Enum(EnumType),
    /// NUL-terminated string.
    String,
    Array {
        element: Box<Type>,
        length: usize,
    },
    /// Length read from an earlier field of the same struct (`index` into its fields).
    Sequence {
        element: Box<Type>,
        length_field: usize,
    },
    Struct(StructType),
}

impl Type {
    pub fn align_bytes(&self) -> usize {
        match self {
            Type::Integer(int) => int.align_bytes,
            Type::Enum(e) => e.container.align_bytes,
            Type::String => 1,
            Type::Array { element, .. } | Type::Sequence { element, .. } => element.align_bytes(),
            Type::Struct(s) => s.align_bytes,
        }
    }

    pub(crate) fn resolve_byte_order(&mut self, native: ByteOrder) {
        match self {
            Type::Integer(int) => {
                int.byte_order.get_or_insert(native);
            }
            Type::Enum(e) => {
                e.container.byte_order.get_or_insert(native);
            }
            Type::String => {}
            Type::Array { element, .. } | Type::Sequence { element, .. } => {
                element.resolve_byte_order(native)
            }
            Type::Struct(s) => s.resolve_byte_order(native),
        }
    }
}

impl StructType {
    pub(crate) fn resolve_byte_order(&mut self, native: ByteOrder) {
        for field in &mut self.fields {
            field.ty.resolve_byte_order(native);
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventClass {
    pub id: u64,
    pub name: String,
    pub fields: StructType,
}

/// A clock declared in the metadata, or the default one (1 GHz, no offset) when none is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clock {
    pub name: String,
    pub freq_hz: u64,
    /// Seconds plus cycles from the clock's origin to its zero, as declared.
    pub offset_s: i64,
    pub offset_cycles: i64,
}

impl Clock {
    pub fn default_ns() -> Self {
        Clock {
            name: "default".to_owned(),
            freq_hz: 1_000_000_000,
            offset_s: 0,
            offset_cycles: 0,
        }
    }

    /// Nanoseconds per cycle, when that is a whole number (nanosecond or microsecond clocks).
    pub fn whole_ns_per_cycle(&self) -> Option<u64> {
        let freq = self.freq_hz.max(1);
        (1_000_000_000 % freq == 0).then(|| 1_000_000_000 / freq)
    }

    /// Nanoseconds from the clock's origin for a value in cycles (saturating).
    pub fn to_ns(&self, cycles: u64) -> i64 {
        let freq = i128::from(self.freq_hz.max(1));
        let total_cycles = i128::from(cycles) + i128::from(self.offset_cycles);
        let ns = total_cycles * 1_000_000_000 / freq + i128::from(self.offset_s) * 1_000_000_000;
        ns.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
    }
}

/// Everything needed to decode a stream: parsed from the metadata by [`super::parse_metadata`].
#[derive(Debug, Clone)]
pub struct Metadata {
    pub byte_order: ByteOrder,
    pub event_header: StructType,
    /// Index of the `id` field in the event header.
    pub header_id_field: usize,
    /// Index of the `timestamp` field in the event header, if there is one.
    pub header_timestamp_field: Option<usize>,
    pub clock: Clock,
    pub events: Vec<EventClass>,
    /// `events` index by event id; ids are kept below [`super::MAX_EVENT_ID`].
    pub(crate) event_by_id: Vec<Option<usize>>,
}

impl Metadata {
    pub fn event_class(&self, id: u64) -> Option<&EventClass> {
        self.event_class_with_index(id).map(|(_, class)| class)
    }

    /// The event class with this id and its index in `events`.
    pub fn event_class_with_index(&self, id: u64) -> Option<(usize, &EventClass)> {
        let slot = usize::try_from(id).ok()?;
        let index = (*self.event_by_id.get(slot)?)?;
        Some((index, self.events.get(index)?))
    }

    pub fn event_class_by_name(&self, name: &str) -> Option<&EventClass> {
        self.events.iter().find(|e| e.name == name)
    }
}
