//! The kinds of column a [`Table`](super::Table) keeps its rows in.
//!
//! A table's rows live in chunks of [`CHUNK`] rows; a chunk holds every
//! column of its rows, each as an array of one narrow value per row (the
//! column's [`Column::Part`]). What a column keeps across chunks (its
//! dictionary of ids, its exceptions) is the column value itself. A value
//! that does not fit its narrow form is kept whole in the column's
//! exceptions, by row, and marked by a sentinel in the array, so that every
//! value round-trips.
//!
//! [`columns!`] declares the columns of a row type.

use std::marker::PhantomData;

use super::id_index::{IdIndex, IdMap, Key};
use super::{Actor, IsrKey, StrId};

pub(crate) const CHUNK_BITS: u32 = 13;
/// Rows per chunk.
pub(crate) const CHUNK: usize = 1 << CHUNK_BITS;

/// The place of table row `index` in its chunk.
#[inline(always)]
fn place(index: usize) -> usize {
    index & (CHUNK - 1)
}

/// A type for which all-zero bytes are a valid value, so that a chunk can
/// be allocated zeroed.
///
/// # Safety
/// All-zero bytes must be a valid value of the type.
pub unsafe trait Zeroed {}

/// A primitive number.
///
/// # Safety
/// Only for primitive integers, which all-zero bytes make 0.
pub unsafe trait Number: Copy + Eq {}

// SAFETY: primitive integers.
unsafe impl Number for u8 {}
unsafe impl Number for u16 {}
unsafe impl Number for u32 {}
unsafe impl Number for u64 {}
unsafe impl Number for i32 {}

// SAFETY: an array of numbers, each valid as zeros.
unsafe impl<T: Number, const N: usize> Zeroed for [T; N] {}

/// How one field of a row is stored.
pub trait Column: Clone + Default {
    /// The field's value.
    type Value: Copy;
    /// What a chunk holds of the column.
    type Part: Zeroed + Copy;
    /// Stores the value of a new row `index`, whose place in `part` is
    /// still zero; `start` is the row's time.
    fn push(&mut self, part: &mut Self::Part, index: usize, value: Self::Value, start: u64);
    /// Stores a new value of row `index`.
    fn set(&mut self, part: &mut Self::Part, index: usize, value: Self::Value, start: u64);
    /// The value of row `index`.
    fn get(&self, part: &Self::Part, index: usize, start: u64) -> Self::Value;
}

/// The values of the rows that do not fit their column's narrow form.
#[derive(Clone, Debug)]
struct Exceptions<V>(IdMap<usize, V>);

impl<V> Default for Exceptions<V> {
    fn default() -> Self {
        Exceptions(IdMap::default())
    }
}

impl<V: Copy + Default> Exceptions<V> {
    #[cold]
    #[inline(never)]
    fn insert(&mut self, index: usize, value: V) {
        self.0.insert(index, value);
    }

    #[cold]
    #[inline(never)]
    fn remove(&mut self, index: usize) {
        self.0.remove(&index);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.0.len()
    }

    /// The value of row `index` (which the column marked as kept here).
    #[cold]
    #[inline(never)]
    fn get(&self, index: usize) -> V {
        self.0.get(&index).copied().unwrap_or_default()
    }
}

/// The 32-bit value that marks a value kept in the exceptions.
const EXCEPTION_32: u32 = u32::MAX;

/// Rows of a time column that share a base time.
const BLOCK: usize = 64;

#[derive(Clone, Copy)]
pub struct TimePart {
    /// The time of each block's first row.
    bases: [u64; CHUNK / BLOCK],
    /// Each row's time after its block's base.
    offsets: [u32; CHUNK],
}

// SAFETY: arrays of numbers.
unsafe impl Zeroed for TimePart {}

/// A time in ns: a 32-bit offset from the time of the first row of its
/// block of 64 rows. A table whose rows come more than 4.29 s apart on
/// average over 64 rows (or a row before its block's first) keeps those
/// rows' times as exceptions.
#[derive(Clone, Default)]
pub struct Time {
    exceptions: Exceptions<u64>,
}

impl Time {
    #[cfg(test)]
    pub(crate) fn exceptions(&self) -> usize {
        self.exceptions.len()
    }

