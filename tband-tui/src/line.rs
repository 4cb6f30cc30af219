//! Lines: the time-ordered items one line of a row draws, and their
//! level-of-detail summaries.
//!
//! A line holds indices into one model table, never copies of its rows. For
//! drawing, a line turns a time range into one [`Cell`] (or [`SampleCell`])
//! per terminal column. When few items fall in the range they are walked
//! exactly; otherwise the cells are merged from precomputed per-bucket
//! summaries, picking the pyramid level whose buckets are at most one column
//! wide, so the cost of a frame grows with its width, not with the trace.

use std::cell::OnceCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::sync::Arc;

use tband_model::timeline::{Layer, Shape};
use tband_model::Model;

use crate::indices::Indices;

/// Items in view up to this many per column are walked one by one.
const EXACT_ITEMS_PER_COLUMN: usize = 64;
/// Items per finest bucket, on average: from this to twice this. Beyond
/// [`EXACT_ITEMS_PER_COLUMN`] per column a finest bucket is at most about a
/// column wide. A bucket takes 40 bytes, and the coarser levels a seventh
/// as many again: 0.7 to 1.4 bytes per item.
const ITEMS_PER_BUCKET: usize = 32;
/// The finest level has at most this many buckets.
const MAX_BUCKETS: usize = 1 << 18;
/// Each coarser level merges 2^this buckets of the one below: with 8, the
/// coarser levels take a seventh of what the finest takes (with 2, as much
/// again), and a column merges up to 16 buckets instead of 4.
const LEVEL_STEP_BITS: u32 = 3;

/// The model table an interval line indexes, and what its code means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IntervalSource {
    /// `sched_slices`; code = task index.
    SchedSlices,
    /// `task_states`; code = [`state_code`].
    TaskStates,
    /// `isr_slices`; code = nesting depth.
    IsrSlices,
    /// `anomalies`; code = kind as a number.
    Anomalies,
    /// A layer of the model's timeline; code = the item's name key (or
    /// [`NO_NAME`]).
    Layer(LayerSource),
}

/// The code of a layer's item without a name of its own: its row's label
/// says what it is.
pub const NO_NAME: u32 = u32::MAX;

/// A layer of the model's timeline, by its place in the timeline's list.
#[derive(Clone)]
pub struct LayerSource {
    pub index: usize,
    pub layer: Arc<dyn Layer>,
}

impl PartialEq for LayerSource {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}

impl Eq for LayerSource {}

impl fmt::Debug for LayerSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "layer {}", self.index)
    }
}

impl LayerSource {
    /// The item of row `i` of the layer's table, if it makes one.
    pub fn item(&self, m: &Model, i: u32) -> Option<Shape> {
        let mut found = None;
        let i = i as usize;
        (self.layer).visit(m, i..i + 1, &mut |_, item| found = Some(item.shape));
        found
    }

    fn span(&self, m: &Model, i: u32) -> Option<Span> {
        let mut found = None;
        let row = i as usize;
        self.layer.visit(m, row..row + 1, &mut |_, item| {
            let code = match item.name.key {
                Some(key) if !item.name.borrowed => key,
                _ => NO_NAME,
            };
            found = match item.shape {
                Shape::Slice {
                    start, end, open, ..
                } => Some(Span {
                    start,
                    end,
                    code,
                    open,
                }),
                Shape::Instant(ts) => Some(instant(ts, code)),
                Shape::Counter(..) => None,
            };
        });
        found
    }

    fn sample(&self, m: &Model, i: u32) -> Option<(u64, i64)> {
        match self.item(m, i)? {
            Shape::Counter(ts, value) => Some((ts, value)),
            Shape::Slice { .. } | Shape::Instant(_) => None,
        }
    }
}

/// One item of an interval line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: u64,
    pub end: u64,
    pub code: u32,
    /// Still open where the model ends (cut there): in a model of a trace
    /// that goes on, its end is not its last.
    pub open: bool,
}

/// A zero-length span: an instant.
fn instant(ts_ns: u64, code: u32) -> Span {
    Span {
        start: ts_ns,
        end: ts_ns,
        code,
        open: false,
    }
}

/// Whether an interval cut at the model's end may go on.
fn open(m: &Model, end_ns: u64, truncated: bool) -> bool {
    truncated && end_ns >= m.info.duration_ns
}

impl IntervalSource {
    fn span(&self, m: &Model, i: u32) -> Option<Span> {
        let i = i as usize;
        Some(match self {
            IntervalSource::SchedSlices => {
                let s = m.sched_slices.get(i)?;
                Span {
                    start: s.start_ns,
                    end: s.end_ns,
                    code: s.task,
                    open: open(m, s.end_ns, s.truncated),
                }
            }
            IntervalSource::TaskStates => {
                let s = m.task_states.get(i)?;
                Span {
                    start: s.start_ns,
                    end: s.end_ns,
                    code: s.state as u32,
                    open: open(m, s.end_ns, s.truncated),
                }
            }
            IntervalSource::IsrSlices => {
                let s = m.isr_slices.get(i)?;
                Span {
                    start: s.start_ns,
                    end: s.end_ns,
                    code: s.depth,
                    open: open(m, s.end_ns, s.truncated),
                }
            }
            IntervalSource::Anomalies => {
                let a = m.anomalies.get(i)?;
                Span {
                    start: a.start_ns,
                    end: a.end_ns,
                    code: a.kind as u32,
                    open: false,
                }
            }
            IntervalSource::Layer(layer) => layer.span(m, i as u32)?,
        })
    }
}

