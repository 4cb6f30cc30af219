//! Runs the sequencer (frame splitting, decoding, the merge of streams) on a
//! second thread, and hands what it visits to a visitor on the calling
//! thread in batches, so that decoding and building the model overlap.

use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};

use tband::Record;

use crate::frames::FrameError;
use crate::sequencer::{sequence, Clock, PassCounts, Position, Stream, Visitor};

/// Visits per batch: large enough that handing a batch over costs nothing
/// against decoding it, small enough that batches stay in the cache.
const BATCH: usize = 1024;

/// Bytes of text per batch, at most (past the text that crosses it):
/// long messages fill a batch early, so its memory stays bounded too.
const BATCH_TEXT: usize = 1 << 20;

/// Batches decoded ahead of the visitor, at most: memory stays bounded
/// whatever the trace's size.
const AHEAD: usize = 4;

/// An event the sequencer visited, as a batch keeps it.
struct EventVisit {
    /// The record, its text (if it has one) taken out into the batch's
    /// `texts`.
    rec: Record<'static>,
    offset: usize,
    ts_ns: u64,
    stream: usize,
    core: u32,
    text_start: usize,
    text_len: usize,
    has_text: bool,
    has_ts: bool,
}

impl EventVisit {
    fn position(&self) -> Position {
        Position {
            stream: self.stream,
            offset: self.offset,
            core: self.core,
            ts_ns: self.has_ts.then_some(self.ts_ns),
        }
    }
}

/// The sequencer's other, rare calls.
enum OtherVisit {
    Invalid {
        at: Position,
        err: FrameError,
    },
    TimeBackwards {
        at: Position,
        previous_raw: u64,
        raw: u64,
    },
    Progress {
        stream: usize,
        offset: usize,
    },
}

struct Batch {
    events: Vec<EventVisit>,
    /// The other calls, each after the number of events made before it.
    others: Vec<(usize, OtherVisit)>,
    /// The texts of the events that have one, one after the other.
    texts: Vec<u8>,
}