    #[inline(always)]
    fn store(&mut self, part: &mut TimePart, index: usize, t: u64) {
        let i = place(index);
        let offset = t.wrapping_sub(part.bases[i / BLOCK]);
        if offset < u64::from(EXCEPTION_32) {
            part.offsets[i] = offset as u32;
        } else {
            part.offsets[i] = EXCEPTION_32;
            self.exceptions.insert(index, t);
        }
    }
}

impl Column for Time {
    type Value = u64;
    type Part = TimePart;

    #[inline(always)]
    fn push(&mut self, part: &mut TimePart, index: usize, t: u64, _: u64) {
        let i = place(index);
        if i.is_multiple_of(BLOCK) {
            part.bases[i / BLOCK] = t;
        }
        self.store(part, index, t);
    }

    #[inline]
    fn set(&mut self, part: &mut TimePart, index: usize, t: u64, _: u64) {
        if part.offsets[place(index)] == EXCEPTION_32 {
            self.exceptions.remove(index);
        }
        self.store(part, index, t);
    }

    #[inline(always)]
    fn get(&self, part: &TimePart, index: usize, _: u64) -> u64 {
        let i = place(index);
        match part.offsets[i] {
            EXCEPTION_32 => self.exceptions.get(index),
            offset => part.bases[i / BLOCK].wrapping_add(u64::from(offset)),
        }
    }
}

/// The end of an interval in ns: a 32-bit offset from the row's start.
/// Intervals over 4.29 s (or ending before they start) keep their ends as
/// exceptions.
#[derive(Clone, Default)]
pub struct End {
    exceptions: Exceptions<u64>,
}

impl End {
    #[cfg(test)]
    pub(crate) fn exceptions(&self) -> usize {
        self.exceptions.len()
    }

    #[inline(always)]
    fn store(&mut self, part: &mut [u32; CHUNK], index: usize, end: u64, start: u64) {
        let duration = end.wrapping_sub(start);
        let i = place(index);
        if duration < u64::from(EXCEPTION_32) {
            part[i] = duration as u32;
        } else {
            part[i] = EXCEPTION_32;
            self.exceptions.insert(index, end);
        }
    }
}

impl Column for End {
    type Value = u64;
    type Part = [u32; CHUNK];

    #[inline(always)]
    fn push(&mut self, part: &mut [u32; CHUNK], index: usize, end: u64, start: u64) {
        self.store(part, index, end, start);
    }

    #[inline(always)]
    fn set(&mut self, part: &mut [u32; CHUNK], index: usize, end: u64, start: u64) {
        if part[place(index)] == EXCEPTION_32 {
            self.exceptions.remove(index);
        }
        self.store(part, index, end, start);
    }

    #[inline(always)]
    fn get(&self, part: &[u32; CHUNK], index: usize, start: u64) -> u64 {
        match part[place(index)] {
            EXCEPTION_32 => self.exceptions.get(index),
            duration => start.wrapping_add(u64::from(duration)),
        }
    }
}

/// The width of an id column's codes.
pub trait CodeWidth: Number {
    /// How many ids the codes stand for (the codes below this).
    const IDS: usize;
    /// The code of no id.
    const NONE: Self;
    /// The code of an id kept in the exceptions.
    const EXCEPTION: Self;
    /// The code of the column's `n`th id (`n < IDS`).
    fn of_nth(n: usize) -> Self;
    /// Which of the column's ids the code stands for, if below `IDS`.
    fn nth(self) -> usize;
}

/// Implements [`CodeWidth`] for unsigned integers: the two highest values
/// are no id and an exception.
macro_rules! code_width {
    ($($code:ty),*) => {$(
        impl CodeWidth for $code {
            const IDS: usize = <$code>::MAX as usize - 1;
            const NONE: $code = <$code>::MAX;
            const EXCEPTION: $code = <$code>::MAX - 1;
            #[inline(always)]
            fn of_nth(n: usize) -> $code {
                n as $code
            }
            #[inline(always)]
            fn nth(self) -> usize {
                self.into()
            }
        }
    )*};
}

code_width!(u8, u16);

