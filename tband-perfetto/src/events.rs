//! Everything that is not scheduling, as TrackEvents on the tracks of
//! [`crate::tracks`]: wait reasons, task priorities, the timeline's items
//! and anomalies.
//!
//! All of it is one packet sequence. Event names and argument names are
//! interned: each string is sent once, and packets refer to it by number.
//! There are millions of these packets, so they are encoded by hand (see
//! [`crate::wire`]) with names looked up by where they come from rather
//! than hashed per event.

use std::io;

use prost::Message as _;
use tband_model::timeline::{ArgName, ArgValue, Item, Shape, Timeline};
use tband_model::{AnomalyKind, IdMap, Model, TaskState};

use crate::protos::track_event::Type;
use crate::protos::TrackDescriptor;
use crate::threads::Threads;
use crate::tracks::TrackUuids;
use crate::wire::{Encoder, Fields, FIELD_MAX, SHORT_MAX, VARINT_MAX};
use crate::writer::{ChunkSink, PacketWriter};
use crate::TRACK_EVENT_SEQUENCE_ID;

/// Sequence flags of `TracePacket`.
const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;
const SEQ_NEEDS_INCREMENTAL_STATE: u32 = 2;

/// Argument names, interned with iid = position + 1.
const ARG_NAMES: [&str; 7] = [
    "queue",
    "count",
    "detail",
    "core",
    "truncated",
    "level",
    "line",
];
const ARG_QUEUE: u64 = 1;
const ARG_COUNT: u64 = 2;
const ARG_DETAIL: u64 = 3;
const ARG_CORE: u64 = 4;

/// Field numbers (proto/perfetto_subset.proto).
mod field {
    pub const PACKET_TIMESTAMP: u32 = 8;
    pub const PACKET_SEQUENCE_ID: u32 = 10;
    pub const PACKET_TRACK_EVENT: u32 = 11;
    pub const PACKET_INTERNED_DATA: u32 = 12;
    pub const PACKET_SEQUENCE_FLAGS: u32 = 13;
    pub const PACKET_TRACK_DESCRIPTOR: u32 = 60;
    pub const EVENT_DEBUG_ANNOTATIONS: u32 = 4;
    pub const EVENT_TYPE: u32 = 9;
    pub const EVENT_NAME_IID: u32 = 10;
    pub const EVENT_TRACK_UUID: u32 = 11;
    pub const EVENT_COUNTER_VALUE: u32 = 30;
    pub const ARG_NAME_IID: u32 = 1;
    pub const ARG_BOOL: u32 = 2;
    pub const ARG_UINT: u32 = 3;
    pub const ARG_INT: u32 = 4;
    pub const ARG_STRING: u32 = 6;
    pub const INTERNED_EVENT_NAMES: u32 = 2;
    pub const INTERNED_ARG_NAMES: u32 = 3;
    pub const NAME_IID: u32 = 1;
    pub const NAME_NAME: u32 = 2;
}

/// What the track events hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventCounts {
    pub slices: u64,
    pub instants: u64,
    pub counter_values: u64,
}

/// A debug annotation of a track event: interned name and value.
#[derive(Clone, Copy)]
enum Arg<'a> {
    Str(u64, &'a str),
    Uint(u64, u64),
    Int(u64, i64),
    Bool(u64, bool),
}

/// The rows of the model that [`write_track_events`] reads one by one,
/// which it counts in [`PacketWriter::rows_read`].
pub fn rows_read(model: &Model, timeline: &Timeline) -> u64 {
    (model.task_states.len() + model.task_priorities.len() + timeline.rows(model)) as u64
}

/// The name of each timeline argument, interned with the others.
fn arg_iid(name: ArgName) -> u64 {
    let position = ARG_NAMES.iter().position(|&n| n == name.as_str());
    position.map_or(0, |p| p as u64 + 1)
}

/// [`arg_iid`] of each timeline argument, by `ArgName as usize`.
fn arg_iids() -> [u64; ArgName::ALL.len()] {
    ArgName::ALL.map(arg_iid)
}

