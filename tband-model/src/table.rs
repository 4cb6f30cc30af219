//! Compact storage for the model's large tables.
//!
//! A [`Table`] keeps its rows packed: times as 32-bit offsets from a base
//! time of the row's chunk and 32-bit durations, ids as 12- or 16-bit codes
//! into the table's dictionary ([`Codes`]), enums and flags in a few bits. Rows live in
//! chunks of fixed size, so the table grows without copying and wastes at
//! most part of one chunk. A row whose time does not fit the chunk's current
//! base (more than 4.29 s after it, or before it) starts a new base there; a
//! row that still does not fit (a duration over 4.29 s, more distinct ids
//! than its codes hold, ...) is kept whole on the side, so every value round-trips.
//!
//! Tables yield rows by value, as the plain row structs of [`super`].

use std::fmt;

use super::builder::IdMap;

const CHUNK_BITS: u32 = 13;
/// Rows per chunk.
const CHUNK: usize = 1 << CHUNK_BITS;

/// A row type that a [`Table`] can store packed.
pub trait Row: Copy {
    /// The packed form of a row; its times are relative to its chunk's base.
    type Packed: Copy + Default;
    /// The row's time: the first row of a chunk sets the chunk's base.
    fn time_ns(&self) -> u64;
    /// The packed form, or `None` if a value does not fit it.
    fn pack(&self, base: u64, codes: &mut Codes) -> Option<Self::Packed>;
    fn unpack(packed: Self::Packed, base: u64, codes: &Codes) -> Self;
}

/// A row type with a start and an end, which is ended after it is pushed.
pub trait Interval: Row {
    /// Ends a packed row at `t` (not before its start); false if the end
    /// does not fit the packed form.
    fn end_packed_at(packed: &mut Self::Packed, base: u64, t: u64) -> bool;
    /// Ends a row at `t` (not before its start).
    fn end_at(&mut self, t: u64);
}

/// The dictionary of a table: 16-bit codes for the ids its rows hold.
#[derive(Clone, Debug)]
pub struct Codes {
    values: Vec<u64>,
    /// The code of each small key (`Codes::NONE`: none yet), so lookups
    /// are an index.
    dense: Vec<u16>,
    sparse: IdMap<u64, u16>,
    /// Large keys found lately and their codes, by a hash of the key
    /// (`Codes::NONE`: empty), so that the usual few large ids (addresses,
    /// in imported traces) are found without the map.
    recent: [(u64, u16); RECENT_SLOTS],
}

impl Default for Codes {
    fn default() -> Self {
        Codes {
            values: Vec::new(),
            dense: Vec::new(),
            sparse: IdMap::default(),
            recent: [(0, Codes::NONE); RECENT_SLOTS],
        }
    }
}

const RECENT_SLOTS: usize = 32;

/// The slot of `key` in `Codes::recent`.
#[inline]
fn recent_slot(key: u64) -> usize {
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 59) as usize
}

/// Keys below this are looked up by index.
const DENSE_KEYS: u64 = 4096;

impl Codes {
    /// The code of an absent optional id.
    pub(crate) const NONE: u16 = u16::MAX;

    /// The code of `key`, assigned on first use; `None` when the codes are
    /// used up (`Codes::NONE` is never assigned).
    #[inline(always)]
    pub(crate) fn code(&mut self, key: u64) -> Option<u16> {
        if let Some(&code) = usize::try_from(key).ok().and_then(|i| self.dense.get(i)) {
            if code != Codes::NONE {
                return Some(code);
            }
        }
        self.code_slow(key)
    }

    #[inline(never)]
    fn code_slow(&mut self, key: u64) -> Option<u16> {
        if key < DENSE_KEYS {
            let code = self.assign(key)?;
            let i = key as usize;
            if i >= self.dense.len() {
                self.dense.resize(i + 1, Codes::NONE);
            }
            self.dense[i] = code;
            Some(code)
        } else {
            let slot = &mut self.recent[recent_slot(key)];
            if slot.0 == key && slot.1 != Codes::NONE {
                return Some(slot.1);
            }
            let code = match self.sparse.get(&key) {
                Some(&code) => code,
                None => {
                    let code = self.assign(key)?;
                    self.sparse.insert(key, code);
                    code
                }
            };
            self.recent[recent_slot(key)] = (key, code);
            Some(code)
        }
    }

