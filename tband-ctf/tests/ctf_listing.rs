//! The shipped Zephyr CTF recordings decode to exactly what babeltrace2 lists for them, and
//! damaged copies decode as far as they are intact without panicking.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use tband_ctf::{self as ctf, CtfTrace, Metadata, Problem, ProblemKind, StreamDecoder};
use tband_decode::input::{Input, InputSpec};

const ZEPHYR_CTF: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/zephyr_ctf");

const RECORDINGS: [(&str, usize); 2] = [("hello_sem", 284), ("workload", 9530)];

fn trace_dir(name: &str) -> PathBuf {
    Path::new(ZEPHYR_CTF).join(name)
}

/// One event as compared with the listing: name, nanoseconds, `field = value` texts.
#[derive(Debug, PartialEq, Eq)]
struct ListedEvent {
    name: String,
    ns: i64,
    fields: Vec<(String, String)>,
}

/// Parses one babeltrace2 `pretty` line:
/// `[HH:MM:SS.nnnnnnnnn] (+S.nnnnnnnnn) name: { field = value, ... }`.
fn parse_listing_line(line: &str) -> ListedEvent {
    let (time, rest) = line[1..].split_once("] ").expect("timestamp");
    let (hms, nanos) = time.split_once('.').expect("fraction");
    let mut secs = 0i64;
    for part in hms.split(':') {
        secs = secs * 60 + part.parse::<i64>().expect("time part");
    }
    let ns = secs * 1_000_000_000 + nanos.parse::<i64>().expect("nanoseconds");
    let (_delta, rest) = rest.split_once(") ").expect("delta");
    let (name, payload) = rest.split_once(": ").expect("event name");
    let fields = match payload
        .strip_prefix("{ ")
        .and_then(|p| p.strip_suffix(" }"))
    {
        None => {
            assert_eq!(payload, "", "payload of {line}");
            Vec::new()
        }
        Some(inner) => split_top_level(inner)
            .into_iter()
            .map(|pair| {
                let (field, value) = pair.split_once(" = ").expect("field = value");
                (field.to_owned(), value.to_owned())
            })
            .collect(),
    };
    ListedEvent {
        name: name.to_owned(),
        ns,
        fields,
    }
}

