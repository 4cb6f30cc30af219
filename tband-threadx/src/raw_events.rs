//! Every entry as a raw event row: its name and its words, labelled.

use super::event_names::event_info;
use super::Buffer;
use tband_model::{ArgValue, EventRow};

/// Labels of the information words of events without a table entry.
const PLAIN_LABELS: [&str; 4] = ["info1", "info2", "info3", "info4"];

/// Calls `f` with every entry of the buffer in circular order: the event's
/// name (`unknown` for ids without one), the logging context and the raw
/// words, the information words under the names of what they hold.
pub fn for_each_event(buffer: &Buffer<'_>, mut f: impl FnMut(&EventRow<'_>)) {
    for entry in buffer.entries() {
        let name = entry.event_name().unwrap_or("unknown");
        let labels = event_info(entry.event_id).map_or(PLAIN_LABELS, |info| info.fields);
        let mut args = [
            (
                "context",
                ArgValue::Str(buffer.context_label(&entry).as_bytes()),
            ),
            ("event_id", ArgValue::UInt(entry.event_id.into())),
            ("thread_word", ArgValue::UInt(entry.thread_word.into())),
            ("priority_word", ArgValue::UInt(entry.priority_word.into())),
            ("", ArgValue::UInt(0)),
            ("", ArgValue::UInt(0)),
            ("", ArgValue::UInt(0)),
            ("", ArgValue::UInt(0)),
        ];
        // The four fixed arguments, then the information words in use.
        let mut count = 4;
        for (label, value) in labels.into_iter().zip(entry.info) {
            if !label.is_empty() {
                args[count] = (label, ArgValue::UInt(value.into()));
                count += 1;
            }
        }
        f(&EventRow {
            ts_ns: Some(entry.time_ns),
            core_id: 0,
            name,
            args: &args[..count],
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ReadOptions;

    #[test]
    fn rows_carry_names_context_and_labelled_words() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/corpus/threadx/threadx_demo_small.trx"
        );
        let bytes = std::fs::read(path).expect("conformance file");
        let buffer = Buffer::read(&bytes, &ReadOptions::default()).expect("reads");
        let mut rows = 0;
        let mut first = None;
        for_each_event(&buffer, |row| {
            rows += 1;
            if first.is_none() {
                first = Some((row.name.to_string(), format!("{:?}", row.args)));
            }
        });
        assert_eq!(rows, 974);
        let (name, args) = first.expect("a row");
        assert_eq!(name, "TX_TRACE_QUEUE_RECEIVE");
        assert!(
            args.contains("(\"messages currently in the queue\", UInt(26))"),
            "{args}"
        );
        assert!(
            args.contains("(\"context\", Str([116, 104, 114, 101, 97, 100, 32, 50]))"),
            "{args}"
        );
    }
}