    fn assign(&mut self, key: u64) -> Option<u16> {
        let code = u16::try_from(self.values.len())
            .ok()
            .filter(|&c| c != Codes::NONE)?;
        self.values.push(key);
        Some(code)
    }

    /// The code of an optional id (`Codes::NONE` for none).
    #[inline(always)]
    pub(crate) fn optional(&mut self, id: Option<u32>) -> Option<u16> {
        match id {
            Some(id) => self.code(id.into()),
            None => Some(Codes::NONE),
        }
    }

    /// The key a code stands for.
    #[inline]
    pub(crate) fn key(&self, code: u16) -> u64 {
        self.values.get(usize::from(code)).copied().unwrap_or(0)
    }

    /// The id a code of a 32-bit id stands for.
    #[inline]
    pub(crate) fn id(&self, code: u16) -> u32 {
        self.key(code) as u32
    }

    #[inline]
    pub(crate) fn optional_id(&self, code: u16) -> Option<u32> {
        (code != Codes::NONE).then(|| self.id(code))
    }
}

/// `t` as an offset from `base`, if it fits.
#[inline]
pub(crate) fn offset(t: u64, base: u64) -> Option<u32> {
    u32::try_from(t.checked_sub(base)?).ok()
}

/// Maps in the pages of a new chunk's rows with one call, instead of one
/// page fault per 4 KiB as the rows are written (the faults took about a
/// sixth of the model build's time on the benchmark machine).
#[cfg(target_os = "linux")]
fn map_in<P>(rows: &mut Vec<P>) {
    let spare = rows.spare_capacity_mut();
    let start = spare.as_mut_ptr() as usize;
    // SAFETY: the range is the vector's unused capacity, which it owns.
    // Populating its pages only maps them in (as zero pages, or as they
    // are if already mapped); no byte changes.
    unsafe {
        advise_whole_pages(
            start,
            start + std::mem::size_of_val(spare),
            libc::MADV_POPULATE_WRITE,
        )
    };
}

#[cfg(not(target_os = "linux"))]
fn map_in<P>(_: &mut Vec<P>) {}

/// Frees a chunk's rows, giving their pages back to the system first: the
/// allocator keeps freed memory mapped for its next allocations, so a
/// table read and freed chunk by chunk would otherwise stay resident
/// wherever those allocations do not happen to fill its holes.
#[cfg(target_os = "linux")]
fn map_out<P>(rows: Vec<P>) {
    let start = rows.as_ptr() as usize;
    // SAFETY: the range is the vector's allocation, which it owns; its
    // pages are freed below without being read. Discarding them only
    // makes them read as zeros.
    unsafe {
        advise_whole_pages(
            start,
            start + rows.capacity() * std::mem::size_of::<P>(),
            libc::MADV_DONTNEED,
        )
    };
    drop(rows);
}

#[cfg(not(target_os = "linux"))]
fn map_out<P>(rows: Vec<P>) {
    drop(rows);
}

/// Gives the kernel `advice` for the whole pages (of the system's size:
/// it would round a partial page up) inside `start..end`.
///
/// # Safety
/// The range must be memory the caller owns, for which the advice is
/// harmless.
#[cfg(target_os = "linux")]
unsafe fn advise_whole_pages(start: usize, end: usize, advice: libc::c_int) {
    // SAFETY: only reads a value.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    let Ok(page @ 1..) = usize::try_from(page) else {
        return;
    };
    let (first, last) = (start.next_multiple_of(page), end / page * page);
    if last > first {
        // SAFETY: whole pages inside the caller's range (see above).
        unsafe { libc::madvise(first as *mut libc::c_void, last - first, advice) };
    }
}

