//! The tables of objects tracked by id (see the model's lifetime rules):
//! their lifetimes, the instants marked on them and their pools' counters.

use super::{int, text, Table, DURATION};

pub const OBJECT_LIFETIMES: Table = Table {
    name: "object_lifetimes",
    doc: "Objects tracked by id (buffers, blocks, requests), from the event that began each \
          to the one that ended it, as the lifetime rules say.",
    columns: &[
        int(
            "lifetime_id",
            "position in start order, from 0 (object_marks refers to it)",
        ),
        text("kind", "the kind of object the rule names (net_buf, ...)"),
        text(
            "pool_key",
            "its pool's key (NULL when the rule gives no pool)",
        ),
        text("pool_name", "its pool's name"),
        text(
            "key",
            "the object's key: an integer in hexadecimal (0x...) or the field's text",
        ),
        text("name", "the name an event gave it (empty when none)"),
        int(
            "slot",
            "a lane of its pool that no other lifetime uses at the same time",
        ),
        int("start_ns", "begun"),
        int("end_ns", "ended (the trace's end when truncated)"),
        DURATION,
        int(
            "truncated",
            "1 if never ended before the trace did: a leak, or a trace cut short",
        ),
        int("begin_core_id", "the core of the event that began it"),
        int(
            "begin_task_id",
            "the task that began it (NULL from an ISR or when unknown)",
        ),
        int("begin_isr_id", "the ISR that began it, on begin_core_id"),
        int("end_core_id", "the core of the event that ended it"),
        int("end_task_id", "the task that ended it"),
        int("end_isr_id", "the ISR that ended it, on end_core_id"),
    ],
};

pub const OBJECT_MARKS: Table = Table {
    name: "object_marks",
    doc: "Instants on object lifetimes (a reference taken or dropped), with the value the rule reads.",
    columns: &[
        int("lifetime_id", "the lifetime (object_lifetimes)"),
        int("ts_ns", "time"),
        text("event", "the event's name"),
        int("value", "the value of the rule's field (NULL when it names none)"),
    ],
};

pub const OBJECT_COUNTERS: Table = Table {
    name: "object_counters",
    doc: "Counters of object pools (e.g. free buffers), each value as an event stated it.",
    columns: &[
        text("kind", "the kind of object"),
        text("pool_key", "the pool's key"),
        text("pool_name", "the pool's name"),
        text("counter", "the counter's name (free, ...)"),
        int("ts_ns", "time"),
        int("value", "its value from then on"),
    ],
};