/// The value of an id column: an id, or an optional one.
pub trait IdValue: Copy {
    type Id: Key + Default;
    fn id(self) -> Option<Self::Id>;
    /// The value of an id (none only for an optional id).
    fn of(id: Option<Self::Id>) -> Self;
}

macro_rules! id_value {
    ($($id:ty),*) => {$(
        impl IdValue for $id {
            type Id = $id;
            #[inline(always)]
            fn id(self) -> Option<$id> {
                Some(self)
            }
            #[inline(always)]
            fn of(id: Option<$id>) -> $id {
                id.unwrap_or_default()
            }
        }

        impl IdValue for Option<$id> {
            type Id = $id;
            #[inline(always)]
            fn id(self) -> Option<$id> {
                self
            }
            #[inline(always)]
            fn of(id: Option<$id>) -> Option<$id> {
                id
            }
        }
    )*};
}

id_value!(u32, IsrKey, Actor);

/// What an id column's dictionary lists first (only optional actors are
/// stored).
impl Default for Actor {
    fn default() -> Self {
        Actor::Task(0)
    }
}

/// Ids coded by the column's dictionary: a row holds its id's code,
/// `C::NONE` for none. A column with more distinct ids than codes keeps
/// the rows of the ids that came after the codes ran out as exceptions.
#[derive(Clone)]
pub struct Dictionary<V: IdValue, C> {
    /// The code of each id.
    codes: IdIndex<V::Id, C>,
    /// The id of each code.
    ids: Vec<V::Id>,
    exceptions: Exceptions<V::Id>,
}

/// Ids below this have their codes found by index: a dictionary of codes
/// of up to 64 Ki ids takes at most 256 KiB.
const DENSE_IDS: usize = 1 << 16;

impl<V: IdValue, C> Default for Dictionary<V, C> {
    fn default() -> Self {
        Dictionary {
            codes: IdIndex::with_limit(DENSE_IDS),
            ids: Vec::new(),
            exceptions: Exceptions::default(),
        }
    }
}

impl<V: IdValue, C: CodeWidth> Dictionary<V, C> {
    #[cfg(test)]
    pub(crate) fn exceptions(&self) -> usize {
        self.exceptions.len()
    }

    #[inline(always)]
    fn store(&mut self, part: &mut [C; CHUNK], index: usize, value: V) {
        part[place(index)] = match value.id() {
            None => C::NONE,
            Some(id) => match self.codes.get(id) {
                Some(&code) => code,
                None => self.new_code(index, id),
            },
        };
    }

    /// Changes every id to `new(id)`, one id to one: each row keeps its
    /// code, so this costs the ids, not the rows.
    pub(crate) fn renumber(&mut self, new: impl Fn(V::Id) -> V::Id) {
        self.codes = IdIndex::with_limit(DENSE_IDS);
        for (n, id) in self.ids.iter_mut().enumerate() {
            *id = new(*id);
            self.codes.insert(*id, C::of_nth(n));
        }
        for id in self.exceptions.0.values_mut() {
            *id = new(*id);
        }
    }

    /// The code of an id seen for the first time, or `C::EXCEPTION` when
    /// the codes are used up.
    #[cold]
    #[inline(never)]
    fn new_code(&mut self, index: usize, id: V::Id) -> C {
        if self.ids.len() < C::IDS {
            let code = C::of_nth(self.ids.len());
            self.ids.push(id);
            self.codes.insert(id, code);
            code
        } else {
            self.exceptions.insert(index, id);
            C::EXCEPTION
        }
    }
}

impl<V: IdValue, C: CodeWidth> Column for Dictionary<V, C> {
    type Value = V;
    type Part = [C; CHUNK];

    #[inline(always)]
    fn push(&mut self, part: &mut [C; CHUNK], index: usize, value: V, _: u64) {
        self.store(part, index, value);
    }

    #[inline(always)]
    fn set(&mut self, part: &mut [C; CHUNK], index: usize, value: V, _: u64) {
        if part[place(index)] == C::EXCEPTION {
            self.exceptions.remove(index);
        }
        self.store(part, index, value);
    }

    #[inline(always)]
    fn get(&self, part: &[C; CHUNK], index: usize, _: u64) -> V {
        let code = part[place(index)];
        match self.ids.get(code.nth()) {
            Some(&id) => V::of(Some(id)),
            None if code == C::NONE => V::of(None),
            None => V::of(Some(self.exceptions.get(index))),
        }
    }
}

