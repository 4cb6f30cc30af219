//! The one pass over the frames of tband streams: it decodes every frame
//! and puts the events of one or more streams into one time-ordered
//! sequence ([`merge_by_time`]), ticks scaled to nanoseconds since the
//! first event, and per-core monotonic time enforced (a step backwards is
//! reported and the event is placed at the core's current time). Listings
//! and the model are both made by a [`Visitor`] of this pass.

use tband::varint::JoinGroups;
#[cfg(test)]
use tband::varint::Portable;
use tband::{Event, EventKind, Record};
use tband_model::IdIndex;

use crate::cpu_features::{with_best_join_groups, WithJoinGroups};
use crate::frames::{decode_frame, try_decode_frame_with, FrameError, Frames, RawFrame};
use crate::input::Bytes;
use crate::merge::merge_by_time;

/// One input stream and the core its events belong to until a `core_id`
/// event says otherwise.
#[derive(Clone, Copy)]
pub struct Stream<'a> {
    pub bytes: &'a [u8],
    pub core: u32,
    /// The input `bytes` are, when it can release the pages a pass has read
    /// (a memory-mapped file), so that memory does not grow with the trace.
    pub source: Option<&'a Bytes>,
}

impl<'a> Stream<'a> {
    /// A stream of bytes held in memory.
    pub fn new(bytes: &'a [u8], core: u32) -> Self {
        Stream {
            bytes,
            core,
            source: None,
        }
    }
}

/// How far a pass reads into an input between reports of its progress (and
/// releases of the pages behind it, if mapped).
const PROGRESS_STEP: usize = 1 << 20;

/// Where a frame was found and when it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub stream: usize,
    pub offset: usize,
    pub core: u32,
    /// Nanoseconds since the first event; `None` for metadata and for
    /// frames that did not decode.
    pub ts_ns: Option<u64>,
}

/// Receives the sequenced frames.
pub trait Visitor {
    fn event(&mut self, at: Position, rec: &Record<'_>);
    fn invalid(&mut self, at: Position, err: &FrameError);
    /// A timestamp lower than the previous one on the same core (raw ticks).
    fn time_backwards(&mut self, at: Position, previous_raw: u64, raw: u64);
    /// The pass has read `stream` up to `offset` (every megabyte or so).
    fn progress(&mut self, stream: usize, offset: usize);

    /// Whether the visitor wants no more frames. The pass asks after each
    /// report of progress and ends the stream there; the calls before it
    /// come all the same.
    fn stopped(&self) -> bool {
        false
    }
}

/// The id of a frame, read without decoding from its first COBS block
/// (a code byte of 1 means the payload starts with a zero: id 0).
#[inline]
fn peek_id(frame: &RawFrame<'_>) -> Option<u8> {
    match frame.bytes {
        [1, ..] => Some(0),
        [_, id, ..] => Some(*id),
        _ => None,
    }
}

/// The timer resolution the streams state (the first `ts_resolution_ns`,
/// wherever it stands), so that every timestamp can be scaled in one pass.
/// Tracers write it at the start, so this usually reads a few frames.
pub fn find_ts_resolution(streams: &[Stream<'_>]) -> Option<u64> {
    let mut scratch = Vec::new();
    streams.iter().find_map(|stream| {
        Frames::new(stream.bytes)
            .filter(|raw| peek_id(raw) == Some(EventKind::TsResolutionNs.id()))
            .find_map(|raw| match decode_frame(&raw, &mut scratch) {
                Ok(Record {
                    event: Event::TsResolutionNs { ns_per_ts },
                    ..
                }) => Some(ns_per_ts),
                _ => None,
            })
    })
}

/// Converts raw ticks to ns since the first event.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    ns_per_tick: u64,
    first_raw: u64,
    /// The most ticks whose ns fit in 64 bits.
    max_ticks: u64,
}

impl Clock {
    pub const fn new(ns_per_tick: u64, first_raw: u64) -> Clock {
        let max_ticks = match u64::MAX.checked_div(ns_per_tick) {
            Some(max) => max,
            None => u64::MAX,
        };
        Clock {
            ns_per_tick,
            first_raw,
            max_ticks,
        }
    }

