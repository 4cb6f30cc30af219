//! Column storage for the model's large tables.
//!
//! A [`Table`] keeps its rows in chunks of a fixed number of rows; a chunk
//! holds every column of its rows (see [`super::column`]), is allocated
//! whole, for all columns at once, when its first row is pushed (in pages
//! of its own, [`Pages`]), and never moves. A push is so one check for a
//! new chunk and a write into each column; a row is read from its chunk at
//! its place there.
//!
//! Tables yield rows by value, as the plain row structs of [`super`].

use std::fmt;
use std::ops::Range;

use super::column::{Zeroed, CHUNK, CHUNK_BITS};
use super::pages::Pages;

/// A row type that a [`Table`] can store, by the columns it declares
/// (`columns!`).
pub trait Row: Copy {
    /// The columns of a chunk of rows.
    type Chunk: Zeroed + Copy;
    /// What the columns keep across chunks.
    type Columns: Clone + Default;
    /// The row's time (its start).
    fn time_ns(&self) -> u64;
    /// Stores a new row at `index` in its chunk.
    fn push(self, chunk: &mut Self::Chunk, columns: &mut Self::Columns, index: usize);
    /// Replaces the row at `index` in its chunk.
    fn set(self, chunk: &mut Self::Chunk, columns: &mut Self::Columns, index: usize);
    /// The row at `index` in its chunk.
    fn get(chunk: &Self::Chunk, columns: &Self::Columns, index: usize) -> Self;
}

/// A row type with a start and an end, which is ended after it is pushed.
pub(crate) trait Interval: Row {
    /// Ends the row at `index` at `t` (not before its start), writing only
    /// its end column.
    fn end_at(chunk: &mut Self::Chunk, columns: &mut Self::Columns, index: usize, t: u64);
}

/// A table of rows of type `R`, stored in columns (see the module
/// documentation).
pub struct Table<R: Row> {
    /// Chunk `i` holds the rows from `i * CHUNK` on.
    chunks: Vec<Pages<R::Chunk>>,
    len: usize,
    columns: R::Columns,
}

impl<R: Row> Default for Table<R> {
    fn default() -> Self {
        Table {
            chunks: Vec::new(),
            len: 0,
            columns: R::Columns::default(),
        }
    }
}

impl<R: Row> Clone for Table<R> {
    fn clone(&self) -> Self {
        Table {
            chunks: self.chunks.clone(),
            len: self.len,
            columns: self.columns.clone(),
        }
    }
}

impl<R: Row> Table<R> {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends a row and returns its index.
    #[inline(always)]
    pub fn push(&mut self, row: R) -> usize {
        let index = self.len;
        if index & (CHUNK - 1) == 0 {
            self.start_chunk();
        }
        if let Some(chunk) = self.chunks.last_mut() {
            row.push(chunk, &mut self.columns, index);
            self.len = index + 1;
        }
        index
    }

    #[inline(never)]
    fn start_chunk(&mut self) {
        // The pages of the first chunk are left to fault in as rows are
        // written, so that a small trace stays small.
        let map_in = !self.chunks.is_empty();
        self.chunks.push(Pages::zeroed(map_in));
    }

    #[cfg(test)]
    pub(crate) fn columns(&self) -> &R::Columns {
        &self.columns
    }

    pub(crate) fn columns_mut(&mut self) -> &mut R::Columns {
        &mut self.columns
    }

    /// The chunk of row `index`, and the columns.
    #[inline(always)]
    pub(crate) fn chunk_mut(&mut self, index: usize) -> Option<(&mut R::Chunk, &mut R::Columns)> {
        if index >= self.len {
            return None;
        }
        let chunk = self.chunks.get_mut(index >> CHUNK_BITS)?;
        Some((chunk, &mut self.columns))
    }

    /// The row at `index`.
    #[inline]
    pub fn get(&self, index: usize) -> Option<R> {
        if index >= self.len {
            return None;
        }
        let chunk = self.chunks.get(index >> CHUNK_BITS)?;
        Some(R::get(chunk, &self.columns, index))
    }

    pub fn first(&self) -> Option<R> {
        self.get(0)
    }

