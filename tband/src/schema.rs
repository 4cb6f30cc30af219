//! The event schema of wire format v1: ONE table of ids, names, metadata flag
//! and fields. The typed [`Event`], its encoder, its decoder, the
//! per-event maximum lengths and the [`EVENTS`] description are all
//! generated from it.

use crate::cobs::{self, FrameWriter};
use crate::varint::{self, JoinGroups, Portable, VarintError};

/// The encoding of one field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldType {
    U8,
    U32,
    U64,
    S64,
    /// Raw bytes up to the end of the frame; only ever the last field.
    Str,
}

impl FieldType {
    /// Longest encoding of this field (a string counts as empty).
    pub const fn max_len(self) -> usize {
        match self {
            FieldType::U8 => 1,
            FieldType::U32 => varint::MAX_U32_LEN,
            FieldType::U64 | FieldType::S64 => varint::MAX_U64_LEN,
            FieldType::Str => 0,
        }
    }
}

/// One field of an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldSpec {
    pub name: &'static str,
    pub ty: FieldType,
}

/// The group an event belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Ids 0–11, any firmware.
    Base,
    /// Ids 84–127, FreeRTOS tracing.
    FreeRtos,
    /// Ids 128–151, tband's extension for the FreeRTOS objects the
    /// reference format has no events for (notifications, event groups,
    /// stream and message buffers, software timers).
    FreeRtosExtension,
    /// Ids 152–159, tband's memory events, any firmware: heap allocations
    /// and frees, and the stack each task has left.
    Memory,
    /// Ids 160–163, tband's fault events, any firmware: a crash and the
    /// registers its fault handler saw.
    Fault,
    /// Ids 164–167, log lines: a defmt frame as the firmware's global
    /// logger wrote it, decoded on the host with the firmware's ELF.
    Log,
}

/// Everything the schema says about one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventSpec {
    pub id: u8,
    pub name: &'static str,
    pub group: Group,
    /// Metadata events carry no timestamp.
    pub is_metadata: bool,
    pub fields: &'static [FieldSpec],
}

impl EventSpec {
    /// Longest payload of this event when its string field (if any) holds
    /// `max_str_len` bytes.
    pub const fn max_payload_len(&self, max_str_len: usize) -> usize {
        let mut len = 1;
        if !self.is_metadata {
            len += varint::MAX_U64_LEN;
        }
        let mut i = 0;
        while i < self.fields.len() {
            len += match self.fields[i].ty {
                FieldType::Str => max_str_len,
                ty => ty.max_len(),
            };
            i += 1;
        }
        len
    }

    /// Longest frame (with delimiter) of this event; see [`max_payload_len`](Self::max_payload_len).
    pub const fn max_framed_len(&self, max_str_len: usize) -> usize {
        cobs::max_framed_len(self.max_payload_len(max_str_len))
    }

    /// Whether the last field is a string.
    pub const fn has_str(&self) -> bool {
        match self.fields.last() {
            Some(f) => matches!(f.ty, FieldType::Str),
            None => false,
        }
    }
}

