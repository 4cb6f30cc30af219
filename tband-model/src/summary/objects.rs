//! The summary's lines for notifications, event groups, stream buffers and
//! timers: one section, a line per object (per task for notifications).

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::{EventGroupOpKind, Model, NotificationOp, StreamBufferOpKind, TimerOpKind};

use super::truncate;

pub(super) fn write(out: &mut impl Write, m: &Model) -> io::Result<()> {
    let o = &m.objects;
    if o.is_empty() {
        return Ok(());
    }
    writeln!(out, "\nrtos objects")?;
    let mut by_task: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    for n in &o.notifications {
        let counts = by_task.entry(n.task_id).or_default();
        match n.op {
            NotificationOp::Given => counts.0 += 1,
            NotificationOp::Taken => counts.1 += 1,
        }
    }
    for (task_id, (given, taken)) in by_task {
        let name = m.task(task_id).map_or("?", |t| t.name.as_str());
        writeln!(
            out,
            "  notifications   {:<18} {given} given, {taken} taken",
            truncate(name, 18)
        )?;
    }
    for g in &o.event_groups {
        let ops = o
            .event_group_ops
            .iter()
            .filter(|e| e.group_id == g.group_id);
        let count = |kind| ops.clone().filter(|e| e.op == kind).count();
        writeln!(
            out,
            "  event group     {:<18} {} set, {} clear, {} waits ended",
            truncate(&g.name, 18),
            count(EventGroupOpKind::Set),
            count(EventGroupOpKind::Clear),
            count(EventGroupOpKind::WaitEnd)
        )?;
    }
    for b in &o.stream_buffers {
        let ops = o
            .stream_buffer_ops
            .iter()
            .filter(|s| s.buffer_id == b.buffer_id);
        let count = |kind| ops.clone().filter(|s| s.op == kind).count();
        writeln!(
            out,
            "  {:<15} {:<18} {} sends, {} receives, high-water {} bytes",
            b.kind.as_str().replace('_', " "),
            truncate(&b.name, 18),
            count(StreamBufferOpKind::Send),
            count(StreamBufferOpKind::Receive),
            b.high_water
        )?;
    }
    for t in &o.timers {
        let ops = o.timer_ops.iter().filter(|op| op.timer_id == t.timer_id);
        let expired = ops
            .clone()
            .filter(|op| op.op == TimerOpKind::Expired)
            .count();
        let commands = ops
            .filter(|op| !matches!(op.op, TimerOpKind::Expired | TimerOpKind::Created))
            .count();
        writeln!(
            out,
            "  timer           {:<18} {commands} commands, {expired} expiries",
            truncate(&t.name, 18)
        )?;
    }
    Ok(())
}
