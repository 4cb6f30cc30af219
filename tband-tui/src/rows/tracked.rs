//! The timeline's rows of objects tracked by id: a row per pool (per kind
//! for lifetimes outside pools) with a line per lane of live objects and
//! the marks as ticks, and a row of samples per pool counter.

use std::borrow::Cow;

use tband_model::Model;

use super::{Body, Row, RowKey, TableLengths, Timeline};
use crate::indices::Indices;
use crate::track::{IntervalSource, IntervalTrack, SampleSource};

/// A row's owner (the kind) and name (the pool's, or the counter's).
pub(super) fn label(m: &Model, key: RowKey) -> (Option<&str>, Cow<'_, str>) {
    let o = &m.tracked;
    match key {
        RowKey::Pool(pool) => match o.pools.get(pool as usize) {
            Some(p) => (Some(o.kind(p.kind)), Cow::Borrowed(p.name.as_str())),
            None => (None, Cow::Owned(format!("pool {pool}"))),
        },
        RowKey::ObjectKind(kind) => (None, Cow::Borrowed(o.kind(kind))),
        RowKey::PoolCounter(counter) => {
            let c = o.counters.get(counter as usize);
            match c.and_then(|c| o.pools.get(c.pool as usize).map(|p| (c, p))) {
                Some((c, p)) => (Some(p.name.as_str()), Cow::Borrowed(c.name.as_str())),
                None => (None, Cow::Owned(format!("counter {counter}"))),
            }
        }
        _ => (None, Cow::Borrowed("")),
    }
}

impl Timeline {
    /// Adds the objects beyond those in `from` to their rows.
    pub(super) fn add_tracked_objects(&mut self, m: &Model, from: &TableLengths) {
        let o = &m.tracked;
        let skip = from.object_lifetimes;
        for (i, l) in o.lifetimes.iter().enumerate().skip(skip) {
            let key = l.pool.map_or(RowKey::ObjectKind(l.kind), RowKey::Pool);
            let Body::Intervals { lines, .. } = &mut self.object_row(key).body else {
                continue;
            };
            let line = l.slot as usize;
            while lines.len() <= line {
                let source = IntervalSource::ObjectLifetimes;
                lines.push(IntervalTrack::new(source, Indices::default()));
            }
            lines[line].push(i as u32);
        }
        for (i, mark) in o.marks.iter().enumerate().skip(from.object_marks) {
            let Some(l) = o.lifetimes.get(mark.lifetime as usize) else {
                continue;
            };
            let key = l.pool.map_or(RowKey::ObjectKind(l.kind), RowKey::Pool);
            let Body::Intervals { ticks, .. } = &mut self.object_row(key).body else {
                continue;
            };
            let source = IntervalSource::ObjectMarks;
            let ticks = ticks.get_or_insert_with(|| IntervalTrack::new(source, Indices::default()));
            ticks.push(i as u32);
        }
        let values = o.counter_values.iter().enumerate();
        for (i, v) in values.skip(from.object_counter_values) {
            let key = RowKey::PoolCounter(v.counter);
            self.sample_row(key, SampleSource::ObjectCounters)
                .push(i as u32);
        }
    }

    /// The row of a pool's (or kind's) lifetimes, made if new.
    fn object_row(&mut self, key: RowKey) -> &mut Row {
        let body = || Body::Intervals {
            lines: Vec::new(),
            ticks: None,
        };
        self.row_or_new(key, || Row::new(key, body()))
    }
}
