//! Who began and ended each lifetime: the task or ISR running at its begin
//! and end instants, found by one sweep over the model's slices with the
//! instants in time order. A trace read as it grows keeps the sweep from
//! look to look, past the instants that no later event can change, so
//! that each look sweeps only what is new.

use crate::id_index::IdIndex;
use crate::tracked::{Actor, ObjectLifetime};
use crate::{AnomalyKind, IsrKey, Model};

/// The actors found so far.
#[derive(Default)]
pub(super) struct Actors {
    /// The begin instants settled: of `lifetimes[..begins]`; the end
    /// instants settled: of `ended[..ends]`.
    begins: usize,
    ends: usize,
    /// The sweep after the last instant settled.
    sweep: Sweep,
}

/// Where a sweep over the slices stands: the next rows to take in, and
/// per core the row of its latest task slice and its stack of ISR slice
/// rows. Rows, not copies: a slice still open may end later.
#[derive(Clone, Default)]
struct Sweep {
    sched: usize,
    isr: usize,
    running: IdIndex<u32, usize>,
    nested: IdIndex<u32, Vec<usize>>,
}

impl Actors {
    /// Sets who began and ended each of `lifetimes` (`ended`: those an end
    /// rule ended, in the order they ended) from `model`'s slices.
    ///
    /// The instants before the model's end are settled when the model is
    /// of one core whose time never ran backwards: later events only add
    /// slices that start at its end or after, and slices still open end
    /// there or later. Otherwise every instant is swept again each time.
    pub(super) fn find(&mut self, model: &Model, lifetimes: &mut [ObjectLifetime], ended: &[u32]) {
        let monotonic = model.cores.len() <= 1
            && !(model.anomalies.iter()).any(|a| a.kind == AnomalyKind::TimeBackwards);
        let settled_before = match monotonic {
            true => model.info.duration_ns,
            false => {
                *self = Actors::default();
                0
            }
        };
        let mut at = (self.begins, self.ends);
        while let Some(instant) = next_instant(lifetimes, ended, at) {
            if instant.ts >= settled_before {
                break;
            }
            instant.set(lifetimes, self.sweep.actor(model, instant.ts, instant.core));
            at = instant.after;
        }
        (self.begins, self.ends) = at;
        let mut sweep = self.sweep.clone();
        while let Some(instant) = next_instant(lifetimes, ended, at) {
            instant.set(lifetimes, sweep.actor(model, instant.ts, instant.core));
            at = instant.after;
        }
    }
}

/// A begin or end instant of a lifetime.
struct Instant {
    ts: u64,
    core: u32,
    lifetime: usize,
    begin: bool,
    /// Where the instants after it start: (begins, ends).
    after: (usize, usize),
}

impl Instant {
    fn set(&self, lifetimes: &mut [ObjectLifetime], actor: Option<Actor>) {
        let lifetime = &mut lifetimes[self.lifetime];
        match self.begin {
            true => lifetime.begun_by = actor,
            false => lifetime.ended_by = actor,
        }
    }
}

/// The instant at `(begins, ends)` of the begins (each kind already in
/// time order) merged: an end goes before a begin later than it.
fn next_instant(
    lifetimes: &[ObjectLifetime],
    ended: &[u32],
    (begins, ends): (usize, usize),
) -> Option<Instant> {
    let begin = lifetimes.get(begins);
    let end = ended.get(ends).map(|&id| &lifetimes[id as usize]);
    match (begin, end) {
        (Some(begin), end) if end.is_none_or(|e| e.end_ns >= begin.start_ns) => Some(Instant {
            ts: begin.start_ns,
            core: begin.begin_core,
            lifetime: begins,
            begin: true,
            after: (begins + 1, ends),
        }),
        (_, end) => end.map(|end| Instant {
            ts: end.end_ns,
            core: end.end_core.unwrap_or(end.begin_core),
            lifetime: ended[ends] as usize,
            begin: false,
            after: (begins, ends + 1),
        }),
    }
}

impl Sweep {
    /// The task or ISR running at `ts` on `core`, instants coming in time
    /// order.
    fn actor(&mut self, model: &Model, ts: u64, core: u32) -> Option<Actor> {
        let sched = &model.sched_slices;
        while let Some(s) = sched.get(self.sched).filter(|s| s.start_ns <= ts) {
            self.running.insert(s.core_id, self.sched);
            self.sched += 1;
        }
        let isrs = &model.isr_slices;
        while let Some(s) = isrs.get(self.isr).filter(|s| s.start_ns <= ts) {
            let stack = self.nested.entry(s.core_id);
            stack.truncate(s.depth as usize);
            stack.push(self.isr);
            self.isr += 1;
        }
        let isr = self.nested.get(core).and_then(|stack| {
            let mut open = stack.iter().rev().filter_map(|&row| isrs.get(row));
            open.find(|s| s.end_ns >= ts)
        });
        match isr {
            Some(s) => Some(Actor::Isr(IsrKey {
                core_id: core,
                isr_id: s.isr_id,
            })),
            None => (self.running.get(core))
                .and_then(|&row| sched.get(row))
                .filter(|s| s.end_ns >= ts)
                .map(|s| Actor::Task(s.task_id)),
        }
    }
}