/// Writes the track descriptors and then every track event.
pub fn write_track_events<S: ChunkSink>(
    model: &Model,
    timeline: &Timeline,
    threads: &Threads<'_>,
    out: &mut PacketWriter<S>,
) -> io::Result<EventCounts> {
    let (tracks, descriptors) = TrackUuids::new(model, threads, timeline);
    let mut seq = Sequence::new(out);
    for d in &descriptors {
        seq.descriptor(d)?;
    }
    let mut counts = EventCounts::default();

    let mut wait_names = IidCache::new(WAIT_KEYS);
    seq.each_row(model.task_states.iter(), |seq, s| {
        if !s.state.is_waiting() {
            return Ok(());
        }
        let Some(&Some(track)) = tracks.wait.get(s.task as usize) else {
            return Ok(());
        };
        let reason = s.reason.as_str();
        let name = if reason.is_empty() {
            s.state.as_str()
        } else {
            reason
        };
        let name = wait_names.iid(&mut seq.names, wait_key(&s), name);
        let queue = (s.queue)
            .and_then(|q| model.queues.get(q as usize))
            .map(|q| Arg::Str(ARG_QUEUE, &q.name));
        let args = queue.as_slice();
        seq.slice_or_open(track, s.start_ns, s.end_ns, s.truncated, name, args)?;
        counts.slices += 1;
        Ok(())
    })?;

    seq.each_row(model.task_priorities.iter(), |seq, p| {
        if let Some(&Some(track)) = tracks.priority.get(p.task as usize) {
            seq.counter(track, p.ts_ns, p.priority.into())?;
            counts.counter_values += 1;
        }
        Ok(())
    })?;

    let arg_iids = arg_iids();
    for layer in &timeline.layers {
        let mut names = IidCache::new(layer.name_keys(model));
        let mut written = Ok(());
        layer.visit(model, 0..layer.len(model), &mut |_, item| {
            if written.is_ok() {
                let to = (&tracks, &arg_iids);
                written = write_item(&mut seq, to, &mut names, item, &mut counts);
            }
        });
        seq.out.rows_read += layer.len(model) as u64;
        written?;
    }

    for &(i, track) in &tracks.health {
        if let Some(a) = model.anomalies.get(i) {
            let mut args = vec![Arg::Uint(ARG_COUNT, a.count)];
            if let Some(core) = a.core_id {
                args.push(Arg::Uint(ARG_CORE, core.into()));
            }
            if !a.detail.is_empty() {
                args.push(Arg::Str(ARG_DETAIL, &a.detail));
            }
            let name = seq.names.iid(a.kind.as_str());
            if a.start_ns < a.end_ns {
                // Spans never closed make a region that lasts to the end.
                let cut = a.kind == AnomalyKind::NeverClosed && a.end_ns >= model.info.duration_ns;
                seq.slice_or_open(track, a.start_ns, a.end_ns, cut, name, &args)?;
                counts.slices += 1;
            } else {
                seq.instant(track, a.end_ns, name, &args)?;
                counts.instants += 1;
            }
        }
    }
    let name = seq.names.iid(TRACE_END);
    seq.instant(tracks.trace_end, model.info.duration_ns, name, &[])?;
    counts.instants += 1;
    Ok(counts)
}

/// Writes a timeline item on its track (none when its track is not drawn),
/// its arguments named by `arg_iids`.
#[inline(always)]
fn write_item<'m, S: ChunkSink>(
    seq: &mut Sequence<'_, 'm, S>,
    (tracks, arg_iids): (&TrackUuids, &[u64; ArgName::ALL.len()]),
    names: &mut IidCache,
    item: Item<'m>,
    counts: &mut EventCounts,
) -> io::Result<()> {
    let Some(&Some(track)) = tracks.timeline.get(item.track as usize) else {
        return Ok(());
    };
    let mut args = [Arg::Bool(0, false); 2];
    let given = item.args.as_slice();
    for (arg, &(name, value)) in args.iter_mut().zip(given) {
        let iid = arg_iids[name as usize];
        *arg = match value {
            ArgValue::Uint(v) => Arg::Uint(iid, v),
            ArgValue::Int(v) => Arg::Int(iid, v),
            ArgValue::Bool(v) => Arg::Bool(iid, v),
            ArgValue::Str(v) => Arg::Str(iid, v),
        };
    }
    let args = &args[..given.len()];
    let name_key = item.name.key.map(|k| k as usize);
    match item.shape {
        Shape::Slice {
            start, end, open, ..
        } => {
            let name = names.iid(&mut seq.names, name_key, item.name.text);
            seq.slice_or_open(track, start, end, open, name, args)?;
            counts.slices += 1;
        }
        Shape::Instant(ts) => {
            let name = names.iid(&mut seq.names, name_key, item.name.text);
            seq.instant(track, ts, name, args)?;
            counts.instants += 1;
        }
        Shape::Counter(ts, value) => {
            seq.counter(track, ts, value)?;
            counts.counter_values += 1;
        }
    }
    Ok(())
}