/// What one column of an interval line holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cell {
    /// Time covered by items.
    pub covered_ns: u64,
    /// The time this cell stands for.
    pub width_ns: u64,
    /// The code covering the most time (or of the first zero-length item).
    pub code: u32,
    code_ns: u64,
    /// Items that start in this cell.
    pub starts: u32,
    /// Bit `code` set for every code present (codes above 31 share bit 31).
    pub seen: u32,
}

impl Cell {
    pub fn is_empty(&self) -> bool {
        self.covered_ns == 0 && self.starts == 0
    }

    /// The share of the cell's time covered, 0.0..=1.0.
    pub fn fraction(&self) -> f64 {
        if self.width_ns == 0 {
            0.0
        } else {
            (self.covered_ns as f64 / self.width_ns as f64).min(1.0)
        }
    }

    /// Adds `ns` of `code`. The dominant code is kept by comparing pieces as
    /// they come, which is exact unless one code's time is split around
    /// another's inside the cell.
    fn add(&mut self, code: u32, ns: u64, starts: u32) {
        if self.is_empty() || code == self.code {
            self.code = code;
            self.code_ns += ns;
        } else if ns > self.code_ns {
            self.code = code;
            self.code_ns = ns;
        }
        self.covered_ns += ns;
        self.starts = self.starts.saturating_add(starts);
        self.seen |= 1 << code.min(31);
    }

    /// Whether some item with `code` (below 31) is in the cell.
    pub fn has(&self, code: u32) -> bool {
        self.seen & (1 << code.min(31)) != 0
    }

    fn merge(&mut self, other: &Cell) {
        let starts = self.starts.saturating_add(other.starts);
        if !other.is_empty() {
            self.add(other.code, other.code_ns, 0);
            self.covered_ns += other.covered_ns - other.code_ns;
        }
        self.starts = starts;
        self.seen |= other.seen;
        self.width_ns += other.width_ns;
    }
}

/// Column boundaries of a view: `width` columns over `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Columns {
    pub start: u64,
    pub end: u64,
    pub width: usize,
}

impl Columns {
    pub fn new(start: u64, end: u64, width: usize) -> Columns {
        Columns {
            start,
            end: end.max(start + 1),
            width: width.max(1),
        }
    }

    pub fn span_ns(&self) -> u64 {
        self.end - self.start
    }

    /// Start time of column `c` (column `width` is the end of the view).
    pub fn bound(&self, c: usize) -> u64 {
        let offset = u128::from(self.span_ns()) * c as u128 / self.width as u128;
        self.start + offset as u64
    }

    /// The column holding time `t` (clamped to the view): the last column
    /// whose [`bound`](Self::bound) is at or before `t`.
    pub fn column_of(&self, t: u64) -> usize {
        if t <= self.start {
            return 0;
        }
        let past = u128::from(t - self.start) + 1;
        let column = (past * self.width as u128).div_ceil(u128::from(self.span_ns())) - 1;
        (column as usize).min(self.width - 1)
    }

    /// Nanoseconds per column, rounded up.
    pub fn column_ns(&self) -> u64 {
        self.span_ns().div_ceil(self.width as u64)
    }

    /// [`bound`](Self::bound) of every column and of the end, computed
    /// without a division per column.
    fn bounds(&self) -> Bounds {
        let width = self.width as u64;
        let (step, spare) = (self.span_ns() / width, self.span_ns() % width);
        let mut at = Vec::with_capacity(self.width + 1);
        let (mut t, mut carried) = (self.start, 0);
        at.push(t);
        for _ in 0..self.width {
            t += step;
            carried += spare;
            if carried >= width {
                carried -= width;
                t += 1;
            }
            at.push(t);
        }
        Bounds { at }
    }
}

/// The column bounds of a view, for placing items walked in time order
/// (a 128-bit division per item would cost more than the rest of the walk).
struct Bounds {
    /// Start of each column, then the end of the view.
    at: Vec<u64>,
}

impl Bounds {
    fn width(&self) -> usize {
        self.at.len() - 1
    }

    /// Start time of column `c`; `c` = width: the end of the view.
    fn get(&self, c: usize) -> u64 {
        self.at[c]
    }

    /// Like [`Columns::column_of`], searching forward from column `from`
    /// (that of an earlier time), so that a walk in time order costs a
    /// step per column passed.
    fn column_of(&self, t: u64, from: usize) -> usize {
        let last = self.width() - 1;
        if t <= self.at[0] {
            return 0;
        }
        if t < self.at[from.min(last)] {
            return self.at[1..=last].partition_point(|&b| b <= t);
        }
        let mut c = from.min(last);
        while c < last && self.at[c + 1] <= t {
            c += 1;
        }
        c
    }
}

/// What a bucket of a [`Pyramid`] keeps: a summary of its items, which
/// merges with its neighbours' into a coarser bucket.
trait Bucket: Clone {
    /// A bucket without items, `width_ns` wide.
    fn empty(width_ns: u64) -> Self;
    fn merge(&mut self, other: &Self);
}