/// Why a payload is not a valid event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PayloadError {
    /// The payload has no bytes at all.
    Empty,
    /// The id is not defined in wire format v1.
    UnknownId(u8),
    /// A varint runs off the end of the payload.
    TruncatedVarint { field: &'static str },
    /// A varint is longer than its type allows.
    OverlongVarint { field: &'static str },
    /// A `u8` field is missing.
    MissingByte { field: &'static str },
    /// Bytes remain after the last field.
    TrailingBytes(usize),
}

/// What a failed read reports: the reason ([`PayloadError`]), or nothing
/// (`()`) where only success matters and the reason of the rare failure is
/// worked out afterwards. Without reasons to carry, the decoded record is
/// all that flows out of the read.
trait ReadFailure {
    fn empty() -> Self;
    fn unknown_id(id: u8) -> Self;
    fn varint(field: &'static str, e: VarintError) -> Self;
    fn missing_byte(field: &'static str) -> Self;
    fn trailing_bytes(n: usize) -> Self;
}

impl ReadFailure for () {
    #[inline(always)]
    fn empty() {}
    #[inline(always)]
    fn unknown_id(_: u8) {}
    #[inline(always)]
    fn varint(_: &'static str, _: VarintError) {}
    #[inline(always)]
    fn missing_byte(_: &'static str) {}
    #[inline(always)]
    fn trailing_bytes(_: usize) {}
}

impl ReadFailure for PayloadError {
    fn empty() -> Self {
        PayloadError::Empty
    }
    fn unknown_id(id: u8) -> Self {
        PayloadError::UnknownId(id)
    }
    fn varint(field: &'static str, e: VarintError) -> Self {
        match e {
            VarintError::Truncated => PayloadError::TruncatedVarint { field },
            VarintError::Overlong => PayloadError::OverlongVarint { field },
        }
    }
    fn missing_byte(field: &'static str) -> Self {
        PayloadError::MissingByte { field }
    }
    fn trailing_bytes(n: usize) -> Self {
        PayloadError::TrailingBytes(n)
    }
}

/// Reads the fields of one payload in order: the first `len` bytes of
/// `data`, which may go on past the payload (see [`Record::decode_within`]);
/// varints' groups are joined with `join`.
struct FieldReader<'a, J> {
    data: &'a [u8],
    len: usize,
    join: J,
}

impl<'a, J: JoinGroups> FieldReader<'a, J> {
    /// Moves past `n` bytes, `n <= self.len`.
    #[inline(always)]
    fn skip(&mut self, n: usize) {
        self.data = self.data.get(n..).unwrap_or_default();
        self.len -= n;
    }

    #[inline(always)]
    fn u8<E: ReadFailure>(&mut self, field: &'static str) -> Result<u8, E> {
        match self.data.first() {
            Some(&b) if self.len != 0 => {
                self.skip(1);
                Ok(b)
            }
            _ => Err(E::missing_byte(field)),
        }
    }

    #[inline(always)]
    fn u32<E: ReadFailure>(&mut self, field: &'static str) -> Result<u32, E> {
        let (v, n) =
            varint::read_u32(self.join, self.data, self.len).map_err(|e| E::varint(field, e))?;
        self.skip(n);
        Ok(v)
    }

    #[inline(always)]
    fn u64<E: ReadFailure>(&mut self, field: &'static str) -> Result<u64, E> {
        let (v, n) =
            varint::read_u64(self.join, self.data, self.len).map_err(|e| E::varint(field, e))?;
        self.skip(n);
        Ok(v)
    }

    #[inline(always)]
    fn s64<E: ReadFailure>(&mut self, field: &'static str) -> Result<i64, E> {
        self.u64(field).map(varint::from_sign_magnitude)
    }

    #[inline(always)]
    fn str<E: ReadFailure>(&mut self, _field: &'static str) -> Result<&'a [u8], E> {
        let text = self.data.get(..self.len).unwrap_or(self.data);
        self.skip(text.len());
        Ok(text)
    }

    #[inline(always)]
    fn finish<E: ReadFailure>(self) -> Result<(), E> {
        match self.len {
            0 => Ok(()),
            n => Err(E::trailing_bytes(n)),
        }
    }
}

/// A decoded payload: the event and, unless it is metadata, its timestamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record<'a> {
    /// Raw timer ticks; `None` for metadata events.
    pub ts: Option<u64>,
    pub event: Event<'a>,
}

impl Record<'_> {
    /// This record without the borrow, if its event has no text (every
    /// event but names and messages), so that it can be kept past the
    /// buffer it was read from.
    #[inline(always)]
    pub fn detached(&self) -> Option<Record<'static>> {
        if self.event.kind().has_text() {
            return None;
        }
        // SAFETY: an event of a kind without text holds no reference (its
        // fields are integers), so the lifetime it is typed with bounds
        // nothing and may be any; the two types differ only in it.
        Some(unsafe { core::mem::transmute::<Record<'_>, Record<'static>>(*self) })
    }
}

/// One field value, for code that walks events generically (listings, tables).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldValue<'a> {
    U8(u8),
    U32(u32),
    U64(u64),
    S64(i64),
    Str(&'a [u8]),
}

macro_rules! rust_type {
    ($lt:lifetime, U8) => {
        u8
    };
    ($lt:lifetime, U32) => {
        u32
    };
    ($lt:lifetime, U64) => {
        u64
    };
    ($lt:lifetime, S64) => {
        i64
    };
    ($lt:lifetime, Str) => {
        &$lt[u8]
    };
}

macro_rules! raw_field {
    ($raw:ident, Str, $v:expr) => {
        $raw.text = $v
    };
    ($raw:ident, U8, $v:expr) => {{
        $raw.raw_bytes |= 1 << $raw.n_ints;
        $raw.push(u64::from(*$v));
    }};
    ($raw:ident, S64, $v:expr) => {
        $raw.push(varint::to_sign_magnitude(*$v))
    };
    ($raw:ident, $ty:ident, $v:expr) => {
        $raw.push(u64::from(*$v))
    };
}

macro_rules! read_field {
    ($r:ident, U8, $name:expr) => {
        $r.u8::<E>($name)?
    };
    ($r:ident, U32, $name:expr) => {
        $r.u32::<E>($name)?
    };
    ($r:ident, U64, $name:expr) => {
        $r.u64::<E>($name)?
    };
    ($r:ident, S64, $name:expr) => {
        $r.s64::<E>($name)?
    };
    ($r:ident, Str, $name:expr) => {
        $r.str::<E>($name)?
    };
}

macro_rules! take_field {
    ($values:ident, $ty:ident) => {
        match $values.next() {
            Some(FieldValue::$ty(v)) => *v,
            _ => return None,
        }
    };
}

macro_rules! split_field {
    (Str, $v:expr, $text:ident) => {{
        $text = Some(*$v);
        &[]
    }};
    ($ty:ident, $v:expr, $text:ident) => {
        *$v
    };
}

macro_rules! join_field {
    (Str, $v:expr, $text:ident) => {
        $text
    };
    ($ty:ident, $v:expr, $text:ident) => {
        $v
    };
}

macro_rules! is_text {
    (Str) => {
        true
    };
    ($ty:ident) => {
        false
    };
}

macro_rules! is_metadata {
    (ts) => {
        false
    };
    (meta) => {
        true
    };
}

macro_rules! define_events {
    ($(
        $id:literal $group:ident $variant:ident $name:literal $kind:ident { $($field:ident: $ty:ident),* }
    )*) => {
        /// The kind of an event, without its fields.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum EventKind {
            $($variant = $id,)*
        }

        /// Every event of the schema, in id order.
        pub static EVENTS: &[EventSpec] = &[
            $(EventSpec {
                id: $id,
                name: $name,
                group: Group::$group,
                is_metadata: is_metadata!($kind),
                fields: &[$(FieldSpec { name: stringify!($field), ty: FieldType::$ty }),*],
            },)*
        ];

        impl EventKind {
            /// Every kind, in the order of [`EVENTS`].
            pub const ALL: &'static [EventKind] = &[$(EventKind::$variant),*];

            /// The kind with this id, if v1 defines it.
            #[inline]
            pub const fn from_id(id: u8) -> Option<EventKind> {
                match id {
                    $($id => Some(EventKind::$variant),)*
                    _ => None,
                }
            }

            #[inline]
            pub const fn id(self) -> u8 {
                self as u8
            }

            /// The schema entry of this kind.
            pub const fn spec(self) -> &'static EventSpec {
                let mut i = 0;
                while EVENTS[i].id != self as u8 {
                    i += 1;
                }
                &EVENTS[i]
            }

            #[inline]
            pub const fn name(self) -> &'static str {
                match self {
                    $(EventKind::$variant => $name,)*
                }
            }

            #[inline]
            pub const fn is_metadata(self) -> bool {
                match self {
                    $(EventKind::$variant => is_metadata!($kind),)*
                }
            }

            /// Whether events of this kind have a text field (a name or
            /// message), the only field that borrows.
            #[inline(always)]
            pub const fn has_text(self) -> bool {
                // A lookup by id, not a match: the match compiles to a jump
                // table, which is slower on the merge's hot path.
                const TEXT: [bool; 256] = {
                    let mut text = [false; 256];
                    $(text[$id] = false $(|| is_text!($ty))*;)*
                    text
                };
                TEXT[self as usize]
            }
        }

        /// A typed event; string fields borrow from the payload they were read from.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u8)]
        pub enum Event<'a> {
            $($variant { $($field: rust_type!('a, $ty)),* } = $id,)*
        }

        impl<'a> Event<'a> {
            #[inline]
            pub const fn kind(&self) -> EventKind {
                match self {
                    $(Event::$variant { .. } => EventKind::$variant,)*
                }
            }

            /// Length of this event's payload with timestamp `ts`.
            pub fn payload_len(&self, ts: u64) -> usize {
                let mut len = 1;
                if !self.kind().is_metadata() {
                    len += varint::encoded_len(ts);
                }
                match self {
                    $(#[allow(unused_variables)] Event::$variant { $($field),* } => {
                        $(len += field_len!($ty, $field);)*
                    })*
                }
                len
            }

            /// This event in the form the encoder takes; free when the
            /// variant is known where it is inlined.
            #[inline(always)]
            pub fn to_raw(&self) -> RawEvent<'a> {
                match self {
                    $(#[allow(unused_variables, unused_mut)] Event::$variant { $($field),* } => {
                        let mut raw = RawEvent {
                            id: $id,
                            is_metadata: is_metadata!($kind),
                            n_ints: 0,
                            raw_bytes: 0,
                            ints: [0; MAX_INT_FIELDS],
                            text: &[],
                        };
                        $(raw_field!(raw, $ty, $field);)*
                        raw
                    })*
                }
            }

            /// Builds an event of `kind` from its field values in schema order;
            /// `None` if their number or types do not match the schema.
            pub fn from_fields(kind: EventKind, values: &[FieldValue<'a>]) -> Option<Event<'a>> {
                #[allow(unused_mut, unused_variables)]
                let mut values = values.iter();
                let event = match kind {
                    $(EventKind::$variant => Event::$variant { $($field: take_field!(values, $ty)),* },)*
                };
                values.next().is_none().then_some(event)
            }

            /// This event with its text field (a name or message) taken
            /// out, so that it borrows nothing, and that text; `None` for
            /// events without text.
            #[inline(always)]
            pub fn split_text(&self) -> (Event<'static>, Option<&'a [u8]>) {
                let mut text = None;
                let event = match self {
                    $(#[allow(unused_variables)] Event::$variant { $($field),* } => {
                        Event::$variant { $($field: split_field!($ty, $field, text)),* }
                    })*
                };
                (event, text)
            }

            /// This event with `text` as its text field (which events
            /// without text do not have).
            #[inline(always)]
            pub fn with_text<'b>(self, text: &'b [u8]) -> Event<'b> {
                match self {
                    $(#[allow(unused_variables)] Event::$variant { $($field),* } => {
                        Event::$variant { $($field: join_field!($ty, $field, text)),* }
                    })*
                }
            }

            /// Calls `f` with each field's name and value, in schema order.
            pub fn for_each_field(&self, mut f: impl FnMut(&'static str, FieldValue<'a>)) {
                match *self {
                    $(#[allow(unused_variables)] Event::$variant { $($field),* } => {
                        $(f(stringify!($field), FieldValue::$ty($field));)*
                    })*
                }
            }
        }

        impl<'a> Record<'a> {
            /// Reads one payload (a frame after COBS decoding).
            #[inline]
            pub fn decode(payload: &'a [u8]) -> Result<Record<'a>, PayloadError> {
                Self::read(Portable, payload, payload.len())
            }

            /// Reads the payload `data[..len]`. The bytes after it in `data`
            /// (the next frames of a stream, the rest of a buffer) are not
            /// part of it and never decoded: they let integer fields near the
            /// end of the payload be loaded a word at a time.
            #[inline]
            pub fn decode_within(data: &'a [u8], len: usize) -> Result<Record<'a>, PayloadError> {
                Self::read(Portable, data, len)
            }

            /// [`decode_within`](Self::decode_within) without the reason for
            /// a failure, joining varints' groups with `join`: the fast path for
            /// decoders that work the reason out again for the rare payload
            /// that fails.
            #[inline(always)]
            pub fn try_decode_within<J: JoinGroups>(
                join: J,
                data: &'a [u8],
                len: usize,
            ) -> Option<Record<'a>> {
                Self::read::<(), J>(join, data, len).ok()
            }

            #[inline(always)]
            fn read<E: ReadFailure, J: JoinGroups>(
                join: J,
                data: &'a [u8],
                len: usize,
            ) -> Result<Record<'a>, E> {
                let id = match data.first() {
                    Some(&id) if len != 0 => id,
                    _ => return Err(E::empty()),
                };
                let mut r = FieldReader { data, len, join };
                r.skip(1);
                let record = match id {
                    $($id => {
                        let ts = if is_metadata!($kind) { None } else { Some(r.u64::<E>("ts")?) };
                        Record { ts, event: Event::$variant { $($field: read_field!(r, $ty, stringify!($field))),* } }
                    })*
                    _ => return Err(E::unknown_id(id)),
                };
                r.finish::<E>()?;
                Ok(record)
            }
        }
    };
}