/// Splits `a = 1, b = "x, y"` at the commas outside quotes.
fn split_top_level(inner: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut in_quotes = false;
    let mut escaped = false;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_quotes => escaped = true,
            '"' => in_quotes = !in_quotes,
            ',' if !in_quotes => {
                parts.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(inner[start..].trim());
    parts
}

fn decode_all(meta: &Metadata, bytes: &[u8]) -> (Vec<ListedEvent>, Vec<Problem>) {
    let mut decoder = StreamDecoder::new(meta, bytes);
    let mut values = Vec::new();
    let mut events = Vec::new();
    let mut problems = Vec::new();
    while let Some(next) = decoder.next_event(&mut values) {
        match next {
            Ok(record) => {
                let names = record.class.fields.fields.iter().map(|f| f.name.clone());
                events.push(ListedEvent {
                    name: record.class.name.clone(),
                    ns: record.ns,
                    fields: names.zip(values.iter().map(|v| v.to_string())).collect(),
                });
            }
            Err(problem) => problems.push(problem),
        }
    }
    (events, problems)
}

#[test]
fn decoded_events_equal_the_babeltrace2_listing() {
    for (name, expected_count) in RECORDINGS {
        let trace = CtfTrace::open(&trace_dir(name)).unwrap();
        assert_eq!(trace.streams.len(), 1);
        let (events, problems) = decode_all(&trace.metadata, &trace.streams[0].bytes);
        assert!(problems.is_empty(), "{name}: {problems:?}");

        let listing_path = Path::new(ZEPHYR_CTF).join(format!("{name}.listing.txt"));
        let listing = std::fs::read_to_string(listing_path).unwrap();
        let listed: Vec<ListedEvent> = listing.lines().map(parse_listing_line).collect();
        assert_eq!(listed.len(), expected_count, "{name} listing");
        assert_eq!(events.len(), listed.len(), "{name} event count");
        for (i, (ours, theirs)) in events.iter().zip(&listed).enumerate() {
            assert_eq!(ours, theirs, "{name} event {i}");
        }
    }
}

#[test]
fn timestamps_are_unwrapped_across_the_32_bit_overflow() {
    let trace = CtfTrace::open(&trace_dir("hello_sem")).unwrap();
    let (events, _) = decode_all(&trace.metadata, &trace.streams[0].bytes);
    assert!(events.windows(2).all(|w| w[0].ns <= w[1].ns));
    assert_eq!(events.last().unwrap().ns, 9_690_000_000);
}

#[test]
fn a_stream_file_opens_with_the_metadata_beside_it_or_given() {
    let dir = trace_dir("hello_sem");
    let stream = dir.join("channel0_0");
    assert!(ctf::looks_like_dir(&dir));
    assert!(!ctf::looks_like_dir(Path::new(ZEPHYR_CTF)));
    assert_eq!(ctf::metadata_beside(&stream), Some(dir.join("metadata")));
    assert_eq!(ctf::metadata_beside(&dir.join("metadata")), None);

    let beside = CtfTrace::open(&stream).unwrap();
    let input = Input::open(&InputSpec::parse(stream.to_str().unwrap())).unwrap();
    let given =
        CtfTrace::from_inputs(&trace_dir("workload").join("metadata"), vec![input]).unwrap();
    assert_eq!(*beside.streams[0].bytes, *given.streams[0].bytes);
    assert_eq!(beside.metadata.events, given.metadata.events);
}

#[test]
fn opening_something_else_gives_one_clear_sentence() {
    let listing = Path::new(ZEPHYR_CTF).join("hello_sem.listing.txt");
    let err = CtfTrace::from_inputs(&listing, Vec::new())
        .err()
        .expect("opening fails")
        .to_string();
    assert!(
        err.ends_with("is not plain-text CTF metadata (packetized metadata is not supported)"),
        "{err}"
    );
    let err = CtfTrace::open(Path::new("/nonexistent/trace"))
        .err()
        .expect("opening fails")
        .to_string();
    assert_eq!(
        err,
        "no CTF metadata for /nonexistent/trace: give the metadata file with --ctf-metadata"
    );
}

#[test]
fn every_truncation_keeps_the_intact_prefix_and_reports_the_cut_event() {
    let trace = CtfTrace::open(&trace_dir("hello_sem")).unwrap();
    let bytes = &trace.streams[0].bytes;
    let meta = &trace.metadata;
    let (full, _) = decode_all(meta, bytes);
    let mut boundaries = vec![0usize];
    let mut decoder = StreamDecoder::new(meta, bytes);
    let mut values = Vec::new();
    while decoder.next_event(&mut values).is_some() {
        boundaries.push(decoder.position());
    }
    for cut in 0..bytes.len() {
        let (events, problems) = decode_all(meta, &bytes[..cut]);
        let whole_events = boundaries.iter().filter(|&&b| b > 0 && b <= cut).count();
        assert_eq!(events.len(), whole_events, "cut at {cut}");
        assert_eq!(events[..], full[..whole_events], "cut at {cut}");
        if boundaries.contains(&cut) {
            assert!(problems.is_empty(), "cut at {cut}");
        } else {
            assert_eq!(problems.len(), 1, "cut at {cut}");
            assert_eq!(problems[0].kind, ProblemKind::TruncatedEvent);
            assert_eq!(problems[0].offset, boundaries[whole_events] as u64);
        }
    }
}

#[test]
fn an_undeclared_event_id_stops_the_stream_with_a_problem() {
    let trace = CtfTrace::open(&trace_dir("workload")).unwrap();
    let mut bytes = trace.streams[0].bytes.to_vec();
    // Event 3 starts at 29 + 29 bytes (two thread switches); its id byte follows the timestamp.
    bytes[58 + 4] = 0x34;
    let (events, problems) = decode_all(&trace.metadata, &bytes);
    assert_eq!(events.len(), 2);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].kind, ProblemKind::UnknownEventId);
    assert_eq!(problems[0].offset, 58);
    assert_eq!(
        problems[0].to_string(),
        format!(
            "unknown_event_id at byte 58: event id 0x34 is not declared in the metadata, so the remaining {} bytes cannot be decoded",
            bytes.len() - 58
        )
    );
}

proptest! {
    #[test]
    fn garbage_streams_never_panic(garbage in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let trace = CtfTrace::open(&trace_dir("hello_sem")).unwrap();
        let (events, problems) = decode_all(&trace.metadata, &garbage);
        prop_assert!(problems.len() <= 1);
        prop_assert!(events.len() <= garbage.len() / 5);
    }

    #[test]
    fn corrupted_recordings_never_panic(flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..16)) {
        let trace = CtfTrace::open(&trace_dir("hello_sem")).unwrap();
        let mut bytes = trace.streams[0].bytes.to_vec();
        for (index, value) in flips {
            let i = index.index(bytes.len());
            bytes[i] = value;
        }
        let (events, problems) = decode_all(&trace.metadata, &bytes);
        prop_assert!(problems.len() <= 1);
        prop_assert!(events.windows(2).all(|w| w[0].ns <= w[1].ns));
    }
}