    pub fn last(&self) -> Option<R> {
        self.get(self.len.checked_sub(1)?)
    }

    /// Changes the row at `index` (nothing if there is none).
    pub fn update(&mut self, index: usize, change: impl FnOnce(&mut R)) {
        if let Some((chunk, columns)) = self.chunk_mut(index) {
            let mut row = R::get(chunk, columns, index);
            change(&mut row);
            row.set(chunk, columns, index);
        }
    }

    /// Ends the row at `index` at `t` (not before its start).
    #[inline(always)]
    pub(crate) fn end_at(&mut self, index: usize, t: u64)
    where
        R: Interval,
    {
        if let Some((chunk, columns)) = self.chunk_mut(index) {
            R::end_at(chunk, columns, index, t);
        }
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
            chunk: None,
            front: 0,
            run_end: 0,
            back: self.len,
        }
    }

    /// The number of leading rows for which `pred` holds (the rows must be
    /// partitioned by it, e.g. `|r| r.start_ns < t` on a table in start order).
    pub fn partition_point(&self, mut pred: impl FnMut(&R) -> bool) -> usize {
        let (mut low, mut high) = (0, self.len);
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
/// Reading from the front walks a run of rows at a time: the rows still to
/// read of one chunk, so that a row costs the reading of its columns. Reads
/// from the back go through [`Table::get`].
pub struct Iter<'a, R: Row> {
    table: &'a Table<R>,
    /// The chunk of the rows `front..run_end`.
    chunk: Option<&'a R::Chunk>,
    front: usize,
    /// The end of the run of rows of `chunk`; never past `back`.
    run_end: usize,
    back: usize,
}

impl<R: Row> Clone for Iter<'_, R> {
    fn clone(&self) -> Self {
        Iter { ..*self }
    }
}

impl<'a, R: Row> Iter<'a, R> {
    /// Starts a run at `front` once the last one is used up.
    #[inline(never)]
    fn start_run(&mut self) -> Option<&'a R::Chunk> {
        if self.front >= self.back {
            return None;
        }
        let chunk: &'a R::Chunk = self.table.chunks.get(self.front >> CHUNK_BITS)?;
        self.chunk = Some(chunk);
        self.run_end = ((self.front | (CHUNK - 1)) + 1).min(self.back);
        Some(chunk)
    }

    /// The chunk of `front`, starting a run if needed.
    #[inline(always)]
    fn run(&mut self) -> Option<&'a R::Chunk> {
        match self.chunk {
            Some(chunk) if self.front < self.run_end => Some(chunk),
            _ => self.start_run(),
        }
    }
}

impl<R: Row> Iterator for Iter<'_, R> {
    type Item = R;

    #[inline(always)]
    fn next(&mut self) -> Option<R> {
        let chunk = self.run()?;
        let row = R::get(chunk, &self.table.columns, self.front);
        self.front += 1;
        Some(row)
    }

    fn nth(&mut self, n: usize) -> Option<R> {
        self.front = self.front.saturating_add(n).min(self.back);
        self.next()
    }

    #[inline]
    fn fold<B, F: FnMut(B, R) -> B>(mut self, init: B, mut f: F) -> B {
        let mut acc = init;
        while let Some(chunk) = self.run() {
            acc = fold_run(
                chunk,
                &self.table.columns,
                self.front..self.run_end,
                acc,
                &mut f,
            );
            self.front = self.run_end;
        }
        acc
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

/// Folds the rows `rows` of one chunk.
///
/// A function of its own, called again for each run: in WebAssembly, V8
/// first runs a function in quickly compiled, slow code and switches to its
/// optimised code only at the next call, so a fold over a whole table in one
/// call would run slow throughout.
#[inline(never)]
fn fold_run<R: Row, B>(
    chunk: &R::Chunk,
    columns: &R::Columns,
    rows: Range<usize>,
    mut acc: B,
    f: &mut impl FnMut(B, R) -> B,
) -> B {
    for index in rows {
        acc = f(acc, R::get(chunk, columns, index));
    }
    acc
}

impl<R: Row> DoubleEndedIterator for Iter<'_, R> {
    fn next_back(&mut self) -> Option<R> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        self.run_end = self.run_end.min(self.back);
        self.table.get(self.back)
    }
}

