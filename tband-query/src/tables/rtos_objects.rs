//! The tables of notifications, event groups, stream buffers and timers
//! (the model's `RtosObjects`).

use tband_model::{
    EventGroup, EventGroupOp, Notification, StreamBuffer, StreamBufferOp, Timer, TimerOp,
};

use super::{int, text, Column, Each, ModelTable, Value};
use crate::rows::RowSource;

pub struct Notifications;

impl ModelTable for Notifications {
    type Row = Notification;
    const NAME: &str = "notifications";
    const DOC: &str = "Direct-to-task notifications given and taken.";
    const COLUMNS: &[Column<Value<Notification>>] = &[
        int("ts_ns", "when", |n, _| n.ts_ns.into()),
        int(
            "task_id",
            "the notified task, or the task that took its notification",
            |n, _| n.task_id.into(),
        ),
        text("op", "given or taken", |n, _| n.op.as_str().into()),
        int(
            "value",
            "given: the notification value after it; taken: the value read",
            |n, _| n.value.into(),
        ),
        int("from_isr", "1 if given from an ISR", |n, _| {
            n.from_isr.into()
        }),
        int(
            "by_task_id",
            "given: the task that notified (NULL from an ISR or when unknown)",
            |n, _| n.by_task_id.into(),
        ),
        int("core_id", "the core", |n, _| n.core_id.into()),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<Notification>) -> Result<(), String> {
        source.each_in(|m| &m.rtos_objects.notifications, each)
    }
}

pub struct EventGroups;

impl ModelTable for EventGroups {
    type Row = EventGroup;
    const NAME: &str = "event_groups";
    const DOC: &str = "Event groups.";
    const COLUMNS: &[Column<Value<EventGroup>>] = &[
        int("group_id", "the event group", |g, _| g.group_id.into()),
        text("name", "its name, or `event group <id>`", |g, _| {
            g.name.as_str().into()
        }),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<EventGroup>) -> Result<(), String> {
        source.each_in(|m| &m.rtos_objects.event_groups, each)
    }
}

pub struct EventGroupOps;

impl ModelTable for EventGroupOps {
    type Row = EventGroupOp;
    const NAME: &str = "event_group_ops";
    const DOC: &str =
        "Bits set and cleared in event groups, and the ends of tasks' waits for them.";
    const COLUMNS: &[Column<Value<EventGroupOp>>] = &[
        int("group_id", "the event group", |e, x| {
            x.model.rtos_objects.event_groups[e.group as usize]
                .group_id
                .into()
        }),
        int("ts_ns", "when", |e, _| e.ts_ns.into()),
        text("op", "set, clear or wait_end", |e, _| e.op.as_str().into()),
        int(
            "bits",
            "set, clear: the bits; wait_end: the group's bits the wait returned",
            |e, _| e.bits.into(),
        ),
        int("from_isr", "1 if done from an ISR", |e, _| {
            e.from_isr.into()
        }),
        int(
            "task_id",
            "the task that did it (NULL from an ISR or when unknown)",
            |e, x| e.task.map(|t| x.task_id(t)).into(),
        ),
        int("core_id", "the core", |e, _| e.core_id.into()),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<EventGroupOp>) -> Result<(), String> {
        source.each_in(|m| &m.rtos_objects.event_group_ops, each)
    }
}

pub struct StreamBuffers;

impl ModelTable for StreamBuffers {
    type Row = StreamBuffer;
    const NAME: &str = "stream_buffers";
    const DOC: &str = "Stream and message buffers.";
    const COLUMNS: &[Column<Value<StreamBuffer>>] = &[
        int("buffer_id", "the buffer", |b, _| b.buffer_id.into()),
        text("name", "its name, or `stream buffer <id>`", |b, _| {
            b.name.as_str().into()
        }),
        text(
            "kind",
            "stream_buffer, message_buffer or batching_buffer",
            |b, _| b.kind.as_str().into(),
        ),
        int("high_water", "highest fill level seen, in bytes", |b, _| {
            b.high_water.into()
        }),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<StreamBuffer>) -> Result<(), String> {
        source.each_in(|m| &m.rtos_objects.stream_buffers, each)
    }
}

pub struct StreamBufferOps;

impl ModelTable for StreamBufferOps {
    type Row = StreamBufferOp;
    const NAME: &str = "stream_buffer_ops";
    const DOC: &str = "Sends to, receives from and resets of stream and message buffers.";
    const COLUMNS: &[Column<Value<StreamBufferOp>>] = &[
        int("buffer_id", "the buffer", |s, x| {
            x.model.rtos_objects.stream_buffers[s.buffer as usize]
                .buffer_id
                .into()
        }),
        int("ts_ns", "when", |s, _| s.ts_ns.into()),
        text(
            "op",
            "send, receive, reset, or level (the fill level stated at the start of a window)",
            |s, _| s.op.as_str().into(),
        ),
        int("from_isr", "1 if done from an ISR", |s, _| {
            s.from_isr.into()
        }),
        int(
            "task_id",
            "the task that did it (NULL from an ISR or when unknown)",
            |s, x| s.task.map(|t| x.task_id(t)).into(),
        ),
        int("core_id", "the core", |s, _| s.core_id.into()),
        int(
            "bytes_after",
            "bytes in the buffer afterwards (a message buffer's length headers count)",
            |s, _| s.bytes_after.into(),
        ),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<StreamBufferOp>) -> Result<(), String> {
        source.each_in(|m| &m.rtos_objects.stream_buffer_ops, each)
    }
}

pub struct Timers;

impl ModelTable for Timers {
    type Row = Timer;
    const NAME: &str = "timers";
    const DOC: &str = "Software timers.";
    const COLUMNS: &[Column<Value<Timer>>] = &[
        int("timer_id", "the timer", |t, _| t.timer_id.into()),
        text("name", "its name, or `timer <id>`", |t, _| {
            t.name.as_str().into()
        }),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<Timer>) -> Result<(), String> {
        source.each_in(|m| &m.rtos_objects.timers, each)
    }
}

pub struct TimerOps;

impl ModelTable for TimerOps {
    type Row = TimerOp;
    const NAME: &str = "timer_ops";
    const DOC: &str = "Software timers created, sent commands and expired.";
    const COLUMNS: &[Column<Value<TimerOp>>] = &[
        int("timer_id", "the timer", |t, x| {
            x.model.rtos_objects.timers[t.timer as usize]
                .timer_id
                .into()
        }),
        int("ts_ns", "when", |t, _| t.ts_ns.into()),
        text(
            "op",
            "created, start, reset, stop, change_period, delete, other_command or expired",
            |t, _| t.op.as_str().into(),
        ),
        int(
            "command",
            "the RTOS's number of a command (FreeRTOS tmrCOMMAND_*)",
            |t, _| t.command.into(),
        ),
        int("from_isr", "1 if done from an ISR", |t, _| {
            t.from_isr.into()
        }),
        int(
            "task_id",
            "the task that did it (the timer task for an expiry)",
            |t, x| t.task.map(|task| x.task_id(task)).into(),
        ),
        int("core_id", "the core", |t, _| t.core_id.into()),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<TimerOp>) -> Result<(), String> {
        source.each_in(|m| &m.rtos_objects.timer_ops, each)
    }
}
