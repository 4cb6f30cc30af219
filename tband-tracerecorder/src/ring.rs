//! The RingBuffer stream port's data, as a debugger dumps it from RAM: its
//! start markers, the same header, timestamp configuration and entry table
//! a stream starts with, the ring's size and the ring of events, and its
//! end markers.
//!
//! The ring keeps the newest events: when it is full the recorder frees the
//! oldest ones and, where an event does not fit before the ring's end,
//! goes on at its start. Where the ring's head and tail are is not in the
//! dumped data, so the events are put back in order by their counts: the
//! ring is framed into runs of events whose counts follow each other, and
//! the longest sequence of runs that follow each other is the recording.
//! What is left over (the end of the ring the recorder skipped, the start
//! of an event the newest ones wrote over) is stale, not damage.

use super::stream::{Framed, Stream};

/// The bytes that open and close the recorder's data.
pub const START_MARKERS: [u8; 12] = [
    0x05, 0x06, 0x07, 0x08, 0x75, 0x76, 0x77, 0x78, 0xF5, 0xF6, 0xF7, 0xF8,
];
pub const END_MARKERS: [u8; 12] = [
    0x0A, 0x0B, 0x0C, 0x0D, 0x71, 0x72, 0x73, 0x74, 0xF1, 0xF2, 0xF3, 0xF4,
];

/// Where a dump's start markers are: at its start, or after the word
/// before them in the recorder's structure.
pub fn start_markers_at(bytes: &[u8]) -> Option<usize> {
    [0, 4]
        .into_iter()
        .find(|&at| bytes.get(at..at + START_MARKERS.len()) == Some(&START_MARKERS[..]))
}

/// A run of events in the ring whose counts follow each other.
#[derive(Debug, Clone, Copy)]
struct Run {
    start: usize,
    end: usize,
    first: u16,
    last: u16,
    events: usize,
}

fn runs(ring: &[u8], little_endian: bool) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    let mut open: Option<Run> = None;
    for framed in Stream::new(ring, 0, little_endian) {
        // Memory the recorder never wrote reads as zero events.
        let e = match framed {
            Framed::Event(e) if e.bytes.iter().any(|&b| b != 0) => e,
            _ => {
                runs.extend(open.take());
                continue;
            }
        };
        let end = e.offset + e.bytes.len();
        match open.as_mut() {
            Some(run) if run.end == e.offset && run.last.wrapping_add(1) == e.count => {
                run.end = end;
                run.last = e.count;
                run.events += 1;
            }
            _ => {
                runs.extend(open.take());
                open = Some(Run {
                    start: e.offset,
                    end,
                    first: e.count,
                    last: e.count,
                    events: 1,
                });
            }
        }
    }
    runs.extend(open);
    runs
}

/// The ring's events, oldest first.
pub fn unroll(ring: &[u8], little_endian: bool) -> Vec<u8> {
    let runs = runs(ring, little_endian);
    let before = |r: &Run| {
        (runs.iter()).position(|p| p.start != r.start && p.last.wrapping_add(1) == r.first)
    };
    // Each run that no other follows ends a sequence; the longest wins.
    let mut best: Vec<usize> = Vec::new();
    let mut best_events = 0;
    for (i, run) in runs.iter().enumerate() {
        if runs
            .iter()
            .any(|n| n.start != run.start && run.last.wrapping_add(1) == n.first)
        {
            continue;
        }
        let mut sequence = vec![i];
        let mut events = run.events;
        while let Some(p) = before(&runs[*sequence.last().unwrap_or(&i)]) {
            if sequence.contains(&p) {
                break;
            }
            sequence.push(p);
            events += runs[p].events;
        }
        if events > best_events {
            best_events = events;
            best = sequence;
        }
    }
    best.iter()
        .rev()
        .flat_map(|&i| &ring[runs[i].start..runs[i].end])
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(id: u16, count: u16) -> Vec<u8> {
        let code = id | (1 << 12);
        let mut bytes = code.to_le_bytes().to_vec();
        bytes.extend(count.to_le_bytes());
        bytes.extend(1000u32.to_le_bytes());
        bytes.extend(7u32.to_le_bytes());
        bytes
    }

    #[test]
    fn a_ring_that_went_round_is_put_back_in_order() {
        // The newest events at the start, stale bytes (whole words, as
        // every event is), the oldest at the end.
        let ring = [
            event(0x30, 10),
            event(0x30, 11),
            vec![0xEE; 8],
            event(0x30, 2),
            event(0x30, 7),
            event(0x30, 8),
            event(0x30, 9),
        ]
        .concat();
        let expected = [
            event(0x30, 7),
            event(0x30, 8),
            event(0x30, 9),
            event(0x30, 10),
            event(0x30, 11),
        ]
        .concat();
        assert_eq!(unroll(&ring, true), expected);
    }

    #[test]
    fn a_ring_that_never_filled_is_its_events() {
        let events = [event(0x30, 1), event(0x30, 2), event(0x30, 3)].concat();
        let mut ring = events.clone();
        ring.extend([0; 64]);
        assert_eq!(unroll(&ring, true), events);
    }
}