/// Bucket pyramid: level 0 has the finest buckets, each next level merges
/// 2^[`LEVEL_STEP_BITS`] of them. It summarises the first items of its
/// line, up to the first that may still change, and grows with a line
/// that grows ([`Pyramid::reach`]).
#[derive(Clone, Debug)]
struct Pyramid<B> {
    bucket_ns: u64,
    levels: Vec<Vec<B>>,
    /// The items summarised: the line's first so many.
    items: usize,
}

/// The finest buckets of a new pyramid for `items` items.
fn buckets_for(items: usize) -> usize {
    let buckets = 1usize << (items / ITEMS_PER_BUCKET).max(1).ilog2();
    buckets.min(MAX_BUCKETS)
}

impl<B: Bucket> Pyramid<B> {
    fn new(items: usize, duration_ns: u64) -> Pyramid<B> {
        let buckets = buckets_for(items);
        let bucket_ns = (duration_ns + 1).div_ceil(buckets as u64).max(1);
        Pyramid {
            bucket_ns,
            levels: vec![vec![B::empty(bucket_ns); buckets]],
            items: 0,
        }
    }

    fn heap_bytes(&self) -> usize {
        self.levels
            .iter()
            .map(|l| l.capacity() * std::mem::size_of::<B>())
            .sum()
    }

    /// Whether its buckets are four times (or more) as coarse as a new
    /// pyramid's for a line of `items` items would be: the line has
    /// grown faster than its time, and drawing would lose detail.
    fn too_coarse(&self, items: usize) -> bool {
        self.levels[0].len() * 4 <= buckets_for(items)
    }

    /// Makes the finest buckets reach past `end_ns`, the end of a line
    /// that has grown to `items` items, merging them in pairs while there
    /// would be more than twice as many as a new pyramid's. Returns the
    /// first finest bucket changed (the coarser levels are then stale from
    /// it on: see [`build_levels_from`](Self::build_levels_from)).
    fn reach(&mut self, end_ns: u64, items: usize) -> usize {
        let most = 2 * buckets_for(items);
        let mut changed = self.levels[0].len();
        while end_ns / self.bucket_ns >= most as u64 {
            let pairs = self.levels[0]
                .chunks(2)
                .map(|pair| {
                    let mut merged = pair[0].clone();
                    if let Some(second) = pair.get(1) {
                        merged.merge(second);
                    } else {
                        merged.merge(&B::empty(self.bucket_ns));
                    }
                    merged
                })
                .collect();
            self.levels = vec![pairs];
            self.bucket_ns *= 2;
            changed = 0;
        }
        let needed = (end_ns / self.bucket_ns) as usize + 1;
        let level0 = &mut self.levels[0];
        if needed > level0.len() {
            level0.resize(needed, B::empty(self.bucket_ns));
        }
        changed
    }

    /// Builds the coarser levels again from that holding finest bucket
    /// `from` on (the earlier ones stand).
    fn build_levels_from(&mut self, from: usize) {
        let step = 1 << LEVEL_STEP_BITS;
        let mut from = from;
        let mut level = 1;
        while self.levels[level - 1].len() > 1 {
            from >>= LEVEL_STEP_BITS;
            if self.levels.len() == level {
                self.levels.push(Vec::new());
            }
            let (below, above) = self.levels.split_at_mut(level);
            let (below, this) = (&below[level - 1], &mut above[0]);
            this.truncate(from);
            let start = (this.len() * step).min(below.len());
            this.extend(below[start..].chunks(step).map(|group| {
                let mut merged = group[0].clone();
                for b in &group[1..] {
                    merged.merge(b);
                }
                merged
            }));
            level += 1;
        }
        self.levels.truncate(level);
    }

    /// Width of the buckets of `level`.
    fn level_bucket_ns(&self, level: usize) -> u64 {
        self.bucket_ns
            .saturating_mul(1 << (LEVEL_STEP_BITS as usize * level).min(63))
    }

    /// The coarsest level whose buckets are at most `column_ns` wide.
    fn level_for(&self, column_ns: u64) -> usize {
        let mut level = 0;
        while level + 1 < self.levels.len() && self.level_bucket_ns(level + 1) <= column_ns {
            level += 1;
        }
        level
    }

    /// For each column, the buckets of `level` whose start lies in it (or,
    /// when buckets are wider than columns, the one bucket holding the
    /// column's start).
    fn for_each_column(&self, cols: &Columns, mut f: impl FnMut(usize, &[B], u64)) {
        let level = self.level_for(cols.column_ns());
        let bucket_ns = self.level_bucket_ns(level);
        let buckets = &self.levels[level];
        let bounds = cols.bounds();
        for c in 0..cols.width {
            let (from, to) = (bounds.get(c), bounds.get(c + 1));
            let first = (from.div_ceil(bucket_ns) as usize).min(buckets.len());
            let last = (to.div_ceil(bucket_ns) as usize).min(buckets.len());
            if first < last {
                f(c, &buckets[first..last], bucket_ns);
            } else if let Some(b) = buckets.get((from / bucket_ns) as usize) {
                f(c, std::slice::from_ref(b), bucket_ns);
            }
        }
    }
}

