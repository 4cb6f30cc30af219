//! The tables about the trace as a whole: `trace_info`, and the anomalies
//! found in it.

use tband_model::Anomaly;

use super::{int, text, Column, Each, ModelTable, Value};
use crate::rows::RowSource;

/// The one row of `trace_info`: what it shows that the model does not
/// hold as it is shown. The other columns read the model's `info`.
pub struct TraceInfoRow {
    /// The input files, joined.
    sources: String,
}

pub struct TraceInfo;

impl ModelTable for TraceInfo {
    type Row = TraceInfoRow;
    const NAME: &str = "trace_info";
    const DOC: &str = "One row about the trace as a whole.";
    const COLUMNS: &[Column<Value<TraceInfoRow>>] = &[
        text("format", "input format: tband, threadx, ctf", |_, c| {
            c.model.info.format.as_str().into()
        }),
        text(
            "sources",
            "the input files as named on the command line, joined by ', '",
            |r, _| r.sources.as_str().into(),
        ),
        int("cores", "number of cores", |_, c| {
            (c.model.cores.len() as u64).into()
        }),
        int("ns_per_tick", "nanoseconds per timer tick", |_, c| {
            c.model.info.ns_per_tick.into()
        }),
        int(
            "ns_per_tick_known",
            "1 if the trace stated its timer resolution, 0 if 1 ns was assumed",
            |_, c| c.model.info.ns_per_tick_known.into(),
        ),
        int(
            "first_ts_raw",
            "raw timestamp of the first event (time 0)",
            |_, c| c.model.info.first_ts_raw.into(),
        ),
        int("duration_ns", "time of the last event", |_, c| {
            c.model.info.duration_ns.into()
        }),
        int("events", "events decoded", |_, c| {
            c.model.info.events.into()
        }),
        int(
            "invalid_frames",
            "frames or records that did not decode",
            |_, c| c.model.info.invalid_frames.into(),
        ),
        text(
            "tool_version",
            "version of tband-query that wrote the database",
            |_, _| env!("CARGO_PKG_VERSION").into(),
        ),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<TraceInfoRow>) -> Result<(), String> {
        source.each_made(
            |m| {
                vec![TraceInfoRow {
                    sources: m.info.sources.join(", "),
                }]
            },
            each,
        )
    }
}

pub struct Anomalies;

impl ModelTable for Anomalies {
    type Row = Anomaly;
    const NAME: &str = "anomalies";
    const DOC: &str = "Things wrong with the trace, placed where they were found.";
    const COLUMNS: &[Column<Value<Anomaly>>] = &[
        text(
            "kind",
            "dropped_events, invalid_frame, unknown_event, time_backwards, end_without_begin, never_closed, no_current_task, missing_core_stream, no_timer_resolution, unknown_free, double_free, free_size_mismatch, undecoded_logs, inconsistent or fault",
            |a, _| a.kind.as_str().into(),
        ),
        int("core_id", "the core, where known", |a, _| a.core_id.into()),
        int(
            "start_ns",
            "start of the region where the trace may be inconsistent",
            |a, _| a.start_ns.into(),
        ),
        int("end_ns", "where it was found", |a, _| a.end_ns.into()),
        int(
            "count",
            "how many (events dropped, frames invalid, ...)",
            |a, _| a.count.into(),
        ),
        text("detail", "what exactly", |a, _| a.detail.as_str().into()),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<Anomaly>) -> Result<(), String> {
        source.each_in(|m| &m.anomalies, each)
    }
}