struct Chunk<P> {
    /// The time the packed offsets of its first rows are relative to.
    base: u64,
    /// Further bases as (first row in the chunk, base) in row order, for
    /// rows whose time did not fit the base before; almost always empty.
    later_bases: Vec<(u16, u64)>,
    /// Its rows; empty while it is the last chunk, whose rows are
    /// `Table::tail`.
    rows: Vec<P>,
    /// Which rows of this chunk are kept whole in `Table::wide`, a bit
    /// each; `None` while none are.
    wide_rows: Option<Box<WideRows>>,
}

/// A chunk and its rows (see [`Table::chunk`]).
type ChunkRows<'a, P> = (&'a Chunk<P>, &'a [P]);

/// One bit per row of a chunk.
type WideRows = [u64; CHUNK / 64];

/// Whether row `row` of a chunk is marked in its `wide_rows`.
#[inline]
fn marked(wide_rows: Option<&WideRows>, row: usize) -> bool {
    wide_rows.is_some_and(|bits| bits[(row / 64) % bits.len()] >> (row % 64) & 1 != 0)
}

impl<P> Chunk<P> {
    /// Whether the chunk's row `row` is kept whole.
    #[inline]
    fn is_wide(&self, row: usize) -> bool {
        marked(self.wide_rows.as_deref(), row)
    }

    fn mark_wide(&mut self, row: usize) {
        let bits = self
            .wide_rows
            .get_or_insert_with(|| Box::new([0; CHUNK / 64]));
        bits[(row / 64) % bits.len()] |= 1 << (row % 64);
    }

    /// The base of the chunk's row `row`.
    #[inline]
    fn base(&self, row: usize) -> u64 {
        if self.later_bases.is_empty() {
            self.base
        } else {
            self.later_base(row)
        }
    }

    #[cold]
    fn later_base(&self, row: usize) -> u64 {
        let after = self
            .later_bases
            .partition_point(|&(first, _)| usize::from(first) <= row);
        match after.checked_sub(1) {
            Some(i) => self.later_bases[i].1,
            None => self.base,
        }
    }
}

impl<P: Clone> Clone for Chunk<P> {
    fn clone(&self) -> Self {
        Chunk {
            base: self.base,
            later_bases: self.later_bases.clone(),
            rows: self.rows.clone(),
            wide_rows: self.wide_rows.clone(),
        }
    }
}

/// A table of rows of type `R`, stored packed (see the module documentation).
pub struct Table<R: Row> {
    chunks: Vec<Chunk<R::Packed>>,
    /// The rows of the last chunk, kept out of it so that a push, and the
    /// end of a row pushed lately, need no look-up of the chunk.
    tail: Vec<R::Packed>,
    /// The index of the last chunk's first row.
    tail_start: usize,
    codes: Codes,
    /// Rows that do not fit the packed form, by index.
    wide: IdMap<usize, R>,
    /// The base new rows are packed against: the last chunk's latest.
    tail_base: u64,
    /// The index of the first row packed against `tail_base`: rows from
    /// there on are ended without looking up their chunk's base.
    /// `NO_TAIL_FIRST` once a row of the last chunk is kept whole (ends
    /// then look their row up).
    tail_first: usize,
}

/// `Table::tail_first` while the last chunk keeps a row whole.
const NO_TAIL_FIRST: usize = usize::MAX;

impl<R: Row> Default for Table<R> {
    fn default() -> Self {
        Table {
            chunks: Vec::new(),
            tail: Vec::new(),
            tail_start: 0,
            codes: Codes::default(),
            wide: IdMap::default(),
            tail_base: 0,
            tail_first: 0,
        }
    }
}

impl<R: Row> Clone for Table<R> {
    fn clone(&self) -> Self {
        Table {
            chunks: self.chunks.clone(),
            tail: self.tail.clone(),
            tail_start: self.tail_start,
            codes: self.codes.clone(),
            wide: self.wide.clone(),
            tail_base: self.tail_base,
            tail_first: self.tail_first,
        }
    }
}

