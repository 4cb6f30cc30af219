//! Every ThreadX buffer in the conformance directory decodes to exactly its
//! reference listing and reproduces the facts of its reference summary.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;
use tband_threadx::{
    event_name, Buffer, ByteOrder, Context, Entry, ObjectKind, ReadOptions, TimerDirection,
};

const CONFORMANCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/threadx");

const RECORDINGS: [&str; 4] = [
    "threadx_demo_small",
    "threadx_demo_startup",
    "tracex_samples/demo_threadx",
    "tracex_samples/demo_filex",
];

struct Recording {
    bytes: Vec<u8>,
    listing: String,
    summary: Value,
}

fn load(name: &str) -> Recording {
    let path = |extension: &str| PathBuf::from(CONFORMANCE).join(format!("{name}.{extension}"));
    let read_text = |extension: &str| {
        std::fs::read_to_string(path(extension))
            .unwrap_or_else(|e| panic!("{name}.{extension}: {e}"))
    };
    Recording {
        bytes: std::fs::read(path("trx")).unwrap_or_else(|e| panic!("{name}.trx: {e}")),
        listing: read_text("entries.csv"),
        summary: serde_json::from_str(&read_text("summary.json")).expect("summary is JSON"),
    }
}

fn decode(bytes: &[u8]) -> (Buffer<'_>, Vec<Entry>) {
    let buffer = Buffer::read(bytes, &ReadOptions::default()).expect("buffer reads");
    let mut entries = buffer.entries();
    let decoded: Vec<Entry> = entries.by_ref().collect();
    let problems = entries.finish();
    assert!(buffer.problems().is_empty(), "{:?}", buffer.problems());
    assert!(problems.is_empty(), "{problems:?}");
    (buffer, decoded)
}

/// A summary value that is either a number or a "0x…" string.
fn number(value: &Value) -> u64 {
    match value {
        Value::Number(n) => n.as_u64().expect("unsigned"),
        Value::String(s) => u64::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex"),
        other => panic!("not a number: {other}"),
    }
}

fn listing_row(buffer: &Buffer<'_>, entry: &Entry) -> String {
    let [i1, i2, i3, i4] = entry.info;
    format!(
        "{},{},0x{:08X},{},0x{:08X},{},{},{},0x{i1:08X},0x{i2:08X},0x{i3:08X},0x{i4:08X}",
        entry.seq,
        entry.slot,
        entry.thread_word,
        buffer.context_label(entry),
        entry.priority_word,
        entry.event_id,
        entry.event_name().unwrap_or("unknown"),
        entry.timestamp,
    )
}

#[test]
fn entries_equal_the_reference_listings_row_for_row() {
    for name in RECORDINGS {
        let recording = load(name);
        let (buffer, entries) = decode(&recording.bytes);
        let mut expected = recording.listing.lines();
        assert_eq!(
            expected.next(),
            Some("seq,slot,thread_word,context,priority_word,event_id,event,timestamp,info1,info2,info3,info4")
        );
        let expected: Vec<&str> = expected.collect();
        assert_eq!(entries.len(), expected.len(), "{name}: entry count");
        for (entry, want) in entries.iter().zip(expected) {
            assert_eq!(listing_row(&buffer, entry), want, "{name}");
        }
    }
}

#[test]
fn header_and_layout_match_the_summaries() {
    for name in RECORDINGS {
        let recording = load(name);
        let summary = &recording.summary;
        let (buffer, entries) = decode(&recording.bytes);
        assert_eq!(summary["endianness"], "little");
        assert_eq!(buffer.byte_order, ByteOrder::Little);
        let header = &summary["header"];
        let h = &buffer.header;
        for (field, value) in [
            ("id", h.id),
            ("timer_valid_mask", h.timer_valid_mask),
            ("base_address", h.base_address),
            ("registry_start", h.registry_start),
            ("reserved1", u32::from(h.reserved1)),
            ("object_name_size", u32::from(h.object_name_size)),
            ("registry_end", h.registry_end),
            ("buffer_start", h.buffer_start),
            ("buffer_end", h.buffer_end),
            ("buffer_current", h.buffer_current),
            ("reserved2", h.reserved[0]),
            ("reserved3", h.reserved[1]),
            ("reserved4", h.reserved[2]),
        ] {
            assert_eq!(number(&header[field]), u64::from(value), "{name}: {field}");
        }
        let layout = &buffer.layout;
        let offsets = &summary["header_offsets"];
        assert_eq!(
            number(&offsets["registry_start"]),
            layout.registry.start as u64
        );
        assert_eq!(number(&offsets["registry_end"]), layout.registry.end as u64);
        assert_eq!(
            number(&offsets["buffer_start"]),
            layout.buffer_offset as u64
        );
        assert_eq!(
            number(&offsets["buffer_end"]),
            (layout.buffer_offset + layout.slots * 32) as u64
        );
        assert_eq!(
            number(&summary["registry_entry_size"]),
            layout.registry_entry_size as u64
        );
        assert_eq!(
            number(&summary["registry_capacity"]),
            layout.registry_capacity as u64
        );
        assert_eq!(
            number(&summary["trace_slots"]),
            layout.slots as u64,
            "{name}"
        );
        assert_eq!(layout.available_slots, layout.slots);
        assert_eq!(
            number(&summary["current_slot_index"]),
            layout.current_slot as u64
        );
        assert_eq!(
            number(&summary["valid_trace_entries"]),
            entries.len() as u64
        );
        assert_eq!(
            number(&summary["unused_trace_slots"]),
            (layout.slots - entries.len()) as u64
        );
        let first = entries.first().expect("entries");
        let last = entries.last().expect("entries");
        assert_eq!(number(&summary["first_entry_slot"]), u64::from(first.slot));
        assert_eq!(number(&summary["last_entry_slot"]), u64::from(last.slot));
    }
}