/// Intervals (or instants) of one table that do not overlap each other, in
/// start order, with their summaries. The summaries are built the first time
/// a view needs them, so opening a trace costs nothing for rows never shown
/// or only shown zoomed in.
#[derive(Clone, Debug)]
pub struct IntervalLine {
    pub source: IntervalSource,
    items: Indices,
    lod: OnceCell<Pyramid<Cell>>,
}

impl IntervalLine {
    /// A line of the given rows of `source`'s table, which must be in
    /// start order (the model keeps its interval tables sorted by start).
    pub fn new(source: IntervalSource, items: Indices) -> IntervalLine {
        IntervalLine {
            source,
            items,
            lod: OnceCell::new(),
        }
    }

    fn lod(&self, m: &Model) -> &Pyramid<Cell> {
        self.lod.get_or_init(|| {
            let mut lod = Pyramid::<Cell>::new(self.items.len(), m.info.duration_ns);
            summarise_more(&self.source, &self.items, &mut lod, m);
            lod.build_levels_from(0);
            lod
        })
    }

    /// Adds an item (a row of the line's table, after the last).
    pub fn push(&mut self, row: u32) {
        self.items.push(row);
    }

    /// Gives back the room kept for items to come.
    pub fn shrink_to_fit(&mut self) {
        self.items.shrink_to_fit();
    }

    /// Brings the summaries, if built, up to the items added since and to
    /// the model's end: the model is a later one of a trace that grows.
    pub fn grow(&mut self, m: &Model) {
        let Some(lod) = self.lod.get_mut() else {
            return;
        };
        if lod.too_coarse(self.items.len()) {
            // Built again when next needed.
            self.lod = OnceCell::new();
            return;
        }
        let reached = lod.reach(m.info.duration_ns, self.items.len());
        let first = summarise_more(&self.source, &self.items, lod, m);
        lod.build_levels_from(first.map_or(reached, |f| f.min(reached)));
    }

    /// Builds the summaries of several lines of one table in a single
    /// forward pass over it (their items merged in table order). Lines of
    /// interleaved rows (one per task) read far fewer cache lines this way
    /// than one after the other.
    pub fn prepare_together(m: &Model, lines: &[&IntervalLine]) {
        let pending: Vec<&IntervalLine> = lines
            .iter()
            .copied()
            .filter(|t| t.lod.get().is_none() && t.may_need_summaries())
            .collect();
        let mut lods: Vec<Pyramid<Cell>> = pending
            .iter()
            .map(|t| Pyramid::new(t.items.len(), m.info.duration_ns))
            .collect();
        let mut heads: BinaryHeap<Reverse<(u32, usize, usize)>> = pending
            .iter()
            .enumerate()
            .filter_map(|(k, t)| Some(Reverse((t.items.get(0)?, k, 0))))
            .collect();
        while let Some(Reverse((row, k, pos))) = heads.pop() {
            let line = pending[k];
            // A line's summaries end before its first item that may change.
            match line.source.span(m, row) {
                Some(span) if !span.open => {
                    summarise(&mut lods[k], span);
                    lods[k].items = pos + 1;
                }
                _ => continue,
            }
            if let Some(next) = line.items.get(pos + 1) {
                heads.push(Reverse((next, k, pos + 1)));
            }
        }
        for (line, mut lod) in pending.into_iter().zip(lods) {
            lod.build_levels_from(0);
            // Already set only if another caller built it meanwhile: same result.
            let _ = line.lod.set(lod);
        }
    }