impl<R: Row> Table<R> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Every row, kept whole or not, has a slot in its chunk's rows (see
    /// `push_wide`), so the count follows from the last chunk's.
    #[inline]
    pub fn len(&self) -> usize {
        self.tail_start + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many rows are kept whole.
    #[cfg(test)]
    pub(crate) fn wide_rows(&self) -> usize {
        self.wide.len()
    }

    /// Appends a row and returns its index.
    #[inline(always)]
    pub fn push(&mut self, row: R) -> usize {
        let index = self.len();
        if index.is_multiple_of(CHUNK) {
            self.start_chunk(row.time_ns());
        }
        match row.pack(self.tail_base, &mut self.codes) {
            Some(packed) => self.tail.push(packed),
            None => self.push_unfit(index, row),
        }
        index
    }

    #[inline(never)]
    fn start_chunk(&mut self, base: u64) {
        // The first chunk grows as needed (small traces stay small); the
        // others are allocated whole, so growing never copies rows.
        let len = self.len();
        let rows = if len == 0 {
            Vec::new()
        } else {
            let mut rows = Vec::with_capacity(CHUNK);
            map_in(&mut rows);
            rows
        };
        let full = std::mem::replace(&mut self.tail, rows);
        if let Some(last) = self.chunks.last_mut() {
            last.rows = full;
        }
        self.chunks.push(Chunk {
            base,
            later_bases: Vec::new(),
            rows: Vec::new(),
            wide_rows: None,
        });
        self.tail_start = len;
        self.tail_base = base;
        self.tail_first = len;
    }

    /// Pushes a row that does not fit the chunk's current base: packed
    /// against a new base at its own time if that makes it fit, else whole.
    #[cold]
    fn push_unfit(&mut self, index: usize, row: R) {
        let t = row.time_ns();
        if t != self.tail_base {
            if let (Some(packed), Some(chunk)) =
                (row.pack(t, &mut self.codes), self.chunks.last_mut())
            {
                // A chunk's rows number at most CHUNK = 2^13, so this fits.
                chunk.later_bases.push(((index & (CHUNK - 1)) as u16, t));
                self.tail.push(packed);
                self.tail_base = t;
                if self.tail_first != NO_TAIL_FIRST {
                    self.tail_first = index;
                }
                return;
            }
        }
        self.push_wide(index, row);
    }

    /// Keeps a row that does not fit the packed form whole.
    fn push_wide(&mut self, index: usize, row: R) {
        if let Some(chunk) = self.chunks.last_mut() {
            self.tail.push(R::Packed::default());
            chunk.mark_wide(index & (CHUNK - 1));
            self.tail_first = NO_TAIL_FIRST;
        }
        self.wide.insert(index, row);
    }

    /// Chunk `i` and its rows.
    #[inline]
    fn chunk(&self, i: usize) -> Option<ChunkRows<'_, R::Packed>> {
        let chunk = self.chunks.get(i)?;
        let rows = if i + 1 == self.chunks.len() {
            &self.tail
        } else {
            &chunk.rows
        };
        Some((chunk, rows))
    }

    /// The row at `index`.
    #[inline]
    pub fn get(&self, index: usize) -> Option<R> {
        let (chunk, rows) = self.chunk(index >> CHUNK_BITS)?;
        let packed = *rows.get(index & (CHUNK - 1))?;
        if chunk.is_wide(index & (CHUNK - 1)) {
            return self.wide.get(&index).copied();
        }
        Some(R::unpack(
            packed,
            chunk.base(index & (CHUNK - 1)),
            &self.codes,
        ))
    }

    pub fn first(&self) -> Option<R> {
        self.get(0)
    }

    pub fn last(&self) -> Option<R> {
        self.get(self.len().checked_sub(1)?)
    }

    /// Changes the row at `index` (nothing if there is none).
    pub fn update(&mut self, index: usize, change: impl FnOnce(&mut R)) {
        let (i, row_in_chunk) = (index >> CHUNK_BITS, index & (CHUNK - 1));
        let in_tail = i + 1 == self.chunks.len();
        let Some(chunk) = self.chunks.get_mut(i) else {
            return;
        };
        let base = chunk.base(row_in_chunk);
        if chunk.is_wide(row_in_chunk) {
            if let Some(row) = self.wide.get_mut(&index) {
                change(row);
            }
            return;
        }
        let rows = if in_tail {
            &mut self.tail
        } else {
            &mut chunk.rows
        };
        let Some(slot) = rows.get_mut(row_in_chunk) else {
            return;
        };
        let mut row = R::unpack(*slot, base, &self.codes);
        change(&mut row);
        match row.pack(base, &mut self.codes) {
            Some(packed) => *slot = packed,
            None => {
                chunk.mark_wide(row_in_chunk);
                if in_tail {
                    self.tail_first = NO_TAIL_FIRST;
                }
                self.wide.insert(index, row);
            }
        }
    }

    /// Ends the row at `index` at `t` (not before its start).
    #[inline(always)]
    pub(crate) fn end_at(&mut self, index: usize, t: u64)
    where
        R: Interval,
    {
        self.change(
            index,
            |packed, base| R::end_packed_at(packed, base, t),
            |row| row.end_at(t),
        );
    }

    /// Changes the row at `index`: in its packed form where `packed` can
    /// (it is given the row's base, and changes nothing when it returns
    /// false), else through `whole`.
    #[inline(always)]
    pub(crate) fn change(
        &mut self,
        index: usize,
        packed: impl Fn(&mut R::Packed, u64) -> bool,
        whole: impl FnOnce(&mut R),
    ) {
        // The usual case: a row packed against the latest base, in the last
        // chunk, which keeps no row whole.
        if index >= self.tail_first {
            if let Some(slot) = self.tail.get_mut(index.wrapping_sub(self.tail_start)) {
                if packed(slot, self.tail_base) {
                    return;
                }
            }
        }
        self.change_any(index, packed, whole);
    }

    /// Changes the row at `index`, wherever it is.
    #[inline(never)]
    fn change_any(
        &mut self,
        index: usize,
        packed: impl Fn(&mut R::Packed, u64) -> bool,
        whole: impl FnOnce(&mut R),
    ) {
        let (i, row_in_chunk) = (index >> CHUNK_BITS, index & (CHUNK - 1));
        let in_tail = i + 1 == self.chunks.len();
        if let Some(chunk) = self.chunks.get_mut(i) {
            if !chunk.is_wide(row_in_chunk) {
                let base = chunk.base(row_in_chunk);
                let rows = if in_tail {
                    &mut self.tail
                } else {
                    &mut chunk.rows
                };
                if let Some(slot) = rows.get_mut(row_in_chunk) {
                    if packed(slot, base) {
                        return;
                    }
                }
            }
        }
        self.update(index, whole);
    }

    /// Keeps only the rows for which `keep` holds, in order. Each chunk is
    /// released once its rows are moved, so the table never exists twice.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&R) -> bool) {
        for row in std::mem::take(self) {
            if keep(&row) {
                self.push(row);
            }
        }
    }

    /// The rows as plain structs.
    pub fn to_vec(&self) -> Vec<R> {
        self.iter().collect()
    }

    /// The rows in order.
    pub fn iter(&self) -> Iter<'_, R> {
        Iter {
            table: self,
            run: &[],
            run_base: 0,
            run_wide_rows: None,
            front: 0,
            back: self.len(),
        }
    }

    /// The number of leading rows for which `pred` holds (the rows must be
    /// partitioned by it, e.g. `|r| r.start_ns < t` on a table in start order).
    pub fn partition_point(&self, mut pred: impl FnMut(&R) -> bool) -> usize {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            if self.get(mid).is_some_and(|row| pred(&row)) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        low
    }
}

