//! Every table of the SQL schema, each defined once: a list of columns,
//! each with its name, type, doc and how a row gives its value. The SQL
//! statements ([`crate::schema::Table`]) and the rows written
//! ([`crate::rows`]) both come from these lists, so they cannot disagree.
//!
//! A table of model rows is a [`ModelTable`]: where its rows come from
//! (`rows`) and its columns, whose values are read from a row and the
//! [`Context`] it is read in (the model, for its strings and lookups).
//! `events` has rows of its own ([`events`]).

use tband_model::Actor;

use crate::rows::{Cell, Context, Each, RowSink, RowSource};
use crate::schema::{self, ColumnType, Stored, Table};

mod events;
mod faults;
mod logs;
mod markers;
mod memory;
mod queues;
mod rtos_objects;
mod tasks;
mod trace;
mod tracked;

pub use events::{EventRows, Events};
pub use faults::Faults;
pub use logs::Logs;
pub use markers::{MarkerInstants, MarkerSpans, MarkerValues, Markers};
pub use memory::{FailedAllocations, HeapBlocks, HeapLevels, Heaps, StackMargins};
pub use queues::{MutexHolds, QueueOps, Queues};
pub use rtos_objects::{
    EventGroupOps, EventGroups, Notifications, StreamBufferOps, StreamBuffers, TimerOps, Timers,
};
pub use tasks::{
    Cores, CpuTimeline, IsrSlices, Isrs, SchedSlices, TaskPriorities, TaskRunTime, TaskStates,
    Tasks,
};
pub use trace::{Anomalies, TraceInfo};
pub use tracked::{ObjectCounters, ObjectLifetimes, ObjectMarks};

/// Every table, in creation (and loading) order.
pub static TABLES: &[&dyn Table] = &[
    &TraceInfo,
    &Cores,
    &Tasks,
    &TaskRunTime,
    &SchedSlices,
    &TaskStates,
    &TaskPriorities,
    &Isrs,
    &IsrSlices,
    &Markers,
    &MarkerSpans,
    &MarkerInstants,
    &MarkerValues,
    &Queues,
    &QueueOps,
    &MutexHolds,
    &Notifications,
    &EventGroups,
    &EventGroupOps,
    &StreamBuffers,
    &StreamBufferOps,
    &Timers,
    &TimerOps,
    &Anomalies,
    &ObjectLifetimes,
    &ObjectMarks,
    &ObjectCounters,
    &Heaps,
    &HeapBlocks,
    &HeapLevels,
    &FailedAllocations,
    &StackMargins,
    &Logs,
    &Faults,
    &CpuTimeline,
    &Events,
];

/// Tables loaded only for the queries that need them: `events` has one row
/// per decoded event (as many rows as the model tables together) and
/// `cpu_timeline` about as many as the slice tables; the other tables are
/// small next to them.
pub static ON_DEMAND: &[&dyn Table] = &[&CpuTimeline, &Events];

/// The tables filled from a trace's model: every table but `events`, whose
/// rows exist only while the trace is decoded.
pub fn model_tables() -> Vec<&'static dyn Table> {
    TABLES
        .iter()
        .copied()
        .filter(|t| t.name() != Events.name())
        .collect()
}

/// A column: the SQL column, and `value`, which reads its value from a row.
pub struct Column<V> {
    sql: schema::Column,
    value: V,
}

/// How a column of a [`ModelTable`] reads its value from a row of type `R`.
pub type Value<R> = for<'a> fn(&'a R, &'a Context<'a>) -> Cell<'a>;

/// A table with a row per `Row` made from the model. Each is a type of
/// its own, so that the code writing its rows is compiled for its
/// columns: the `value` of each is called directly, not through a
/// pointer (a call through a pointer per value made loads 20 % slower).
pub trait ModelTable: Sync {
    type Row: 'static;
    const NAME: &'static str;
    const DOC: &'static str;
    const COLUMNS: &'static [Column<Value<Self::Row>>];

    /// Hands every row, in order, to `each`.
    fn rows(source: &mut RowSource<'_>, each: impl Each<Self::Row>) -> Result<(), String>;
}

/// The most columns a table has: a row's values are gathered on the stack.
const MAX_COLUMNS: usize = 17;

impl<T: ModelTable> Table for T {
    fn name(&self) -> &'static str {
        T::NAME
    }