impl<R: Row> ExactSizeIterator for Iter<'_, R> {}

/// The rows of a table by value, in order, each chunk freed (its pages
/// given back to the system) once its rows are read: a table given up as
/// it is read is never held twice.
pub struct IntoIter<R: Row> {
    /// The chunks still to read.
    chunks: std::vec::IntoIter<Pages<R::Chunk>>,
    /// The chunk being read: its rows up to `run_end`.
    chunk: Option<Pages<R::Chunk>>,
    /// The next row.
    index: usize,
    run_end: usize,
    len: usize,
    columns: R::Columns,
}

impl<R: Row> Iterator for IntoIter<R> {
    type Item = R;

    #[inline]
    fn next(&mut self) -> Option<R> {
        loop {
            if let Some(chunk) = &self.chunk {
                if self.index < self.run_end {
                    let row = R::get(chunk, &self.columns, self.index);
                    self.index += 1;
                    return Some(row);
                }
            }
            // Frees the chunk read.
            self.chunk = None;
            if self.index >= self.len {
                return None;
            }
            self.chunk = Some(self.chunks.next()?);
            self.run_end = (self.index + CHUNK).min(self.len);
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
        IntoIter {
            chunks: self.chunks.into_iter(),
            chunk: None,
            index: 0,
            run_end: 0,
            len: self.len,
            columns: self.columns,
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
pub(crate) mod tests {
    use super::*;
    use crate::{SchedSlice, StateReason};

    /// A slice of a task on core 0, with no end state.
    pub(crate) fn slice(start_ns: u64, end_ns: u64, task: u32) -> SchedSlice {
        SchedSlice {
            start_ns,
            end_ns,
            task,
            core_id: 0,
            end_state: None,
            end_reason: StateReason::None,
            truncated: false,
        }
    }

    /// Three and a half chunks of rows: close together, then 3 s apart,
    /// with a duration over 4.29 s every `long_every` rows.
    fn rows(long_every: u64) -> Vec<SchedSlice> {
        let start = |i: u64| {
            if i < 9_000 {
                i * 1_000
            } else {
                i * 3_000_000_000
            }
        };
        let long = |i: u64| i % long_every == 7;
        (0..30_000)
            .map(|i| {
                let end = start(i) + if long(i) { 5_000_000_000 } else { 100 };
                slice(start(i), end, (i % 5) as u32)
            })
            .collect()
    }

    #[test]
    fn iterating_from_either_end_and_skipping_yields_the_rows_of_get() {
        for long_every in [1_000, 100] {
            let rows = rows(long_every);
            let table: Table<SchedSlice> = rows.iter().copied().collect();
            assert!(table.iter().eq(rows.iter().copied()));
            assert!(table.iter().rev().eq(rows.iter().rev().copied()));
            assert!(table.clone().into_iter().eq(rows.iter().copied()));
            assert!((0..rows.len()).all(|i| table.get(i) == Some(rows[i])));
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

    #[test]
    fn rows_are_changed_kept_and_read_by_value() {
        let mut rows = rows(100);
        let mut table: Table<SchedSlice> = rows.iter().copied().collect();
        table.update(29_999, |s| s.end_ns = 1 << 36);
        rows[29_999].end_ns = 1 << 36;
        table.update(8_192, |s| {
            s.end_ns += 10;
            s.truncated = true;
        });
        rows[8_192].end_ns += 10;
        rows[8_192].truncated = true;
        table.update(30_000, |s| s.end_ns = 0);
        assert!(table.iter().eq(rows.iter().copied()));
        assert_eq!(table.partition_point(|s| s.start_ns < 81_925), 82);
        assert_eq!(table.partition_point(|s| s.start_ns < 8_192_001), 8_193);
        table.retain(|r| r.task != 3);
        rows.retain(|r| r.task != 3);
        assert!(table.iter().eq(rows.iter().copied()));
        let mut by_value = table.into_iter();
        assert_eq!(by_value.len(), rows.len());
        assert_eq!(by_value.next(), Some(rows[0]));
        assert!(by_value.eq(rows[1..].iter().copied()));
    }
}