impl Batch {
    fn new() -> Self {
        Batch {
            events: Vec::with_capacity(BATCH),
            others: Vec::new(),
            texts: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.events.len() + self.others.len()
    }

    fn clear(&mut self) {
        self.events.clear();
        self.others.clear();
        self.texts.clear();
    }

    /// Makes the calls of the batch on `v`, in their order.
    fn replay(&self, v: &mut impl Visitor) {
        let mut others = self.others.iter().peekable();
        for (i, event) in self.events.iter().enumerate() {
            while let Some((_, other)) = others.next_if(|(before, _)| *before == i) {
                other.replay(v);
            }
            let at = event.position();
            if event.has_text {
                let start = event.text_start;
                let text = self
                    .texts
                    .get(start..start + event.text_len)
                    .unwrap_or_default();
                let rec = Record {
                    ts: event.rec.ts,
                    event: event.rec.event.with_text(text),
                };
                v.event(at, &rec);
            } else {
                v.event(at, &event.rec);
            }
        }
        for (_, other) in others {
            other.replay(v);
        }
    }
}

impl OtherVisit {
    fn replay(&self, v: &mut impl Visitor) {
        match self {
            OtherVisit::Invalid { at, err } => v.invalid(*at, err),
            OtherVisit::TimeBackwards {
                at,
                previous_raw,
                raw,
            } => v.time_backwards(*at, *previous_raw, *raw),
            OtherVisit::Progress { stream, offset } => v.progress(*stream, *offset),
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
    fn send_if_full(&mut self) {
        if self.batch.len() >= BATCH || self.batch.texts.len() >= BATCH_TEXT {
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

    #[cold]
    fn push_other(&mut self, other: OtherVisit) {
        self.batch.others.push((self.batch.events.len(), other));
        self.send_if_full();
    }

    /// An event with text: the text is copied into the batch.
    #[cold]
    fn push_with_text(&mut self, at: Position, rec: &Record<'_>) {
        let (event, text) = rec.event.split_text();
        let text = text.unwrap_or_default();
        let text_start = self.batch.texts.len();
        self.batch.texts.extend_from_slice(text);
        let rec = Record { ts: rec.ts, event };
        self.push_event(at, rec, Some((text_start, text.len())));
    }

    /// Keeps an event, and where its text is in `texts` if it has one.
    #[inline(always)]
    fn push_event(&mut self, at: Position, rec: Record<'static>, text: Option<(usize, usize)>) {
        let (text_start, text_len) = text.unwrap_or_default();
        self.batch.events.push(EventVisit {
            rec,
            offset: at.offset,
            ts_ns: at.ts_ns.unwrap_or(0),
            stream: at.stream,
            core: at.core,
            text_start,
            text_len,
            has_text: text.is_some(),
            has_ts: at.ts_ns.is_some(),
        });
        self.send_if_full();
    }
}

impl Visitor for Recorder {
    #[inline(always)]
    fn event(&mut self, at: Position, rec: &Record<'_>) {
        match rec.detached() {
            Some(rec) => self.push_event(at, rec, None),
            None => self.push_with_text(at, rec),
        }
    }

    fn invalid(&mut self, at: Position, err: &FrameError) {
        self.push_other(OtherVisit::Invalid { at, err: *err });
    }

    fn time_backwards(&mut self, at: Position, previous_raw: u64, raw: u64) {
        self.push_other(OtherVisit::TimeBackwards {
            at,
            previous_raw,
            raw,
        });
    }

    fn progress(&mut self, stream: usize, offset: usize) {
        self.push_other(OtherVisit::Progress { stream, offset });
    }
}

/// [`sequence`] on a second thread: `v` sees the same calls in the same
/// order, on this thread, while the next frames are decoded. Returns what
/// [`sequence`] returns.
pub fn sequence_on_decode_thread(
    streams: &[Stream<'_>],
    clock: &Clock,
    v: &mut impl Visitor,
) -> PassCounts {
    let (full_tx, full_rx) = sync_channel::<Batch>(AHEAD);
    let (empty_tx, empty_rx) = channel::<Batch>();
    std::thread::scope(|scope| {
        let decoder = scope.spawn(move || {
            let mut recorder = Recorder {
                batch: Batch::new(),
                full: full_tx,
                empty: empty_rx,
            };
            let counts = sequence(streams, clock, &mut recorder);
            if recorder.batch.len() > 0 {
                recorder.send();
            }
            counts
        });
        for mut batch in full_rx {
            batch.replay(v);
            batch.clear();
            // The decoding thread may have finished and gone.
            let _ = empty_tx.send(batch);
        }
        decoder
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::encode_stream;
    use crate::sequencer::tests::{assert_same_calls, FullLog};
    use tband::Event;

    #[test]
    fn same_calls_as_on_one_thread() {
        assert_same_calls(sequence, sequence_on_decode_thread);
    }

    #[test]
    fn rare_calls_keep_their_place_among_the_events() {
        let bytes = encode_stream(&[
            (50, Event::IsrEnter { isr_id: 1 }),
            (40, Event::IsrExit { isr_id: 1 }),
            (60, Event::IsrEnter { isr_id: 2 }),
        ]);
        let mut bytes = [&bytes[..], &[0x17, 0x80, 0], &bytes[..]].concat();
        bytes.extend_from_slice(&[3, 200]);
        let streams = [Stream::new(&bytes, 0)];
        let clock = Clock::new(1, 40);
        let (mut one, mut two) = (FullLog::default(), FullLog::default());
        sequence(&streams, &clock, &mut one);
        sequence_on_decode_thread(&streams, &clock, &mut two);
        let backwards = one.0.iter().filter(|l| l.contains("backwards")).count();
        let invalid = one
            .0
            .iter()
            .filter(|l| !l.contains("Record") && !l.contains("backwards"));
        assert_eq!(
            (one.0.len(), backwards, invalid.count()),
            (11, 3, 2),
            "{one:#?}"
        );
        assert_eq!(one, two);
    }

    #[test]
    fn long_texts_fill_a_batch_early() {
        let (full, batches) = sync_channel(16);
        let (_, empty) = channel();
        let mut recorder = Recorder {
            batch: Batch::new(),
            full,
            empty,
        };
        let msg = [b'm'; 3000];
        let at = Position {
            stream: 0,
            offset: 0,
            core: 0,
            ts_ns: Some(0),
        };
        let rec = Record {
            ts: Some(0),
            event: Event::Evtmarker {
                evtmarker_id: 1,
                msg: &msg,
            },
        };
        // 1000 events are under one batch's count, but their 3 MB of text
        // fill two batches (the rest waits in the third, unsent).
        for _ in 0..1000 {
            recorder.event(at, &rec);
        }
        drop(recorder);
        let sent: Vec<Batch> = batches.iter().collect();
        assert_eq!(sent.len(), 2);
        assert!(sent
            .iter()
            .all(|b| b.texts.len() == BATCH_TEXT / 3000 * 3000 + 3000));
        let mut log = FullLog::default();
        sent[0].replay(&mut log);
        assert_eq!(log.0.len(), 350);
        assert_eq!(log.0[349], format!("{at:?} {rec:?}"));
    }

    #[test]
    fn an_event_is_kept_in_96_bytes() {
        assert_eq!(std::mem::size_of::<EventVisit>(), 96);
    }
}
