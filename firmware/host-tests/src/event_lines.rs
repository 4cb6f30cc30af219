//! A trace's events as lines of text, for the tests that check the events
//! a trace ends with.

use std::path::Path;

use tband_model::ArgValue;
use tband_trace::{OpenOptions, Source, Trace};

/// Opens the trace file at `path` and builds its model; returns the trace
/// and its events in order, each a line `name arg=value …` (unsigned
/// values in hex).
pub fn trace_with_event_lines(path: &Path) -> (Trace, Vec<String>) {
    let mut lines = Vec::new();
    let source = Source::open(&[path.display().to_string()], &OpenOptions::default()).unwrap();
    let trace = Trace::build_with_events(source, &OpenOptions::default(), &mut |row| {
        let args: Vec<String> = (row.args.iter())
            .map(|(name, value)| match value {
                ArgValue::UInt(v) => format!("{name}={v:#x}"),
                ArgValue::Int(v) => format!("{name}={v}"),
                ArgValue::Str(s) => format!("{name}={}", String::from_utf8_lossy(s)),
            })
            .collect();
        lines.push(format!("{} {}", row.name, args.join(" ")));
    })
    .unwrap();
    (trace, lines)
}
