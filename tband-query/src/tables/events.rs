//! The `events` table: every decoded event, written while the trace is
//! decoded rather than from the model.

use std::borrow::Cow;

use tband_model::{ArgValue, EventRow};

use super::{int, sql_columns, text, write_row, Column};
use crate::rows::{Cell, RowSink, RowSource};
use crate::schema::{self, Table};

/// An event as its row reads it: integer fields fill `ints` in field
/// order, the string field (at most one per event) is `text`.
pub struct Event<'a> {
    seq: i64,
    row: &'a EventRow<'a>,
    ints: [Cell<'a>; 3],
    text: Option<Cow<'a, str>>,
}

/// How a column of `events` reads its value from an event.
pub type EventValue = for<'a> fn(&'a Event<'a>) -> Cell<'a>;

pub struct Events;

impl Events {
    const COLUMNS: &[Column<EventValue>] = &[
        int("seq", "position in time order, from 0", |e| e.seq.into()),
        int("ts_ns", "time (NULL for metadata events)", |e| e.row.ts_ns.into()),
        int("core_id", "the core whose stream held it", |e| {
            e.row.core_id.into()
        }),
        text(
            "name",
            "the event's name (task_switched_in, isr_enter, ...)",
            |e| e.row.name.into(),
        ),
        int(
            "arg1",
            "its first integer field (see the wire format in the book for the fields of each event)",
            |e| e.ints[0],
        ),
        int("arg2", "its second integer field", |e| e.ints[1]),
        int("arg3", "its third integer field", |e| e.ints[2]),
        text(
            "arg_text",
            "its string field (names, marker messages)",
            |e| e.text.as_deref().into(),
        ),
    ];
}

impl Table for Events {
    fn name(&self) -> &'static str {
        "events"
    }

    fn doc(&self) -> &'static str {
        "Every decoded event as the format recorded it, in time order."
    }

    fn columns(&self) -> Vec<&'static schema::Column> {
        sql_columns(Self::COLUMNS)
    }

    /// The rows are not in the model: they are written while the trace is
    /// decoded (see [`EventRows`]).
    fn write(&self, _: &mut RowSource<'_>, _: &mut dyn RowSink) -> Result<(), String> {
        Err("the events table is filled while the trace is decoded".into())
    }
}

/// The rows of the `events` table, from the events an importer hands on.
/// The first error stops the writing.
pub struct EventRows<'s> {
    sink: &'s mut dyn RowSink,
    seq: i64,
    written: Result<(), String>,
}

impl<'s> EventRows<'s> {
    pub fn new(sink: &'s mut dyn RowSink) -> Self {
        EventRows {
            sink,
            seq: 0,
            written: Ok(()),
        }
    }

    pub fn event(&mut self, e: &EventRow<'_>) {
        if self.written.is_err() {
            return;
        }
        let mut event = Event {
            seq: self.seq,
            row: e,
            ints: [Cell::Null; 3],
            text: None,
        };
        let mut n = 0;
        for &(_, value) in e.args {
            let cell = match value {
                ArgValue::Int(v) => v.into(),
                ArgValue::UInt(v) => v.into(),
                ArgValue::Str(bytes) => {
                    event.text = Some(String::from_utf8_lossy(bytes));
                    continue;
                }
            };
            if let Some(slot) = event.ints.get_mut(n) {
                *slot = cell;
                n += 1;
            }
        }
        self.written = write_row(Events::COLUMNS, self.sink, |value| value(&event));
        self.seq += 1;
    }

    /// Whether every row was written.
    pub fn finish(self) -> Result<(), String> {
        self.written
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tband_model::Model;

    #[derive(Default)]
    struct Collect(Vec<String>);

    impl RowSink for Collect {
        fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), String> {
            self.0.push(format!("{cells:?}"));
            Ok(())
        }
    }

    #[test]
    fn events_number_their_integer_fields_and_keep_their_text() {
        let mut rows = Collect::default();
        let mut events = EventRows::new(&mut rows);
        let args = [
            ("a", ArgValue::UInt(1)),
            ("name", ArgValue::Str(b"x\xff")),
            ("b", ArgValue::Int(-2)),
            ("c", ArgValue::UInt(u64::MAX)),
            ("d", ArgValue::UInt(4)),
        ];
        let event = |ts_ns, args| EventRow {
            ts_ns,
            core_id: 1,
            class: 0,
            name: "e",
            args,
            actor: None,
        };
        events.event(&event(Some(5), &args));
        events.event(&event(None, &[]));
        events.finish().unwrap();
        let null = Cell::Null;
        let text = Cell::Text("x\u{FFFD}");
        let e = Cell::Text("e");
        assert_eq!(
            rows.0,
            [
                format!(
                    "{:?}",
                    [
                        Cell::Int(0),
                        Cell::Int(5),
                        Cell::Int(1),
                        e,
                        Cell::Int(1),
                        Cell::Int(-2),
                        null,
                        text
                    ]
                ),
                format!(
                    "{:?}",
                    [Cell::Int(1), null, Cell::Int(1), e, null, null, null, null]
                ),
            ]
        );
        let model = Model::default();
        assert!(Events
            .write(&mut RowSource::Kept(&model), &mut rows)
            .is_err());
    }
}
