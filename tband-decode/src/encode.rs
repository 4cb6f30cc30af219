//! Writing a tband stream on the host, as a tracer would have: the traces
//! that tests and tools make from events.

use tband::{cobs, encode_frame, Event};

/// The frames of `events`, each at its timestamp, one after another.
pub fn encode_stream(events: &[(u64, Event<'_>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (ts, event) in events {
        let start = out.len();
        out.resize(start + cobs::max_framed_len(event.payload_len(*ts)), 0);
        let len = encode_frame(&mut out[start..], *ts, event)
            .expect("room for the longest framing of the payload");
        out.truncate(start + len);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::{decode_frame, Frames};

    #[test]
    fn frames_decode_to_the_events_at_their_times() {
        let name = "a task name longer than one COBS block ".repeat(8);
        let events = [
            (7, Event::IsrEnter { isr_id: 3 }),
            (
                9,
                Event::TaskName {
                    task_id: 2,
                    name: name.as_bytes(),
                },
            ),
            (u64::MAX, Event::IsrExit { isr_id: 3 }),
        ];
        let bytes = encode_stream(&events);
        let mut scratch = Vec::new();
        let mut frames = 0;
        for (frame, (ts, event)) in Frames::new(&bytes).zip(&events) {
            let record = decode_frame(&frame, &mut scratch).unwrap();
            assert_eq!(record.event, *event);
            let expected_ts = (!event.kind().is_metadata()).then_some(*ts);
            assert_eq!(record.ts, expected_ts);
            frames += 1;
        }
        assert_eq!(frames, events.len());
        assert_eq!(Frames::new(&bytes).count(), events.len());
    }
}