macro_rules! field_len {
    (U8, $v:ident) => {
        1
    };
    (U32, $v:ident) => {
        varint::encoded_len(u64::from(*$v))
    };
    (U64, $v:ident) => {
        varint::encoded_len(*$v)
    };
    (S64, $v:ident) => {
        varint::encoded_len(varint::to_sign_magnitude(*$v))
    };
    (Str, $v:ident) => {
        $v.len()
    };
}

define_events! {
    0 Base CoreId "core_id" ts { core_id: U32 }
    1 Base DroppedEvtCnt "dropped_evt_cnt" ts { cnt: U32 }
    2 Base TsResolutionNs "ts_resolution_ns" meta { ns_per_ts: U64 }
    3 Base IsrName "isr_name" meta { isr_id: U32, name: Str }
    4 Base IsrEnter "isr_enter" ts { isr_id: U32 }
    5 Base IsrExit "isr_exit" ts { isr_id: U32 }
    6 Base EvtmarkerName "evtmarker_name" meta { evtmarker_id: U32, name: Str }
    7 Base Evtmarker "evtmarker" ts { evtmarker_id: U32, msg: Str }
    8 Base EvtmarkerBegin "evtmarker_begin" ts { evtmarker_id: U32, msg: Str }
    9 Base EvtmarkerEnd "evtmarker_end" ts { evtmarker_id: U32 }
    10 Base ValmarkerName "valmarker_name" meta { valmarker_id: U32, name: Str }
    11 Base Valmarker "valmarker" ts { valmarker_id: U32, val: S64 }
    84 FreeRtos TaskSwitchedIn "task_switched_in" ts { task_id: U32 }
    85 FreeRtos TaskToRdyState "task_to_rdy_state" ts { task_id: U32 }
    86 FreeRtos TaskResumed "task_resumed" ts { task_id: U32 }
    87 FreeRtos TaskResumedFromIsr "task_resumed_from_isr" ts { task_id: U32 }
    88 FreeRtos TaskSuspended "task_suspended" ts { task_id: U32 }
    89 FreeRtos CurtaskDelay "curtask_delay" ts { ticks: U32 }
    90 FreeRtos CurtaskDelayUntil "curtask_delay_until" ts { time_to_wake: U32 }
    91 FreeRtos TaskPrioritySet "task_priority_set" ts { task_id: U32, priority: U32 }
    92 FreeRtos TaskPriorityInherit "task_priority_inherit" ts { task_id: U32, priority: U32 }
    93 FreeRtos TaskPriorityDisinherit "task_priority_disinherit" ts { task_id: U32, priority: U32 }
    94 FreeRtos TaskCreated "task_created" ts { task_id: U32 }
    95 FreeRtos TaskName "task_name" meta { task_id: U32, name: Str }
    96 FreeRtos TaskIsIdleTask "task_is_idle_task" meta { task_id: U32, core_id: U32 }
    97 FreeRtos TaskIsTimerTask "task_is_timer_task" meta { task_id: U32 }
    98 FreeRtos TaskDeleted "task_deleted" ts { task_id: U32 }
    99 FreeRtos QueueCreated "queue_created" ts { queue_id: U32 }
    100 FreeRtos QueueName "queue_name" meta { queue_id: U32, name: Str }
    101 FreeRtos QueueKind "queue_kind" meta { queue_id: U32, kind: U8 }
    102 FreeRtos QueueSend "queue_send" ts { queue_id: U32, len_after: U32 }
    103 FreeRtos QueueSendFromIsr "queue_send_from_isr" ts { queue_id: U32, len_after: U32 }
    104 FreeRtos QueueOverwrite "queue_overwrite" ts { queue_id: U32, len_after: U32 }
    105 FreeRtos QueueOverwriteFromIsr "queue_overwrite_from_isr" ts { queue_id: U32, len_after: U32 }
    106 FreeRtos QueueReceive "queue_receive" ts { queue_id: U32, len_after: U32 }
    107 FreeRtos QueueReceiveFromIsr "queue_receive_from_isr" ts { queue_id: U32, len_after: U32 }
    108 FreeRtos QueueReset "queue_reset" ts { queue_id: U32 }
    109 FreeRtos CurtaskBlockOnQueuePeek "curtask_block_on_queue_peek" ts { queue_id: U32, ticks_to_wait: U32 }
    110 FreeRtos CurtaskBlockOnQueueSend "curtask_block_on_queue_send" ts { queue_id: U32, ticks_to_wait: U32 }
    111 FreeRtos CurtaskBlockOnQueueReceive "curtask_block_on_queue_receive" ts { queue_id: U32, ticks_to_wait: U32 }
    112 FreeRtos QueueCurLength "queue_cur_length" ts { queue_id: U32, length: U32 }
    122 FreeRtos TaskEvtmarkerName "task_evtmarker_name" meta { evtmarker_id: U32, task_id: U32, name: Str }
    123 FreeRtos TaskEvtmarker "task_evtmarker" ts { evtmarker_id: U32, msg: Str }
    124 FreeRtos TaskEvtmarkerBegin "task_evtmarker_begin" ts { evtmarker_id: U32, msg: Str }
    125 FreeRtos TaskEvtmarkerEnd "task_evtmarker_end" ts { evtmarker_id: U32 }
    126 FreeRtos TaskValmarkerName "task_valmarker_name" meta { valmarker_id: U32, task_id: U32, name: Str }
    127 FreeRtos TaskValmarker "task_valmarker" ts { valmarker_id: U32, val: S64 }
    128 FreeRtosExtension TaskNotify "task_notify" ts { task_id: U32, value: U32 }
    129 FreeRtosExtension TaskNotifyFromIsr "task_notify_from_isr" ts { task_id: U32, value: U32 }
    130 FreeRtosExtension CurtaskNotifyTake "curtask_notify_take" ts { value: U32 }
    131 FreeRtosExtension CurtaskBlockOnNotify "curtask_block_on_notify" ts { ticks_to_wait: U32 }
    132 FreeRtosExtension EventGroupCreated "event_group_created" ts { group_id: U32 }
    133 FreeRtosExtension EventGroupName "event_group_name" meta { group_id: U32, name: Str }
    134 FreeRtosExtension EventGroupSetBits "event_group_set_bits" ts { group_id: U32, bits: U32 }
    135 FreeRtosExtension EventGroupSetBitsFromIsr "event_group_set_bits_from_isr" ts { group_id: U32, bits: U32 }
    136 FreeRtosExtension EventGroupClearBits "event_group_clear_bits" ts { group_id: U32, bits: U32 }
    137 FreeRtosExtension EventGroupClearBitsFromIsr "event_group_clear_bits_from_isr" ts { group_id: U32, bits: U32 }
    138 FreeRtosExtension CurtaskBlockOnEventGroup "curtask_block_on_event_group" ts { group_id: U32, ticks_to_wait: U32 }
    139 FreeRtosExtension CurtaskEventGroupWaitEnd "curtask_event_group_wait_end" ts { group_id: U32, bits: U32 }
    140 FreeRtosExtension StreamBufferCreated "stream_buffer_created" ts { buffer_id: U32, kind: U8 }
    141 FreeRtosExtension StreamBufferName "stream_buffer_name" meta { buffer_id: U32, name: Str }
    142 FreeRtosExtension StreamBufferSend "stream_buffer_send" ts { buffer_id: U32, len_after: U32 }
    143 FreeRtosExtension StreamBufferSendFromIsr "stream_buffer_send_from_isr" ts { buffer_id: U32, len_after: U32 }
    144 FreeRtosExtension StreamBufferReceive "stream_buffer_receive" ts { buffer_id: U32, len_after: U32 }
    145 FreeRtosExtension StreamBufferReceiveFromIsr "stream_buffer_receive_from_isr" ts { buffer_id: U32, len_after: U32 }
    146 FreeRtosExtension StreamBufferReset "stream_buffer_reset" ts { buffer_id: U32 }
    147 FreeRtosExtension CurtaskBlockOnStreamBuffer "curtask_block_on_stream_buffer" ts { buffer_id: U32, ticks_to_wait: U32 }
    148 FreeRtosExtension TimerCreated "timer_created" ts { timer_id: U32 }
    149 FreeRtosExtension TimerName "timer_name" meta { timer_id: U32, name: Str }
    150 FreeRtosExtension TimerCommand "timer_command" ts { timer_id: U32, command: U32 }
    151 FreeRtosExtension TimerExpired "timer_expired" ts { timer_id: U32 }
    152 Memory HeapName "heap_name" meta { heap_id: U32, total_size: U32, name: Str }
    153 Memory HeapAlloc "heap_alloc" ts { heap_id: U32, addr: U64, size: U32 }
    154 Memory HeapFree "heap_free" ts { heap_id: U32, addr: U64, size: U32 }
    155 Memory TaskStackSize "task_stack_size" meta { task_id: U32, size: U32 }
    156 Memory TaskStackFree "task_stack_free" ts { task_id: U32, free: U32 }
    160 Fault Fault "fault" ts { kind: U8, pc: U32, lr: U32 }
    161 Fault FaultStatus "fault_status" ts { xpsr: U32, cfsr: U32, hfsr: U32 }
    162 Fault FaultAddress "fault_address" ts { mmfar: U32, bfar: U32 }
    164 Log DefmtFrame "defmt_frame" ts { frame: Str }
}