#[test]
fn registries_match_the_summaries() {
    for name in RECORDINGS {
        let recording = load(name);
        let summary = &recording.summary;
        let (buffer, _) = decode(&recording.bytes);
        let registry = &buffer.registry;
        let expected = summary["registry"].as_array().expect("registry list");
        assert_eq!(registry.entries.len(), expected.len(), "{name}");
        assert_eq!(
            number(&summary["registry_entries_used"]),
            registry.entries.len() as u64
        );
        let released = registry.entries.iter().filter(|e| e.is_released()).count() as u64;
        assert_eq!(number(&summary["registry_entries_released"]), released);
        assert_eq!(
            number(&summary["registry_entries_in_use"]),
            registry.entries.len() as u64 - released
        );
        for (entry, want) in registry.entries.iter().zip(expected) {
            assert_eq!(number(&want["index"]), entry.index as u64);
            assert_eq!(number(&want["type"]), u64::from(entry.object_type));
            assert_eq!(want["name"], entry.name.as_str());
            assert_eq!(number(&want["pointer"]), u64::from(entry.address));
            assert_eq!(number(&want["available"]), u64::from(entry.available));
            assert_eq!(number(&want["reserved1"]), u64::from(entry.reserved[0]));
            assert_eq!(number(&want["reserved2"]), u64::from(entry.reserved[1]));
            assert_eq!(number(&want["param1"]), u64::from(entry.param1));
            assert_eq!(number(&want["param2"]), u64::from(entry.param2));
            let type_name = want["type_name"].as_str().expect("type name");
            if type_name != "unknown" {
                assert_eq!(entry.kind().as_str(), type_name);
            }
        }
        for thread in summary["threads"].as_array().expect("threads") {
            let address = number(&thread["pointer"]) as u32;
            let entry = registry.thread(address).expect("thread registered");
            assert_eq!(thread["name"], entry.name.as_str());
            let priority = &thread["priority_from_registry"];
            match entry.thread_priority() {
                Some(p) => assert_eq!(number(priority), u64::from(p)),
                None => assert!(priority.is_null(), "{name}: {}", entry.name),
            }
        }
    }
}

#[test]
fn event_facts_match_the_summaries() {
    for name in RECORDINGS {
        let recording = load(name);
        let summary = &recording.summary;
        let (buffer, entries) = decode(&recording.bytes);

        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        for entry in &entries {
            *counts.entry(entry.event_id.to_string()).or_default() += 1;
        }
        let expected_counts = summary["event_counts"].as_object().expect("event counts");
        assert_eq!(counts.len(), expected_counts.len(), "{name}");
        for (id, want) in expected_counts {
            assert_eq!(
                counts.get(id).copied(),
                Some(number(&want["count"])),
                "{name}: id {id}"
            );
            let id: u32 = id.parse().expect("numeric id");
            assert_eq!(event_name(id), want["name"].as_str(), "{name}: id {id}");
        }

        let mut contexts: BTreeMap<&str, u64> = BTreeMap::new();
        for entry in &entries {
            let context = match entry.context() {
                Context::Initialization => "initialization",
                Context::Interrupt { .. } => "isr",
                Context::Thread { address } if buffer.registry.thread(address).is_some() => {
                    "thread_registered"
                }
                Context::Thread { .. } => "thread_unregistered",
            };
            *contexts.entry(context).or_default() += 1;
        }
        let expected_contexts: BTreeMap<&str, u64> = summary["context_counts"]
            .as_object()
            .expect("context counts")
            .iter()
            .map(|(k, v)| (k.as_str(), number(v)))
            .collect();
        assert_eq!(contexts, expected_contexts, "{name}");

        let first = entries.first().expect("entries");
        let last = entries.last().expect("entries");
        assert_eq!(
            number(&summary["first_timestamp"]),
            u64::from(first.timestamp)
        );
        assert_eq!(
            number(&summary["last_timestamp"]),
            u64::from(last.timestamp)
        );
        let decreases = entries
            .windows(2)
            .filter(|pair| pair[1].timestamp < pair[0].timestamp)
            .count() as u64;
        assert_eq!(
            number(&summary["timestamp_decreases_in_circular_order"]),
            decreases
        );

        for (list, picked) in [
            ("first_entries", &entries[..5.min(entries.len())]),
            ("last_entries", &entries[entries.len().saturating_sub(5)..]),
        ] {
            let want = summary[list].as_array().expect("entry list");
            assert_eq!(want.len(), picked.len());
            for (want, entry) in want.iter().zip(picked) {
                assert_eq!(number(&want["slot"]), u64::from(entry.slot));
                assert_eq!(number(&want["thread"]), u64::from(entry.thread_word));
                assert_eq!(
                    number(&want["priority_word"]),
                    u64::from(entry.priority_word)
                );
                assert_eq!(number(&want["event_id"]), u64::from(entry.event_id));
                assert_eq!(number(&want["timestamp"]), u64::from(entry.timestamp));
                let info: Vec<u64> = want["info"]
                    .as_array()
                    .expect("info")
                    .iter()
                    .map(number)
                    .collect();
                assert_eq!(info, entry.info.map(u64::from));
            }
        }
    }
}

