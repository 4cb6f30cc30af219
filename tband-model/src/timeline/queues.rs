//! Queues on the timeline: in the group "Queues" a counter of the items in
//! each queue whose fill level is known, and in the group "Mutex holders"
//! a track per mutex with a slice for each task that held it, named by the
//! task.

use std::ops::Range;
use std::sync::Arc;

use super::{
    from_isr, rank, rows_in, task_name, Details, Item, Layer, Name, Section, TrackBuilder, TrackId,
    TrackKey, TrackKind, Unit,
};
use crate::Model;

pub(super) fn declare(m: &Model, tracks: &mut TrackBuilder) -> [Arc<dyn Layer>; 2] {
    let mut has_level = vec![false; m.queues.len()];
    m.queue_ops
        .iter()
        .filter(|op| op.len_after.is_some())
        .for_each(|op| {
            if let Some(has) = has_level.get_mut(op.queue as usize) {
                *has = true;
            }
        });
    let mut levels = vec![None; m.queues.len()];
    if has_level.contains(&true) {
        let g = super::Parent::Track(tracks.group("Queues"));
        for (i, q) in m.queues.iter().enumerate().filter(|(i, _)| has_level[*i]) {
            let description = format!(
                "Items in {} {} after each operation",
                q.kind.as_str(),
                q.name
            );
            let kind = TrackKind::Counter(Section::Levels, Unit::Count);
            let key = TrackKey::new("queue level", q.queue_id.into(), 0);
            levels[i] = Some(tracks.child(key, g, rank(i), &q.name, &description, kind));
        }
    }

    let mut has_hold = vec![false; m.queues.len()];
    m.mutex_holds.iter().for_each(|h| {
        if let Some(has) = has_hold.get_mut(h.queue as usize) {
            *has = true;
        }
    });
    let mut holders = vec![None; m.queues.len()];
    if has_hold.contains(&true) {
        let g = super::Parent::Track(tracks.group("Mutex holders"));
        for (i, q) in m.queues.iter().enumerate().filter(|(i, _)| has_hold[*i]) {
            let kind = TrackKind::Events(Section::Holders);
            let key = TrackKey::new("mutex holder", q.queue_id.into(), 0);
            let description = "Which task holds the mutex";
            holders[i] = Some(tracks.child(key, g, rank(i), &q.name, description, kind));
        }
    }
    [
        Arc::new(QueueLevels { tracks: levels }),
        Arc::new(MutexHolders { tracks: holders }),
    ]
}

/// The track of a row's queue (an index into the model's queues).
fn track(tracks: &[Option<TrackId>], queue: u32) -> Option<TrackId> {
    tracks.get(queue as usize).copied().flatten()
}

fn queue_name(m: &Model, queue: u32) -> String {
    m.queues
        .get(queue as usize)
        .map_or_else(String::new, |q| q.name.clone())
}

/// The fill levels.
struct QueueLevels {
    /// By queue index.
    tracks: Vec<Option<TrackId>>,
}

impl Layer for QueueLevels {
    fn len(&self, m: &Model) -> usize {
        m.queue_ops.len()
    }

    fn visit<'a>(
        &'a self,
        m: &'a Model,
        rows: Range<usize>,
        visit: &mut dyn FnMut(usize, Item<'a>),
    ) {
        rows_in(m.queue_ops.iter(), rows).for_each(|(i, op)| {
            let Some(len) = op.len_after else {
                return;
            };
            if let Some(track) = track(&self.tracks, op.queue) {
                visit(i, Item::counter(track, op.ts_ns, len.into()));
            }
        });
    }

    fn name_keys(&self, _: &Model) -> usize {
        0
    }

    fn name_of<'a>(&'a self, _: &'a Model, _: u32) -> &'a str {
        ""
    }

    fn describe(&self, m: &Model, row: usize, out: &mut Details) {
        let Some(op) = m.queue_ops.get(row) else {
            return;
        };
        out.push(("queue", queue_name(m, op.queue)));
        out.push(("op", format!("{}{}", op.op.as_str(), from_isr(op.from_isr))));
        out.push(("task", task_name(m, op.task)));
        if let Some(len) = op.len_after {
            out.push(("items", len.to_string()));
        }
    }
}

/// Who held each mutex.
struct MutexHolders {
    /// By queue index.
    tracks: Vec<Option<TrackId>>,
}

impl Layer for MutexHolders {
    fn len(&self, m: &Model) -> usize {
        m.mutex_holds.len()
    }

    fn visit<'a>(
        &'a self,
        m: &'a Model,
        rows: Range<usize>,
        visit: &mut dyn FnMut(usize, Item<'a>),
    ) {
        rows_in(m.mutex_holds.iter(), rows).for_each(|(i, h)| {
            let Some(track) = track(&self.tracks, h.queue) else {
                return;
            };
            let name = match m.tasks.get(h.task as usize) {
                Some(task) => Name::keyed(&task.name, h.task as usize),
                None => Name::NONE,
            };
            visit(
                i,
                Item::slice(track, h.start_ns, h.end_ns, h.truncated, name),
            );
        });
    }

    fn name_keys(&self, m: &Model) -> usize {
        m.tasks.len()
    }

    fn name_of<'a>(&'a self, m: &'a Model, key: u32) -> &'a str {
        m.tasks.get(key as usize).map_or("", |t| t.name.as_str())
    }

    fn describe(&self, m: &Model, row: usize, out: &mut Details) {
        if let Some(h) = m.mutex_holds.get(row) {
            out.push(("mutex", queue_name(m, h.queue)));
            out.push(("task", task_name(m, Some(h.task))));
        }
    }
}