/// Longest payload of any event without its string: the bytes that come
/// before a string field, or the whole payload of an event without one.
pub const MAX_HEAD_LEN: usize = {
    let mut max = 0;
    let mut i = 0;
    while i < EVENTS.len() {
        let len = EVENTS[i].max_payload_len(0);
        if len > max {
            max = len;
        }
        i += 1;
    }
    max
};

/// Longest frame of any event without a string field.
pub const MAX_FRAMED_LEN_NO_STR: usize = {
    let mut max = 0;
    let mut i = 0;
    while i < EVENTS.len() {
        let len = EVENTS[i].max_framed_len(0);
        if !EVENTS[i].has_str() && len > max {
            max = len;
        }
        i += 1;
    }
    max
};

/// Most integer fields any event has.
pub const MAX_INT_FIELDS: usize = 3;

/// An event as the tracer encodes it: id and metadata flag, its integer
/// fields in schema order already in wire form (`s64` in sign-magnitude,
/// `u8` fields flagged in `raw_bytes` as written as one raw byte, all
/// others as varints), and its string. Built by [`Event::to_raw`], which
/// costs nothing where the variant is known; one small encoder then serves
/// every event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawEvent<'a> {
    pub id: u8,
    pub is_metadata: bool,
    /// How many of `ints` are fields.
    pub n_ints: u8,
    /// Bit `i` set: `ints[i]` is a `u8` field.
    pub raw_bytes: u8,
    pub ints: [u64; MAX_INT_FIELDS],
    pub text: &'a [u8],
}