#[test]
fn per_thread_resume_and_suspend_counts_match_the_summaries() {
    for name in RECORDINGS {
        let recording = load(name);
        let (_, entries) = decode(&recording.bytes);
        for thread in recording.summary["threads"].as_array().expect("threads") {
            let address = number(&thread["pointer"]) as u32;
            let count = |event_id: u32, by_subject: bool| {
                entries
                    .iter()
                    .filter(|e| e.event_id == event_id)
                    .filter(|e| {
                        if by_subject {
                            e.info[0] == address
                        } else {
                            e.thread_word == address
                        }
                    })
                    .count() as u64
            };
            let label = format!("{name}: {}", thread["name"]);
            assert_eq!(
                number(&thread["resume_events_info1"]),
                count(1, true),
                "{label}"
            );
            assert_eq!(
                number(&thread["suspend_events_info1"]),
                count(2, true),
                "{label}"
            );
            assert_eq!(
                number(&thread["resume_events_by_context"]),
                count(1, false),
                "{label}"
            );
            assert_eq!(
                number(&thread["suspend_events_by_context"]),
                count(2, false),
                "{label}"
            );
            let in_context = entries.iter().filter(|e| e.thread_word == address).count() as u64;
            assert_eq!(number(&thread["events_in_context"]), in_context, "{label}");
        }
    }
}

#[test]
fn timer_direction_is_detected_and_time_unwraps() {
    for name in RECORDINGS {
        let recording = load(name);
        let (buffer, entries) = decode(&recording.bytes);
        let expected = if name.ends_with("demo_threadx") {
            TimerDirection::Down
        } else {
            TimerDirection::Up
        };
        assert_eq!(buffer.timer.direction, expected, "{name}");
        assert!(buffer.timer.direction_detected);
        assert_eq!(entries[0].ticks, 0);
        assert!(
            entries
                .windows(2)
                .all(|pair| pair[0].ticks <= pair[1].ticks),
            "{name}"
        );
        assert!(entries.iter().all(|e| e.time_ns == e.ticks));
    }
    // The Linux recordings never wrap, so elapsed ticks are plain differences.
    let recording = load("threadx_demo_small");
    let (_, entries) = decode(&recording.bytes);
    let last = entries.last().expect("entries");
    assert_eq!(last.ticks, u64::from(last.timestamp - entries[0].timestamp));
    // The 16-bit down-counter: each step is the masked decrease.
    let recording = load("tracex_samples/demo_threadx");
    let (_, entries) = decode(&recording.bytes);
    let expected: u64 = entries
        .windows(2)
        .map(|pair| u64::from(pair[0].timestamp.wrapping_sub(pair[1].timestamp) & 0xFFFF))
        .sum();
    assert_eq!(entries.last().expect("entries").ticks, expected);
}

#[test]
fn forced_direction_and_tick_length_are_applied() {
    let recording = load("threadx_demo_small");
    let options = ReadOptions {
        tick_ns: Some(2.5),
        timer_direction: Some(TimerDirection::Up),
    };
    let buffer = Buffer::read(&recording.bytes, &options).expect("buffer reads");
    assert!(!buffer.timer.direction_detected);
    let last = buffer.entries().last().expect("entries");
    assert_eq!(last.time_ns, (last.ticks as f64 * 2.5).round() as u64);
}

#[test]
fn filex_registry_types_and_released_entries_are_kept() {
    let recording = load("tracex_samples/demo_filex");
    let (buffer, _) = decode(&recording.bytes);
    let kinds: Vec<ObjectKind> = buffer.registry.entries.iter().map(|e| e.kind()).collect();
    assert!(kinds.contains(&ObjectKind::FilexMedia));
    assert!(kinds.contains(&ObjectKind::FilexFile));
    let released: Vec<&str> = buffer
        .registry
        .entries
        .iter()
        .filter(|e| e.is_released())
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(released, ["FileX Media Mutex", "TEST.TXT"]);
}
