//! Decodes the stream as it arrives, read by read, to tell what it holds
//! so far: frames, tasks, and the events the target says it dropped.
//!
//! A frame cut at a read boundary is kept and completed by the next read.

use std::collections::{BTreeMap, BTreeSet};

use tband::backend::MAX_FRAME_LEN;
use tband::Event;
use tband_decode::frames::{decode_frame, Frames};

/// A run of bytes without a delimiter longer than any frame is not one:
/// past this the kept bytes are counted as an invalid frame and let go.
const LONGEST_FRAME: usize = MAX_FRAME_LEN;

/// How many bytes at the start must hold a valid frame for the stream to
/// look like a tband trace.
pub const FIRST_BYTES_CHECKED: u64 = 4096;

/// What the stream has held so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// Frames that decoded into events.
    pub frames: u64,
    /// Frames that did not (damaged, or not tband data at all).
    pub invalid: u64,
    /// Tasks named, created or switched in.
    pub tasks: usize,
    /// Events the target reported lost, over all its cores.
    pub dropped: u64,
}

/// The incremental decoder.
#[derive(Debug, Default)]
pub struct Watch {
    /// The start of a frame whose delimiter has not arrived yet.
    partial: Vec<u8>,
    scratch: Vec<u8>,
    /// The core the frames belong to (a `core_id` event switches it).
    core: u32,
    tasks: BTreeSet<u32>,
    /// Each core's latest running total of dropped events.
    dropped: BTreeMap<u32, u64>,
    frames: u64,
    invalid: u64,
    /// Bytes taken so far.
    bytes: u64,
    /// Whether the first [`FIRST_BYTES_CHECKED`] bytes held a valid frame,
    /// once they have all arrived.
    first_bytes_valid: Option<bool>,
}

impl Watch {
    pub fn new() -> Self {
        Watch::default()
    }

    /// Takes the next bytes of the stream.
    pub fn feed(&mut self, bytes: &[u8]) {
        let unchecked = FIRST_BYTES_CHECKED.saturating_sub(self.bytes);
        let (first, rest) = bytes.split_at(bytes.len().min(unchecked as usize));
        if !first.is_empty() {
            self.decode(first);
            if self.bytes == FIRST_BYTES_CHECKED {
                self.first_bytes_valid = Some(self.frames > 0);
            }
        }
        self.decode(rest);
    }

    /// Whether the first [`FIRST_BYTES_CHECKED`] bytes have arrived and
    /// held no valid frame: a wrong baud rate, port or channel.
    pub fn looks_wrong(&self) -> bool {
        self.first_bytes_valid == Some(false)
    }

    fn decode(&mut self, bytes: &[u8]) {
        self.bytes += bytes.len() as u64;
        let mut partial = std::mem::take(&mut self.partial);
        let mut scratch = std::mem::take(&mut self.scratch);
        partial.extend_from_slice(bytes);
        let mut frames = Frames::new(&partial);
        let mut kept_from = partial.len();
        for raw in frames.by_ref() {
            if raw.unterminated {
                kept_from = raw.offset;
                break;
            }
            match decode_frame(&raw, &mut scratch) {
                Ok(record) => self.event(&record.event),
                Err(_) => self.invalid += 1,
            }
        }
        partial.drain(..kept_from);
        if partial.len() > LONGEST_FRAME {
            self.invalid += 1;
            partial.clear();
        }
        self.partial = partial;
        self.scratch = scratch;
    }

    fn event(&mut self, event: &Event<'_>) {
        self.frames += 1;
        match *event {
            Event::CoreId { core_id } => self.core = core_id,
            Event::DroppedEvtCnt { cnt } => {
                self.dropped.insert(self.core, u64::from(cnt));
            }
            Event::TaskName { task_id, .. }
            | Event::TaskCreated { task_id }
            | Event::TaskSwitchedIn { task_id } => {
                self.tasks.insert(task_id);
            }
            _ => {}
        }
    }

    /// What the stream held up to the last whole frame.
    pub fn seen(&self) -> Seen {
        Seen {
            frames: self.frames,
            invalid: self.invalid,
            tasks: self.tasks.len(),
            dropped: self.dropped.values().sum(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tband_decode::encode::encode_stream;

    fn stream(events: &[Event<'_>]) -> Vec<u8> {
        let timed: Vec<_> = (0..).zip(events.iter().copied()).collect();
        encode_stream(&timed)
    }

    fn events() -> Vec<Event<'static>> {
        vec![
            Event::TaskName {
                task_id: 1,
                name: b"sensor",
            },
            Event::TaskSwitchedIn { task_id: 1 },
            Event::TaskSwitchedIn { task_id: 2 },
            Event::DroppedEvtCnt { cnt: 3 },
            Event::CoreId { core_id: 1 },
            Event::DroppedEvtCnt { cnt: 4 },
            Event::TaskCreated { task_id: 1 },
            Event::DroppedEvtCnt { cnt: 5 },
        ]
    }

    #[test]
    fn counts_tasks_and_each_cores_latest_drop_total() {
        let mut watch = Watch::new();
        watch.feed(&stream(&events()));
        let expected = Seen {
            frames: 8,
            invalid: 0,
            tasks: 2,
            dropped: 3 + 5,
        };
        assert_eq!(watch.seen(), expected);
    }

    #[test]
    fn a_frame_cut_at_any_point_is_completed_by_the_next_read() {
        let bytes = stream(&events());
        let mut whole = Watch::new();
        whole.feed(&bytes);
        for cut in 0..=bytes.len() {
            for second_cut in cut..=bytes.len() {
                let mut watch = Watch::new();
                watch.feed(&bytes[..cut]);
                watch.feed(&bytes[cut..second_cut]);
                watch.feed(&bytes[second_cut..]);
                assert_eq!(watch.seen(), whole.seen(), "cut at {cut} and {second_cut}");
            }
        }
    }

    #[test]
    fn data_that_is_not_a_trace_gives_invalid_frames_and_bounded_memory() {
        let mut watch = Watch::new();
        for _ in 0..100 {
            watch.feed(&[0x55; 1000]);
        }
        assert!(watch.partial.len() <= LONGEST_FRAME);
        watch.feed(&[0x55, 0x55, 0, 0x55, 0]);
        let seen = watch.seen();
        assert_eq!(seen.frames, 0);
        // Each read of noise is longer than any frame: one invalid frame each.
        assert!(seen.invalid >= 100, "{seen:?}");
        assert!(watch.looks_wrong());
    }

    #[test]
    fn a_trace_looks_right_only_once_its_first_bytes_are_in() {
        let bytes = stream(&events());
        let mut trace = Watch::new();
        trace.feed(&bytes);
        assert!(!trace.looks_wrong());
        trace.feed(&[0x55; FIRST_BYTES_CHECKED as usize]);
        assert!(!trace.looks_wrong());

        // One read that brings the first frame only after the first bytes.
        let mut late = Watch::new();
        let mut noise_then_trace = vec![0x55; FIRST_BYTES_CHECKED as usize - 1];
        noise_then_trace.push(0);
        noise_then_trace.extend_from_slice(&bytes);
        late.feed(&noise_then_trace);
        assert!(late.looks_wrong());
        assert_eq!(late.seen().frames, 8);
    }
}