impl RawEvent<'_> {
    #[inline(always)]
    fn push(&mut self, v: u64) {
        if let Some(slot) = self.ints.get_mut(usize::from(self.n_ints)) {
            *slot = v;
            self.n_ints += 1;
        }
    }

    /// Frames this event with timestamp `ts` (ignored for metadata) into
    /// `buf`; see [`encode_frame`]. One copy of it serves every event.
    #[inline(never)]
    pub fn encode(&self, buf: &mut [u8], ts: u64) -> Option<usize> {
        match FrameWriter::new(&mut *buf) {
            Some(w) => self.write_frame(w, ts),
            None => self.encode_via_scratch(buf, ts),
        }
    }

    /// Only the end of a buffer is shorter than any head: a frame that fits
    /// in it also fits in the scratch.
    #[cold]
    #[inline(never)]
    fn encode_via_scratch(&self, buf: &mut [u8], ts: u64) -> Option<usize> {
        let mut scratch = [0u8; cobs::HEAD_CAPACITY];
        let n = self.encode(&mut scratch, ts)?;
        let frame = scratch.get(..n)?;
        let out = buf.get_mut(..n)?;
        for (to, &from) in out.iter_mut().zip(frame) {
            *to = from;
        }
        Some(n)
    }

    #[inline(always)]
    fn write_frame(&self, mut w: FrameWriter<'_>, ts: u64) -> Option<usize> {
        // The id, the timestamp and the integer fields precede the string,
        // so they cannot fill a COBS block, and take at most
        // MAX_HEAD_LEN < HEAD_CAPACITY bytes.
        const _: () = assert!(MAX_HEAD_LEN < cobs::HEAD_CAPACITY);
        // SAFETY: see the bound above.
        unsafe {
            w.head_u8(self.id);
            if !self.is_metadata {
                w.head_varint(ts);
            }
            let mut raw_bytes = self.raw_bytes;
            for &v in self.ints.iter().take(usize::from(self.n_ints)) {
                if raw_bytes & 1 != 0 {
                    w.head_u8(v as u8);
                } else {
                    w.head_varint(v);
                }
                raw_bytes >>= 1;
            }
        }
        w.bytes(self.text);
        w.finish()
    }
}

