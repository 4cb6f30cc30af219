//! The track events of notifications, event groups, stream buffers and
//! timers: instants named by what happened, and stream buffer fill levels
//! as counter values.

use std::io;

use tband_model::{Model, NotificationOp};

use super::{EventCounts, Sequence};
use crate::threads::Threads;
use crate::tracks::Tracks;
use crate::writer::ChunkSink;

/// The rows [`write`] reads.
pub(super) fn rows(model: &Model) -> usize {
    let o = &model.objects;
    o.notifications.len() + o.event_group_ops.len() + o.stream_buffer_ops.len() + o.timer_ops.len()
}

/// The position of the object with `id` in a list sorted by id.
fn index<T>(list: &[T], id: u32, id_of: impl Fn(&T) -> u32) -> Option<usize> {
    list.binary_search_by_key(&id, id_of).ok()
}

pub(super) fn write<S: ChunkSink>(
    model: &Model,
    threads: &Threads<'_>,
    tracks: &Tracks,
    seq: &mut Sequence<'_, '_, S>,
    counts: &mut EventCounts,
) -> io::Result<()> {
    let o = &model.objects;
    let t = &tracks.objects;
    seq.each_row(o.notifications.iter(), |seq, n| {
        let track = threads
            .task_index(n.task_id)
            .and_then(|i| t.notifications[i]);
        if let Some(track) = track {
            let name = match (n.op, n.from_isr) {
                (NotificationOp::Given, true) => "given from ISR",
                (op, _) => op.as_str(),
            };
            let name = seq.names.iid(name);
            seq.instant(track, n.ts_ns, name, &[])?;
            counts.instants += 1;
        }
        Ok(())
    })?;
    seq.each_row(o.event_group_ops.iter(), |seq, e| {
        if let Some(i) = index(&o.event_groups, e.group_id, |g| g.group_id) {
            let name = seq.names.iid(e.op.as_str());
            seq.instant(t.event_groups[i], e.ts_ns, name, &[])?;
            counts.instants += 1;
        }
        Ok(())
    })?;
    seq.each_row(o.stream_buffer_ops.iter(), |seq, s| {
        if let Some(i) = index(&o.stream_buffers, s.buffer_id, |b| b.buffer_id) {
            seq.counter(t.stream_buffers[i], s.ts_ns, s.bytes_after.into())?;
            counts.counter_values += 1;
        }
        Ok(())
    })?;
    seq.each_row(o.timer_ops.iter(), |seq, op| {
        if let Some(i) = index(&o.timers, op.timer_id, |t| t.timer_id) {
            let name = seq.names.iid(op.op.as_str());
            seq.instant(t.timers[i], op.ts_ns, name, &[])?;
            counts.instants += 1;
        }
        Ok(())
    })
}
