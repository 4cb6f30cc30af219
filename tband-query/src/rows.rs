//! The model as rows of SQL cells, table by table, in the column order of
//! [`crate::schema`]. Engines only decide how a row is written.

use tband_decode::model::{Model, Row, StrId, Table as ModelTable};
use tband_decode::trace::{ArgValue, EventRow};
use tband_decode::Trace;

use crate::schema::Table;
use crate::timeline;

/// One value going into the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell<'a> {
    Null,
    Int(i64),
    Text(&'a str),
}

impl From<u64> for Cell<'_> {
    /// Values beyond `i64::MAX` (only possible in raw event fields) become NULL.
    fn from(v: u64) -> Self {
        i64::try_from(v).map_or(Cell::Null, Cell::Int)
    }
}

impl From<u32> for Cell<'_> {
    fn from(v: u32) -> Self {
        Cell::Int(v.into())
    }
}

impl From<i64> for Cell<'_> {
    fn from(v: i64) -> Self {
        Cell::Int(v)
    }
}

impl From<bool> for Cell<'_> {
    fn from(v: bool) -> Self {
        Cell::Int(v.into())
    }
}

impl<'a> From<&'a str> for Cell<'a> {
    fn from(v: &'a str) -> Self {
        Cell::Text(v)
    }
}

impl<'a, T: Into<Cell<'a>>> From<Option<T>> for Cell<'a> {
    fn from(v: Option<T>) -> Self {
        v.map_or(Cell::Null, Into::into)
    }
}

/// Where rows of one table go.
pub trait RowSink {
    type Error;
    fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), Self::Error>;
}

/// Writes every row of `table` into `sink`.
pub fn write_table<S: RowSink>(trace: &Trace, table: &Table, sink: &mut S) -> Result<(), S::Error> {
    let m = &trace.model;
    match table.name {
        "trace_info" => trace_info(m, sink),
        "cores" => each(&m.cores, sink, |c| {
            [c.core_id.into(), c.idle_task_id.into()]
        }),
        "tasks" => each(&m.tasks, sink, |t| {
            [
                t.task_id.into(),
                t.name.as_str().into(),
                t.kind.as_str().into(),
                t.created_ns.into(),
                t.deleted_ns.into(),
                t.stack_size.into(),
            ]
        }),
        "sched_slices" => each_row(&m.sched_slices, sink, |s| {
            [
                s.core_id.into(),
                s.task_id.into(),
                s.start_ns.into(),
                s.end_ns.into(),
                dur(s.start_ns, s.end_ns),
                s.truncated.into(),
            ]
        }),
        "task_states" => each_row(&m.task_states, sink, |s| {
            [
                s.task_id.into(),
                s.state.as_str().into(),
                s.reason.as_str().into(),
                s.queue_id.into(),
                s.core_id.into(),
                s.woken_by_isr.map(|k| k.core_id).into(),
                s.woken_by_isr.map(|k| k.isr_id).into(),
                s.start_ns.into(),
                s.end_ns.into(),
                dur(s.start_ns, s.end_ns),
                s.truncated.into(),
            ]
        }),
        "task_priorities" => each_row(&m.task_priorities, sink, |p| {
            [
                p.task_id.into(),
                p.ts_ns.into(),
                p.priority.into(),
                p.cause.as_str().into(),
            ]
        }),
        "isrs" => each(&m.isrs, sink, |i| {
            [i.core_id.into(), i.isr_id.into(), i.name.as_str().into()]
        }),
        "isr_slices" => each_row(&m.isr_slices, sink, |s| {
            [
                s.core_id.into(),
                s.isr_id.into(),
                s.start_ns.into(),
                s.end_ns.into(),
                dur(s.start_ns, s.end_ns),
                s.depth.into(),
                s.truncated.into(),
            ]
        }),
        "markers" => each(&m.markers, sink, |k| {
            [
                k.marker_id.into(),
                k.task_id.into(),
                k.kind.as_str().into(),
                k.name.as_str().into(),
            ]
        }),
        "marker_spans" => each_row(&m.marker_spans, sink, |s| {
            [
                s.marker_id.into(),
                s.task_id.into(),
                s.start_ns.into(),
                s.end_ns.into(),
                dur(s.start_ns, s.end_ns),
                text(m, s.msg),
                s.depth.into(),
                s.truncated.into(),
            ]
        }),
        "marker_instants" => each_row(&m.marker_instants, sink, |i| {
            [
                i.marker_id.into(),
                i.task_id.into(),
                i.ts_ns.into(),
                text(m, i.msg),
            ]
        }),
        "marker_values" => each_row(&m.marker_values, sink, |v| {
            [
                v.marker_id.into(),
                v.task_id.into(),
                v.ts_ns.into(),
                v.value.into(),
            ]
        }),
        "queues" => each(&m.queues, sink, |q| {
            [
                q.queue_id.into(),
                q.name.as_str().into(),
                q.kind.as_str().into(),
                q.capacity.into(),
                q.high_water.into(),
            ]
        }),
        "queue_ops" => each_row(&m.queue_ops, sink, |o| {
            [
                o.queue_id.into(),
                o.ts_ns.into(),
                o.op.as_str().into(),
                o.from_isr.into(),
                o.task_id.into(),
                o.core_id.into(),
                o.len_after.into(),
            ]
        }),
        "mutex_holds" => each_row(&m.mutex_holds, sink, |h| {
            [
                h.queue_id.into(),
                h.task_id.into(),
                h.start_ns.into(),
                h.end_ns.into(),
                dur(h.start_ns, h.end_ns),
                h.truncated.into(),
            ]
        }),
        "anomalies" => each(&m.anomalies, sink, |a| {
            [
                a.kind.as_str().into(),
                a.core_id.into(),
                a.start_ns.into(),
                a.end_ns.into(),
                a.count.into(),
                a.detail.as_str().into(),
            ]
        }),
        "cpu_timeline" => timeline::for_each_piece(m, |p| {
            sink.row(&[
                p.core_id.into(),
                p.start_ns.into(),
                p.end_ns.into(),
                dur(p.start_ns, p.end_ns),
                p.task_id.into(),
                p.in_isr.into(),
            ])
        }),
        "events" => events(trace, sink),
        other => unreachable!("schema table {other} has no rows"),
    }
}