/// The rows of a table in order, by value.
///
/// Reading from the front walks a run of rows at a time: the packed rows
/// still to read of a chunk, up to where a later base starts, are held as a
/// slice with their base, so a row costs its unpacking (and, for a row kept
/// whole, a look-up). Reads from the back go through [`Table::get`]. `fold`
/// (and so `for_each`) reads a run at a time.
pub struct Iter<'a, R: Row> {
    table: &'a Table<R>,
    /// The packed rows `front..front + run.len()`, all of them packed
    /// against `run_base`; never reaches `back`.
    run: &'a [R::Packed],
    run_base: u64,
    /// Which rows of the run's chunk are kept whole.
    run_wide_rows: Option<&'a WideRows>,
    front: usize,
    back: usize,
}

impl<R: Row> Clone for Iter<'_, R> {
    fn clone(&self) -> Self {
        Iter { ..*self }
    }
}

impl<R: Row> Iter<'_, R> {
    /// Starts a run at `front` once the last one is used up.
    #[inline(never)]
    fn start_run(&mut self) -> Option<()> {
        if self.front >= self.back {
            return None;
        }
        let (chunk, rows) = self.table.chunk(self.front >> CHUNK_BITS)?;
        let first = self.front & (CHUNK - 1);
        let later = chunk
            .later_bases
            .partition_point(|&(start, _)| usize::from(start) <= first);
        let end = match chunk.later_bases.get(later) {
            Some(&(next_base_start, _)) => usize::from(next_base_start),
            None => rows.len(),
        };
        let end = end.min(first + (self.back - self.front));
        self.run = rows.get(first..end).filter(|run| !run.is_empty())?;
        self.run_base = chunk.base(first);
        self.run_wide_rows = chunk.wide_rows.as_deref();
        Some(())
    }

    /// The row at `index`, read from a run of its chunk.
    #[inline(always)]
    fn unpack(&self, index: usize, packed: R::Packed) -> R {
        if marked(self.run_wide_rows, index & (CHUNK - 1)) {
            if let Some(row) = self.table.wide.get(&index) {
                return *row;
            }
        }
        R::unpack(packed, self.run_base, &self.table.codes)
    }
}

