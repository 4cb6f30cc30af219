//! Runs the sequencer (frame splitting, decoding, the merge of streams) on a
//! second thread, and hands what it visits to a visitor on the calling
//! thread in batches, so that decoding and building the model overlap.

use std::ops::Range;
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};

use tband::Record;

use crate::frames::FrameError;
use crate::sequencer::{sequence, Clock, Position, Stream, Visitor};

/// Visits per batch: large enough that handing a batch over costs nothing
/// against decoding it, small enough that batches stay in the cache.
const BATCH: usize = 4096;

/// Batches decoded ahead of the visitor, at most: memory stays bounded
/// whatever the trace's size.
const AHEAD: usize = 2;

/// One call the sequencer made.
enum Visit {
    Event {
        at: Position,
        rec: Record<'static>,
        /// The record's text, kept in the batch's `texts`.
        text: Option<Range<usize>>,
    },
    Invalid {
        at: Position,
        err: FrameError,
    },
    TimeBackwards {
        at: Position,
        previous_raw: u64,
        raw: u64,
    },
}

#[derive(Default)]
struct Batch {
    visits: Vec<Visit>,
    /// The texts of the events that have one, one after the other.
    texts: Vec<u8>,
}

impl Batch {
    fn new() -> Self {
        Batch {
            visits: Vec::with_capacity(BATCH),
            texts: Vec::new(),
        }
    }

    /// Makes the calls of the batch on `v`.
    fn replay(&self, v: &mut impl Visitor) {
        for visit in &self.visits {
            match visit {
                Visit::Event { at, rec, text } => match text {
                    None => v.event(*at, rec),
                    Some(range) => {
                        let text = self.texts.get(range.clone()).unwrap_or_default();
                        let rec = Record {
                            ts: rec.ts,
                            event: rec.event.with_text(text),
                        };
                        v.event(*at, &rec);
                    }
                },
                Visit::Invalid { at, err } => v.invalid(*at, err),
                Visit::TimeBackwards {
                    at,
                    previous_raw,
                    raw,
                } => v.time_backwards(*at, *previous_raw, *raw),
            }
        }
    }
}

/// The sequencer's visitor on the decoding thread: fills batches and sends
/// them on when full.
struct Recorder {
    batch: Batch,
    full: SyncSender<Batch>,
    /// Batches the visitor is done with, to fill again.
    empty: Receiver<Batch>,
}

impl Recorder {
    #[inline(always)]
    fn push(&mut self, visit: Visit) {
        self.batch.visits.push(visit);
        if self.batch.visits.len() == BATCH {
            self.send();
        }
    }

    #[inline(never)]
    fn send(&mut self) {
        let next = self.empty.try_recv().unwrap_or_else(|_| Batch::new());
        let full = std::mem::replace(&mut self.batch, next);
        // The receiving end only goes away if the visitor's thread
        // panicked; that panic is what the caller sees.
        let _ = self.full.send(full);
    }
}

impl Visitor for Recorder {
    #[inline(always)]
    fn event(&mut self, at: Position, rec: &Record<'_>) {
        let (event, text) = rec.event.split_text();
        let text = text.map(|text| {
            let start = self.batch.texts.len();
            self.batch.texts.extend_from_slice(text);
            start..self.batch.texts.len()
        });
        let rec = Record { ts: rec.ts, event };
        self.push(Visit::Event { at, rec, text });
    }

    fn invalid(&mut self, at: Position, err: &FrameError) {
        self.push(Visit::Invalid { at, err: *err });
    }

    fn time_backwards(&mut self, at: Position, previous_raw: u64, raw: u64) {
        self.push(Visit::TimeBackwards {
            at,
            previous_raw,
            raw,
        });
    }
}

/// [`sequence`] on a second thread: `v` sees the same calls in the same
/// order, on this thread, while the next frames are decoded.
pub fn sequence_on_decode_thread(streams: &[Stream<'_>], clock: &Clock, v: &mut impl Visitor) {
    let (full_tx, full_rx) = sync_channel::<Batch>(AHEAD);
    let (empty_tx, empty_rx) = channel::<Batch>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut recorder = Recorder {
                batch: Batch::new(),
                full: full_tx,
                empty: empty_rx,
            };
            sequence(streams, clock, &mut recorder);
            if !recorder.batch.visits.is_empty() {
                recorder.send();
            }
        });
        for mut batch in full_rx {
            batch.replay(v);
            batch.visits.clear();
            batch.texts.clear();
            // The decoding thread may have finished and gone.
            let _ = empty_tx.send(batch);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sequencer::tests::{damaged_streams, streams_and_clock, FullLog};

    #[test]
    fn same_calls_as_on_one_thread() {
        for cores in [1, 3] {
            let bytes = damaged_streams(cores, 400_000);
            let (streams, clock) = streams_and_clock(&bytes);
            let (mut one, mut two) = (FullLog::default(), FullLog::default());
            sequence(&streams, &clock, &mut one);
            sequence_on_decode_thread(&streams, &clock, &mut two);
            assert!(one.0.len() > 3 * BATCH, "{cores} cores");
            assert!(one.0.iter().any(|l| l.contains("msg: [")), "{cores} cores");
            assert!(one.0.iter().any(|l| l.ends_with("Unterminated")));
            assert_eq!(one, two, "{cores} cores");
        }
    }
}