    fn doc(&self) -> &'static str {
        T::DOC
    }

    fn columns(&self) -> Vec<&'static schema::Column> {
        sql_columns(T::COLUMNS)
    }

    fn write(&self, source: &mut RowSource<'_>, sink: &mut dyn RowSink) -> Result<(), String> {
        source.loading(T::NAME);
        T::rows(source, |row, context| {
            write_row(T::COLUMNS, sink, |value| value(row, context))
        })
    }
}

/// The SQL columns of `columns`.
fn sql_columns<V>(columns: &'static [Column<V>]) -> Vec<&'static schema::Column> {
    columns.iter().map(|c| &c.sql).collect()
}

/// Writes into `sink` the row whose value in each of `columns` is what
/// `read` reads with the column's `value`.
fn write_row<'a, V>(
    columns: &[Column<V>],
    sink: &mut dyn RowSink,
    read: impl Fn(&V) -> Cell<'a>,
) -> Result<(), String> {
    let mut cells = [Cell::Null; MAX_COLUMNS];
    let cells = &mut cells[..columns.len()];
    for (cell, column) in cells.iter_mut().zip(columns) {
        *cell = read(&column.value);
    }
    sink.row(cells)
}

/// A BIGINT column.
const fn int<V>(name: &'static str, doc: &'static str, value: V) -> Column<V> {
    column(name, ColumnType::BigInt, Stored::AsShown, doc, value)
}

/// A TEXT column.
const fn text<V>(name: &'static str, doc: &'static str, value: V) -> Column<V> {
    column(name, ColumnType::Text, Stored::AsShown, doc, value)
}

/// A TEXT column of one of `texts`, stored as codes: `value` gives the
/// code (see [`Cell`]'s conversions from the model's enums).
const fn coded<V>(
    name: &'static str,
    texts: &'static [&'static str],
    doc: &'static str,
    value: V,
) -> Column<V> {
    column(name, ColumnType::Text, Stored::Code(texts), doc, value)
}

/// `dur_ns` of a table with `start_ns` and `end_ns`: `value` gives it as
/// [`dur`] stores it.
const fn duration<V>(value: V) -> Column<V> {
    column(
        "dur_ns",
        ColumnType::BigInt,
        Stored::Duration,
        "end_ns - start_ns",
        value,
    )
}

const fn column<V>(
    name: &'static str,
    ty: ColumnType,
    stored: Stored,
    doc: &'static str,
    value: V,
) -> Column<V> {
    Column {
        sql: schema::Column {
            name,
            ty,
            stored,
            doc,
        },
        value,
    }
}

/// The `dur_ns` a table stores: NULL where the view's `end_ns - start_ns`
/// gives the duration, which is wherever both times fit BIGINT (times past
/// it are NULL); else the duration itself, NULL if it does not fit either.
/// An end before the start, which the model does not make, would be 0.
#[inline]
fn dur<'a>(start_ns: u64, end_ns: u64) -> Cell<'a> {
    if end_ns >= start_ns && i64::try_from(end_ns).is_ok() {
        Cell::Null
    } else {
        end_ns.saturating_sub(start_ns).into()
    }
}

/// The task column of who did something (NULL for an ISR or when unknown).
fn actor_task<'a>(actor: Option<Actor>) -> Cell<'a> {
    match actor {
        Some(Actor::Task(task)) => task.into(),
        _ => Cell::Null,
    }
}

/// The ISR column of who did something (NULL for a task or when unknown).
fn actor_isr<'a>(actor: Option<Actor>) -> Cell<'a> {
    match actor {
        Some(Actor::Isr(isr)) => isr.isr_id.into(),
        _ => Cell::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_fits_the_row_of_values_on_the_stack() {
        for table in TABLES {
            assert!(table.columns().len() <= MAX_COLUMNS, "{}", table.name());
        }
    }

    #[test]
    fn durations_are_stored_only_where_sql_cannot_compute_them() {
        let past = 1 << 63;
        assert_eq!(dur(5, 9), Cell::Null);
        assert_eq!(dur(5, 5), Cell::Null);
        assert_eq!(dur(past + 1, past + 255), Cell::Int(254));
        assert_eq!(dur(1, past), Cell::Int(i64::MAX));
        assert_eq!(dur(0, past), Cell::Null);
    }
}