impl<R: Row> Iterator for Iter<'_, R> {
    type Item = R;

    #[inline(always)]
    fn next(&mut self) -> Option<R> {
        if self.run.is_empty() {
            self.start_run()?;
        }
        let (&packed, run) = self.run.split_first()?;
        self.run = run;
        let index = self.front;
        self.front += 1;
        Some(self.unpack(index, packed))
    }

    fn nth(&mut self, n: usize) -> Option<R> {
        match self.run.get(n..) {
            Some(rest) => self.run = rest,
            None => self.run = &[],
        }
        self.front = self.front.saturating_add(n).min(self.back);
        self.next()
    }

    #[inline]
    fn fold<B, F: FnMut(B, R) -> B>(mut self, init: B, mut f: F) -> B {
        let mut acc = init;
        while !self.run.is_empty() || self.start_run().is_some() {
            for &packed in std::mem::take(&mut self.run) {
                let index = self.front;
                self.front += 1;
                acc = f(acc, self.unpack(index, packed));
            }
        }
        acc
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl<R: Row> DoubleEndedIterator for Iter<'_, R> {
    fn next_back(&mut self) -> Option<R> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        self.run = &self.run[..self.run.len().min(self.back - self.front)];
        self.table.get(self.back)
    }
}

impl<R: Row> ExactSizeIterator for Iter<'_, R> {}

/// The rows of a table by value, in order, each chunk freed (and its pages
/// given back to the system) once its rows are read: a table given up as
/// it is read is never held twice.
pub struct IntoIter<R: Row> {
    /// The chunks still to read, each with its rows.
    chunks: std::vec::IntoIter<Chunk<R::Packed>>,
    /// The chunk being read, and its next row.
    chunk: Option<Chunk<R::Packed>>,
    row: usize,
    /// The table index of that row.
    index: usize,
    len: usize,
    codes: Codes,
    wide: IdMap<usize, R>,
}

impl<R: Row> Iterator for IntoIter<R> {
    type Item = R;

