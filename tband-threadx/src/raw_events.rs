//! An entry as a raw event row: its name and its words, labelled.

use super::event_names::event_info;
use super::{Buffer, Entry};
use tband_model::{Actor, ArgValue, EventRow};

/// Labels of the information words of events without a table entry.
const PLAIN_LABELS: [&str; 4] = ["info1", "info2", "info3", "info4"];

/// Hands an entry of `buffer` to `events`: the event's name (`unknown` for
/// ids without one), the logging context and the raw words, the
/// information words under the names of what they hold; `actor` ran it.
pub fn hand_entry(
    events: &mut dyn FnMut(&EventRow<'_>),
    buffer: &Buffer<'_>,
    entry: &Entry,
    actor: Option<Actor>,
) {
    let name = entry.event_name().unwrap_or("unknown");
    let labels = event_info(entry.event_id).map_or(PLAIN_LABELS, |info| info.fields);
    let mut args = [
        (
            "context",
            ArgValue::Str(buffer.context_label(entry).as_bytes()),
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
    events(&EventRow {
        ts_ns: Some(entry.time_ns),
        core_id: 0,
        class: entry.event_id,
        name,
        args: &args[..count],
        actor,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{build_model, ReadOptions};

    const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/threadx/");

    /// An entry's words as the reference listing (`*.entries.csv`) shows
    /// them: thread word, context, priority word, event id, event name,
    /// then the information words that the event uses.
    fn listed(row: &EventRow<'_>) -> String {
        let value = |arg: &ArgValue<'_>| match *arg {
            ArgValue::UInt(v) => v,
            ref other => panic!("{other:?} is no word"),
        };
        let [(_, ArgValue::Str(context)), (_, event_id), (_, thread), (_, priority), info @ ..] =
            row.args
        else {
            panic!("{row:?} lacks the fixed arguments");
        };
        let mut line = format!(
            "0x{:08X},{},0x{:08X},{},{}",
            value(thread),
            String::from_utf8_lossy(context),
            value(priority),
            value(event_id),
            row.name
        );
        for (_, word) in info {
            line.push_str(&format!(",0x{:08X}", value(word)));
        }
        line
    }

    #[test]
    fn entries_are_handed_on_as_the_reference_listing_lists_them() {
        for name in ["threadx_demo_small", "threadx_demo_startup"] {
            let bytes = std::fs::read(format!("{CORPUS}{name}.trx")).unwrap();
            let buffer = Buffer::read(&bytes, &ReadOptions::default()).unwrap();
            let mut rows = Vec::new();
            let model = build_model(
                &buffer,
                Vec::new(),
                Some(&mut |row| rows.push((row.ts_ns, listed(row)))),
            );
            let csv = std::fs::read_to_string(format!("{CORPUS}{name}.entries.csv")).unwrap();
            let expected: Vec<(Option<u64>, String)> = csv
                .lines()
                .skip(1)
                .map(|line| {
                    let cells: Vec<&str> = line.split(',').collect();
                    let id: u32 = cells[5].parse().unwrap();
                    let labels = event_info(id).map_or(PLAIN_LABELS, |info| info.fields);
                    let mut listed = cells[2..7].join(",");
                    for (label, word) in labels.iter().zip(&cells[8..]) {
                        if !label.is_empty() {
                            listed.push(',');
                            listed.push_str(word);
                        }
                    }
                    let timestamp: u64 = cells[7].parse().unwrap();
                    (Some(timestamp - model.info.first_ts_raw), listed)
                })
                .collect();
            for (i, (row, line)) in rows.iter().zip(&expected).enumerate() {
                assert_eq!(row, line, "{name} entry {i}");
            }
            assert_eq!(rows.len(), expected.len(), "{name}");
        }
    }

    #[test]
    fn rows_carry_names_context_and_labelled_words() {
        let bytes =
            std::fs::read(format!("{CORPUS}threadx_demo_small.trx")).expect("conformance file");
        let buffer = Buffer::read(&bytes, &ReadOptions::default()).expect("reads");
        let mut rows = 0;
        let mut first = None;
        build_model(
            &buffer,
            Vec::new(),
            Some(&mut |row| {
                rows += 1;
                if first.is_none() {
                    first = Some((row.name.to_string(), format!("{:?}", row.args)));
                }
            }),
        );
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