fn each<'m, T, S: RowSink, const N: usize>(
    rows: &'m [T],
    sink: &mut S,
    cells: impl Fn(&'m T) -> [Cell<'m>; N],
) -> Result<(), S::Error> {
    rows.iter().try_for_each(|r| sink.row(&cells(r)))
}

/// [`each`] for the model's packed tables, which yield rows by value.
fn each_row<'m, R: Row, S: RowSink, const N: usize>(
    rows: &'m ModelTable<R>,
    sink: &mut S,
    cells: impl Fn(R) -> [Cell<'m>; N],
) -> Result<(), S::Error> {
    rows.iter().try_for_each(|r| sink.row(&cells(r)))
}

fn dur<'a>(start_ns: u64, end_ns: u64) -> Cell<'a> {
    end_ns.saturating_sub(start_ns).into()
}

fn text(m: &Model, id: StrId) -> Cell<'_> {
    Cell::Text(m.strings.get(id))
}

fn trace_info<S: RowSink>(m: &Model, sink: &mut S) -> Result<(), S::Error> {
    let i = &m.info;
    let sources = i.sources.join(", ");
    sink.row(&[
        i.format.as_str().into(),
        sources.as_str().into(),
        (m.cores.len() as u64).into(),
        i.ns_per_tick.into(),
        i.ns_per_tick_known.into(),
        i.first_ts_raw.into(),
        i.duration_ns.into(),
        i.events.into(),
        i.invalid_frames.into(),
        env!("CARGO_PKG_VERSION").into(),
    ])
}

/// The `events` table: integer fields fill arg1..arg3 in field order, the
/// string field (at most one per event) goes to `arg_text`.
fn events<S: RowSink>(trace: &Trace, sink: &mut S) -> Result<(), S::Error> {
    let mut seq: i64 = 0;
    let mut result = Ok(());
    trace.for_each_event(|e: &EventRow<'_>| {
        if result.is_err() {
            return;
        }
        let mut ints = [Cell::Null; 3];
        let mut n = 0;
        let mut msg = None;
        for &(_, value) in e.args {
            let cell = match value {
                ArgValue::Int(v) => v.into(),
                ArgValue::UInt(v) => v.into(),
                ArgValue::Str(bytes) => {
                    msg = Some(String::from_utf8_lossy(bytes));
                    continue;
                }
            };
            if let Some(slot) = ints.get_mut(n) {
                *slot = cell;
                n += 1;
            }
        }
        result = sink.row(&[
            seq.into(),
            e.ts_ns.into(),
            e.core_id.into(),
            e.name.into(),
            ints[0],
            ints[1],
            ints[2],
            msg.as_deref().into(),
        ]);
        seq += 1;
    });
    result
}
