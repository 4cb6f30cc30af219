//! The rows of the `cpu_timeline` table: each core's time cut into pieces
//! at every scheduling slice and depth-0 ISR boundary, each piece with the
//! task scheduled and whether an ISR runs.
//!
//! Computed here rather than in SQL: both slice tables come in start order,
//! so each core's boundaries merge in one pass, where an SQL engine sorts
//! them all and runs a window over the sort.

use std::collections::BTreeMap;

use tband_model::{IsrSlice, SchedSlice};

/// One ISR running, in the state's count of ISRs (see [`Piece::from_state`]).
const ISR_UNIT: i64 = 1 << 33;

/// The latest time the database holds (BIGINT).
const MAX_TIME: u64 = i64::MAX as u64;

/// A stretch of one core's time in one state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub core_id: u32,
    pub start_ns: u64,
    pub end_ns: u64,
    /// The task scheduled, `None` when none is.
    pub task_id: Option<i64>,
    /// Whether a depth-0 ISR runs.
    pub in_isr: bool,
}

impl Piece {
    /// The state is the sum of the boundaries passed so far: ISRs running ×
    /// [`ISR_UNIT`] plus the task's id + 1. On a consistent trace that is at
    /// most one ISR and one task; on a damaged one, with overlapping slices,
    /// it is read the same way whatever it holds.
    fn from_state(core_id: u32, start_ns: u64, end_ns: u64, state: i64) -> Piece {
        let task = state % ISR_UNIT;
        Piece {
            core_id,
            start_ns,
            end_ns,
            task_id: (task > 0).then_some(task - 1),
            in_isr: state >= ISR_UNIT,
        }
    }
}

/// A boundary: its time and what it adds to the state.
type Edge = (u64, i64);

/// One core's boundaries, each list in time order once [`sorted`] ran.
#[derive(Default)]
struct CoreEdges {
    sched: Vec<Edge>,
    isr: Vec<Edge>,
}

/// Slices on a core follow each other, so a list of their starts and ends
/// is already in time order; only a damaged trace's overlapping slices
/// need the sort.
fn sorted(mut edges: Vec<Edge>) -> Vec<Edge> {
    if !edges.is_sorted_by_key(|e| e.0) {
        edges.sort_unstable_by_key(|e| e.0);
    }
    edges
}

/// Calls `f` with every piece of the model's `sched_slices` and
/// `isr_slices`, core by core in core order, each core's pieces in time
/// order. A piece ends at the next boundary on its core; a core's time
/// before its first boundary and after its last has no piece.
pub fn for_each_piece<E>(
    sched_slices: impl IntoIterator<Item = SchedSlice>,
    isr_slices: impl IntoIterator<Item = IsrSlice>,
    mut f: impl FnMut(Piece) -> Result<(), E>,
) -> Result<(), E> {
    let mut cores: BTreeMap<u32, CoreEdges> = BTreeMap::new();
    for s in sched_slices {
        let d = i64::from(s.task_id) + 1;
        let edges = &mut cores.entry(s.core_id).or_default().sched;
        edges.extend([(s.start_ns, d), (s.end_ns, -d)]);
    }
    for s in isr_slices.into_iter().filter(|s| s.depth == 0) {
        let edges = &mut cores.entry(s.core_id).or_default().isr;
        edges.extend([(s.start_ns, ISR_UNIT), (s.end_ns, -ISR_UNIT)]);
    }
    for (core_id, edges) in cores {
        let mut sched = sorted(edges.sched).into_iter().peekable();
        let mut isr = sorted(edges.isr).into_iter().peekable();
        let merged = std::iter::from_fn(|| match (sched.peek(), isr.peek()) {
            (Some(a), Some(b)) if b.0 < a.0 => isr.next(),
            (Some(_), _) => sched.next(),
            (None, _) => isr.next(),
        });
        let mut state: i64 = 0;
        let mut last: Option<u64> = None;
        for (t, d) in merged {
            // `state` holds every boundary up to `last`, none later. Times
            // past BIGINT's range are NULL in the database; a piece ending
            // there could not be placed in time, so it is left out.
            if let Some(start) = last.filter(|&start| t > start && t <= MAX_TIME) {
                f(Piece::from_state(core_id, start, t, state))?;
            }
            state = state.wrapping_add(d);
            last = Some(t);
        }
    }
    Ok(())
}