/// A value that usually fits the narrower type `N`.
pub trait Narrows<N>: Copy + Default {
    /// The narrow value that marks a value kept in the exceptions.
    const EXCEPTION: N;
    /// The narrow form, if the value has one other than `EXCEPTION`.
    fn narrow(self) -> Option<N>;
    fn widen(narrow: N) -> Self;
}

/// A nesting depth.
impl Narrows<u8> for u32 {
    const EXCEPTION: u8 = u8::MAX;
    #[inline(always)]
    fn narrow(self) -> Option<u8> {
        u8::try_from(self).ok().filter(|&n| n != u8::MAX)
    }
    #[inline(always)]
    fn widen(narrow: u8) -> u32 {
        narrow.into()
    }
}

/// A marker's value.
impl Narrows<i32> for i64 {
    const EXCEPTION: i32 = i32::MIN;
    #[inline(always)]
    fn narrow(self) -> Option<i32> {
        i32::try_from(self).ok().filter(|&n| n != i32::MIN)
    }
    #[inline(always)]
    fn widen(narrow: i32) -> i64 {
        narrow.into()
    }
}

/// A value that may be missing: `i32::MIN + 1` for none.
impl Narrows<i32> for Option<i64> {
    const EXCEPTION: i32 = i32::MIN;
    #[inline(always)]
    fn narrow(self) -> Option<i32> {
        match self {
            None => Some(i32::MIN + 1),
            Some(v) => i32::try_from(v).ok().filter(|&n| n > i32::MIN + 1),
        }
    }
    #[inline(always)]
    fn widen(narrow: i32) -> Option<i64> {
        (narrow != i32::MIN + 1).then_some(narrow.into())
    }
}

/// A count that may be unknown: `u16::MAX` for none.
impl Narrows<u16> for Option<u32> {
    const EXCEPTION: u16 = u16::MAX - 1;
    #[inline(always)]
    fn narrow(self) -> Option<u16> {
        match self {
            None => Some(u16::MAX),
            Some(n) => u16::try_from(n).ok().filter(|&n| n < u16::MAX - 1),
        }
    }
    #[inline(always)]
    fn widen(narrow: u16) -> Option<u32> {
        (narrow != u16::MAX).then_some(narrow.into())
    }
}

/// Values of type `V` stored as the narrower `N` where they fit.
#[derive(Clone)]
pub struct Narrow<V, N> {
    exceptions: Exceptions<V>,
    narrow: PhantomData<N>,
}

impl<V, N> Default for Narrow<V, N> {
    fn default() -> Self {
        Narrow {
            exceptions: Exceptions::default(),
            narrow: PhantomData,
        }
    }
}

impl<V: Narrows<N>, N: Number> Narrow<V, N> {
    #[cfg(test)]
    pub(crate) fn exceptions(&self) -> usize {
        self.exceptions.len()
    }

    #[inline(always)]
    fn store(&mut self, part: &mut [N; CHUNK], index: usize, value: V) {
        part[place(index)] = match value.narrow() {
            Some(narrow) => narrow,
            None => {
                self.exceptions.insert(index, value);
                V::EXCEPTION
            }
        };
    }
}

impl<V: Narrows<N>, N: Number> Column for Narrow<V, N> {
    type Value = V;
    type Part = [N; CHUNK];

    #[inline(always)]
    fn push(&mut self, part: &mut [N; CHUNK], index: usize, value: V, _: u64) {
        self.store(part, index, value);
    }

    #[inline]
    fn set(&mut self, part: &mut [N; CHUNK], index: usize, value: V, _: u64) {
        if part[place(index)] == V::EXCEPTION {
            self.exceptions.remove(index);
        }
        self.store(part, index, value);
    }

    #[inline(always)]
    fn get(&self, part: &[N; CHUNK], index: usize, _: u64) -> V {
        match part[place(index)] {
            narrow if narrow == V::EXCEPTION => self.exceptions.get(index),
            narrow => V::widen(narrow),
        }
    }
}