/// Frames `event` with timestamp `ts` (ignored for metadata) into `buf`.
/// Returns the frame length including the delimiter, or `None` if `buf` is
/// too short (nothing useful is left in it then).
#[inline]
pub fn encode_frame(buf: &mut [u8], ts: u64, event: &Event<'_>) -> Option<usize> {
    event.to_raw().encode(buf, ts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        for (i, spec) in EVENTS.iter().enumerate() {
            let kind = EventKind::from_id(spec.id).unwrap();
            assert_eq!(kind, EventKind::ALL[i]);
            assert_eq!(kind.spec(), spec);
            assert_eq!(kind.name(), spec.name);
            let str_fields = spec.fields.iter().filter(|f| f.ty == FieldType::Str);
            assert!(str_fields.count() <= 1);
            if spec.has_str() {
                assert_eq!(spec.fields.last().unwrap().ty, FieldType::Str);
            }
        }
        for id in 12..84 {
            assert_eq!(EventKind::from_id(id), None);
        }
        for id in 113..122 {
            assert_eq!(EventKind::from_id(id), None);
        }
        for id in (157..160).chain(163..164).chain(165..=255) {
            assert_eq!(EventKind::from_id(id), None);
        }
        // heap_alloc and heap_free: the id, the timestamp, a u32, a u64, a u32.
        assert_eq!(
            MAX_FRAMED_LEN_NO_STR,
            cobs::max_framed_len(1 + 10 + 5 + 10 + 5)
        );
        assert_eq!(MAX_HEAD_LEN, 1 + 10 + 5 + 10 + 5);
        for spec in EVENTS {
            let ints = spec.fields.iter().filter(|f| f.ty != FieldType::Str);
            assert!(ints.count() <= MAX_INT_FIELDS, "{}", spec.name);
        }
    }

    #[test]
    fn text_is_split_off_and_put_back() {
        let text = [b'x'; 4];
        for spec in EVENTS {
            let mut values = [FieldValue::U8(0); 8];
            for ((i, field), value) in (0u8..).zip(spec.fields).zip(&mut values) {
                *value = match field.ty {
                    FieldType::U8 => FieldValue::U8(i),
                    FieldType::U32 => FieldValue::U32(u32::from(i) + 70_000),
                    FieldType::U64 => FieldValue::U64(u64::from(i) << 40),
                    FieldType::S64 => FieldValue::S64(-i64::from(i)),
                    FieldType::Str => FieldValue::Str(&text),
                };
            }
            let values = &values[..spec.fields.len()];
            let kind = EventKind::from_id(spec.id).unwrap();
            let record = Record {
                ts: Some(9),
                event: Event::from_fields(kind, values).unwrap(),
            };
            match record.detached() {
                Some(detached) => {
                    assert!(!spec.has_str(), "{}", spec.name);
                    assert_eq!(detached, record);
                }
                None => assert!(spec.has_str(), "{}", spec.name),
            }
            assert_eq!(kind.has_text(), spec.has_str(), "{}", spec.name);
            let (without, taken) = record.event.split_text();
            assert_eq!(taken.is_some(), spec.has_str(), "{}", spec.name);
            let other = [b'y'; 2];
            let rejoined = without.with_text(&other);
            let expected = values.iter().map(|v| match v {
                FieldValue::Str(_) => FieldValue::Str(&other),
                v => *v,
            });
            let mut got = [FieldValue::U8(0); 8];
            let mut n = 0;
            rejoined.for_each_field(|_, v| {
                got[n] = v;
                n += 1;
            });
            assert!(expected.eq(got[..n].iter().copied()), "{}", spec.name);
        }
    }

    #[test]
    fn encode_decode_one_of_each() {
        let events = [
            Event::IsrEnter { isr_id: 0 },
            Event::Valmarker {
                valmarker_id: 3,
                val: i64::MIN,
            },
            Event::TaskName {
                task_id: 7,
                name: b"idle",
            },
            Event::QueueKind {
                queue_id: 1,
                kind: 3,
            },
            Event::TaskEvtmarkerName {
                evtmarker_id: 1,
                task_id: 2,
                name: &[0, 0, 1],
            },
        ];
        for ev in events {
            let mut buf = [0u8; 64];
            let n = encode_frame(&mut buf, 1 << 40, &ev).unwrap();
            assert!(n <= ev.kind().spec().max_framed_len(3));
            let mut payload = [0u8; 64];
            let m = cobs::decode(&buf[..n - 1], &mut payload).unwrap();
            assert_eq!(m, ev.payload_len(1 << 40));
            let rec = Record::decode(&payload[..m]).unwrap();
            assert_eq!(rec.event, ev);
            assert_eq!(rec.ts, (!ev.kind().is_metadata()).then_some(1 << 40));
        }
    }

    proptest::proptest! {
        /// Every event of the schema, with any field values and strings up
        /// to 600 bytes, frames within its bound and decodes back to itself.
        #[test]
        fn every_event_round_trips(
            kind_index in 0..EVENTS.len(),
            ints in proptest::array::uniform3(proptest::num::u64::ANY),
            text in proptest::collection::vec(proptest::num::u8::ANY, 0..600),
            ts in proptest::num::u64::ANY,
        ) {
            extern crate std;
            let kind = EventKind::ALL[kind_index];
            let mut values = std::vec::Vec::new();
            for (i, field) in kind.spec().fields.iter().enumerate() {
                values.push(match field.ty {
                    FieldType::U8 => FieldValue::U8(ints[i] as u8),
                    FieldType::U32 => FieldValue::U32(ints[i] as u32),
                    FieldType::U64 => FieldValue::U64(ints[i]),
                    FieldType::S64 => FieldValue::S64(ints[i] as i64),
                    FieldType::Str => FieldValue::Str(&text),
                });
            }
            let event = Event::from_fields(kind, &values).unwrap();
            let mut buf = [0u8; 1024];
            let n = encode_frame(&mut buf, ts, &event).unwrap();
            proptest::prop_assert!(n <= kind.spec().max_framed_len(text.len()));
            proptest::prop_assert_eq!(buf[n - 1], 0);
            proptest::prop_assert!(!buf[..n - 1].contains(&0));
            // An exact-size buffer takes it, one byte less does not.
            let mut scratch = [0u8; 1024];
            proptest::prop_assert_eq!(encode_frame(&mut scratch[..n], ts, &event), Some(n));
            proptest::prop_assert_eq!(encode_frame(&mut scratch[..n - 1], ts, &event), None);
            let mut payload = [0u8; 1024];
            let m = cobs::decode(&buf[..n - 1], &mut payload).unwrap();
            proptest::prop_assert_eq!(m, event.payload_len(ts));
            let rec = Record::decode(&payload[..m]).unwrap();
            proptest::prop_assert_eq!(rec.event, event);
            // Followed by other bytes, the payload reads the same.
            payload[m..m + 8].fill(0x80);
            let rec = Record::decode_within(&payload[..m + 8], m).unwrap();
            proptest::prop_assert_eq!(rec.event, event);
        }
    }

    #[test]
    fn payload_errors() {
        assert_eq!(Record::decode(&[]), Err(PayloadError::Empty));
        assert_eq!(Record::decode(&[12]), Err(PayloadError::UnknownId(12)));
        assert_eq!(
            Record::decode(&[4, 1]),
            Err(PayloadError::TruncatedVarint { field: "isr_id" })
        );
        assert_eq!(
            Record::decode(&[4, 1, 2, 3]),
            Err(PayloadError::TrailingBytes(1))
        );
        assert_eq!(
            Record::decode(&[101, 1]),
            Err(PayloadError::MissingByte { field: "kind" })
        );
        // Bytes after the payload are never read as part of it.
        let isr_enter = [4, 1, 2, 7, 7, 7, 7, 7, 7, 7];
        assert_eq!(
            Record::decode_within(&isr_enter, 3),
            Ok(Record {
                ts: Some(1),
                event: Event::IsrEnter { isr_id: 2 }
            })
        );
        assert_eq!(
            Record::decode_within(&isr_enter, 2),
            Err(PayloadError::TruncatedVarint { field: "isr_id" })
        );
        assert_eq!(
            Record::decode_within(&[4, 0x81, 1, 0, 0, 0, 0, 0, 0], 2),
            Err(PayloadError::TruncatedVarint { field: "ts" })
        );
        assert_eq!(
            Record::decode_within(&[101, 1, 2, 3], 2),
            Err(PayloadError::MissingByte { field: "kind" })
        );
        assert_eq!(
            Record::decode_within(&[7, 1, 2, b'a', b'b', b'c'], 4),
            Ok(Record {
                ts: Some(1),
                event: Event::Evtmarker {
                    evtmarker_id: 2,
                    msg: b"a"
                }
            })
        );
        assert_eq!(
            Record::decode_within(&[4, 1, 2], 0),
            Err(PayloadError::Empty)
        );
    }
}
