//! The RTOS objects beside queues on the timeline: a track "Notifications"
//! under each notified task, and in groups of their own a track per event
//! group and per software timer (instants named by what happened) and a
//! counter of the bytes in each stream buffer.

use std::ops::Range;
use std::sync::Arc;

use super::{
    from_isr, index_of, rank, rows_in, task_name, task_name_by_id, Details, Item, Layer, Name,
    Parent, Section, TrackBuilder, TrackId, TrackKey, TrackKind, Unit,
};
use crate::{EventGroupOp, EventGroupOpKind, Model, NotificationOp, TimerOp, TimerOpKind};

pub(super) fn declare(
    m: &Model,
    task_tracks: &[Option<TrackId>],
    tracks: &mut TrackBuilder,
) -> [Arc<dyn Layer>; 4] {
    let o = &m.rtos_objects;
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
        Arc::new(Operations {
            tracks: event_groups,
            of: &EVENT_GROUP_OPS,
        }),
        Arc::new(StreamBuffers {
            tracks: stream_buffers,
        }),
        Arc::new(Operations {
            tracks: timers,
            of: &TIMER_OPS,
        }),
    ]
}

struct Notifications {
    /// By task index.
    tracks: Vec<Option<TrackId>>,
}

impl Layer for Notifications {
    fn len(&self, m: &Model) -> usize {
        m.rtos_objects.notifications.len()
    }

    fn visit<'a>(
        &'a self,
        m: &'a Model,
        rows: Range<usize>,
        visit: &mut dyn FnMut(usize, Item<'a>),
    ) {
        for (i, n) in rows_in(m.rtos_objects.notifications.iter(), rows) {
            let task = index_of(&m.tasks, n.task_id, |t| t.task_id);
            let Some(track) = task.and_then(|t| self.tracks[t]) else {
                continue;
            };
            let name = match (n.op, n.from_isr) {
                (NotificationOp::Given, true) => Name::keyed("given from ISR", 2),
                (op, _) => Name::keyed(op.as_str(), op as usize),
            };
            visit(i, Item::instant(track, n.ts_ns, name));
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
        let Some(n) = m.rtos_objects.notifications.get(row) else {
            return;
        };
        let op = format!("{}{}", n.op.as_str(), from_isr(n.from_isr));
        out.push(("notification", op));
        out.push(("task", task_name_by_id(m, Some(n.task_id))));
        out.push(("value", n.value.to_string()));
        if n.by_task_id.is_some() {
            out.push(("by task", task_name_by_id(m, n.by_task_id)));
        }
    }
}

/// Operations on the objects of a list (event groups, timers): each an
/// instant on its object's track, named by what was done.
struct Operations<Op: 'static> {
    /// By index in the list of objects.
    tracks: Vec<TrackId>,
    of: &'static OperationsOf<Op>,
}

/// Where one kind of operations is and what its rows say.
struct OperationsOf<Op> {
    ops: fn(&Model) -> &[Op],
    /// The index of the operation's object in its list.
    object: fn(&Model, &Op) -> Option<usize>,
    ts: fn(&Op) -> u64,
    /// The operation's name, by its key (below `names`).
    key: fn(&Op) -> usize,
    name_of: fn(usize) -> &'static str,
    names: usize,
    describe: fn(&Model, &Op, &mut Details),
}

const EVENT_GROUP_OPS: OperationsOf<EventGroupOp> = OperationsOf {
    ops: |m| &m.rtos_objects.event_group_ops,
    object: |m, e| Some(e.group as usize).filter(|&g| g < m.rtos_objects.event_groups.len()),
    ts: |e| e.ts_ns,
    key: |e| e.op as usize,
    name_of: |key| EventGroupOpKind::ALL.get(key).map_or("", |op| op.as_str()),
    names: EventGroupOpKind::ALL.len(),
    describe: |m, e, out| {
        let group = m.rtos_objects.event_groups.get(e.group as usize);
        out.push((
            "event group",
            group.map_or_else(String::new, |g| g.name.clone()),
        ));
        out.push(("op", format!("{}{}", e.op.as_str(), from_isr(e.from_isr))));
        out.push(("bits", format!("{:#x}", e.bits)));
        out.push(("task", task_name(m, e.task)));
    },
};

const TIMER_OPS: OperationsOf<TimerOp> = OperationsOf {
    ops: |m| &m.rtos_objects.timer_ops,
    object: |m, op| Some(op.timer as usize).filter(|&t| t < m.rtos_objects.timers.len()),
    ts: |op| op.ts_ns,
    key: |op| op.op as usize,
    name_of: |key| TimerOpKind::ALL.get(key).map_or("", |op| op.as_str()),
    names: TimerOpKind::ALL.len(),
    describe: |m, op, out| {
        let timer = m.rtos_objects.timers.get(op.timer as usize);
        out.push(("timer", timer.map_or_else(String::new, |t| t.name.clone())));
        out.push(("op", format!("{}{}", op.op.as_str(), from_isr(op.from_isr))));
        out.push(("task", task_name(m, op.task)));
    },
};

impl<Op: Send + Sync> Layer for Operations<Op> {
    fn len(&self, m: &Model) -> usize {
        (self.of.ops)(m).len()
    }

    fn visit<'a>(
        &'a self,
        m: &'a Model,
        rows: Range<usize>,
        visit: &mut dyn FnMut(usize, Item<'a>),
    ) {
        let of = self.of;
        for (i, op) in rows_in((of.ops)(m).iter(), rows) {
            if let Some(object) = (of.object)(m, op) {
                let key = (of.key)(op);
                let name = Name::keyed((of.name_of)(key), key);
                visit(i, Item::instant(self.tracks[object], (of.ts)(op), name));
            }
        }
    }

    fn name_keys(&self, _: &Model) -> usize {
        self.of.names
    }

    fn name_of<'a>(&'a self, _: &'a Model, key: u32) -> &'a str {
        (self.of.name_of)(key as usize)
    }

    fn describe(&self, m: &Model, row: usize, out: &mut Details) {
        if let Some(op) = (self.of.ops)(m).get(row) {
            (self.of.describe)(m, op, out);
        }
    }
}

struct StreamBuffers {
    /// By index in `objects.stream_buffers`.
    tracks: Vec<TrackId>,
}

impl Layer for StreamBuffers {
    fn len(&self, m: &Model) -> usize {
        m.rtos_objects.stream_buffer_ops.len()
    }

    fn visit<'a>(
        &'a self,
        m: &'a Model,
        rows: Range<usize>,
        visit: &mut dyn FnMut(usize, Item<'a>),
    ) {
        let o = &m.rtos_objects;
        for (i, s) in rows_in(o.stream_buffer_ops.iter(), rows) {
            if let Some(&track) = self.tracks.get(s.buffer as usize) {
                visit(i, Item::counter(track, s.ts_ns, s.bytes_after.into()));
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
        let o = &m.rtos_objects;
        let Some(s) = o.stream_buffer_ops.get(row) else {
            return;
        };
        let buffer = o.stream_buffers.get(s.buffer as usize);
        out.push((
            "stream buffer",
            buffer.map_or_else(String::new, |b| b.name.clone()),
        ));
        out.push(("op", format!("{}{}", s.op.as_str(), from_isr(s.from_isr))));
        out.push(("task", task_name(m, s.task)));
        out.push(("bytes", s.bytes_after.to_string()));
    }
}