/// A value stored as it is.
pub trait PlainValue: Copy {
    type Stored: Number;
    fn store(self) -> Self::Stored;
    fn load(stored: Self::Stored) -> Self;
}

impl PlainValue for u32 {
    type Stored = u32;
    #[inline(always)]
    fn store(self) -> u32 {
        self
    }
    #[inline(always)]
    fn load(stored: u32) -> u32 {
        stored
    }
}

impl PlainValue for StrId {
    type Stored = u32;
    #[inline(always)]
    fn store(self) -> u32 {
        self.0
    }
    #[inline(always)]
    fn load(stored: u32) -> StrId {
        StrId(stored)
    }
}

/// Values stored as they are.
pub struct Plain<V>(PhantomData<V>);

impl<V> Clone for Plain<V> {
    fn clone(&self) -> Self {
        Plain(PhantomData)
    }
}

impl<V> Default for Plain<V> {
    fn default() -> Self {
        Plain(PhantomData)
    }
}

impl<V: PlainValue> Column for Plain<V> {
    type Value = V;
    type Part = [V::Stored; CHUNK];

    #[inline(always)]
    fn push(&mut self, part: &mut Self::Part, index: usize, value: V, start: u64) {
        self.set(part, index, value, start);
    }

    #[inline(always)]
    fn set(&mut self, part: &mut Self::Part, index: usize, value: V, _: u64) {
        part[place(index)] = value.store();
    }

    #[inline(always)]
    fn get(&self, part: &Self::Part, index: usize, _: u64) -> V {
        V::load(part[place(index)])
    }
}

/// A small enum, stored in four bits.
pub trait SmallEnum: Copy {
    /// The value's four bits (below 16).
    fn to_bits(self) -> u8;
    /// The value of bits `to_bits` made.
    fn from_bits(bits: u8) -> Self;
}

/// No value as 0, a value as its bits + 1 (every small enum has at most 15
/// values).
impl<E: SmallEnum> SmallEnum for Option<E> {
    #[inline(always)]
    fn to_bits(self) -> u8 {
        self.map_or(0, |e| e.to_bits() + 1)
    }
    #[inline(always)]
    fn from_bits(bits: u8) -> Self {
        bits.checked_sub(1).map(E::from_bits)
    }
}