    /// Saturates at a bound found once: WebAssembly has no multiplication
    /// that flags an overflow, so `saturating_mul` there is a call to a
    /// 128-bit multiplication, once per event.
    #[inline]
    pub fn ns(&self, raw: u64) -> u64 {
        let ticks = raw.saturating_sub(self.first_raw);
        match ticks <= self.max_ticks {
            true => ticks * self.ns_per_tick,
            false => u64::MAX,
        }
    }
}

/// A `core_id` event's timestamp is stream bookkeeping (0 at stream start),
/// not a time: it neither sets the origin nor is checked for order.
#[inline]
fn timed(rec: &Record<'_>) -> Option<u64> {
    match rec.event {
        Event::CoreId { .. } => None,
        _ => rec.ts,
    }
}

/// The lowest timestamp among the first timed event of each stream.
pub fn first_timestamp(streams: &[Stream<'_>]) -> Option<u64> {
    let mut scratch = Vec::new();
    streams
        .iter()
        .filter_map(|s| {
            Frames::new(s.bytes).find_map(|raw| {
                decode_frame(&raw, &mut scratch)
                    .ok()
                    .and_then(|r| timed(&r))
            })
        })
        .min()
}

struct Cursor<'a> {
    frames: Frames<'a>,
    scratch: Vec<u8>,
    core: u32,
    source: Option<&'a Bytes>,
    /// The offset at which progress is reported (and the pages before it
    /// released) next.
    next_progress: usize,
    /// Frames decoded into records: each is visited, now or as a head.
    records: u64,
    /// The next timed frame, waiting for its turn.
    head: Option<Head<'a>>,
}

/// A stream's next timed frame, held until the merge reaches its time.
/// Its core is the stream's current one.
struct Head<'a> {
    /// Its raw time.
    ts: u64,
    offset: usize,
    frame: HeldFrame<'a>,
}

/// How a head keeps its frame.
enum HeldFrame<'a> {
    /// As decoded, so that it is not decoded twice.
    Decoded(Record<'static>),
    /// As read: its event has text, which may lie in the cursor's scratch
    /// (to be overwritten), so it is decoded again when its turn comes.
    DecodeAgain(RawFrame<'a>),
}

/// Per-core latest raw time, to keep time monotonic per core. A core's
/// time is 0 until its first event: no time is below that, and an untimed
/// frame before it is placed at 0, which scales to the trace's start just
/// as the first event's time does.
#[derive(Default)]
struct CoreClocks {
    /// By core id.
    latest: IdIndex<u32, u64>,
}

impl CoreClocks {
    #[inline(always)]
    fn slot(&mut self, core: u32) -> &mut u64 {
        self.latest.entry(core)
    }

    /// Sets the event's time: its raw time, or its core's current time if
    /// that is later (a step backwards, reported).
    #[inline(always)]
    fn place(&mut self, at: &mut Position, raw: u64, clock: &Clock, v: &mut impl Visitor) {
        let slot = self.slot(at.core);
        let previous = *slot;
        if raw < previous {
            at.ts_ns = Some(clock.ns(previous));
            v.time_backwards(*at, previous, raw);
        } else {
            *slot = raw;
            at.ts_ns = Some(clock.ns(raw));
        }
    }

    /// The time of an untimed frame: its core's current time.
    fn now(&mut self, core: u32, clock: &Clock) -> u64 {
        clock.ns(*self.slot(core))
    }
}

/// What a pass read besides what it visited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassCounts {
    /// Frames decoded into records, all of which a finished pass visited
    /// as events.
    pub records: u64,
    /// Empty frames (a delimiter right after another) skipped.
    pub empty_frames: u64,
}

