//! The tables of markers: their tracks, and the spans, instants and values
//! marked on them.

use tband_model::{Marker, MarkerInstant, MarkerSpan, MarkerValue};

use super::{dur, duration, int, text, Column, Each, ModelTable, Value};
use crate::rows::{Part, RowSource};

pub struct Markers;

impl ModelTable for Markers {
    type Row = Marker;
    const NAME: &str = "markers";
    const DOC: &str = "Marker tracks: global (task_id NULL) or local to one task.";
    const COLUMNS: &[Column<Value<Marker>>] = &[
        int("marker_id", "the marker", |k, _| k.marker_id.into()),
        int(
            "task_id",
            "the task for task-local markers, NULL for global ones",
            |k, _| k.task_id.into(),
        ),
        text("kind", "event (instants and spans) or value", |k, _| {
            k.kind.as_str().into()
        }),
        text("name", "its name, or `marker <id>`", |k, _| {
            k.name.as_str().into()
        }),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<Marker>) -> Result<(), String> {
        source.each_in(|m| &m.markers, each)
    }
}

const MARKER_SPAN_ROWS: Part<MarkerSpan> = Part {
    table: |m| &m.marker_spans,
    table_mut: |m| &mut m.marker_spans,
    readers: &["marker_spans"],
};

pub struct MarkerSpans;

impl ModelTable for MarkerSpans {
    type Row = MarkerSpan;
    const NAME: &str = "marker_spans";
    const DOC: &str = "Spans between a marker's begin and end.";
    const COLUMNS: &[Column<Value<MarkerSpan>>] = &[
        int("marker_id", "the marker", |s, x| {
            x.marker(s.marker).marker_id.into()
        }),
        int("task_id", "NULL for global markers", |s, x| {
            x.marker(s.marker).task_id.into()
        }),
        int("start_ns", "begin", |s, _| s.start_ns.into()),
        int("end_ns", "end", |s, _| s.end_ns.into()),
        duration(|s, _| dur(s.start_ns, s.end_ns)),
        text("msg", "the message given at the begin", |s, c| {
            c.text(s.msg)
        }),
        int(
            "depth",
            "nesting depth on its track (0 = outermost)",
            |s, _| s.depth.into(),
        ),
        int("truncated", "1 if the span never ended", |s, _| {
            s.truncated.into()
        }),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<MarkerSpan>) -> Result<(), String> {
        source.each_of(&MARKER_SPAN_ROWS, each)
    }
}

const MARKER_INSTANT_ROWS: Part<MarkerInstant> = Part {
    table: |m| &m.marker_instants,
    table_mut: |m| &mut m.marker_instants,
    readers: &["marker_instants"],
};

pub struct MarkerInstants;

impl ModelTable for MarkerInstants {
    type Row = MarkerInstant;
    const NAME: &str = "marker_instants";
    const DOC: &str = "Instant markers.";
    const COLUMNS: &[Column<Value<MarkerInstant>>] = &[
        int("marker_id", "the marker", |i, x| {
            x.marker(i.marker).marker_id.into()
        }),
        int("task_id", "NULL for global markers", |i, x| {
            x.marker(i.marker).task_id.into()
        }),
        int("ts_ns", "when", |i, _| i.ts_ns.into()),
        text("msg", "the message", |i, c| c.text(i.msg)),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<MarkerInstant>) -> Result<(), String> {
        source.each_of(&MARKER_INSTANT_ROWS, each)
    }
}

const MARKER_VALUE_ROWS: Part<MarkerValue> = Part {
    table: |m| &m.marker_values,
    table_mut: |m| &mut m.marker_values,
    readers: &["marker_values"],
};

pub struct MarkerValues;

impl ModelTable for MarkerValues {
    type Row = MarkerValue;
    const NAME: &str = "marker_values";
    const DOC: &str = "Values of value markers.";
    const COLUMNS: &[Column<Value<MarkerValue>>] = &[
        int("marker_id", "the marker", |v, x| {
            x.marker(v.marker).marker_id.into()
        }),
        int("task_id", "NULL for global markers", |v, x| {
            x.marker(v.marker).task_id.into()
        }),
        int("ts_ns", "when", |v, _| v.ts_ns.into()),
        int("value", "the value", |v, _| v.value.into()),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<MarkerValue>) -> Result<(), String> {
        source.each_of(&MARKER_VALUE_ROWS, each)
    }
}
