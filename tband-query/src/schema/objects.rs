//! The tables of notifications, event groups, stream buffers and timers
//! (the model's `RtosObjects`), and the view of fill levels that puts
//! stream buffers beside queues.

use super::{int, text, Table, View};

pub const NOTIFICATIONS: Table = Table {
    name: "notifications",
    doc: "Direct-to-task notifications given and taken.",
    columns: &[
        int("ts_ns", "when"),
        int(
            "task_id",
            "the notified task, or the task that took its notification",
        ),
        text("op", "given or taken"),
        int(
            "value",
            "given: the notification value after it; taken: the value read",
        ),
        int("from_isr", "1 if given from an ISR"),
        int(
            "by_task_id",
            "given: the task that notified (NULL from an ISR or when unknown)",
        ),
        int("core_id", "the core"),
    ],
};

pub const EVENT_GROUPS: Table = Table {
    name: "event_groups",
    doc: "Event groups.",
    columns: &[
        int("group_id", "the event group"),
        text("name", "its name, or `event group <id>`"),
    ],
};

pub const EVENT_GROUP_OPS: Table = Table {
    name: "event_group_ops",
    doc: "Bits set and cleared in event groups, and the ends of tasks' waits for them.",
    columns: &[
        int("group_id", "the event group"),
        int("ts_ns", "when"),
        text("op", "set, clear or wait_end"),
        int(
            "bits",
            "set, clear: the bits; wait_end: the group's bits the wait returned",
        ),
        int("from_isr", "1 if done from an ISR"),
        int(
            "task_id",
            "the task that did it (NULL from an ISR or when unknown)",
        ),
        int("core_id", "the core"),
    ],
};

pub const STREAM_BUFFERS: Table = Table {
    name: "stream_buffers",
    doc: "Stream and message buffers.",
    columns: &[
        int("buffer_id", "the buffer"),
        text("name", "its name, or `stream buffer <id>`"),
        text("kind", "stream_buffer, message_buffer or batching_buffer"),
        int("high_water", "highest fill level seen, in bytes"),
    ],
};

pub const STREAM_BUFFER_OPS: Table = Table {
    name: "stream_buffer_ops",
    doc: "Sends to, receives from and resets of stream and message buffers.",
    columns: &[
        int("buffer_id", "the buffer"),
        int("ts_ns", "when"),
        text(
            "op",
            "send, receive, reset, or level (the fill level stated at the start of a window)",
        ),
        int("from_isr", "1 if done from an ISR"),
        int(
            "task_id",
            "the task that did it (NULL from an ISR or when unknown)",
        ),
        int("core_id", "the core"),
        int(
            "bytes_after",
            "bytes in the buffer afterwards (a message buffer's length headers count)",
        ),
    ],
};

pub const TIMERS: Table = Table {
    name: "timers",
    doc: "Software timers.",
    columns: &[
        int("timer_id", "the timer"),
        text("name", "its name, or `timer <id>`"),
    ],
};

pub const TIMER_OPS: Table = Table {
    name: "timer_ops",
    doc: "Software timers created, sent commands and expired.",
    columns: &[
        int("timer_id", "the timer"),
        int("ts_ns", "when"),
        text(
            "op",
            "created, start, reset, stop, change_period, delete, other_command or expired",
        ),
        int(
            "command",
            "the RTOS's number of a command (FreeRTOS tmrCOMMAND_*)",
        ),
        int("from_isr", "1 if done from an ISR"),
        int(
            "task_id",
            "the task that did it (the timer task for an expiry)",
        ),
        int("core_id", "the core"),
    ],
};

/// The fill levels of queues (items) and stream buffers (bytes), side by side.
pub fn fill_levels() -> View {
    View {
        name: "fill_levels",
        doc: "The fill level after every operation on a queue (in items, where known) \
              or a stream buffer (in bytes): object (queue or stream_buffer), \
              object_id, object_name, ts_ns, op, level, unit (items or bytes)."
            .into(),
        sql: "SELECT 'queue' AS object, o.queue_id AS object_id, q.name AS object_name, \
              o.ts_ns, o.op, o.len_after AS level, 'items' AS unit \
              FROM queue_ops o LEFT JOIN queues q ON q.queue_id = o.queue_id \
              UNION ALL \
              SELECT 'stream_buffer', o.buffer_id, b.name, o.ts_ns, o.op, o.bytes_after, 'bytes' \
              FROM stream_buffer_ops o LEFT JOIN stream_buffers b ON b.buffer_id = o.buffer_id"
            .into(),
    }
}