/// Visits every frame of `streams` in time order (metadata and broken frames
/// in stream order as they are reached); a single stream is visited in
/// its order, frame by frame.
///
/// The pass runs with the best [`JoinGroups`] the CPU has
/// ([`with_best_join_groups`]): on x86-64 CPUs with BMI2 it is a copy
/// compiled for BMI2, which joins a varint's groups with one `pext`;
/// elsewhere it reads them the portable way.
pub fn sequence(streams: &[Stream<'_>], clock: &Clock, v: &mut impl Visitor) -> PassCounts {
    let mut cursors = cursors(streams);
    let mut clocks = CoreClocks::default();
    pass(&mut cursors, clock, &mut clocks, v);
    counts(&cursors)
}

fn counts(cursors: &[Cursor<'_>]) -> PassCounts {
    PassCounts {
        records: cursors.iter().map(|c| c.records).sum(),
        empty_frames: cursors.iter().map(|c| c.frames.empty_frames()).sum(),
    }
}

/// [`sequence`] over the cursors, as compiled for the CPU
/// ([`with_best_join_groups`]).
fn pass(cursors: &mut [Cursor<'_>], clock: &Clock, clocks: &mut CoreClocks, v: &mut impl Visitor) {
    // The single stream and the merge are dispatched apart, so that each
    // is its own copy and neither's loop shares registers with the other's.
    match cursors {
        [cursor] => with_best_join_groups(Single {
            cursor,
            clock,
            clocks,
            v,
        }),
        all => with_best_join_groups(Merge {
            cursors: all,
            clock,
            clocks,
            v,
        }),
    }
}

/// One stream read as it grows (a file another process appends to): each
/// piece visited as [`sequence`] visits the stream whole, the core, the
/// clock of each core and the count of records carried from piece to
/// piece. A piece that ends inside a frame makes that frame invalid, so
/// pieces should end after a delimiter.
pub struct GrowingStream {
    core: u32,
    clocks: CoreClocks,
    scratch: Vec<u8>,
    records: u64,
}

impl GrowingStream {
    /// A stream whose events belong to `core` until a `core_id` event says
    /// otherwise.
    pub fn new(core: u32) -> Self {
        GrowingStream {
            core,
            clocks: CoreClocks::default(),
            scratch: Vec::new(),
            records: 0,
        }
    }

    /// Visits the frames of `piece`, the stream's bytes from `offset` on
    /// (where the last piece ended). No progress is reported.
    pub fn read(&mut self, piece: &[u8], offset: usize, clock: &Clock, v: &mut impl Visitor) {
        let mut cursor = Cursor {
            frames: Frames::at(piece, offset),
            scratch: std::mem::take(&mut self.scratch),
            core: self.core,
            source: None,
            next_progress: usize::MAX,
            records: self.records,
            head: None,
        };
        pass(
            std::slice::from_mut(&mut cursor),
            clock,
            &mut self.clocks,
            v,
        );
        self.core = cursor.core;
        self.records = cursor.records;
        self.scratch = cursor.scratch;
    }

    /// Frames decoded into records so far, all of them visited.
    pub fn records(&self) -> u64 {
        self.records
    }
}

fn cursors<'a>(streams: &[Stream<'a>]) -> Vec<Cursor<'a>> {
    streams
        .iter()
        .map(|s| Cursor {
            frames: Frames::new(s.bytes),
            scratch: Vec::new(),
            core: s.core,
            source: s.source,
            next_progress: PROGRESS_STEP,
            records: 0,
            head: None,
        })
        .collect()
}

/// [`sequence`], joining varints' groups with `join`.
#[cfg(test)]
fn sequence_with<J: JoinGroups>(
    join: J,
    cursors: &mut [Cursor<'_>],
    clock: &Clock,
    clocks: &mut CoreClocks,
    v: &mut impl Visitor,
) {
    match cursors {
        [cursor] => Single {
            cursor,
            clock,
            clocks,
            v,
        }
        .run(join),
        all => Merge {
            cursors: all,
            clock,
            clocks,
            v,
        }
        .run(join),
    }
}

/// A single stream, in order as it stands: no merge.
struct Single<'p, 'a, V> {
    cursor: &'p mut Cursor<'a>,
    clock: &'p Clock,
    clocks: &'p mut CoreClocks,
    v: &'p mut V,
}

impl<V: Visitor> WithJoinGroups for Single<'_, '_, V> {
    type Output = ();
    #[inline(always)]
    fn run<J: JoinGroups>(self, join: J) {
        let Single {
            cursor,
            clock,
            clocks,
            v,
        } = self;
        advance(join, cursor, 0, NEVER_STOP, clock, clocks, v)
    }
}

/// Several streams, merged in time order.
struct Merge<'p, 'a, V> {
    cursors: &'p mut [Cursor<'a>],
    clock: &'p Clock,
    clocks: &'p mut CoreClocks,
    v: &'p mut V,
}

