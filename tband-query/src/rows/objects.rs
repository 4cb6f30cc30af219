//! The rows of the tables of notifications, event groups, stream buffers
//! and timers (`schema::objects`).

use tband_model::RtosObjects;

use super::{each, RowSink};

/// Writes the table named `name` if it is one of these; `None` if not.
pub(super) fn write<S: RowSink + ?Sized>(
    o: &RtosObjects,
    name: &str,
    sink: &mut S,
) -> Option<Result<(), String>> {
    Some(match name {
        "notifications" => each(&o.notifications, sink, |n| {
            [
                n.ts_ns.into(),
                n.task_id.into(),
                n.op.as_str().into(),
                n.value.into(),
                n.from_isr.into(),
                n.by_task_id.into(),
                n.core_id.into(),
            ]
        }),
        "event_groups" => each(&o.event_groups, sink, |g| {
            [g.group_id.into(), g.name.as_str().into()]
        }),
        "event_group_ops" => each(&o.event_group_ops, sink, |e| {
            [
                e.group_id.into(),
                e.ts_ns.into(),
                e.op.as_str().into(),
                e.bits.into(),
                e.from_isr.into(),
                e.task_id.into(),
                e.core_id.into(),
            ]
        }),
        "stream_buffers" => each(&o.stream_buffers, sink, |b| {
            [
                b.buffer_id.into(),
                b.name.as_str().into(),
                b.kind.as_str().into(),
                b.high_water.into(),
            ]
        }),
        "stream_buffer_ops" => each(&o.stream_buffer_ops, sink, |s| {
            [
                s.buffer_id.into(),
                s.ts_ns.into(),
                s.op.as_str().into(),
                s.from_isr.into(),
                s.task_id.into(),
                s.core_id.into(),
                s.bytes_after.into(),
            ]
        }),
        "timers" => each(&o.timers, sink, |t| {
            [t.timer_id.into(), t.name.as_str().into()]
        }),
        "timer_ops" => each(&o.timer_ops, sink, |t| {
            [
                t.timer_id.into(),
                t.ts_ns.into(),
                t.op.as_str().into(),
                t.command.into(),
                t.from_isr.into(),
                t.task_id.into(),
                t.core_id.into(),
            ]
        }),
        _ => return None,
    })
}
