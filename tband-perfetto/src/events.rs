//! Everything that is not scheduling, as TrackEvents on the tracks of
//! [`crate::tracks`]: marker spans, instants and values, wait reasons, task
//! priorities, queue fill levels, mutex holders and anomalies.
//!
//! All of it is one packet sequence. Event names and argument names are
//! interned: each string is sent once, and packets refer to it by number.

use std::collections::HashMap;
use std::io::{self, Write};

use tband_decode::model::{MarkerKind, Model, StrId};

use crate::protos::track_event::Type;
use crate::protos::{
    DebugAnnotation, DebugAnnotationName, EventName, InternedData, TracePacket, TrackEvent,
};
use crate::threads::Threads;
use crate::tracks::{is_wait, Tracks};
use crate::writer::PacketWriter;
use crate::TRACK_EVENT_SEQUENCE_ID;

/// Sequence flags of `TracePacket`.
const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;
const SEQ_NEEDS_INCREMENTAL_STATE: u32 = 2;

/// Argument names, interned with iid = position + 1.
const ARG_NAMES: [&str; 5] = ["queue", "count", "detail", "core", "truncated"];
const ARG_QUEUE: u64 = 1;
const ARG_COUNT: u64 = 2;
const ARG_DETAIL: u64 = 3;
const ARG_CORE: u64 = 4;
const ARG_TRUNCATED: u64 = 5;

/// What the track events hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventCounts {
    pub slices: u64,
    pub instants: u64,
    pub counter_values: u64,
}

/// Writes the track descriptors and then every track event.
pub fn write_track_events<W: Write>(
    model: &Model,
    threads: &Threads<'_>,
    out: &mut PacketWriter<W>,
) -> io::Result<EventCounts> {
    let (tracks, descriptors) = Tracks::new(model, threads);
    let mut seq = Sequence::new(out);
    for d in descriptors {
        seq.write(TracePacket {
            track_descriptor: Some(d),
            ..Default::default()
        })?;
    }
    let mut counts = EventCounts::default();

    for s in model.task_states.iter().filter(|s| is_wait(s.state)) {
        let Some(track) = threads.task_index(s.task_id).and_then(|i| tracks.wait[i]) else {
            continue;
        };
        let reason = s.reason.as_str();
        let name = if reason.is_empty() {
            s.state.as_str()
        } else {
            reason
        };
        let mut args = Vec::new();
        if let Some(q) = s.queue_id.and_then(|q| model.queue(q)) {
            args.push(arg_str(ARG_QUEUE, &q.name));
        }
        seq.slice(track, s.start_ns, s.end_ns, name, args)?;
        counts.slices += 1;
    }

    for p in &model.task_priorities {
        if let Some(track) = threads
            .task_index(p.task_id)
            .and_then(|i| tracks.priority[i])
        {
            seq.counter(track, p.ts_ns, p.priority.into())?;
            counts.counter_values += 1;
        }
    }

    for s in &model.marker_spans {
        let Some((track, marker)) = tracks.marker(s.marker_id, s.task_id, MarkerKind::Event) else {
            continue;
        };
        let name = message_or_marker_name(model, s.msg, marker);
        let args = if s.truncated {
            vec![arg_bool(ARG_TRUNCATED, true)]
        } else {
            Vec::new()
        };
        seq.slice(track, s.start_ns, s.end_ns, name, args)?;
        counts.slices += 1;
    }
    for i in &model.marker_instants {
        if let Some((track, marker)) = tracks.marker(i.marker_id, i.task_id, MarkerKind::Event) {
            let name = message_or_marker_name(model, i.msg, marker);
            seq.instant(track, i.ts_ns, name, Vec::new())?;
            counts.instants += 1;
        }
    }
    for v in &model.marker_values {
        if let Some((track, _)) = tracks.marker(v.marker_id, v.task_id, MarkerKind::Value) {
            seq.counter(track, v.ts_ns, v.value)?;
            counts.counter_values += 1;
        }
    }

    for op in &model.queue_ops {
        let track = model
            .queues
            .binary_search_by_key(&op.queue_id, |q| q.queue_id)
            .ok()
            .and_then(|i| tracks.queue_level[i]);
        if let (Some(track), Some(len)) = (track, op.len_after) {
            seq.counter(track, op.ts_ns, len.into())?;
            counts.counter_values += 1;
        }
    }

    for h in &model.mutex_holds {
        let track = model
            .queues
            .binary_search_by_key(&h.queue_id, |q| q.queue_id)
            .ok()
            .and_then(|i| tracks.mutex[i]);
        if let Some(track) = track {
            let args = if h.truncated {
                vec![arg_bool(ARG_TRUNCATED, true)]
            } else {
                Vec::new()
            };
            seq.slice(track, h.start_ns, h.end_ns, threads.comm(h.task_id), args)?;
            counts.slices += 1;
        }
    }

    if let Some(track) = tracks.health {
        for a in &model.anomalies {
            let mut args = vec![arg_uint(ARG_COUNT, a.count)];
            if let Some(core) = a.core_id {
                args.push(arg_uint(ARG_CORE, core.into()));
            }
            if !a.detail.is_empty() {
                args.push(arg_str(ARG_DETAIL, &a.detail));
            }
            if a.start_ns < a.end_ns {
                seq.slice(track, a.start_ns, a.end_ns, a.kind.as_str(), args)?;
                counts.slices += 1;
            } else {
                seq.instant(track, a.end_ns, a.kind.as_str(), args)?;
                counts.instants += 1;
            }
        }
    }
    Ok(counts)
}