    #[inline]
    fn next(&mut self) -> Option<R> {
        loop {
            if let Some(chunk) = &self.chunk {
                if let Some(&packed) = chunk.rows.get(self.row) {
                    let (row, index) = (self.row, self.index);
                    self.row += 1;
                    self.index += 1;
                    if chunk.is_wide(row) {
                        if let Some(&whole) = self.wide.get(&index) {
                            return Some(whole);
                        }
                    }
                    return Some(R::unpack(packed, chunk.base(row), &self.codes));
                }
            }
            if let Some(read) = self.chunk.take() {
                map_out(read.rows);
            }
            self.chunk = self.chunks.next();
            self.chunk.as_ref()?;
            self.row = 0;
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len - self.index;
        (n, Some(n))
    }
}

impl<R: Row> ExactSizeIterator for IntoIter<R> {}

impl<R: Row> IntoIterator for Table<R> {
    type Item = R;
    type IntoIter = IntoIter<R>;

    fn into_iter(self) -> IntoIter<R> {
        let len = self.len();
        let Table {
            mut chunks,
            tail,
            codes,
            wide,
            ..
        } = self;
        if let Some(last) = chunks.last_mut() {
            last.rows = tail;
        }
        IntoIter {
            chunks: chunks.into_iter(),
            chunk: None,
            row: 0,
            index: 0,
            len,
            codes,
            wide,
        }
    }
}

impl<'a, R: Row> IntoIterator for &'a Table<R> {
    type Item = R;
    type IntoIter = Iter<'a, R>;
    fn into_iter(self) -> Iter<'a, R> {
        self.iter()
    }
}

impl<R: Row> FromIterator<R> for Table<R> {
    fn from_iter<I: IntoIterator<Item = R>>(rows: I) -> Self {
        let mut table = Table::new();
        table.extend(rows);
        table
    }
}

impl<R: Row> Extend<R> for Table<R> {
    fn extend<I: IntoIterator<Item = R>>(&mut self, rows: I) {
        for row in rows {
            self.push(row);
        }
    }
}

impl<R: Row> From<Vec<R>> for Table<R> {
    fn from(rows: Vec<R>) -> Self {
        rows.into_iter().collect()
    }
}

