//! Any bytes, read as a tband input (binary or hex text), go through the
//! frame splitter, the event decoder and both listings without panicking;
//! every JSON line is valid JSON, and every decoded event re-encodes to a
//! frame that decodes to the same event. The pass over a stream (which may
//! use the CPU's bit-manipulation instructions) gives the frames that
//! decoding frame by frame the portable way gives.
#![no_main]

use std::ops::ControlFlow;

use libfuzzer_sys::fuzz_target;
use tband::encode_frame;
use tband_decode::frames::{decode_frame, Frames};
use tband_decode::input::{Bytes, Input};
use tband_decode::listing::{self, TimeUnit};
use tband_decode::stream::StreamDecoder;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = Input::from_bytes("fuzz".to_string(), None, Bytes::Owned(data.to_vec())) else {
        return;
    };
    let mut decoder = StreamDecoder::new(&input.bytes, 0);
    let mut line = Vec::new();
    let mut frame_buf = Vec::new();
    let mut scratch = Vec::new();
    let mut frame_by_frame = Frames::new(&input.bytes);
    let mut expected_scratch = Vec::new();
    decoder.for_each_frame(|frame| {
        let raw = frame_by_frame.next().unwrap();
        let expected = decode_frame(&raw, &mut expected_scratch);
        assert_eq!((frame.offset, frame.result), (raw.offset, expected));
        line.clear();
        match &frame.result {
            Ok(rec) => {
                listing::write_json_record(&mut line, rec).unwrap();
                let json: serde_json::Value = serde_json::from_slice(&line).unwrap();
                assert_eq!(json["evt"], rec.event.kind().name());
                for unit in [
                    TimeUnit::Ticks,
                    TimeUnit::Micros {
                        ns_per_tick: u64::MAX,
                    },
                ] {
                    listing::write_pretty_record(&mut line, rec, frame.core, unit).unwrap();
                }

                let ts = rec.ts.unwrap_or(0);
                frame_buf.resize(tband::cobs::max_framed_len(rec.event.payload_len(ts)), 0);
                let n = encode_frame(&mut frame_buf, ts, &rec.event).unwrap();
                let raw = Frames::new(&frame_buf[..n]).next().unwrap();
                let again = decode_frame(&raw, &mut scratch).unwrap();
                assert_eq!((again.ts, again.event), (rec.ts, rec.event));
            }
            Err(err) => {
                listing::write_json_invalid(&mut line, err).unwrap();
                serde_json::from_slice::<serde_json::Value>(&line).unwrap();
                listing::write_pretty_invalid(&mut line, frame.offset, err).unwrap();
            }
        }
        ControlFlow::<()>::Continue(())
    });
    assert!(frame_by_frame.next().is_none());
    let stats = decoder.stats();
    assert_eq!(stats.decoded() + stats.invalid(), stats.frames);
    assert_eq!(stats.empty_frames, frame_by_frame.empty_frames());
});
