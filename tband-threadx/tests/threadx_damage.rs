//! Damaged ThreadX buffers: the reader decodes what is consistent, reports
//! the rest, and never panics.

use proptest::prelude::*;
use tband_threadx::{
    build_model, looks_like, Buffer, ByteOrder, Entry, Problem, ProblemKind, ReadError,
    ReadOptions, HEADER_SIZE,
};

const CONFORMANCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/threadx");

fn recording(name: &str) -> Vec<u8> {
    std::fs::read(format!("{CONFORMANCE}/{name}.trx")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Everything the reader finds: entries, and all problems (layout and entries).
fn decode_all(bytes: &[u8]) -> Result<(Vec<Entry>, Vec<Problem>), ReadError> {
    let buffer = Buffer::read(bytes, &ReadOptions::default())?;
    // The model is built from whatever was read, and holds one event per entry.
    let model = build_model(&buffer, Vec::new());
    let mut entries = buffer.entries();
    let decoded: Vec<Entry> = entries.by_ref().collect();
    let mut problems = buffer.problems().to_vec();
    problems.extend(entries.finish());
    assert_eq!(model.info.events, decoded.len() as u64);
    Ok((decoded, problems))
}

fn kinds(problems: &[Problem]) -> Vec<ProblemKind> {
    problems.iter().map(|p| p.kind).collect()
}

fn put_word(bytes: &mut [u8], offset: usize, value: u32) {
    bytes[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
}

/// The raw words of an entry, without the position-dependent time.
fn words(entry: &Entry) -> (u32, u32, u32, u32, u32, [u32; 4]) {
    (
        entry.slot,
        entry.thread_word,
        entry.priority_word,
        entry.event_id,
        entry.timestamp,
        entry.info,
    )
}

#[test]
fn every_truncation_keeps_the_whole_entries_before_the_cut() {
    let bytes = recording("threadx_demo_startup");
    let (full, _) = decode_all(&bytes).expect("full file reads");
    for len in 0..=bytes.len() {
        let cut = &bytes[..len];
        match decode_all(cut) {
            Err(ReadError::NotThreadx) => assert!(len < 4),
            Err(ReadError::TruncatedHeader { .. }) => assert!((4..HEADER_SIZE).contains(&len)),
            Err(other) => panic!("unexpected error {other:?}"),
            Ok((entries, problems)) => {
                let expected: Vec<_> = full
                    .iter()
                    .filter(|e| e.offset + 32 <= len)
                    .map(words)
                    .collect();
                assert_eq!(
                    entries.iter().map(words).collect::<Vec<_>>(),
                    expected,
                    "len {len}"
                );
                // The trace area ends 16 bytes before the end of the file.
                assert_eq!(problems.is_empty(), len >= bytes.len() - 16, "len {len}");
            }
        }
    }
}

#[test]
fn truncated_wrapped_buffers_keep_circular_order() {
    let bytes = recording("threadx_demo_small");
    let (full, _) = decode_all(&bytes).expect("full file reads");
    for len in (HEADER_SIZE..=bytes.len()).step_by(97) {
        let (entries, problems) = decode_all(&bytes[..len]).expect("header present");
        let expected: Vec<_> = full
            .iter()
            .filter(|e| e.offset + 32 <= len)
            .map(words)
            .collect();
        assert_eq!(entries.iter().map(words).collect::<Vec<_>>(), expected);
        // Cut before the trace area, the buffer start points past the end.
        let expected_kind = if len < 1584 {
            ProblemKind::HeaderPointer
        } else {
            ProblemKind::BufferTruncated
        };
        if len < bytes.len() - 16 {
            assert!(kinds(&problems).contains(&expected_kind), "len {len}");
        }
    }
}

#[test]
fn registry_larger_than_the_file_keeps_the_entries_inside() {
    let mut bytes = recording("threadx_demo_small");
    // A registry of 30000 entries (1.4 MB): it stops where the trace area
    // starts.
    put_word(&mut bytes, 20, 0x565E_1160 + 48 + 30000 * 48);
    let (entries, problems) = decode_all(&bytes).expect("reads");
    assert_eq!(kinds(&problems), [ProblemKind::RegistryLayout]);
    assert!(
        problems[0].detail.contains("runs past the trace area"),
        "{}",
        problems[0]
    );
    assert_eq!(entries.len(), 974);
    let buffer = Buffer::read(&bytes, &ReadOptions::default()).expect("reads");
    assert_eq!(buffer.registry.entries.len(), 15);
    assert_eq!(buffer.registry.entries[0].name, "System Timer Thread");

    // With the trace area pointed past the file too, the registry is read
    // up to the end of the file.
    put_word(&mut bytes, 24, 0x565E_1160 + (2 << 20));
    let buffer = Buffer::read(&bytes, &ReadOptions::default()).expect("reads");
    let problem = buffer
        .problems()
        .iter()
        .find(|p| p.kind == ProblemKind::RegistryLayout)
        .expect("registry problem");
    assert!(
        problem.detail.contains("runs past the end of the file"),
        "{problem}"
    );
    assert_eq!(buffer.layout.registry.end, 48 + (32768 - 48) / 48 * 48);
}

#[test]
fn pointers_outside_the_file_are_reported() {
    let mut bytes = recording("threadx_demo_small");
    put_word(&mut bytes, 24, 0x1000); // buffer start below the base address
    let (entries, problems) = decode_all(&bytes).expect("reads");
    assert!(entries.is_empty());
    assert_eq!(kinds(&problems), [ProblemKind::HeaderPointer]);
    assert!(
        problems[0].detail.contains("buffer start 0x00001000"),
        "{}",
        problems[0]
    );

    let mut bytes = recording("threadx_demo_small");
    put_word(&mut bytes, 32, 0xFFFF_FFF0); // current pointer far outside
    let (entries, problems) = decode_all(&bytes).expect("reads");
    // Read in physical order, time runs backwards where the newest entry
    // meets the oldest.
    assert_eq!(
        kinds(&problems),
        [ProblemKind::CurrentPointer, ProblemKind::TimestampJump]
    );
    assert_eq!(problems[1].position, 1584 + 347 * 32);
    assert_eq!(entries.len(), 974);
    assert_eq!(entries[0].slot, 0, "physical order");
}

#[test]
fn garbage_entries_are_listed_and_counted() {
    let mut bytes = recording("threadx_demo_small");
    let slot_offset = |slot: usize| 1584 + slot * 32;
    put_word(&mut bytes, slot_offset(10) + 8, 7); // reserved, unnamed id
    put_word(&mut bytes, slot_offset(11) + 8, 0xFFFF_FFFF); // invalid-event marker
    put_word(&mut bytes, slot_offset(12), 0x1234_5678); // thread never registered
    let (entries, problems) = decode_all(&bytes).expect("reads");
    assert_eq!(entries.len(), 974);
    let unknown = problems
        .iter()
        .find(|p| p.kind == ProblemKind::UnknownEvent)
        .expect("unknown ids reported");
    assert_eq!((unknown.count, unknown.position), (2, slot_offset(10)));
    let unregistered = problems
        .iter()
        .find(|p| p.kind == ProblemKind::UnregisteredThread)
        .expect("unregistered thread reported");
    assert_eq!(unregistered.position, slot_offset(12));
}

/// Rewrites a little-endian buffer as a big-endian target would have
/// written it: every word swapped, bytes and names left alone.
fn to_big_endian(little: &[u8]) -> Vec<u8> {
    let mut big = little.to_vec();
    let swap =
        |bytes: &mut [u8], offset: usize, width: usize| bytes[offset..offset + width].reverse();
    for word in 0..12 {
        if word == 4 {
            swap(&mut big, 16, 2);
            swap(&mut big, 18, 2);
        } else {
            swap(&mut big, word * 4, 4);
        }
    }
    let buffer = Buffer::read(little, &ReadOptions::default()).expect("reads");
    let layout = &buffer.layout;
    for entry in layout.registry.clone().step_by(layout.registry_entry_size) {
        for field in [4, 8, 12] {
            swap(&mut big, entry + field, 4);
        }
    }
    for word in (layout.buffer_offset..layout.buffer_offset + layout.slots * 32).step_by(4) {
        swap(&mut big, word, 4);
    }
    big
}

#[test]
fn big_endian_buffers_decode_like_little_endian_ones() {
    for name in ["threadx_demo_small", "tracex_samples/demo_threadx"] {
        let little = recording(name);
        let big = to_big_endian(&little);
        assert!(looks_like(&big));
        let big_buffer = Buffer::read(&big, &ReadOptions::default()).expect("reads");
        let little_buffer = Buffer::read(&little, &ReadOptions::default()).expect("reads");
        assert_eq!(big_buffer.byte_order, ByteOrder::Big);
        assert_eq!(big_buffer.header, little_buffer.header);
        assert_eq!(big_buffer.registry.entries, little_buffer.registry.entries);
        assert_eq!(big_buffer.timer, little_buffer.timer);
        assert!(big_buffer.entries().eq(little_buffer.entries()), "{name}");
    }
}

#[test]
fn other_files_are_not_taken_for_threadx_buffers() {
    assert!(!looks_like(b""));
    assert!(!looks_like(b"TXT"));
    assert!(!looks_like(&[0x00, 0x01, 0x02, 0x03, 0x04]));
    assert!(looks_like(b"BTXT"));
    assert!(looks_like(b"TXTB"));
    assert_eq!(
        Buffer::read(b"\x00\x01", &ReadOptions::default()).err(),
        Some(ReadError::NotThreadx)
    );
    let bad_tick = ReadOptions {
        tick_ns: Some(f64::NAN),
        ..ReadOptions::default()
    };
    assert!(matches!(
        Buffer::read(&recording("threadx_demo_small"), &bad_tick),
        Err(ReadError::InvalidTickNs(_))
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_header_words_never_panic(
        word in 1usize..12,
        value in any::<u32>(),
        len in HEADER_SIZE..32768usize,
    ) {
        let mut bytes = recording("threadx_demo_small");
        put_word(&mut bytes, word * 4, value);
        bytes.truncate(len);
        let (entries, _) = decode_all(&bytes).expect("header present");
        prop_assert!(entries.len() <= 974 * 2);
    }

    #[test]
    fn random_byte_damage_never_panics(
        damage in proptest::collection::vec((0usize..32768, any::<u8>()), 1..64),
    ) {
        let mut bytes = recording("threadx_demo_small");
        for (at, value) in damage {
            bytes[at] = value;
        }
        let _ = decode_all(&bytes);
    }

    #[test]
    fn random_bytes_after_the_id_never_panic(
        tail in proptest::collection::vec(any::<u8>(), 0..4096),
        big_endian in any::<bool>(),
    ) {
        let mut bytes = if big_endian { b"TXTB".to_vec() } else { b"BTXT".to_vec() };
        bytes.extend(tail);
        let _ = decode_all(&bytes);
    }
}

#[test]
fn extreme_information_words_never_overflow() {
    let original = recording("threadx_demo_small");
    let slot = 1584 + 347 * 32;
    for event_id in (0..=130).chain([4096, 0xFFFF_FFFF]) {
        for context in [0x565E_9340, 0xFFFF_FFFF, 0xF0F0_F0F0] {
            let mut bytes = original.clone();
            put_word(&mut bytes, slot, context);
            put_word(&mut bytes, slot + 8, event_id);
            for info in 0..4 {
                put_word(&mut bytes, slot + 16 + info * 4, u32::MAX);
            }
            let (entries, _) = decode_all(&bytes).expect("reads");
            assert_eq!(entries.len(), 974);
        }
    }
}