/// The name of the instant at the end of the trace, on the trace health track.
pub const TRACE_END: &str = "end_of_trace";

/// Slots of the wait-name cache: by reason, then state.
const WAIT_STATES: usize = 8;
const WAIT_KEYS: usize = 32 * WAIT_STATES;

fn wait_key(s: &TaskState) -> Option<usize> {
    let (state, reason) = (s.state as usize, s.reason as usize);
    (state < WAIT_STATES).then_some(reason * WAIT_STATES + state)
}

/// The interned event names of the sequence.
#[derive(Default)]
struct Names<'m> {
    iids: IdMap<&'m str, u64>,
    /// Interned since the last packet, to be sent with the next one.
    new: Vec<(u64, &'m str)>,
}

impl<'m> Names<'m> {
    fn iid(&mut self, name: &'m str) -> u64 {
        let next = self.iids.len() as u64 + 1;
        *self.iids.entry(name).or_insert_with(|| {
            self.new.push((next, name));
            next
        })
    }
}

/// Iids already looked up, by a dense key of where their names come from, so
/// that each name is hashed once rather than once per event.
struct IidCache(Vec<Option<u64>>);

impl IidCache {
    fn new(keys: usize) -> Self {
        IidCache(vec![None; keys])
    }

    /// The iid of `name`, whose key is `key` (`None`: not cached).
    fn iid<'m>(&mut self, names: &mut Names<'m>, key: Option<usize>, name: &'m str) -> u64 {
        match key.and_then(|k| self.0.get_mut(k)) {
            Some(Some(iid)) => *iid,
            Some(slot) => *slot.insert(names.iid(name)),
            None => names.iid(name),
        }
    }
}

/// A track event to encode. Its kind (a `Type`, as `i32`) says which of the
/// fields it has; the fast path has it as a constant.
struct Event<'a> {
    track: u64,
    /// Of a slice begin or an instant.
    name_iid: u64,
    /// Of a counter.
    counter_value: i64,
    args: &'a [Arg<'a>],
}

const SLICE_BEGIN: i32 = Type::SliceBegin as i32;
const SLICE_END: i32 = Type::SliceEnd as i32;
const INSTANT: i32 = Type::Instant as i32;
const COUNTER: i32 = Type::Counter as i32;

/// The track-event packet sequence, with its interned names.
struct Sequence<'o, 'm, S: ChunkSink> {
    out: &'o mut PacketWriter<S>,
    names: Names<'m>,
    started: bool,
}

impl<'o, 'm, S: ChunkSink> Sequence<'o, 'm, S> {
    fn new(out: &'o mut PacketWriter<S>) -> Self {
        Sequence {
            out,
            names: Names::default(),
            started: false,
        }
    }

    /// Calls `write` with each row (through `for_each`, which reads a
    /// table's rows a run at a time, where `try_for_each` would read them
    /// one by one), counting the rows read; after an error, the rows left
    /// are only read.
    fn each_row<T>(
        &mut self,
        rows: impl Iterator<Item = T>,
        mut write: impl FnMut(&mut Self, T) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut written = Ok(());
        rows.for_each(|row| {
            self.out.rows_read += 1;
            if written.is_ok() {
                written = write(self, row);
            }
        });
        written
    }

    fn descriptor(&mut self, descriptor: &TrackDescriptor) -> io::Result<()> {
        self.write(None, None, Some(descriptor))
    }

