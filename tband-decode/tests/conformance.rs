//! Every recording of the reference C tracer decodes to its listing exactly,
//! and re-encoding the listing reproduces the recording byte for byte.

use std::fs;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tband::{encode_frame, Event, EventKind, FieldType, FieldValue, Record};
use tband_decode::frames::{decode_frame, FrameError, Frames};
use tband_decode::listing::{write_json_invalid, write_json_record};
use tband_decode::stream::StreamDecoder;

fn conformance_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/tband")
}

fn recordings() -> Vec<PathBuf> {
    let mut bins: Vec<_> = fs::read_dir(conformance_dir())
        .expect("the test corpus is in tests/corpus/tband")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    bins.sort();
    assert_eq!(bins.len(), 8, "expected the 8 reference recordings");
    bins
}

fn expected_listing(bin: &Path) -> Vec<Value> {
    let text = fs::read_to_string(bin.with_extension("expected.jsonl")).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn write_listing(out: &mut Vec<u8>, result: &Result<Record<'_>, FrameError>) {
    match result {
        Ok(rec) => write_json_record(out, rec).unwrap(),
        Err(e) => write_json_invalid(out, e).unwrap(),
    }
}

#[test]
fn decoded_listing_equals_reference() {
    for bin in recordings() {
        let bytes = fs::read(&bin).unwrap();
        let mut decoder = StreamDecoder::new(&bytes, 0);
        let mut out = Vec::new();
        decoder.for_each_frame(|frame| {
            write_listing(&mut out, &frame.result);
            ControlFlow::<()>::Continue(())
        });
        // The pass, which may use the CPU's bit-manipulation instructions,
        // lists what decoding frame by frame the portable way lists.
        let mut scratch = Vec::new();
        let mut frame_by_frame = Vec::new();
        for raw in Frames::new(&bytes) {
            write_listing(&mut frame_by_frame, &decode_frame(&raw, &mut scratch));
        }
        assert!(out == frame_by_frame, "{}", bin.display());
        let ours: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let expected = expected_listing(&bin);
        assert_eq!(ours.len(), expected.len(), "{}", bin.display());
        for (i, (a, b)) in ours.iter().zip(&expected).enumerate() {
            assert_eq!(a, b, "{} line {}", bin.display(), i + 1);
        }
        assert_eq!(decoder.stats().invalid(), 0);
    }
}

/// Turns one listing line back into an event. Strings come back as the
/// listing's UTF-8, so a message that was cut inside a character (shown
/// with U+FFFD) cannot be restored; those are returned as `None`.
fn event_from_json<'a>(line: &'a Value) -> Option<(u64, Event<'a>)> {
    let obj = line.as_object().unwrap();
    let name = obj["evt"].as_str().unwrap();
    let kind = *EventKind::ALL.iter().find(|k| k.name() == name).unwrap();
    let mut values = Vec::new();
    for field in kind.spec().fields {
        let v = &obj[field.name];
        values.push(match field.ty {
            FieldType::U8 => FieldValue::U8(v.as_u64().unwrap() as u8),
            FieldType::U32 => FieldValue::U32(v.as_u64().unwrap() as u32),
            FieldType::U64 => FieldValue::U64(v.as_u64().unwrap()),
            FieldType::S64 => FieldValue::S64(v.as_i64().unwrap()),
            FieldType::Str => {
                let s = v.as_str().unwrap();
                if s.contains('\u{FFFD}') {
                    return None;
                }
                FieldValue::Str(s.as_bytes())
            }
        });
    }
    let ts = obj.get("ts").map_or(0, |t| t.as_u64().unwrap());
    Some((ts, Event::from_fields(kind, &values).unwrap()))
}

#[test]
fn re_encoding_listing_reproduces_recording() {
    let mut unrestorable = Vec::new();
    for bin in recordings() {
        let original = fs::read(&bin).unwrap();
        let mut encoded = Vec::new();
        let mut buf = vec![0u8; 1024];
        for (i, line) in expected_listing(&bin).iter().enumerate() {
            match event_from_json(line) {
                Some((ts, event)) => {
                    let n = encode_frame(&mut buf, ts, &event).unwrap();
                    encoded.extend_from_slice(&buf[..n]);
                }
                None => {
                    // Take this one frame from the recording instead.
                    let start = encoded.len();
                    let len = original[start..].iter().position(|&b| b == 0).unwrap() + 1;
                    encoded.extend_from_slice(&original[start..start + len]);
                    unrestorable.push(format!(
                        "{}:{}",
                        bin.file_name().unwrap().to_string_lossy(),
                        i + 1
                    ));
                }
            }
            assert_eq!(
                encoded[..],
                original[..encoded.len()],
                "{} line {}",
                bin.display(),
                i + 1
            );
        }
        assert_eq!(encoded.len(), original.len(), "{}", bin.display());
    }
    // The one message cut inside a UTF-8 character (see the conformance README).
    assert_eq!(unrestorable, ["baremetal_basic.bin:92"]);
}