/// Declares a fieldless enum of at most 15 variants and implements
/// [`SmallEnum`] for it: a variant's bits are its place in the declaration.
macro_rules! small_enum {
    (
        $(#[$meta:meta])*
        pub enum $enum:ident {
            $($(#[$variant_meta:meta])* $variant:ident,)+
        }
    ) => {
        $(#[$meta])*
        pub enum $enum {
            $($(#[$variant_meta])* $variant,)+
        }

        impl $crate::column::SmallEnum for $enum {
            #[inline(always)]
            fn to_bits(self) -> u8 {
                self as u8
            }

            #[inline(always)]
            fn from_bits(bits: u8) -> Self {
                const ALL: &[$enum] = &[$($enum::$variant),+];
                const _: () = assert!(ALL.len() <= 15, "too many variants for four bits");
                ALL.get(usize::from(bits)).copied().unwrap_or(ALL[0])
            }
        }
    };
}
pub(crate) use small_enum;

/// Small enums, four bits each, two rows to a byte.
pub struct Enum<E>(PhantomData<E>);

impl<E> Clone for Enum<E> {
    fn clone(&self) -> Self {
        Enum(PhantomData)
    }
}

impl<E> Default for Enum<E> {
    fn default() -> Self {
        Enum(PhantomData)
    }
}

/// The byte of row `index` in a column of four bits a row, and the shift
/// of the row's bits in it.
#[inline(always)]
fn nibble(index: usize) -> (usize, u32) {
    let i = place(index);
    (i / 2, (i % 2 * 4) as u32)
}

impl<E: SmallEnum> Column for Enum<E> {
    type Value = E;
    type Part = [u8; CHUNK / 2];

    #[inline(always)]
    fn push(&mut self, part: &mut Self::Part, index: usize, value: E, _: u64) {
        let (byte, shift) = nibble(index);
        part[byte] |= value.to_bits() << shift;
    }

    #[inline(always)]
    fn set(&mut self, part: &mut Self::Part, index: usize, value: E, _: u64) {
        let (byte, shift) = nibble(index);
        part[byte] = part[byte] & !(0xf << shift) | value.to_bits() << shift;
    }

    #[inline(always)]
    fn get(&self, part: &Self::Part, index: usize, _: u64) -> E {
        let (byte, shift) = nibble(index);
        E::from_bits(part[byte] >> shift & 0xf)
    }
}

/// Flags, a bit each.
#[derive(Clone, Default)]
pub struct Flag;

impl Column for Flag {
    type Value = bool;
    type Part = [u64; CHUNK / 64];

    #[inline(always)]
    fn push(&mut self, part: &mut Self::Part, index: usize, value: bool, _: u64) {
        let i = place(index);
        part[i / 64] |= u64::from(value) << (i % 64);
    }

    #[inline(always)]
    fn set(&mut self, part: &mut Self::Part, index: usize, value: bool, _: u64) {
        let i = place(index);
        let word = &mut part[i / 64];
        *word = *word & !(1 << (i % 64)) | u64::from(value) << (i % 64);
    }

    #[inline(always)]
    fn get(&self, part: &Self::Part, index: usize, _: u64) -> bool {
        let i = place(index);
        part[i / 64] >> (i % 64) & 1 != 0
    }
}

/// Declares the columns of a row type: its time first (a [`Time`]), then,
/// for an interval, its end (an [`End`]), then its other fields, each with
/// its kind of column. Implements [`Row`](super::Row) (and
/// [`Interval`](super::table::Interval) for an interval) with a chunk type
/// `$chunk` and a type `$columns` for what the columns keep across chunks.
macro_rules! columns {
    (
        $row:ident in $chunk:ident, $columns:ident {
            $start:ident: Time,
            $end:ident: End,
            $($field:ident: $kind:ty),* $(,)?
        }
    ) => {
        columns!(@row $row in $chunk, $columns {
            $start: Time,
            $end: End,
            $($field: $kind),*
        });

        impl Interval for $row {
            #[inline(always)]
            fn end_at(chunk: &mut $chunk, columns: &mut $columns, index: usize, t: u64) {
                let start = columns.$start.get(&chunk.$start, index, 0);
                columns.$end.set(&mut chunk.$end, index, t.max(start), start);
            }
        }
    };
    (
        $row:ident in $chunk:ident, $columns:ident {
            $time:ident: Time,
            $($field:ident: $kind:ty),* $(,)?
        }
    ) => {
        columns!(@row $row in $chunk, $columns { $time: Time, $($field: $kind),* });
    };
    (
        @row $row:ident in $chunk:ident, $columns:ident {
            $time:ident: Time,
            $($field:ident: $kind:ty),*
        }
    ) => {
        #[derive(Clone, Copy)]
        pub struct $chunk {
            $time: <Time as Column>::Part,
            $($field: <$kind as Column>::Part,)*
        }

        // SAFETY: every field is a column's part, which is `Zeroed`.
        unsafe impl Zeroed for $chunk {}

        #[derive(Clone, Default)]
        pub struct $columns {
            $time: Time,
            $($field: $kind,)*
        }

        impl Row for $row {
            type Chunk = $chunk;
            type Columns = $columns;

            #[inline(always)]
            fn time_ns(&self) -> u64 {
                self.$time
            }

            #[inline(always)]
            fn push(self, chunk: &mut $chunk, columns: &mut $columns, index: usize) {
                columns.$time.push(&mut chunk.$time, index, self.$time, 0);
                $(columns.$field.push(&mut chunk.$field, index, self.$field, self.$time);)*
            }

            #[inline]
            fn set(self, chunk: &mut $chunk, columns: &mut $columns, index: usize) {
                columns.$time.set(&mut chunk.$time, index, self.$time, 0);
                $(columns.$field.set(&mut chunk.$field, index, self.$field, self.$time);)*
            }

            #[inline(always)]
            fn get(chunk: &$chunk, columns: &$columns, index: usize) -> Self {
                let $time = columns.$time.get(&chunk.$time, index, 0);
                $row {
                    $time,
                    $($field: columns.$field.get(&chunk.$field, index, $time),)*
                }
            }
        }
    };
}
pub(crate) use columns;
