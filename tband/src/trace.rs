//! The tracer of one system: per-core metadata buffers and drop accounting
//! in front of one backend. The global tracer behind the crate's tracing
//! functions is one of these; tests create their own.

use crate::backend::streaming::Streaming;
use crate::backend::{Backend, Hooks, Outcome, MAX_FRAME_LEN};
use crate::drops::DropCounter;
use crate::metadata::MetadataBuf;
use crate::schema::RawEvent;
use crate::Event;

/// The drop accounting, used on every event, comes before the metadata
/// buffer (`repr(C)` keeps that order), at a short offset.
#[repr(C)]
struct CoreState<const META: usize> {
    drops: DropCounter,
    metadata: MetadataBuf<META>,
}

/// A tracer for `CORES` cores with `META`-byte metadata buffers (0: none)
/// that sends the dropped-event total as a heartbeat every `HEARTBEAT`
/// events even when nothing was lost (0: only after losses). All its
/// state starts as zeros, so a static tracer takes no flash for it.
/// The per-core state comes first (`repr(C)`), ahead of the backend's
/// buffers, at short offsets.
#[repr(C)]
pub struct Tracer<B, const META: usize, const CORES: usize, const HEARTBEAT: u32 = 0> {
    cores: [CoreState<META>; CORES],
    backend: B,
}

/// Why a stream could not be started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartError {
    /// The core id is not below the configured number of cores.
    NoSuchCore,
    /// The send function refused the metadata; streaming did not start.
    MetadataRefused,
}

impl<B: Backend, const META: usize, const CORES: usize, const HEARTBEAT: u32>
    Tracer<B, META, CORES, HEARTBEAT>
{
    pub const fn new(backend: B) -> Self {
        Tracer {
            cores: [const {
                CoreState {
                    drops: DropCounter::new(),
                    metadata: MetadataBuf::new(),
                }
            }; CORES],
            backend,
        }
    }

    /// Where the backend lies within the tracer at `this`, and
    /// [`metadata_ptr`](Self::metadata_ptr) where `core`'s metadata buffer
    /// does: for the flight recorder's table of addresses, computed at
    /// compile time.
    ///
    /// # Safety
    /// `this` points to a tracer (only an address is computed; nothing is
    /// read).
    pub const unsafe fn backend_ptr(this: *const Self) -> *const B {
        // SAFETY: as the caller promises.
        unsafe { &raw const (*this).backend }
    }

    /// # Safety
    /// As for [`backend_ptr`](Self::backend_ptr).
    pub const unsafe fn metadata_ptr(this: *const Self, core: usize) -> *const MetadataBuf<META> {
        // SAFETY: as the caller promises.
        unsafe { &raw const (*this).cores[core].metadata }
    }

    /// Records a timed event of `core` at `ts`.
    #[inline(always)]
    pub fn event(&mut self, core: usize, ts: u64, event: &RawEvent<'_>) {
        self.event_now(core, || ts, event);
    }

    /// Records a timed event of `core` at the time `clock` gives, read only
    /// if the event is recorded.
    #[inline(always)]
    pub fn event_now(&mut self, core: usize, clock: impl FnOnce() -> u64, event: &RawEvent<'_>) {
        let Some(state) = self.cores.get_mut(core) else {
            return;
        };
        if !self.backend.recording(core) {
            return;
        }
        let ts = clock();
        if state.drops.report_due(HEARTBEAT) {
            let cnt = state.drops.total();
            let report = Event::DroppedEvtCnt { cnt }.to_raw();
            let outcome = self
                .backend
                .event(core, |buf: &mut [u8]| report.encode(buf, ts));
            match outcome {
                Outcome::Stored => state.drops.reported(),
                Outcome::Lost => {}
                Outcome::Ignored => return,
            }
        }
        match self
            .backend
            .event(core, |buf: &mut [u8]| event.encode(buf, ts))
        {
            Outcome::Stored => state.drops.stored(HEARTBEAT),
            Outcome::Lost => state.drops.lost(HEARTBEAT),
            Outcome::Ignored => {}
        }
    }

    /// Records a metadata event of `core`: into its metadata buffer (a
    /// frame that does not fit counts as a dropped event, so the next
    /// `dropped_evt_cnt` reports it) and to the backend.
    pub fn metadata(&mut self, core: usize, event: &RawEvent<'_>) {
        let Some(state) = self.cores.get_mut(core) else {
            return;
        };
        let mut scratch = [0u8; MAX_FRAME_LEN];
        let Some(frame) = event.encode(&mut scratch, 0).and_then(|n| scratch.get(..n)) else {
            return;
        };
        let kept = META > 0 && state.metadata.push(frame);
        if META > 0 && !kept {
            state.drops.lost(HEARTBEAT);
        }
        if self.backend.metadata(core, frame, kept) == Outcome::Lost {
            state.drops.lost(HEARTBEAT);
        }
    }

    pub fn backend(&self) -> &B {
        &self.backend
    }

    pub fn backend_mut(&mut self) -> &mut B {
        &mut self.backend
    }

    /// `core`'s metadata frames.
    pub fn metadata_buf(&self, core: usize) -> &[u8] {
        self.cores.get(core).map_or(&[], |s| s.metadata.as_bytes())
    }

    /// Whether a metadata frame of `core` did not fit its buffer.
    pub fn metadata_overflowed(&self, core: usize) -> bool {
        self.cores
            .get(core)
            .is_some_and(|s| s.metadata.overflowed())
    }

    /// Events of `core` lost so far (the total `dropped_evt_cnt` reports).
    pub fn dropped(&self, core: usize) -> u32 {
        self.cores.get(core).map_or(0, |s| s.drops.total())
    }
}