impl<V: Visitor> WithJoinGroups for Merge<'_, '_, V> {
    type Output = ();
    #[inline(always)]
    fn run<J: JoinGroups>(self, join: J) {
        let Merge {
            cursors,
            clock,
            clocks,
            v,
        } = self;
        merge(join, cursors, clock, clocks, v)
    }
}

/// Visits the frames of several streams in time order: the stream whose
/// head is earliest goes on until its next timed frame is later than the
/// others' heads.
#[inline(always)]
fn merge<J: JoinGroups>(
    join: J,
    cursors: &mut [Cursor<'_>],
    clock: &Clock,
    clocks: &mut CoreClocks,
    v: &mut impl Visitor,
) {
    let mut heads = Vec::with_capacity(cursors.len());
    for (i, cursor) in cursors.iter_mut().enumerate() {
        advance(join, cursor, i, FIRST_TIMED, clock, clocks, v);
        if let Some(head) = &cursor.head {
            heads.push((head.ts, i));
        }
    }
    merge_by_time(&heads, |i, bound| {
        let cursor = &mut cursors[i];
        if let Some(Head { ts, offset, frame }) = &cursor.head {
            let mut at = Position {
                stream: i,
                offset: *offset,
                core: cursor.core,
                ts_ns: None,
            };
            clocks.place(&mut at, *ts, clock, v);
            // The held record is visited where it lies, not moved out.
            match frame {
                HeldFrame::Decoded(rec) => v.event(at, rec),
                HeldFrame::DecodeAgain(raw) => {
                    if let Some(rec) = try_decode_frame_with(join, raw, &mut cursor.scratch) {
                        v.event(at, &rec);
                    }
                }
            }
        }
        advance(join, cursor, i, Some(bound), clock, clocks, v);
        cursor.head.as_ref().map(|head| head.ts)
    });
}

/// The bound of [`advance`] that stops at the first timed frame.
const FIRST_TIMED: Option<u64> = None;
/// The bound of [`advance`] that visits every frame.
const NEVER_STOP: Option<u64> = Some(u64::MAX);

/// Visits a cursor's frames up to the first timed one later than `bound`
/// (without a bound: up to the first timed one), which becomes its head;
/// the cursor ends without one where the visitor has [stopped](Visitor::stopped).
#[inline(always)]
fn advance<J: JoinGroups>(
    join: J,
    cursor: &mut Cursor<'_>,
    stream: usize,
    bound: Option<u64>,
    clock: &Clock,
    clocks: &mut CoreClocks,
    v: &mut impl Visitor,
) {
    while advance_to_progress(join, cursor, stream, bound, clock, clocks, v) {}
}

/// [`advance`] as far as the frame after the next report of progress:
/// whether it paused there (and must be called again to go on).
///
/// In WebAssembly this is a function of its own, called again every
/// megabyte: V8 first runs a function in quickly compiled, slow code and
/// switches to its optimised code only at the next call, so a loop over
/// the whole trace in one call would run slow throughout.
#[cfg_attr(target_family = "wasm", inline(never))]
#[cfg_attr(not(target_family = "wasm"), inline(always))]
fn advance_to_progress<J: JoinGroups>(
    join: J,
    cursor: &mut Cursor<'_>,
    stream: usize,
    bound: Option<u64>,
    clock: &Clock,
    clocks: &mut CoreClocks,
    v: &mut impl Visitor,
) -> bool {
    // The cursor's state, in locals the loop can keep in registers.
    let mut frames = cursor.frames.clone();
    let mut core = cursor.core;
    let mut next_progress = cursor.next_progress;
    let mut records = cursor.records;
    let mut paused = false;
    cursor.head = None;
    for raw in frames.by_ref() {
        let reported = raw.offset >= next_progress;
        if reported {
            if let Some(source) = cursor.source {
                source.release_before(raw.offset);
            }
            v.progress(stream, raw.offset);
            next_progress = raw.offset + PROGRESS_STEP;
            if v.stopped() {
                break;
            }
        }
        let mut at = Position {
            stream,
            offset: raw.offset,
            core,
            ts_ns: None,
        };
        match try_decode_frame_with(join, &raw, &mut cursor.scratch) {
            Some(rec) => {
                records += 1;
                if let Event::CoreId { core_id } = rec.event {
                    core = core_id;
                    at.core = core_id;
                }
                match timed(&rec) {
                    Some(ts) if bound.is_none_or(|b| ts > b) => {
                        // Held in place: the cursor's head is written
                        // once, from where the record was decoded.
                        let frame = match rec.detached() {
                            Some(rec) => HeldFrame::Decoded(rec),
                            None => HeldFrame::DecodeAgain(raw),
                        };
                        let offset = raw.offset;
                        cursor.head = Some(Head { ts, offset, frame });
                        break;
                    }
                    Some(ts) => clocks.place(&mut at, ts, clock, v),
                    // An untimed frame happens at its core's current time.
                    None if rec.ts.is_some() => at.ts_ns = Some(clocks.now(at.core, clock)),
                    None => {}
                }
                v.event(at, &rec);
            }
            None => {
                if let Err(e) = decode_frame(&raw, &mut cursor.scratch) {
                    v.invalid(at, &e);
                }
            }
        }
        if reported {
            paused = true;
            break;
        }
    }
    cursor.frames = frames;
    cursor.core = core;
    cursor.next_progress = next_progress;
    cursor.records = records;
    paused
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::encode::encode_stream;

    #[test]
    fn clock_times_saturate_rather_than_wrap() {
        let clock = Clock::new(10, 100);
        assert_eq!((clock.ns(50), clock.ns(105)), (0, 50));
        assert_eq!(clock.ns(u64::MAX / 10 + 100), u64::MAX / 10 * 10);
        assert_eq!(clock.ns(u64::MAX / 10 + 101), u64::MAX);
        assert_eq!(Clock::new(0, 0).ns(u64::MAX), 0);
    }

    #[derive(Default)]
    struct Log(Vec<(u32, Option<u64>, String)>);

    impl Visitor for Log {
        fn event(&mut self, at: Position, rec: &Record<'_>) {
            self.0
                .push((at.core, at.ts_ns, rec.event.kind().name().to_string()));
        }
        fn invalid(&mut self, at: Position, _: &FrameError) {
            self.0.push((at.core, at.ts_ns, "invalid".into()));
        }
        fn time_backwards(&mut self, at: Position, prev: u64, raw: u64) {
            self.0
                .push((at.core, at.ts_ns, format!("backwards {prev}->{raw}")));
        }
        fn progress(&mut self, _: usize, _: usize) {}
    }

    #[test]
    fn merges_cores_by_time_and_scales() {
        let c0 = encode_stream(&[
            (100, Event::IsrEnter { isr_id: 1 }),
            (130, Event::IsrExit { isr_id: 1 }),
        ]);
        let c1 = encode_stream(&[
            (110, Event::IsrEnter { isr_id: 2 }),
            (140, Event::IsrExit { isr_id: 2 }),
        ]);
        let streams = [Stream::new(&c0, 0), Stream::new(&c1, 1)];
        assert_eq!(first_timestamp(&streams), Some(100));
        let clock = Clock::new(10, 100);
        let mut log = Log::default();
        sequence(&streams, &clock, &mut log);
        let got: Vec<_> = log.0.iter().map(|(c, t, _)| (*c, t.unwrap())).collect();
        assert_eq!(got, [(0, 0), (1, 100), (0, 300), (1, 400)]);
    }

    #[test]
    fn core_id_switches_and_backwards_time_is_clamped() {
        let bytes = encode_stream(&[
            (0, Event::CoreId { core_id: 1 }),
            (50, Event::IsrEnter { isr_id: 1 }),
            (0, Event::CoreId { core_id: 0 }),
            (60, Event::IsrEnter { isr_id: 2 }),
            (40, Event::IsrExit { isr_id: 2 }),
        ]);
        for other in [false, true] {
            let empty = Vec::new();
            let mut streams = vec![Stream::new(&bytes, 0)];
            if other {
                streams.push(Stream::new(&empty, 1));
            }
            let clock = Clock::new(1, 50);
            let mut log = Log::default();
            sequence(&streams, &clock, &mut log);
            let names: Vec<_> = log.0.iter().map(|(c, t, n)| (*c, *t, n.as_str())).collect();
            assert_eq!(
                names,
                [
                    (1, Some(0), "core_id"),
                    (1, Some(0), "isr_enter"),
                    (0, Some(0), "core_id"),
                    (0, Some(10), "isr_enter"),
                    (0, Some(10), "backwards 60->40"),
                    (0, Some(10), "isr_exit"),
                ],
                "with other stream: {other}"
            );
        }
    }

    /// Every visit with its position and full record, for comparing passes.
    #[derive(Default, PartialEq, Debug)]
    pub(crate) struct FullLog(pub Vec<String>);

    impl Visitor for FullLog {
        fn event(&mut self, at: Position, rec: &Record<'_>) {
            self.0.push(format!("{at:?} {rec:?}"));
        }
        fn invalid(&mut self, at: Position, err: &FrameError) {
            self.0.push(format!("{at:?} {err:?}"));
        }
        fn time_backwards(&mut self, at: Position, prev: u64, raw: u64) {
            self.0.push(format!("{at:?} backwards {prev}->{raw}"));
        }
        fn progress(&mut self, stream: usize, offset: usize) {
            self.0.push(format!("stream {stream} read to {offset}"));
        }
    }

    /// Simulated streams of `cores` cores with dropped events, a broken
    /// frame, garbage and a stream that ends inside a frame; long enough for
    /// reports of progress.
    fn damaged_streams(cores: u32) -> Vec<Vec<u8>> {
        let config = tband_sim::Config {
            cores,
            size: u64::from(cores) * (PROGRESS_STEP as u64 + 100_000),
            drops: Some(tband_sim::DropConfig::default()),
            wide_values: true,
            ..tband_sim::Config::default()
        };
        let (mut bytes, _) = tband_sim::generate(&config).unwrap();
        bytes[0][5_000] = 0;
        bytes[0].splice(9_000..9_000, [0x17, 0x80, 0x80, 0, 3, 200, 1, 0]);
        let cut = bytes[0].len() - 3;
        bytes[0].truncate(cut);
        bytes
    }

    /// Calls `f` with the damaged streams of one and of three cores, and
    /// a clock for them.
    fn for_damaged_streams(mut f: impl FnMut(u32, &[Stream<'_>], &Clock)) {
        for cores in [1, 3] {
            let bytes = damaged_streams(cores);
            let streams: Vec<_> = bytes
                .iter()
                .zip(0..)
                .map(|(b, core)| Stream::new(b, core))
                .collect();
            let clock = Clock::new(10, first_timestamp(&streams).unwrap());
            f(cores, &streams, &clock);
        }
    }

    /// Checks that two passes make the same calls on damaged simulated
    /// streams of one and of three cores.
    pub(crate) fn assert_same_calls(
        first: impl Fn(&[Stream<'_>], &Clock, &mut FullLog) -> PassCounts,
        second: impl Fn(&[Stream<'_>], &Clock, &mut FullLog) -> PassCounts,
    ) {
        for_damaged_streams(|cores, streams, clock| {
            let (mut a, mut b) = (FullLog::default(), FullLog::default());
            let counts = first(streams, clock, &mut a);
            assert_eq!(second(streams, clock, &mut b), counts);
            assert!(a.0.len() > 10_000, "{cores} cores");
            assert!(a.0.iter().any(|l| l.contains("msg: [")), "{cores} cores");
            assert!(a.0.iter().any(|l| l.ends_with("Unterminated")));
            let visits = a.0.iter().filter(|l| l.contains(" Record {")).count();
            assert_eq!(counts.records, visits as u64, "{cores} cores");
            let long = streams.iter().enumerate();
            let long: Vec<_> = long
                .filter(|(_, s)| s.bytes.len() > PROGRESS_STEP)
                .collect();
            assert!(!long.is_empty(), "{cores} cores");
            for (stream, _) in long {
                let read = format!("stream {stream} read to ");
                assert!(a.0.iter().any(|l| l.starts_with(&read)), "{cores} cores");
            }
            assert_eq!(a, b, "{cores} cores");
        });
    }

    #[test]
    fn bmi2_pass_matches_portable() {
        if !std::is_x86_feature_detected!("bmi2") {
            return;
        }
        let portable = |streams: &[Stream<'_>], clock: &Clock, log: &mut FullLog| {
            let mut cursors = cursors(streams);
            sequence_with(
                Portable,
                &mut cursors,
                clock,
                &mut CoreClocks::default(),
                log,
            );
            counts(&cursors)
        };
        // The CPU has BMI2, as just detected: `sequence` is the BMI2 pass.
        assert_same_calls(portable, |streams, clock, log| {
            sequence(streams, clock, log)
        });
    }

    /// Logs the visits of [`FullLog`] until the first report of progress,
    /// and then wants no more.
    #[derive(Default)]
    struct StopAtFirstReport {
        log: FullLog,
        stopped: bool,
    }

    impl Visitor for StopAtFirstReport {
        fn event(&mut self, at: Position, rec: &Record<'_>) {
            self.log.event(at, rec);
        }
        fn invalid(&mut self, at: Position, err: &FrameError) {
            self.log.invalid(at, err);
        }
        fn time_backwards(&mut self, at: Position, prev: u64, raw: u64) {
            self.log.time_backwards(at, prev, raw);
        }
        fn progress(&mut self, stream: usize, offset: usize) {
            self.log.progress(stream, offset);
            self.stopped = true;
        }
        fn stopped(&self) -> bool {
            self.stopped
        }
    }

    #[test]
    fn a_stopped_visitor_gets_no_frame_past_a_streams_next_report() {
        for_damaged_streams(|cores, streams, clock| {
            let (mut all, mut stopping) = (FullLog::default(), StopAtFirstReport::default());
            sequence(streams, clock, &mut all);
            sequence(streams, clock, &mut stopping);
            let visits = &stopping.log.0;
            assert!(visits.len() < all.0.len(), "{cores} cores");
            // The visits up to the first report are the full pass's.
            let reported = visits.iter().position(|l| l.contains(" read to "));
            let reported = reported.expect("a report of progress");
            assert!(reported > 1000, "{cores} cores");
            assert_eq!(visits[..reported], all.0[..reported], "{cores} cores");
            let past_a_report = |l: &String| {
                let offset = l.split("offset: ").nth(1)?.split(',').next()?;
                Some(offset.parse::<usize>().ok()? >= PROGRESS_STEP)
            };
            assert!(!visits.iter().any(|l| past_a_report(l) == Some(true)));
        });
    }

    #[test]
    fn resolution_is_found_anywhere() {
        let bytes = encode_stream(&[
            (5, Event::IsrEnter { isr_id: 1 }),
            (0, Event::TsResolutionNs { ns_per_ts: 250 }),
            (0, Event::TsResolutionNs { ns_per_ts: 7 }),
        ]);
        let empty = Vec::new();
        let streams = [Stream::new(&empty, 0), Stream::new(&bytes, 1)];
        assert_eq!(find_ts_resolution(&streams), Some(250));
        assert_eq!(find_ts_resolution(&streams[..1]), None);
    }

    #[test]
    fn a_stream_read_in_pieces_is_visited_as_it_is_whole() {
        let bytes = damaged_streams(1).remove(0);
        let streams = [Stream::new(&bytes, 0)];
        let clock = Clock::new(10, first_timestamp(&streams).unwrap());
        let mut whole = FullLog::default();
        let counts = sequence(&streams, &clock, &mut whole);
        whole.0.retain(|l| !l.contains(" read to "));
        // Pieces of every size from a byte to a few thousand, each ending
        // after a delimiter but the last.
        let mut pieces = FullLog::default();
        let mut growing = GrowingStream::new(0);
        let (mut from, mut size) = (0, 1);
        while from < bytes.len() {
            let cut = (from + size).min(bytes.len());
            let end = bytes[cut..]
                .iter()
                .position(|&b| b == 0)
                .map_or(bytes.len(), |zero| cut + zero + 1);
            growing.read(&bytes[from..end], from, &clock, &mut pieces);
            (from, size) = (end, size * 3 % 5000 + 1);
        }
        assert_eq!(growing.records(), counts.records);
        assert_eq!(pieces, whole);
    }
}