    /// Writes a packet of this sequence, with the names interned since the last one.
    fn write(
        &mut self,
        timestamp: Option<u64>,
        event: Option<(i32, Event<'_>)>,
        descriptor: Option<&TrackDescriptor>,
    ) -> io::Result<()> {
        let started = std::mem::replace(&mut self.started, true);
        let new_names = &self.names.new;
        let mut max_len = PACKET_MAX;
        if let Some((_, event)) = &event {
            max_len += event.args.iter().map(Arg::max_len).sum::<usize>();
        }
        if !started || !new_names.is_empty() {
            max_len += interned_max_len(new_names, !started);
        }
        if let Some(d) = descriptor {
            max_len += d.encoded_len();
        }
        self.out.packet(max_len, |e| {
            if let Some(ts) = timestamp {
                e.uint(field::PACKET_TIMESTAMP, ts);
            }
            e.uint(field::PACKET_SEQUENCE_ID, TRACK_EVENT_SEQUENCE_ID.into());
            if let Some((kind, event)) = &event {
                encode_event(e, *kind, event);
            }
            let flags = if started {
                if !new_names.is_empty() {
                    encode_interned(e, new_names, false);
                }
                SEQ_NEEDS_INCREMENTAL_STATE
            } else {
                encode_interned(e, new_names, true);
                SEQ_INCREMENTAL_STATE_CLEARED
            };
            e.uint(field::PACKET_SEQUENCE_FLAGS, flags.into());
            if let Some(d) = descriptor {
                e.message(field::PACKET_TRACK_DESCRIPTOR, d);
            }
        })?;
        self.names.new.clear();
        Ok(())
    }

    /// Writes an event of kind `KIND` (a constant, so that each kind's
    /// encoder is compiled with only its own fields).
    #[inline(always)]
    fn event<const KIND: i32>(&mut self, ts: u64, event: Event<'_>) -> io::Result<()> {
        if !self.started || !self.names.new.is_empty() {
            return self.write(Some(ts), Some((KIND, event)), None);
        }
        // Almost every packet: an event whose names were sent before, so its
        // fields are those of `write` without interned data or descriptor,
        // and almost always short.
        let mut short_len = SHORT_EVENT_MAX;
        for arg in event.args {
            short_len += arg.short_max_len();
        }
        if short_len <= SHORT_MAX {
            return self
                .out
                .short_packet(|e| encode_event_packet(e, ts, KIND, &event));
        }
        let mut max_len = PACKET_MAX;
        for arg in event.args {
            max_len += arg.max_len();
        }
        self.out
            .packet(max_len, |e| encode_event_packet(e, ts, KIND, &event))
    }

    fn slice(
        &mut self,
        track: u64,
        start: u64,
        end: u64,
        name_iid: u64,
        args: &[Arg<'_>],
    ) -> io::Result<()> {
        self.open_slice(track, start, name_iid, args)?;
        self.event::<SLICE_END>(
            end,
            Event {
                track,
                name_iid: 0,
                counter_value: 0,
                args: &[],
            },
        )
    }

    /// A slice begun and never ended: Perfetto records it as not ended
    /// (`dur` -1), which is how a slice cut by the end of the trace is written.
    fn open_slice(
        &mut self,
        track: u64,
        start: u64,
        name_iid: u64,
        args: &[Arg<'_>],
    ) -> io::Result<()> {
        self.event::<SLICE_BEGIN>(
            start,
            Event {
                track,
                name_iid,
                counter_value: 0,
                args,
            },
        )
    }

    /// A slice that ends at `end`, or stays open when `cut` by the end of the trace.
    fn slice_or_open(
        &mut self,
        track: u64,
        start: u64,
        end: u64,
        cut: bool,
        name_iid: u64,
        args: &[Arg<'_>],
    ) -> io::Result<()> {
        if cut {
            self.open_slice(track, start, name_iid, args)
        } else {
            self.slice(track, start, end, name_iid, args)
        }
    }

    fn instant(&mut self, track: u64, ts: u64, name_iid: u64, args: &[Arg<'_>]) -> io::Result<()> {
        self.event::<INSTANT>(
            ts,
            Event {
                track,
                name_iid,
                counter_value: 0,
                args,
            },
        )
    }

    fn counter(&mut self, track: u64, ts: u64, value: i64) -> io::Result<()> {
        self.event::<COUNTER>(
            ts,
            Event {
                track,
                name_iid: 0,
                counter_value: value,
                args: &[],
            },
        )
    }
}

/// Bytes a track-event packet takes at most besides its arguments,
/// interned names and descriptor: its fields and those of the event.
const PACKET_MAX: usize = 10 * FIELD_MAX;

/// Bytes a track-event packet without arguments, interned names or
/// descriptor takes at most: its timestamp, sequence id, the event's key and
/// length, type, name, track and counter value, and the sequence flags.
const SHORT_EVENT_MAX: usize =
    (1 + VARINT_MAX) + 2 + 2 + 2 + (1 + VARINT_MAX) + (1 + VARINT_MAX) + (2 + VARINT_MAX) + 2;

impl Arg<'_> {
    fn text_len(&self) -> usize {
        match self {
            Arg::Str(_, s) => s.len(),
            _ => 0,
        }
    }

    /// Bytes the argument takes in an [`Encoder`]'s reckoning.
    fn max_len(&self) -> usize {
        3 * FIELD_MAX + self.text_len()
    }

    /// Bytes the argument takes at most: the annotation's key and length,
    /// its name and its value.
    fn short_max_len(&self) -> usize {
        2 + (1 + VARINT_MAX) + (1 + VARINT_MAX) + self.text_len()
    }
}

/// A track-event packet of the sequence whose names were all sent before.
#[inline(always)]
fn encode_event_packet(e: &mut impl Fields, ts: u64, kind: i32, event: &Event<'_>) {
    e.uint(field::PACKET_TIMESTAMP, ts);
    e.uint(field::PACKET_SEQUENCE_ID, TRACK_EVENT_SEQUENCE_ID.into());
    encode_event(e, kind, event);
    e.uint(
        field::PACKET_SEQUENCE_FLAGS,
        SEQ_NEEDS_INCREMENTAL_STATE.into(),
    );
}

#[inline(always)]
fn encode_event(e: &mut impl Fields, kind: i32, event: &Event<'_>) {
    let fields = e.begin(field::PACKET_TRACK_EVENT);
    for arg in event.args {
        let annotation = e.begin(field::EVENT_DEBUG_ANNOTATIONS);
        match *arg {
            Arg::Str(name, value) => {
                e.uint(field::ARG_NAME_IID, name);
                e.bytes(field::ARG_STRING, value.as_bytes());
            }
            Arg::Uint(name, value) => {
                e.uint(field::ARG_NAME_IID, name);
                e.uint(field::ARG_UINT, value);
            }
            Arg::Int(name, value) => {
                e.uint(field::ARG_NAME_IID, name);
                e.int(field::ARG_INT, value);
            }
            Arg::Bool(name, value) => {
                e.uint(field::ARG_NAME_IID, name);
                e.uint(field::ARG_BOOL, value.into());
            }
        }
        e.end(annotation);
    }
    e.uint(field::EVENT_TYPE, kind as u64);
    if kind == SLICE_BEGIN || kind == INSTANT {
        e.uint(field::EVENT_NAME_IID, event.name_iid);
    }
    e.uint(field::EVENT_TRACK_UUID, event.track);
    if kind == COUNTER {
        e.int(field::EVENT_COUNTER_VALUE, event.counter_value);
    }
    e.end(fields);
}

fn interned_max_len(event_names: &[(u64, &str)], with_arg_names: bool) -> usize {
    let arg_names: &[&str] = if with_arg_names { &ARG_NAMES } else { &[] };
    let names = event_names.iter().map(|(_, n)| n).chain(arg_names);
    FIELD_MAX + names.map(|n| 3 * FIELD_MAX + n.len()).sum::<usize>()
}

/// `InternedData` with the new event names, and with the argument names on
/// the sequence's first packet.
fn encode_interned(e: &mut Encoder<'_>, event_names: &[(u64, &str)], with_arg_names: bool) {
    let fields = e.begin(field::PACKET_INTERNED_DATA);
    let name = |e: &mut Encoder<'_>, field: u32, iid: u64, name: &str| {
        let entry = e.begin(field);
        e.uint(field::NAME_IID, iid);
        e.bytes(field::NAME_NAME, name.as_bytes());
        e.end(entry);
    };
    for &(iid, text) in event_names {
        name(e, field::INTERNED_EVENT_NAMES, iid, text);
    }
    if with_arg_names {
        for (iid, text) in (1..).zip(ARG_NAMES) {
            name(e, field::INTERNED_ARG_NAMES, iid, text);
        }
    }
    e.end(fields);
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;
    use tband_model::{
        Anomaly, AnomalyKind, Marker, MarkerInstant, MarkerKind, MarkerSpan, Queue, QueueKind,
        QueueOp, QueueOpKind, StateReason, StrId, TaskStateKind,
    };

    use crate::protos::{DebugAnnotation, EventName, InternedData, Trace, TracePacket, TrackEvent};

    fn model() -> Model {
        let mut m = Model::default();
        m.info.format = "tband".into();
        m.info.priority_order = tband_model::PriorityOrder::HigherIsMoreImportant;
        m.tasks = vec![crate::test_fixtures::worker_task()];
        m.markers = vec![
            Marker {
                marker_id: 1,
                task_id: None,
                kind: MarkerKind::Event,
                name: "boot".into(),
            },
            Marker {
                marker_id: 2,
                task_id: Some(4),
                kind: MarkerKind::Event,
                name: "job".into(),
            },
        ];
        let msg = m.strings.intern(b"step");
        for (start_ns, end_ns) in [(10, 20), (30, 40)] {
            m.marker_spans.push(MarkerSpan {
                start_ns,
                end_ns,
                marker: 1,
                msg,
                depth: 0,
                truncated: end_ns == 40,
            });
        }
        m.marker_instants.push(MarkerInstant {
            ts_ns: 5,
            marker: 0,
            msg: StrId::EMPTY,
        });
        m.queues = vec![Queue {
            queue_id: 9,
            name: "rx".into(),
            kind: QueueKind::Queue,
            capacity: Some(4),
            high_water: 1,
        }];
        for (ts_ns, op, len_after) in [
            (1, QueueOpKind::Send, Some(1)),
            (2, QueueOpKind::Receive, None),
        ] {
            m.queue_ops.push(QueueOp {
                ts_ns,
                queue: 0,
                op,
                from_isr: false,
                task: Some(0),
                core_id: 0,
                len_after,
            });
        }
        m
    }

    #[test]
    fn every_timeline_argument_has_an_interned_name() {
        for name in ArgName::ALL {
            assert_eq!(ARG_NAMES[arg_iid(name) as usize - 1], name.as_str());
        }
    }

    #[test]
    fn markers_and_levels_land_on_their_tracks_with_names_interned_once() {
        let m = model();
        let threads = Threads::new(&m);
        let mut w = PacketWriter::new(Vec::new());
        let counts = write_track_events(&m, &Timeline::new(&m), &threads, &mut w).unwrap();
        assert_eq!(
            counts,
            // The instants: a marker's and the end of the trace.
            EventCounts {
                slices: 2,
                instants: 2,
                counter_values: 1
            }
        );
        let trace = Trace::decode(w.finish().unwrap().as_slice()).unwrap();
        let packets = &trace.packet;
        assert_eq!(
            packets[0].sequence_flags,
            Some(SEQ_INCREMENTAL_STATE_CLEARED)
        );
        assert!(packets[1..]
            .iter()
            .all(|p| p.sequence_flags == Some(SEQ_NEEDS_INCREMENTAL_STATE)));

        let track = |name: &str| {
            packets
                .iter()
                .filter_map(|p| p.track_descriptor.as_ref())
                .find(|d| d.name.as_deref() == Some(name))
                .unwrap_or_else(|| panic!("no track {name}"))
        };
        let thread_uuid = packets
            .iter()
            .filter_map(|p| p.track_descriptor.as_ref())
            .find(|d| d.thread.is_some())
            .and_then(|d| d.uuid);
        // A task-local marker hangs under its task's thread track; a global
        // one in the Markers group.
        assert_eq!(track("job").parent_uuid, thread_uuid);
        assert_eq!(track("boot").parent_uuid, track("Markers").uuid);
        assert!(track("rx").counter.is_some());

        let names: Vec<_> = packets
            .iter()
            .filter_map(|p| p.interned_data.as_ref())
            .flat_map(|i| i.event_names.iter())
            .map(|n| n.name.as_deref().unwrap())
            .collect();
        assert_eq!(names, ["step", "boot", TRACE_END]);
        let job_events: Vec<_> = packets
            .iter()
            .filter_map(|p| Some((p.timestamp?, p.track_event.as_ref()?)))
            .filter(|(_, e)| e.track_uuid == track("job").uuid)
            .map(|(ts, e)| (ts, e.r#type(), e.name_iid, e.debug_annotations.len()))
            .collect();
        assert_eq!(
            job_events,
            [
                (10, Type::SliceBegin, Some(1), 0),
                (20, Type::SliceEnd, None, 0),
                // Cut by the end of the trace: begun and never ended.
                (30, Type::SliceBegin, Some(1), 0),
            ]
        );
    }

    #[test]
    fn hand_encoded_packets_are_the_messages_prost_would_encode() {
        let mut m = model();
        // A marker name long enough to need a two-byte length.
        m.markers[0].name = "boot ".repeat(60);
        m.task_states.push(TaskState {
            start_ns: 3,
            end_ns: 8,
            task: 0,
            state: TaskStateKind::Blocked,
            reason: StateReason::QueueReceive,
            queue: Some(0),
            core_id: None,
            woken_by_isr: None,
            truncated: false,
        });
        m.tasks[0].ever_waited = true;
        m.anomalies = vec![
            Anomaly {
                start_ns: 0,
                end_ns: 6,
                core_id: Some(0),
                kind: AnomalyKind::DroppedEvents,
                count: 3,
                detail: "ring buffer full".into(),
            },
            Anomaly {
                start_ns: 7,
                end_ns: 7,
                core_id: None,
                kind: AnomalyKind::InvalidFrame,
                count: 1,
                detail: String::new(),
            },
        ];
        let threads = Threads::new(&m);
        let mut w = PacketWriter::new(Vec::new());
        let counts = write_track_events(&m, &Timeline::new(&m), &threads, &mut w).unwrap();
        // The instants: an anomaly's, a marker's and the end of the trace.
        assert_eq!((counts.slices, counts.instants), (4, 3));
        let bytes = w.finish().unwrap();
        let trace = Trace::decode(bytes.as_slice()).unwrap();
        // Field order and lengths as prost writes them.
        assert_eq!(trace.encode_to_vec(), bytes);

        let wait_track = trace
            .packet
            .iter()
            .filter_map(|p| p.track_descriptor.as_ref())
            .find(|d| d.name.as_deref() == Some("Wait reason"))
            .and_then(|d| d.uuid);
        let wait = trace
            .packet
            .iter()
            .find(|p| {
                p.track_event
                    .as_ref()
                    .is_some_and(|e| e.track_uuid == wait_track)
            })
            .unwrap();
        let expected = TracePacket {
            timestamp: Some(3),
            trusted_packet_sequence_id: Some(TRACK_EVENT_SEQUENCE_ID),
            sequence_flags: Some(SEQ_NEEDS_INCREMENTAL_STATE),
            interned_data: Some(InternedData {
                event_names: vec![EventName {
                    iid: Some(1),
                    name: Some("queue_receive".into()),
                }],
                ..Default::default()
            }),
            track_event: Some(TrackEvent {
                r#type: Some(Type::SliceBegin as i32),
                track_uuid: wait_track,
                name_iid: Some(1),
                counter_value: None,
                debug_annotations: vec![DebugAnnotation {
                    name_iid: Some(ARG_QUEUE),
                    string_value: Some("rx".into()),
                    ..Default::default()
                }],
            }),
            ..Default::default()
        };
        assert_eq!(wait, &expected);

        let dropped = trace
            .packet
            .iter()
            .filter_map(|p| p.track_event.as_ref())
            .find(|e| e.debug_annotations.len() == 3)
            .unwrap();
        let args: Vec<_> = dropped
            .debug_annotations
            .iter()
            .map(|a| (a.name_iid, a.uint_value, a.string_value.as_deref()))
            .collect();
        assert_eq!(
            args,
            [
                (Some(ARG_COUNT), Some(3), None),
                (Some(ARG_CORE), Some(0), None),
                (Some(ARG_DETAIL), None, Some("ring buffer full")),
            ]
        );
    }
}