impl<H: Hooks, const META: usize, const CORES: usize, const HEARTBEAT: u32>
    Tracer<Streaming<H>, META, CORES, HEARTBEAT>
{
    /// Starts streaming, from `core`'s stream: `core_id c` and core `c`'s
    /// metadata buffer for every core, then `core_id core`, all at ts 0;
    /// every core's events follow in its own stream.
    pub fn start_streaming(&mut self, core: usize) -> Result<(), StartError> {
        if core >= CORES {
            return Err(StartError::NoSuchCore);
        }
        let mut scratch = [0u8; MAX_FRAME_LEN];
        let mut send_core_id = |backend: &Streaming<H>, c: usize| {
            Event::CoreId { core_id: c as u32 }
                .to_raw()
                .encode(&mut scratch, 0)
                .and_then(|n| scratch.get(..n))
                .is_some_and(|frame| backend.send(core, frame))
        };
        for (c, state) in self.cores.iter().enumerate() {
            let meta = state.metadata.as_bytes();
            if !send_core_id(&self.backend, c)
                || !(meta.is_empty() || self.backend.send(core, meta))
            {
                return Err(StartError::MetadataRefused);
            }
        }
        if !send_core_id(&self.backend, core) {
            return Err(StartError::MetadataRefused);
        }
        self.backend.set_running(true);
        Ok(())
    }

    pub fn stop_streaming(&mut self) {
        self.backend.set_running(false);
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::format;
    use std::string::String;
    use std::vec::Vec;

    use super::*;
    use crate::backend::external::External;
    use crate::backend::postmortem::PostMortem;
    use crate::backend::snapshot::{Snapshot, SnapshotState};
    use crate::backend::test_hooks::{self, bytes_of, Recorder, FULL, REFUSE_EVERY, WRITES};
    use crate::{cobs, Record};

    /// Every frame of a stream, as `Record` debug text (`invalid` for a bad one).
    fn listing(bytes: &[u8]) -> Vec<String> {
        bytes
            .split(|&b| b == 0)
            .filter(|f| !f.is_empty())
            .map(|frame| {
                let mut payload = [0u8; 600];
                match cobs::decode(frame, &mut payload) {
                    Ok(n) => match Record::decode(&payload[..n]) {
                        Ok(r) => format!("{r:?}"),
                        Err(_) => String::from("invalid"),
                    },
                    Err(_) => String::from("invalid"),
                }
            })
            .collect()
    }

    fn at(ts: u64, event: Event<'_>) -> String {
        format!(
            "{:?}",
            Record {
                ts: Some(ts),
                event
            }
        )
    }

    fn meta(event: Event<'_>) -> String {
        format!("{:?}", Record { ts: None, event })
    }

    const NAME: Event<'static> = Event::IsrName {
        isr_id: 1,
        name: b"tick",
    };

    #[test]
    fn streaming_sends_every_cores_metadata_first() {
        test_hooks::reset();
        let mut t = Tracer::<Streaming<Recorder>, 64, 2>::new(Streaming::new());
        t.metadata(0, &NAME.to_raw());
        t.metadata(1, &Event::TsResolutionNs { ns_per_ts: 250 }.to_raw());
        t.event(0, 5, &Event::IsrEnter { isr_id: 1 }.to_raw());
        assert!(WRITES.with_borrow(|w| w.is_empty()), "nothing before start");
        assert_eq!(t.start_streaming(1), Ok(()), "starts on the first call");
        t.event(1, 7, &Event::IsrEnter { isr_id: 1 }.to_raw());
        t.event(0, 8, &Event::IsrExit { isr_id: 1 }.to_raw());
        assert_eq!(
            listing(&bytes_of(1)),
            [
                at(0, Event::CoreId { core_id: 0 }),
                meta(NAME),
                at(0, Event::CoreId { core_id: 1 }),
                meta(Event::TsResolutionNs { ns_per_ts: 250 }),
                at(0, Event::CoreId { core_id: 1 }),
                at(7, Event::IsrEnter { isr_id: 1 }),
            ]
        );
        assert_eq!(listing(&bytes_of(0)), [at(8, Event::IsrExit { isr_id: 1 })]);
        assert_eq!(t.start_streaming(2), Err(StartError::NoSuchCore));
        t.stop_streaming();
        t.event(0, 9, &Event::IsrExit { isr_id: 1 }.to_raw());
        assert_eq!(listing(&bytes_of(0)).len(), 1);
    }

    /// Calls `f` with every decodable record of a stream.
    fn for_each_record(bytes: &[u8], mut f: impl FnMut(Record<'_>)) {
        for frame in bytes.split(|&b| b == 0).filter(|f| !f.is_empty()) {
            let mut payload = [0u8; 600];
            let n = cobs::decode(frame, &mut payload).unwrap();
            f(Record::decode(&payload[..n]).unwrap());
        }
    }

    /// Checks that every `dropped_evt_cnt` equals the number of values
    /// (ts 0, 1, 2, ...) missing before it; returns (reports, values seen).
    fn check_drop_reports(bytes: &[u8]) -> (Vec<u32>, u64) {
        let (mut reports, mut seen) = (Vec::new(), 0);
        for_each_record(bytes, |r| match r.event {
            Event::Valmarker { .. } => seen += 1,
            Event::DroppedEvtCnt { cnt } => {
                // Sent just before the event of the same ts.
                let missing = r.ts.unwrap() - seen;
                assert_eq!(u64::from(cnt), missing, "report at ts {:?}", r.ts);
                reports.push(cnt);
            }
            Event::CoreId { .. } => {}
            e => panic!("unexpected {e:?}"),
        });
        (reports, seen)
    }

    fn values<const HEARTBEAT: u32>(t: &mut Tracer<Streaming<Recorder>, 0, 1, HEARTBEAT>, n: u64) {
        for ts in 0..n {
            t.event(
                0,
                ts,
                &Event::Valmarker {
                    valmarker_id: 1,
                    val: ts as i64,
                }
                .to_raw(),
            );
        }
    }

    #[test]
    fn streaming_reports_each_new_drop_total_once() {
        test_hooks::reset();
        let mut t = Tracer::<Streaming<Recorder>, 0, 1>::new(Streaming::new());
        t.start_streaming(0).unwrap();
        REFUSE_EVERY.with_borrow_mut(|p| *p = 4);
        values(&mut t, 100);
        let (reports, seen) = check_drop_reports(&bytes_of(0));
        assert_eq!(seen + u64::from(t.dropped(0)), 100);
        assert!(t.dropped(0) > 10);
        // Each report carries a new total: the reference re-sent the same
        // total before every event after the first drop.
        assert!(reports.windows(2).all(|w| w[0] < w[1]), "{reports:?}");
        let stream_len = listing(&bytes_of(0)).len();
        assert!(stream_len < 100 + reports.len() + 2 + 1);
    }

    #[test]
    fn heartbeat_every_n_events_and_off_at_zero() {
        test_hooks::reset();
        let mut t = Tracer::<Streaming<Recorder>, 0, 1, 10>::new(Streaming::new());
        t.start_streaming(0).unwrap();
        values(&mut t, 35);
        let (reports, seen) = check_drop_reports(&bytes_of(0));
        assert_eq!((reports, seen), (std::vec![0, 0, 0], 35));

        test_hooks::reset();
        let mut t = Tracer::<Streaming<Recorder>, 0, 1>::new(Streaming::new());
        t.start_streaming(0).unwrap();
        values(&mut t, 35);
        assert_eq!(check_drop_reports(&bytes_of(0)), (std::vec![], 35));
    }

    #[test]
    fn snapshot_fills_then_stops_once_with_callback() {
        test_hooks::reset();
        let mut t = Tracer::<Snapshot<Recorder, 64, 1>, 32, 1>::new(Snapshot::new());
        t.event(0, 1, &Event::IsrEnter { isr_id: 1 }.to_raw());
        assert!(t.backend().bytes(0).is_empty(), "not triggered yet");
        assert!(t.backend_mut().trigger(), "triggers on the first call");
        for ts in 0..100 {
            t.event(0, ts, &Event::IsrEnter { isr_id: 1 }.to_raw());
        }
        assert_eq!(t.backend().state(0), Some(SnapshotState::Finished));
        assert_eq!(FULL.with_borrow(|f| f.clone()), [0]);
        let list = listing(t.backend().bytes(0));
        assert_eq!(list.len(), 12, "5-byte frames in 64 bytes");
        assert_eq!(list[11], at(11, Event::IsrEnter { isr_id: 1 }));
        assert_eq!(t.dropped(0), 0, "a full snapshot is not a loss");
        t.backend_mut().reset();
        assert!(t.backend().bytes(0).is_empty());
        assert_eq!(t.backend().state(0), Some(SnapshotState::Idle));
        t.backend_mut().trigger();
        t.event(0, 200, &Event::IsrExit { isr_id: 1 }.to_raw());
        t.backend_mut().stop();
        t.event(0, 201, &Event::IsrExit { isr_id: 1 }.to_raw());
        assert_eq!(
            listing(t.backend().bytes(0)),
            [at(200, Event::IsrExit { isr_id: 1 })]
        );
        assert_eq!(FULL.with_borrow(|f| f.len()), 1);
    }

    #[test]
    fn snapshot_keeps_metadata_recorded_during_it_once() {
        test_hooks::reset();
        let mut t = Tracer::<Snapshot<Recorder, 64, 1>, 32, 1>::new(Snapshot::new());
        t.backend_mut().trigger();
        t.metadata(0, &NAME.to_raw());
        t.event(0, 3, &Event::IsrEnter { isr_id: 1 }.to_raw());
        let mut trace = Vec::from(t.metadata_buf(0));
        trace.extend_from_slice(t.backend().bytes(0));
        assert_eq!(
            listing(&trace),
            [meta(NAME), at(3, Event::IsrEnter { isr_id: 1 })]
        );

        // Without a metadata buffer the snapshot itself keeps it.
        let mut t = Tracer::<Snapshot<Recorder, 64, 1>, 0, 1>::new(Snapshot::new());
        t.metadata(0, &NAME.to_raw());
        t.backend_mut().trigger();
        t.metadata(0, &NAME.to_raw());
        assert_eq!(listing(t.backend().bytes(0)), [meta(NAME)]);
    }

    #[test]
    fn metadata_overflow_is_flagged_and_reported_as_dropped() {
        test_hooks::reset();
        let mut t = Tracer::<Snapshot<Recorder, 64, 1>, 8, 1>::new(Snapshot::new());
        t.metadata(0, &NAME.to_raw());
        assert!(!t.metadata_overflowed(0));
        t.metadata(0, &NAME.to_raw());
        assert!(t.metadata_overflowed(0));
        assert_eq!(t.dropped(0), 1);
        t.backend_mut().trigger();
        t.event(0, 9, &Event::IsrEnter { isr_id: 1 }.to_raw());
        let mut trace = Vec::from(t.metadata_buf(0));
        trace.extend_from_slice(t.backend().bytes(0));
        assert_eq!(
            listing(&trace),
            [
                meta(NAME),
                at(9, Event::DroppedEvtCnt { cnt: 1 }),
                at(9, Event::IsrEnter { isr_id: 1 })
            ]
        );
    }

    #[test]
    fn postmortem_keeps_the_last_events_from_a_frame_boundary() {
        test_hooks::reset();
        let mut t = Tracer::<PostMortem<100, 2>, 32, 2>::new(PostMortem::new());
        t.metadata(0, &NAME.to_raw());
        for ts in 0..1000 {
            t.event(0, ts, &Event::IsrEnter { isr_id: 1 }.to_raw());
        }
        t.event(1, 5, &Event::IsrExit { isr_id: 2 }.to_raw());
        t.backend_mut().stop();
        t.event(0, 5000, &Event::IsrExit { isr_id: 1 }.to_raw());
        let mut trace = Vec::from(t.metadata_buf(0));
        trace.extend_from_slice(&t.backend().read(0).concat());
        let list = listing(&trace);
        assert_eq!(list[0], meta(NAME));
        assert_eq!(
            list.last().unwrap(),
            &at(999, Event::IsrEnter { isr_id: 1 })
        );
        assert!(!list.contains(&String::from("invalid")));
        // Frames of ts 128..999 are 6 bytes: 100 bytes hold 16 of them and
        // the tail of a 17th, which reading skips.
        assert_eq!(list.len(), 1 + 16);
        let first = 999 - 15;
        assert_eq!(list[1], at(first, Event::IsrEnter { isr_id: 1 }));
        assert_eq!(
            listing(&t.backend().read(1).concat()),
            [at(5, Event::IsrExit { isr_id: 2 })]
        );
        t.backend_mut().reset();
        t.backend_mut().start();
        assert_eq!(t.backend().read(0), [&[] as &[u8], &[]]);
    }

    #[test]
    fn external_gets_every_frame_with_metadata_flag() {
        test_hooks::reset();
        let mut t = Tracer::<External<Recorder>, 0, 1>::new(External::new());
        t.metadata(0, &NAME.to_raw());
        t.event(0, 4, &Event::IsrEnter { isr_id: 1 }.to_raw());
        let flags: Vec<_> = WRITES.with_borrow(|w| w.iter().map(|(_, _, m)| *m).collect());
        assert_eq!(flags, [true, false]);
        assert_eq!(
            listing(&bytes_of(0)),
            [meta(NAME), at(4, Event::IsrEnter { isr_id: 1 })]
        );
    }

    #[test]
    fn unknown_core_is_ignored() {
        test_hooks::reset();
        let mut t = Tracer::<External<Recorder>, 8, 1>::new(External::new());
        t.event(3, 4, &Event::IsrEnter { isr_id: 1 }.to_raw());
        t.metadata(3, &NAME.to_raw());
        assert!(WRITES.with_borrow(|w| w.is_empty()));
        assert_eq!(t.dropped(3), 0);
    }
}