impl<R: Row + fmt::Debug> fmt::Debug for Table<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<R: Row + PartialEq> PartialEq for Table<R> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<R: Row + Eq> Eq for Table<R> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SchedSlice, StateReason};

    #[test]
    fn large_keys_keep_their_codes_when_they_share_a_recent_slot() {
        let mut codes = Codes::default();
        // Addresses 8 bytes apart, more of them than there are slots, so
        // that slots are shared and replaced.
        let keys: Vec<u64> = (0..200u64).map(|i| 0x2000_0000 + 8 * i).collect();
        let first: Vec<u16> = keys.iter().map(|&k| codes.code(k).unwrap()).collect();
        for round in 0..3 {
            for (i, &key) in keys.iter().enumerate().rev().skip(round) {
                assert_eq!(codes.code(key), Some(first[i]));
                assert_eq!(codes.key(first[i]), key);
            }
        }
        assert_eq!(codes.code(u64::MAX), Some(200));
        assert_eq!(codes.code(u64::MAX), Some(200));
    }

    #[test]
    fn time_gaps_inside_a_chunk_start_a_new_base_instead_of_whole_rows() {
        // Slices 3 s apart: a 8192-row chunk spans far more than 4.29 s, and
        // one row goes back in time.
        let start = |i: u64| if i == 5_000 { 7 } else { i * 3_000_000_000 };
        let slice = |i: u64| SchedSlice {
            start_ns: start(i),
            end_ns: start(i) + 100,
            task_id: (i % 5) as u32,
            core_id: 0,
            end_state: None,
            end_reason: StateReason::None,
            truncated: false,
        };
        let rows: Vec<SchedSlice> = (0..20_000).map(slice).collect();
        let mut table: Table<SchedSlice> = rows.iter().copied().collect();
        assert!(
            table.wide.is_empty(),
            "{} rows kept whole",
            table.wide.len()
        );
        assert!(table.iter().eq(rows.iter().copied()));
        table.end_at(12_345, 12_345 * 3_000_000_000 + 500);
        assert_eq!(
            table.get(12_345).unwrap().end_ns,
            12_345 * 3_000_000_000 + 500
        );
        assert_eq!(table.get(5_000).unwrap().start_ns, 7);
    }

    #[test]
    fn rows_ended_beside_rows_kept_whole_stay_packed() {
        // One chunk: every hundredth row is ended more than 4.29 s after its
        // start and kept whole; the rows around it are ended as usual.
        let mut table = Table::new();
        let mut rows = Vec::new();
        for i in 0..3_000u64 {
            let slice = SchedSlice {
                start_ns: i * 1_000,
                end_ns: i * 1_000,
                task_id: (i % 7) as u32,
                core_id: 0,
                end_state: None,
                end_reason: StateReason::None,
                truncated: false,
            };
            table.push(slice);
            rows.push(slice);
        }
        for (i, row) in rows.iter_mut().enumerate() {
            row.end_ns = row.start_ns + if i % 100 == 3 { 5_000_000_000 } else { 50 };
            table.end_at(i, row.end_ns);
        }
        assert_eq!(table.wide.len(), 30);
        assert!(table.iter().eq(rows.iter().copied()));
        assert_eq!(table.get(1_503), Some(rows[1_503]));
        table.end_at(1_503, rows[1_503].start_ns + 6_000_000_000);
        rows[1_503].end_ns = rows[1_503].start_ns + 6_000_000_000;
        table.end_at(1_504, rows[1_504].start_ns + 60);
        rows[1_504].end_ns = rows[1_504].start_ns + 60;
        assert!(table.iter().eq(rows.iter().copied()));
        table.retain(|r| r.task_id != 3);
        assert!(table
            .iter()
            .eq(rows.iter().copied().filter(|r| r.task_id != 3)));
        let rows: Vec<SchedSlice> = table.iter().collect();
        let mut by_value = table.into_iter();
        assert_eq!(by_value.len(), rows.len());
        assert_eq!(by_value.next(), Some(rows[0]));
        assert!(by_value.eq(rows[1..].iter().copied()));
    }

    #[test]
    fn iterating_from_either_end_and_skipping_yields_the_rows_of_get() {
        // Chunks with one base, with later bases, and with wide rows (a
        // duration over 4.29 s), a few or many of them.
        for wide_every in [1_000, 100] {
            let start = |i: u64| {
                if i < 9_000 {
                    i * 1_000
                } else {
                    i * 3_000_000_000
                }
            };
            let slice = |i: u64| SchedSlice {
                start_ns: start(i),
                end_ns: start(i)
                    + if i % wide_every == 7 {
                        5_000_000_000
                    } else {
                        100
                    },
                task_id: (i % 5) as u32,
                core_id: 0,
                end_state: None,
                end_reason: StateReason::None,
                truncated: false,
            };
            let rows: Vec<SchedSlice> = (0..30_000).map(slice).collect();
            let table: Table<SchedSlice> = rows.iter().copied().collect();
            assert_eq!(table.wide.len() as u64, 30_000 / wide_every);
            assert!(table.iter().eq(rows.iter().copied()));
            assert!(table.iter().rev().eq(rows.iter().rev().copied()));
            assert!(table.clone().into_iter().eq(rows.iter().copied()));
            let mut folded = Vec::new();
            table.iter().for_each(|row| folded.push(row));
            assert!(folded == rows);
            for (skip, step) in [(0, 3), (5, 8_191), (8_000, 700), (1, 9_000), (6, 1)] {
                assert!(
                    table.iter().skip(skip).step_by(step).eq(rows
                        .iter()
                        .skip(skip)
                        .step_by(step)
                        .copied()),
                    "skip {skip} step {step}"
                );
                let mut folded = Vec::new();
                table.iter().skip(skip).for_each(|row| folded.push(row));
                assert!(folded[..] == rows[skip..], "fold after skipping {skip}");
            }
            let mut both = table.iter();
            let mut expected = rows.iter().copied();
            for i in 0..rows.len() {
                if i % 3 == 0 {
                    assert_eq!(both.next_back(), expected.next_back());
                } else {
                    assert_eq!(both.next(), expected.next());
                }
                assert_eq!(both.len(), expected.len());
            }
            assert_eq!(both.next(), None);
            assert_eq!(table.iter().nth(rows.len()), None);
        }
    }
}
