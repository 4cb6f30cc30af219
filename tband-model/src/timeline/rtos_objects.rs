//! The RTOS objects beside queues on the timeline: a track "Notifications"
//! under each notified task, and in groups of their own a track per event
//! group and per software timer (instants named by what happened) and a
//! counter of the bytes in each stream buffer.

use std::ops::Range;
use std::sync::Arc;

use super::{
    from_isr, index_of, rank, rows_in, task_name, Args, Details, Item, Layer, Name, Parent,
    Section, Shape, TrackBuilder, TrackId, TrackKey, TrackKind, Unit,
};
use crate::{EventGroupOpKind, Model, NotificationOp, TimerOpKind};

pub(super) fn declare(
    m: &Model,
    task_tracks: &[Option<TrackId>],
    tracks: &mut TrackBuilder,
) -> [Arc<dyn Layer>; 4] {
    let o = &m.objects;
    let mut notifications = vec![None; m.tasks.len()];
    for n in &o.notifications {
        let Some(i) = index_of(&m.tasks, n.task_id, |t| t.task_id) else {
            continue;
        };
        if notifications[i].is_none() && task_tracks[i].is_some() {
            notifications[i] = Some(tracks.child(
                TrackKey::new("notifications", n.task_id.into(), 0),
                Parent::Task(i as u32),
                2,
                "Notifications",
                "Notifications given to and taken by the task",
                TrackKind::Events(Section::RtosObjects),
            ));
        }
    }
    let mut event_groups = Vec::new();
    if !o.event_groups.is_empty() {
        let g = Parent::Track(tracks.group("Event groups"));
        for (i, e) in o.event_groups.iter().enumerate() {
            let description = "Bits set and cleared, and the ends of waits for them";
            let kind = TrackKind::Events(Section::RtosObjects);
            let key = TrackKey::new("event group", e.group_id.into(), 0);
            event_groups.push(tracks.child(key, g, rank(i), &e.name, description, kind));
        }
    }
    let mut stream_buffers = Vec::new();
    if !o.stream_buffers.is_empty() {
        let g = Parent::Track(tracks.group("Stream buffers"));
        for (i, b) in o.stream_buffers.iter().enumerate() {
            let description = format!(
                "Bytes in {} {} after each operation",
                b.kind.as_str(),
                b.name
            );
            let kind = TrackKind::Counter(Section::RtosObjects, Unit::Bytes);
            let key = TrackKey::new("stream buffer", b.buffer_id.into(), 0);
            stream_buffers.push(tracks.child(key, g, rank(i), &b.name, &description, kind));
        }
    }
    let mut timers = Vec::new();
    if !o.timers.is_empty() {
        let g = Parent::Track(tracks.group("Timers"));
        for (i, t) in o.timers.iter().enumerate() {
            let description = "Commands sent to the software timer, and its expiries";
            let kind = TrackKind::Events(Section::RtosObjects);
            let key = TrackKey::new("timer", t.timer_id.into(), 0);
            timers.push(tracks.child(key, g, rank(i), &t.name, description, kind));
        }
    }
    [
        Arc::new(Notifications {
            tracks: notifications,
        }),
        Arc::new(EventGroups {
            tracks: event_groups,
        }),
        Arc::new(StreamBuffers {
            tracks: stream_buffers,
        }),
        Arc::new(Timers { tracks: timers }),
    ]
}