    /// [`prepare_together`](Self::prepare_together) for the lines of
    /// each model table.
    pub fn prepare_by_table<'a>(m: &Model, lines: impl Iterator<Item = &'a IntervalLine>) {
        let mut by_source: Vec<(&IntervalSource, Vec<&IntervalLine>)> = Vec::new();
        for line in lines {
            match by_source.iter_mut().find(|(s, _)| **s == line.source) {
                Some((_, lines)) => lines.push(line),
                None => by_source.push((&line.source, vec![line])),
            }
        }
        for (_, lines) in by_source {
            IntervalLine::prepare_together(m, &lines);
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Bytes held on the heap: (row indices, summaries built so far).
    pub fn heap_bytes(&self) -> (usize, usize) {
        (
            self.items.heap_bytes(),
            self.lod.get().map_or(0, Pyramid::heap_bytes),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Builds the summaries now rather than on first use (if they can
    /// ever be used).
    pub fn prepare(&self, m: &Model) {
        if self.may_need_summaries() {
            self.lod(m);
        }
    }

    /// Whether some view would draw this line from its summaries: one of
    /// at most [`EXACT_ITEMS_PER_COLUMN`] items is always walked. Most
    /// lines are that short (a marker used a few times), and summaries
    /// they never use would take more memory than their items.
    fn may_need_summaries(&self) -> bool {
        self.items.len() > EXACT_ITEMS_PER_COLUMN
    }

    /// The item at position `pos` (in start order) and its model row index.
    pub fn get(&self, m: &Model, pos: usize) -> Option<(u32, Span)> {
        let i = self.items.get(pos)?;
        Some((i, self.source.span(m, i)?))
    }

    /// Positions of the items that overlap `from..to` (or are instants inside it).
    fn range(&self, m: &Model, from: u64, to: u64) -> std::ops::Range<usize> {
        let end = self
            .items
            .partition_point(|i| self.source.span(m, i).is_some_and(|s| s.start < to));
        let mut begin = self
            .items
            .partition_point(|i| self.source.span(m, i).is_some_and(|s| s.start < from));
        if begin > 0 && self.get(m, begin - 1).is_some_and(|(_, s)| s.end > from) {
            begin -= 1;
        }
        begin..end.max(begin)
    }

    /// Whether drawing `cols` reads the summaries rather than the items.
    pub fn needs_summaries(&self, m: &Model, cols: &Columns) -> bool {
        self.too_many(&self.range(m, cols.start, cols.end), cols)
    }

    fn too_many(&self, in_view: &std::ops::Range<usize>, cols: &Columns) -> bool {
        in_view.len() > EXACT_ITEMS_PER_COLUMN * cols.width
    }

    /// One cell per column of the view.
    pub fn cells(&self, m: &Model, cols: &Columns, out: &mut Vec<Cell>) {
        let bounds = cols.bounds();
        out.clear();
        out.extend((0..cols.width).map(|c| Cell {
            width_ns: bounds.get(c + 1) - bounds.get(c),
            ..Cell::default()
        }));
        let mut range = self.range(m, cols.start, cols.end);
        if self.too_many(&range, cols) {
            let lod = self.lod(m);
            lod.for_each_column(cols, |c, buckets, _| {
                let mut merged = Cell::default();
                for b in buckets {
                    merged.merge(b);
                }
                out[c] = merged;
            });
            // The items after the summarised ones are walked exactly.
            range.start = range.start.max(lod.items);
        }
        let mut first = 0;
        for pos in range {
            let Some((_, span)) = self.get(m, pos) else {
                continue;
            };
            first = bounds.column_of(span.start, first);
            let last = if span.end > span.start {
                bounds.column_of(span.end - 1, first)
            } else {
                first
            };
            for (c, cell) in out.iter_mut().enumerate().take(last + 1).skip(first) {
                let overlap = span
                    .end
                    .min(bounds.get(c + 1))
                    .saturating_sub(span.start.max(bounds.get(c)));
                let starts = u32::from(c == first && span.start >= cols.start);
                cell.add(span.code, overlap, starts);
            }
        }
    }

    /// The item covering time `t`, or failing that the nearest one within
    /// `slack_ns` (so zero-length and very short items can be picked).
    pub fn at(&self, m: &Model, t: u64, slack_ns: u64) -> Option<usize> {
        let range = self.range(
            m,
            t.saturating_sub(slack_ns),
            t.saturating_add(slack_ns) + 1,
        );
        let distance = |pos: usize| {
            self.get(m, pos).map_or(u64::MAX, |(_, s)| {
                if s.start <= t && t < s.end.max(s.start + 1) {
                    0
                } else {
                    s.start.abs_diff(t).min(s.end.abs_diff(t))
                }
            })
        };
        range.min_by_key(|&pos| distance(pos))
    }

    /// The first item starting after `t`.
    pub fn next_after(&self, m: &Model, t: u64) -> Option<usize> {
        let pos = self
            .items
            .partition_point(|i| self.source.span(m, i).is_some_and(|s| s.start <= t));
        (pos < self.items.len()).then_some(pos)
    }

    /// The last item starting before `t`.
    pub fn prev_before(&self, m: &Model, t: u64) -> Option<usize> {
        let pos = self
            .items
            .partition_point(|i| self.source.span(m, i).is_some_and(|s| s.start < t));
        pos.checked_sub(1)
    }
}

/// Adds the items of a line after those `lod` summarises, up to the
/// first that may still change; returns the first finest bucket changed.
fn summarise_more(
    source: &IntervalSource,
    items: &Indices,
    lod: &mut Pyramid<Cell>,
    m: &Model,
) -> Option<usize> {
    let mut first = None;
    while let Some(span) = items.get(lod.items).and_then(|i| source.span(m, i)) {
        if span.open {
            break;
        }
        let bucket = summarise(lod, span);
        first = first.or(Some(bucket));
        lod.items += 1;
    }
    first
}

/// Adds one item to the finest summaries; returns the bucket it starts in.
fn summarise(lod: &mut Pyramid<Cell>, span: Span) -> usize {
    let bucket_ns = lod.bucket_ns;
    let level0 = &mut lod.levels[0];
    for_each_piece(span, bucket_ns, level0.len(), |b, ns, starts| {
        level0[b].add(span.code, ns, starts);
    });
    (span.start / bucket_ns) as usize
}

impl Bucket for Cell {
    fn empty(width_ns: u64) -> Self {
        Cell {
            width_ns,
            ..Cell::default()
        }
    }

    fn merge(&mut self, other: &Self) {
        Cell::merge(self, other);
    }
}

/// Splits a span into pieces per bucket: `f(bucket, ns, starts_here)`.
fn for_each_piece(span: Span, bucket_ns: u64, buckets: usize, mut f: impl FnMut(usize, u64, u32)) {
    let first = (span.start / bucket_ns) as usize;
    if first >= buckets {
        return;
    }
    if span.end <= span.start {
        f(first, 0, 1);
        return;
    }
    let last = (((span.end - 1) / bucket_ns) as usize).min(buckets - 1);
    for b in first..=last {
        let from = (b as u64 * bucket_ns).max(span.start);
        let to = ((b as u64 + 1) * bucket_ns).min(span.end);
        f(b, to.saturating_sub(from), u32::from(b == first));
    }
}

/// What one column of a sample line holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleCell {
    pub min: i64,
    pub max: i64,
    /// The last sample in the cell.
    pub last: i64,
    pub count: u32,
    /// The value in force when the cell starts (the last sample before it).
    pub carried: Option<i64>,
}

impl Default for SampleCell {
    fn default() -> Self {
        SampleCell {
            min: i64::MAX,
            max: i64::MIN,
            last: 0,
            count: 0,
            carried: None,
        }
    }
}

impl SampleCell {
    fn add(&mut self, v: i64) {
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.last = v;
        self.count = self.count.saturating_add(1);
    }

    fn merge(&mut self, o: &SampleCell) {
        if o.count > 0 {
            self.min = self.min.min(o.min);
            self.max = self.max.max(o.max);
            self.last = o.last;
            self.count = self.count.saturating_add(o.count);
        }
    }

    /// The highest value shown in this cell: the samples' maximum, or the
    /// value carried into it.
    pub fn level(&self) -> Option<i64> {
        if self.count > 0 {
            Some(self.max.max(self.carried.unwrap_or(i64::MIN)))
        } else {
            self.carried
        }
    }
}

/// Values over time (value markers, queue fill levels) in time order,
/// with summaries built when first needed.
#[derive(Clone, Debug)]
pub struct SampleLine {
    pub source: LayerSource,
    items: Indices,
    summary: OnceCell<SampleSummary>,
}

#[derive(Clone, Debug)]
struct SampleSummary {
    lod: Pyramid<SampleCell>,
    /// Smallest and largest value of the samples summarised.
    min: i64,
    max: i64,
}

impl SampleSummary {
    /// Adds the samples of a line after those summarised; returns the
    /// first finest bucket changed.
    fn add_more(&mut self, source: &LayerSource, items: &Indices, m: &Model) -> Option<usize> {
        let lod = &mut self.lod;
        let mut first = None;
        while let Some((t, v)) = items.get(lod.items).and_then(|i| source.sample(m, i)) {
            self.min = self.min.min(v);
            self.max = self.max.max(v);
            let level0 = &mut lod.levels[0];
            let b = ((t / lod.bucket_ns) as usize).min(level0.len() - 1);
            level0[b].add(v);
            first = first.or(Some(b));
            lod.items += 1;
        }
        first
    }
}

impl Bucket for SampleCell {
    fn empty(_: u64) -> Self {
        SampleCell::default()
    }

    fn merge(&mut self, other: &Self) {
        SampleCell::merge(self, other);
    }
}

impl SampleLine {
    /// A line of the given rows of `source`'s table (in time order, as the
    /// model keeps them), which must all hold a value.
    pub fn new(source: LayerSource, items: Indices) -> SampleLine {
        SampleLine {
            source,
            items,
            summary: OnceCell::new(),
        }
    }

    fn summary(&self, m: &Model) -> &SampleSummary {
        self.summary.get_or_init(|| {
            let mut summary = SampleSummary {
                lod: Pyramid::new(self.items.len(), m.info.duration_ns),
                min: i64::MAX,
                max: i64::MIN,
            };
            summary.add_more(&self.source, &self.items, m);
            summary.lod.build_levels_from(0);
            summary
        })
    }

    /// Adds a sample (a row of the line's table, after the last).
    pub fn push(&mut self, row: u32) {
        self.items.push(row);
    }

    /// Gives back the room kept for samples to come.
    pub fn shrink_to_fit(&mut self) {
        self.items.shrink_to_fit();
    }

    /// Brings the summaries, if built, up to the samples added since and
    /// to the model's end: the model is a later one of a trace that grows.
    pub fn grow(&mut self, m: &Model) {
        let Some(summary) = self.summary.get_mut() else {
            return;
        };
        if summary.lod.too_coarse(self.items.len()) {
            self.summary = OnceCell::new();
            return;
        }
        let reached = summary.lod.reach(m.info.duration_ns, self.items.len());
        let first = summary.add_more(&self.source, &self.items, m);
        let from = first.map_or(reached, |f| f.min(reached));
        summary.lod.build_levels_from(from);
    }

    /// Smallest and largest value of the whole line.
    pub fn bounds(&self, m: &Model) -> (i64, i64) {
        let s = self.summary(m);
        (s.min.min(s.max), s.max.max(s.min))
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Bytes held on the heap: (row indices, summaries built so far).
    pub fn heap_bytes(&self) -> (usize, usize) {
        (
            self.items.heap_bytes(),
            self.summary.get().map_or(0, |s| s.lod.heap_bytes()),
        )
    }

    /// Builds the summaries now rather than on first use.
    pub fn prepare(&self, m: &Model) {
        self.summary(m);
    }

    /// The sample at position `pos` and its model row index.
    pub fn get(&self, m: &Model, pos: usize) -> Option<(u32, u64, i64)> {
        let i = self.items.get(pos)?;
        let (t, v) = self.source.sample(m, i)?;
        Some((i, t, v))
    }

    fn first_at_or_after(&self, m: &Model, t: u64) -> usize {
        self.items
            .partition_point(|i| self.source.sample(m, i).is_some_and(|(ts, _)| ts < t))
    }

    pub fn cells(&self, m: &Model, cols: &Columns, out: &mut Vec<SampleCell>) {
        out.clear();
        out.resize(cols.width, SampleCell::default());
        let begin = self.first_at_or_after(m, cols.start);
        let end = self.first_at_or_after(m, cols.end);
        let mut carried = begin
            .checked_sub(1)
            .and_then(|p| self.get(m, p))
            .map(|(_, _, v)| v);
        let mut walk = begin..end;
        if walk.len() > EXACT_ITEMS_PER_COLUMN * cols.width {
            let lod = &self.summary(m).lod;
            lod.for_each_column(cols, |c, buckets, _| {
                for b in buckets {
                    out[c].merge(b);
                }
            });
            // The samples after the summarised ones are placed exactly.
            walk.start = walk.start.max(lod.items);
        }
        let bounds = cols.bounds();
        let mut c = 0;
        for pos in walk {
            if let Some((_, t, v)) = self.get(m, pos) {
                c = bounds.column_of(t, c);
                out[c].add(v);
            }
        }
        for cell in out.iter_mut() {
            cell.carried = carried;
            if cell.count > 0 {
                carried = Some(cell.last);
            }
        }
    }

    pub fn next_after(&self, m: &Model, t: u64) -> Option<usize> {
        let pos = self
            .items
            .partition_point(|i| self.source.sample(m, i).is_some_and(|(ts, _)| ts <= t));
        (pos < self.items.len()).then_some(pos)
    }

    pub fn prev_before(&self, m: &Model, t: u64) -> Option<usize> {
        self.first_at_or_after(m, t).checked_sub(1)
    }

    /// The sample nearest to `t` within `slack_ns`.
    pub fn near(&self, m: &Model, t: u64, slack_ns: u64) -> Option<usize> {
        let begin = self.first_at_or_after(m, t.saturating_sub(slack_ns));
        let end = self.first_at_or_after(m, t.saturating_add(slack_ns) + 1);
        (begin..end).min_by_key(|&p| self.get(m, p).map_or(u64::MAX, |(_, ts, _)| ts.abs_diff(t)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tband_model::{SchedSlice, StateReason, Task, TaskKind};

    fn model(slices: &[(u64, u64, u32)], duration_ns: u64) -> Model {
        let mut m = Model::default();
        m.info.duration_ns = duration_ns;
        m.sched_slices = slices
            .iter()
            .map(|&(start_ns, end_ns, task)| SchedSlice {
                start_ns,
                end_ns,
                task,
                core_id: 0,
                end_state: None,
                end_reason: StateReason::None,
                truncated: false,
            })
            .collect();
        // Task ids as their indices.
        m.tasks = (0..=3)
            .map(|task_id| Task::new(task_id, format!("t{task_id}"), TaskKind::Normal))
            .collect();
        m
    }

    fn line(m: &Model) -> IntervalLine {
        IntervalLine::new(
            IntervalSource::SchedSlices,
            (0..m.sched_slices.len() as u32).collect(),
        )
    }

    #[test]
    fn columns_split_time_exactly() {
        let cols = Columns::new(100, 200, 3);
        assert_eq!(
            (0..=3).map(|c| cols.bound(c)).collect::<Vec<_>>(),
            [100, 133, 166, 200]
        );
        assert_eq!(cols.column_of(0), 0);
        assert_eq!(cols.column_of(132), 0);
        assert_eq!(cols.column_of(133), 1);
        assert_eq!(cols.column_of(166), 2);
        assert_eq!(cols.column_of(199), 2);
        assert_eq!(cols.column_of(500), 2);
    }

    #[test]
    fn bounds_walked_forward_agree_with_columns() {
        for cols in [
            Columns::new(100, 200, 3),
            Columns::new(7, 1_000_003, 199),
            Columns::new(u64::MAX / 3, u64::MAX / 2, 173),
            Columns::new(5, 9, 80),
        ] {
            let bounds = cols.bounds();
            for c in 0..=cols.width {
                assert_eq!(bounds.get(c), cols.bound(c), "{cols:?} column {c}");
            }
            let probes: Vec<u64> = (0..=cols.width)
                .flat_map(|c| {
                    let b = cols.bound(c);
                    [b.saturating_sub(1), b, b + 1]
                })
                .chain([0, cols.start / 2, cols.end + 5])
                .collect();
            for &t in &probes {
                // From any earlier column, from a later one (a step back).
                for from in [0, cols.column_of(t), cols.width - 1] {
                    assert_eq!(bounds.column_of(t, from), cols.column_of(t), "{cols:?} {t}");
                }
            }
        }
    }

    #[test]
    fn exact_cells_cover_and_pick_dominant() {
        let m = model(&[(0, 30, 1), (30, 35, 2), (35, 100, 3)], 100);
        let t = line(&m);
        let mut cells = Vec::new();
        t.cells(&m, &Columns::new(0, 100, 4), &mut cells);
        let summary: Vec<_> = cells
            .iter()
            .map(|c| (c.code, c.covered_ns, c.starts))
            .collect();
        assert_eq!(summary, [(1, 25, 1), (3, 25, 2), (3, 25, 0), (3, 25, 0)]);
        assert_eq!(cells[1].fraction(), 1.0);
        assert!(cells[1].has(1) && cells[1].has(2) && !cells[2].has(1));
    }

    #[test]
    fn summaries_agree_with_exact_walk() {
        // 4000 alternating slices with gaps; a narrow view forces the summaries.
        let slices: Vec<_> = (0..4000u64)
            .map(|i| {
                (
                    i * 100,
                    i * 100 + if i % 2 == 0 { 70 } else { 20 },
                    1 + (i % 2) as u32,
                )
            })
            .collect();
        let m = model(&slices, 400_000);
        let t = line(&m);
        let cols = Columns::new(0, 400_000, 10);
        let mut lod = Vec::new();
        t.cells(&m, &cols, &mut lod);
        // Each column: 45% covered, task 1 dominant; every slice counted once.
        for cell in &lod {
            assert_eq!(cell.code, 1);
            assert!((cell.fraction() - 0.45).abs() < 0.02, "{}", cell.fraction());
        }
        assert_eq!(lod.iter().map(|c| c.starts).sum::<u32>(), 4000);
        assert!(t.lod(&m).levels.len() > 1);
    }

    #[test]
    fn tracks_prepared_together_equal_tracks_built_alone() {
        let slices: Vec<_> = (0..300u64)
            .map(|i| (i * 10, i * 10 + 7, 1 + (i % 3) as u32))
            .collect();
        let m = model(&slices, 3_000);
        let build = |k: u32| {
            let items = (0..300u32).filter(|i| i % 3 == k).collect();
            IntervalLine::new(IntervalSource::SchedSlices, items)
        };
        let together: Vec<_> = (0..3).map(build).collect();
        IntervalLine::prepare_together(&m, &together.iter().collect::<Vec<_>>());
        for (k, line) in together.iter().enumerate() {
            let built = line.lod.get().expect("prepared");
            let alone = build(k as u32);
            assert_eq!(built.levels, alone.lod(&m).levels);
        }
    }

    #[test]
    fn short_tracks_get_no_summaries() {
        let slices: Vec<_> = (0..200u64).map(|i| (i * 10, i * 10 + 5, 1)).collect();
        let m = model(&slices, 2_000);
        let short = IntervalLine::new(
            IntervalSource::SchedSlices,
            (0..EXACT_ITEMS_PER_COLUMN as u32).collect(),
        );
        let long = line(&m);
        IntervalLine::prepare_together(&m, &[&short, &long]);
        short.prepare(&m);
        assert!(short.lod.get().is_none());
        assert!(long.lod.get().is_some());
        // Even one column shows a short line exactly.
        let mut cells = Vec::new();
        short.cells(&m, &Columns::new(0, 2_000, 1), &mut cells);
        assert_eq!(cells[0].starts, EXACT_ITEMS_PER_COLUMN as u32);
        assert!(short.lod.get().is_none());
    }

    #[test]
    fn picking_and_stepping() {
        let m = model(&[(0, 30, 1), (30, 35, 2), (50, 100, 3)], 100);
        let t = line(&m);
        assert_eq!(t.at(&m, 31, 0), Some(1));
        assert_eq!(t.at(&m, 40, 0), None);
        assert_eq!(t.at(&m, 40, 6), Some(1));
        assert_eq!(t.next_after(&m, 30), Some(2));
        assert_eq!(t.next_after(&m, 50), None);
        assert_eq!(t.prev_before(&m, 30), Some(0));
        assert_eq!(t.prev_before(&m, 0), None);
    }

    #[test]
    fn samples_carry_values_into_empty_columns() {
        let mut m = Model::default();
        m.info.duration_ns = 100;
        m.marker_values = [(10, 5), (12, -3), (70, 9)]
            .iter()
            .map(|&(ts_ns, value)| tband_model::MarkerValue {
                ts_ns,
                marker: 0,
                value,
            })
            .collect();
        m.markers.push(tband_model::Marker {
            marker_id: 0,
            task_id: None,
            kind: tband_model::MarkerKind::Value,
            name: "level".into(),
        });
        // The marker values' layer.
        let timeline = tband_model::timeline::Timeline::new(&m);
        let index = (timeline.layers.iter())
            .position(|l| l.len(&m) == 3)
            .expect("a layer of the values");
        let source = LayerSource {
            index,
            layer: timeline.layers[index].clone(),
        };
        let t = SampleLine::new(source, (0..3).collect());
        assert_eq!(t.bounds(&m), (-3, 9));
        let mut cells = Vec::new();
        t.cells(&m, &Columns::new(0, 100, 4), &mut cells);
        let levels: Vec<_> = cells.iter().map(|c| c.level()).collect();
        assert_eq!(levels, [Some(5), Some(-3), Some(9), Some(9)]);
        t.cells(&m, &Columns::new(20, 60, 2), &mut cells);
        assert_eq!(cells[0].level(), Some(-3));
    }
}