/// A marker event's name: its message, or the marker's name when it has none.
fn message_or_marker_name(model: &Model, msg: StrId, marker_index: usize) -> &str {
    let text = model.strings.get(msg);
    if !text.is_empty() {
        return text;
    }
    model
        .markers
        .get(marker_index)
        .map_or("", |m| m.name.as_str())
}

fn arg_str(name_iid: u64, value: &str) -> DebugAnnotation {
    DebugAnnotation {
        name_iid: Some(name_iid),
        string_value: Some(value.to_owned()),
        ..Default::default()
    }
}

fn arg_uint(name_iid: u64, value: u64) -> DebugAnnotation {
    DebugAnnotation {
        name_iid: Some(name_iid),
        uint_value: Some(value),
        ..Default::default()
    }
}

fn arg_bool(name_iid: u64, value: bool) -> DebugAnnotation {
    DebugAnnotation {
        name_iid: Some(name_iid),
        bool_value: Some(value),
        ..Default::default()
    }
}

/// The track-event packet sequence, with its interned event names.
struct Sequence<'o, 'm, W: Write> {
    out: &'o mut PacketWriter<W>,
    names: HashMap<&'m str, u64>,
    new_names: Vec<EventName>,
    started: bool,
}

impl<'o, 'm, W: Write> Sequence<'o, 'm, W> {
    fn new(out: &'o mut PacketWriter<W>) -> Self {
        Sequence {
            out,
            names: HashMap::new(),
            new_names: Vec::new(),
            started: false,
        }
    }

    /// Writes a packet of this sequence, with the names interned since the last one.
    fn write(&mut self, mut packet: TracePacket) -> io::Result<()> {
        packet.trusted_packet_sequence_id = Some(TRACK_EVENT_SEQUENCE_ID);
        if self.started {
            packet.sequence_flags = Some(SEQ_NEEDS_INCREMENTAL_STATE);
            if !self.new_names.is_empty() {
                packet.interned_data = Some(InternedData {
                    event_names: std::mem::take(&mut self.new_names),
                    ..Default::default()
                });
            }
        } else {
            self.started = true;
            packet.sequence_flags = Some(SEQ_INCREMENTAL_STATE_CLEARED);
            packet.interned_data = Some(InternedData {
                event_names: std::mem::take(&mut self.new_names),
                debug_annotation_names: ARG_NAMES
                    .iter()
                    .zip(1..)
                    .map(|(name, iid)| DebugAnnotationName {
                        iid: Some(iid),
                        name: Some((*name).to_owned()),
                    })
                    .collect(),
            });
        }
        self.out.write(&packet)
    }

    fn name_iid(&mut self, name: &'m str) -> u64 {
        let next = self.names.len() as u64 + 1;
        *self.names.entry(name).or_insert_with(|| {
            self.new_names.push(EventName {
                iid: Some(next),
                name: Some(name.to_owned()),
            });
            next
        })
    }

    fn event(
        &mut self,
        ts: u64,
        kind: Type,
        track: u64,
        name: Option<&'m str>,
        counter_value: Option<i64>,
        args: Vec<DebugAnnotation>,
    ) -> io::Result<()> {
        let name_iid = name.map(|n| self.name_iid(n));
        self.write(TracePacket {
            timestamp: Some(ts),
            track_event: Some(TrackEvent {
                r#type: Some(kind as i32),
                track_uuid: Some(track),
                name_iid,
                counter_value,
                debug_annotations: args,
            }),
            ..Default::default()
        })
    }

    fn slice(
        &mut self,
        track: u64,
        start: u64,
        end: u64,
        name: &'m str,
        args: Vec<DebugAnnotation>,
    ) -> io::Result<()> {
        self.event(start, Type::SliceBegin, track, Some(name), None, args)?;
        self.event(end, Type::SliceEnd, track, None, None, Vec::new())
    }

    fn instant(
        &mut self,
        track: u64,
        ts: u64,
        name: &'m str,
        args: Vec<DebugAnnotation>,
    ) -> io::Result<()> {
        self.event(ts, Type::Instant, track, Some(name), None, args)
    }

    fn counter(&mut self, track: u64, ts: u64, value: i64) -> io::Result<()> {
        self.event(ts, Type::Counter, track, None, Some(value), Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;
    use tband_decode::model::{
        Marker, MarkerInstant, MarkerSpan, Queue, QueueKind, QueueOp, QueueOpKind, Task, TaskKind,
    };

    use crate::protos::Trace;

    fn model() -> Model {
        let mut m = Model::default();
        m.info.format = "tband".into();
        m.tasks = vec![Task {
            task_id: 4,
            name: "worker".into(),
            kind: TaskKind::Normal,
            created_ns: None,
            deleted_ns: None,
            stack_size: None,
        }];
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
                marker_id: 2,
                task_id: Some(4),
                msg,
                depth: 0,
                truncated: end_ns == 40,
            });
        }
        m.marker_instants.push(MarkerInstant {
            ts_ns: 5,
            marker_id: 1,
            task_id: None,
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
                queue_id: 9,
                op,
                from_isr: false,
                task_id: Some(4),
                core_id: 0,
                len_after,
            });
        }
        m
    }

    #[test]
    fn markers_and_levels_land_on_their_tracks_with_names_interned_once() {
        let m = model();
        let threads = Threads::new(&m);
        let mut w = PacketWriter::new(Vec::new());
        let counts = write_track_events(&m, &threads, &mut w).unwrap();
        assert_eq!(
            counts,
            EventCounts {
                slices: 2,
                instants: 1,
                counter_values: 1
            }
        );
        let trace = Trace::decode(w.into_inner().as_slice()).unwrap();
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
        assert_eq!(names, ["step", "boot"]);
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
                (30, Type::SliceBegin, Some(1), 1),
                (40, Type::SliceEnd, None, 0),
            ]
        );
    }
}