fn instant(track: TrackId, ts_ns: u64, name: Name<'_>) -> Item<'_> {
    Item {
        track,
        shape: Shape::Instant(ts_ns),
        name,
        args: Args::NONE,
    }
}

struct Notifications {
    /// By task index.
    tracks: Vec<Option<TrackId>>,
}

impl Layer for Notifications {
    fn len(&self, m: &Model) -> usize {
        m.objects.notifications.len()
    }

    fn visit<'a>(
        &'a self,
        m: &'a Model,
        rows: Range<usize>,
        visit: &mut dyn FnMut(usize, Item<'a>),
    ) {
        for (i, n) in rows_in(m.objects.notifications.iter(), rows) {
            let task = index_of(&m.tasks, n.task_id, |t| t.task_id);
            let Some(track) = task.and_then(|t| self.tracks[t]) else {
                continue;
            };
            let name = match (n.op, n.from_isr) {
                (NotificationOp::Given, true) => Name::keyed("given from ISR", 2),
                (op, _) => Name::keyed(op.as_str(), op as usize),
            };
            visit(i, instant(track, n.ts_ns, name));
        }
    }

    fn name_keys(&self, _: &Model) -> usize {
        3
    }

    fn name_of<'a>(&'a self, _: &'a Model, key: u32) -> &'a str {
        match key {
            0 => NotificationOp::Given.as_str(),
            1 => NotificationOp::Taken.as_str(),
            2 => "given from ISR",
            _ => "",
        }
    }

    fn describe(&self, m: &Model, row: usize, out: &mut Details) {
        let Some(n) = m.objects.notifications.get(row) else {
            return;
        };
        let op = format!("{}{}", n.op.as_str(), from_isr(n.from_isr));
        out.push(("notification", op));
        out.push(("task", task_name(m, Some(n.task_id))));
        out.push(("value", n.value.to_string()));
        if n.by_task_id.is_some() {
            out.push(("by task", task_name(m, n.by_task_id)));
        }
    }
}

struct EventGroups {
    /// By index in `objects.event_groups`.
    tracks: Vec<TrackId>,
}

impl Layer for EventGroups {
    fn len(&self, m: &Model) -> usize {
        m.objects.event_group_ops.len()
    }

    fn visit<'a>(
        &'a self,
        m: &'a Model,
        rows: Range<usize>,
        visit: &mut dyn FnMut(usize, Item<'a>),
    ) {
        let o = &m.objects;
        for (i, e) in rows_in(o.event_group_ops.iter(), rows) {
            if let Some(g) = index_of(&o.event_groups, e.group_id, |g| g.group_id) {
                let name = Name::keyed(e.op.as_str(), e.op as usize);
                visit(i, instant(self.tracks[g], e.ts_ns, name));
            }
        }
    }

    fn name_keys(&self, _: &Model) -> usize {
        EventGroupOpKind::ALL.len()
    }

    fn name_of<'a>(&'a self, _: &'a Model, key: u32) -> &'a str {
        EventGroupOpKind::ALL
            .get(key as usize)
            .map_or("", |op| op.as_str())
    }

    fn describe(&self, m: &Model, row: usize, out: &mut Details) {
        let o = &m.objects;
        let Some(e) = o.event_group_ops.get(row) else {
            return;
        };
        let name = (o.event_group(e.group_id))
            .map_or(format!("event group {}", e.group_id), |g| g.name.clone());
        out.push(("event group", name));
        out.push(("op", format!("{}{}", e.op.as_str(), from_isr(e.from_isr))));
        out.push(("bits", format!("{:#x}", e.bits)));
        out.push(("task", task_name(m, e.task_id)));
    }
}

struct StreamBuffers {
    /// By index in `objects.stream_buffers`.
    tracks: Vec<TrackId>,
}

impl Layer for StreamBuffers {
    fn len(&self, m: &Model) -> usize {
        m.objects.stream_buffer_ops.len()
    }

    fn visit<'a>(
        &'a self,
        m: &'a Model,
        rows: Range<usize>,
        visit: &mut dyn FnMut(usize, Item<'a>),
    ) {
        let o = &m.objects;
        for (i, s) in rows_in(o.stream_buffer_ops.iter(), rows) {
            if let Some(b) = index_of(&o.stream_buffers, s.buffer_id, |b| b.buffer_id) {
                visit(
                    i,
                    Item {
                        track: self.tracks[b],
                        shape: Shape::Counter(s.ts_ns, s.bytes_after.into()),
                        name: Name::NONE,
                        args: Args::NONE,
                    },
                );
            }
        }
    }

    fn name_keys(&self, _: &Model) -> usize {
        0
    }

    fn name_of<'a>(&'a self, _: &'a Model, _: u32) -> &'a str {
        ""
    }

    fn describe(&self, m: &Model, row: usize, out: &mut Details) {
        let o = &m.objects;
        let Some(s) = o.stream_buffer_ops.get(row) else {
            return;
        };
        let name = (o.stream_buffer(s.buffer_id))
            .map_or(format!("stream buffer {}", s.buffer_id), |b| b.name.clone());
        out.push(("stream buffer", name));
        out.push(("op", format!("{}{}", s.op.as_str(), from_isr(s.from_isr))));
        out.push(("task", task_name(m, s.task_id)));
        out.push(("bytes", s.bytes_after.to_string()));
    }
}

struct Timers {
    /// By index in `objects.timers`.
    tracks: Vec<TrackId>,
}

impl Layer for Timers {
    fn len(&self, m: &Model) -> usize {
        m.objects.timer_ops.len()
    }

    fn visit<'a>(
        &'a self,
        m: &'a Model,
        rows: Range<usize>,
        visit: &mut dyn FnMut(usize, Item<'a>),
    ) {
        let o = &m.objects;
        for (i, op) in rows_in(o.timer_ops.iter(), rows) {
            if let Some(t) = index_of(&o.timers, op.timer_id, |t| t.timer_id) {
                let name = Name::keyed(op.op.as_str(), op.op as usize);
                visit(i, instant(self.tracks[t], op.ts_ns, name));
            }
        }
    }

    fn name_keys(&self, _: &Model) -> usize {
        TimerOpKind::ALL.len()
    }

    fn name_of<'a>(&'a self, _: &'a Model, key: u32) -> &'a str {
        TimerOpKind::ALL
            .get(key as usize)
            .map_or("", |op| op.as_str())
    }

    fn describe(&self, m: &Model, row: usize, out: &mut Details) {
        let o = &m.objects;
        let Some(op) = o.timer_ops.get(row) else {
            return;
        };
        let name =
            (o.timer(op.timer_id)).map_or(format!("timer {}", op.timer_id), |t| t.name.clone());
        out.push(("timer", name));
        out.push(("op", format!("{}{}", op.op.as_str(), from_isr(op.from_isr))));
        out.push(("task", task_name(m, op.task_id)));
    }
}
