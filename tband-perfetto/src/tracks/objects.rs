//! The tracks of notifications, event groups, stream buffers and timers:
//! a "Notifications" track under each notified task, a group of instant
//! tracks per event group and per timer, and a group of byte counters, one
//! per stream buffer. Each exists only where the model has rows for it.

use tband_model::Model;

use super::{rank, Describer};
use crate::protos::counter_descriptor::Unit;
use crate::threads::Threads;

/// Track uuids of the objects.
pub struct ObjectTracks {
    /// Notification instants, by task index.
    pub notifications: Vec<Option<u64>>,
    /// By index in the model's lists of event groups, stream buffers, timers.
    pub event_groups: Vec<u64>,
    pub stream_buffers: Vec<u64>,
    pub timers: Vec<u64>,
}

impl ObjectTracks {
    /// Describes the tracks; `thread` is each task's track (none for idle
    /// tasks), `group` adds a top-level group.
    pub(super) fn new(
        model: &Model,
        threads: &Threads<'_>,
        thread: &[Option<u64>],
        d: &mut Describer,
        group: &mut impl FnMut(&mut Describer, &str) -> u64,
    ) -> ObjectTracks {
        let objects = &model.objects;
        let mut notifications = vec![None; model.tasks.len()];
        for n in &objects.notifications {
            let Some(i) = threads.task_index(n.task_id) else {
                continue;
            };
            if let (Some(None), Some(&Some(t))) = (notifications.get(i), thread.get(i)) {
                notifications[i] = Some(d.child(
                    t,
                    2,
                    "Notifications",
                    "Notifications given to and taken by the task",
                ));
            }
        }
        let mut event_groups = Vec::new();
        if !objects.event_groups.is_empty() {
            let g = group(d, "Event groups");
            for (i, e) in objects.event_groups.iter().enumerate() {
                let desc = "Bits set and cleared, and the ends of waits for them";
                event_groups.push(d.child(g, rank(i), &e.name, desc));
            }
        }
        let mut stream_buffers = Vec::new();
        if !objects.stream_buffers.is_empty() {
            let g = group(d, "Stream buffers");
            for (i, b) in objects.stream_buffers.iter().enumerate() {
                let desc = format!(
                    "Bytes in {} {} after each operation",
                    b.kind.as_str(),
                    b.name
                );
                stream_buffers.push(d.counter(g, rank(i), &b.name, &desc, Unit::SizeBytes));
            }
        }
        let mut timers = Vec::new();
        if !objects.timers.is_empty() {
            let g = group(d, "Timers");
            for (i, t) in objects.timers.iter().enumerate() {
                let desc = "Commands sent to the software timer, and its expiries";
                timers.push(d.child(g, rank(i), &t.name, desc));
            }
        }
        ObjectTracks {
            notifications,
            event_groups,
            stream_buffers,
            timers,
        }
    }
}
