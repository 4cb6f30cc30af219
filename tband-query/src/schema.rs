//! The SQL schema: one table per model table, one per analysis of the
//! model that reports read (`task_run_time`, `cpu_timeline`), `events` for
//! the raw events, `trace_info`, and views for the joins reports keep
//! needing. The same statements create it in every engine, so names,
//! columns and types agree.
//!
//! Types are kept to two: `BIGINT` (every integer, times in ns, ids, and
//! flags as 0/1, because the engines disagree on how booleans print) and
//! `TEXT` (names, enums as their text, messages).
//!
//! A table with a row per interval or operation keeps its enums as integer
//! codes and `dur_ns` only where SQL cannot compute it, in `<name>_stored`;
//! users query `<name>`, a view that gives the columns back as the table
//! describes them. An enum's text (up to 13 bytes) and a duration (up to 8)
//! are the bulk of such a row otherwise; a code takes at most one byte, and
//! 0, 1 and NULL take none in an SQLite row.

use std::borrow::Cow;

mod objects;

/// A column's SQL type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    BigInt,
    Text,
}

impl ColumnType {
    pub fn sql(self) -> &'static str {
        match self {
            ColumnType::BigInt => "BIGINT",
            ColumnType::Text => "TEXT",
        }
    }
}

/// How a column's values are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// As they are shown.
    AsShown,
    /// A TEXT enum stored as a BIGINT code: the index of its text here.
    Code(&'static [&'static str]),
    /// `dur_ns`, stored as NULL wherever `end_ns - start_ns` gives it.
    Duration,
}

pub struct Column {
    pub name: &'static str,
    /// The type users see.
    pub ty: ColumnType,
    pub stored: Stored,
    /// What the column holds (for the docs and `--list`).
    pub doc: &'static str,
}

impl Column {
    /// The type of the stored values.
    pub fn stored_type(&self) -> ColumnType {
        match self.stored {
            Stored::Code(_) => ColumnType::BigInt,
            Stored::AsShown | Stored::Duration => self.ty,
        }
    }

    /// The column as users see it, from the stored columns of the table
    /// named by `from` (`""` or an alias and a dot). The casts give the
    /// view's column the affinity SQLite gives a table's column of its
    /// type, so that comparisons convert values as they did on the table.
    pub fn shown_sql(&self, from: &str) -> String {
        let name = self.name;
        match self.stored {
            Stored::AsShown => format!("{from}{name}"),
            Stored::Code(texts) => {
                let whens: String = texts
                    .iter()
                    .enumerate()
                    .map(|(code, text)| format!(" WHEN {code} THEN '{text}'"))
                    .collect();
                format!("CAST(CASE {from}{name}{whens} END AS TEXT)")
            }
            Stored::Duration => {
                format!("CAST(COALESCE({from}{name}, {from}end_ns - {from}start_ns) AS BIGINT)")
            }
        }
    }
}

pub struct Table {
    pub name: &'static str,
    pub doc: &'static str,
    pub columns: &'static [Column],
}

impl Table {
    /// Whether users see the table as a view of `<name>_stored`.
    pub fn is_view(&self) -> bool {
        self.columns.iter().any(|c| c.stored != Stored::AsShown)
    }

    /// The table that holds the rows.
    pub fn stored_name(&self) -> Cow<'static, str> {
        if self.is_view() {
            Cow::Owned(format!("{}_stored", self.name))
        } else {
            Cow::Borrowed(self.name)
        }
    }

    /// The statements that create the stored table and the view of it.
    pub fn create_sql(&self) -> String {
        let columns: Vec<String> = self
            .columns
            .iter()
            .map(|c| format!("{} {}", c.name, c.stored_type().sql()))
            .collect();
        let stored = self.stored_name();
        let table = format!("CREATE TABLE {stored} ({})", columns.join(", "));
        if !self.is_view() {
            return table;
        }
        let shown: Vec<String> = self
            .columns
            .iter()
            .map(|c| match c.stored {
                Stored::AsShown => c.shown_sql(""),
                _ => format!("{} AS {}", c.shown_sql(""), c.name),
            })
            .collect();
        format!(
            "{table}; CREATE VIEW {} AS SELECT {} FROM {stored}",
            self.name,
            shown.join(", ")
        )
    }

    /// The statements that drop the view and the stored table.
    pub fn drop_sql(&self) -> String {
        let table = format!("DROP TABLE {}", self.stored_name());
        if self.is_view() {
            format!("DROP VIEW {}; {table}", self.name)
        } else {
            table
        }
    }

    /// An INSERT of `rows` rows at once into the stored table.
    pub fn insert_sql(&self, rows: usize) -> String {
        let names: Vec<&str> = self.columns.iter().map(|c| c.name).collect();
        let row = format!("({})", vec!["?"; self.columns.len()].join(", "));
        format!(
            "INSERT INTO {} ({}) VALUES {}",
            self.stored_name(),
            names.join(", "),
            vec![row; rows].join(", ")
        )
    }

    fn column(&self, name: &str) -> &Column {
        self.columns
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("{} has no column {name}", self.name))
    }
}

/// The texts of the enums stored as codes, by code. A code is the
/// variant's position in the model's enum (`tband_model`), which the
/// loader writes; a test checks every text against the model's.
pub const TASK_STATE_KINDS: &[&str] = &["running", "ready", "blocked", "suspended", "deleted"];
pub const STATE_REASONS: &[&str] = &[
    "",
    "preempted",
    "woken",
    "created",
    "delay",
    "delay_until",
    "queue_send",
    "queue_receive",
    "queue_peek",
    "semaphore",
    "mutex",
    "event_flags",
    "sleep",
    "suspended",
    "deleted",
];
pub const PRIORITY_CAUSES: &[&str] = &["set", "inherit", "disinherit"];
pub const QUEUE_OP_KINDS: &[&str] = &["send", "overwrite", "receive", "reset", "level"];

/// The code of `text` among `texts`.
fn code(texts: &[&str], text: &str) -> usize {
    texts
        .iter()
        .position(|t| *t == text)
        .unwrap_or_else(|| panic!("no code for {text:?}"))
}

const fn int(name: &'static str, doc: &'static str) -> Column {
    Column {
        name,
        ty: ColumnType::BigInt,
        stored: Stored::AsShown,
        doc,
    }
}

const fn text(name: &'static str, doc: &'static str) -> Column {
    Column {
        name,
        ty: ColumnType::Text,
        stored: Stored::AsShown,
        doc,
    }
}

/// A TEXT column of one of `texts`, stored as codes.
const fn coded(name: &'static str, texts: &'static [&'static str], doc: &'static str) -> Column {
    Column {
        name,
        ty: ColumnType::Text,
        stored: Stored::Code(texts),
        doc,
    }
}

/// `dur_ns` of a table with `start_ns` and `end_ns`.
const DURATION: Column = Column {
    name: "dur_ns",
    ty: ColumnType::BigInt,
    stored: Stored::Duration,
    doc: "end_ns - start_ns",
};

pub const TRACE_INFO: Table = Table {
    name: "trace_info",
    doc: "One row about the trace as a whole.",
    columns: &[
        text("format", "input format: tband, threadx, ctf"),
        text(
            "sources",
            "the input files as named on the command line, joined by ', '",
        ),
        int("cores", "number of cores"),
        int("ns_per_tick", "nanoseconds per timer tick"),
        int(
            "ns_per_tick_known",
            "1 if the trace stated its timer resolution, 0 if 1 ns was assumed",
        ),
        int("first_ts_raw", "raw timestamp of the first event (time 0)"),
        int("duration_ns", "time of the last event"),
        int("events", "events decoded"),
        int("invalid_frames", "frames or records that did not decode"),
        text(
            "tool_version",
            "version of tband-query that wrote the database",
        ),
    ],
};

pub const CORES: Table = Table {
    name: "cores",
    doc: "One row per core.",
    columns: &[
        int("core_id", "the core"),
        int("idle_task_id", "its idle task (NULL if unknown)"),
    ],
};

pub const TASKS: Table = Table {
    name: "tasks",
    doc: "One row per task.",
    columns: &[
        int("task_id", "the task"),
        text("name", "its name, or `task <id>`"),
        text("kind", "normal, idle or timer"),
        int(
            "created_ns",
            "when it was created (NULL if before the trace)",
        ),
        int("deleted_ns", "when it was deleted (NULL if never)"),
        int(
            "stack_size",
            "stack size in bytes, where the format records it",
        ),
        int("ever_waited", "1 if it was ever blocked or suspended"),
    ],
};

pub const SCHED_SLICES: Table = Table {
    name: "sched_slices",
    doc: "Who ran where: one row per stretch of time a task ran on a core.",
    columns: &[
        int("core_id", "the core"),
        int("task_id", "the task"),
        int("start_ns", "start"),
        int("end_ns", "end"),
        DURATION,
        int("truncated", "1 if still running when the trace ended"),
        coded(
            "end_state",
            TASK_STATE_KINDS,
            "the task's state when the slice ended: ready, blocked, suspended, deleted, or running (it ran again at that instant); NULL if truncated",
        ),
        coded("end_reason", STATE_REASONS, "why, as in task_states.reason; NULL if truncated"),
    ],
};

pub const TASK_STATES: Table = Table {
    name: "task_states",
    doc: "One row per stretch of time a task spent in one state.",
    columns: &[
        int("task_id", "the task"),
        coded("state", TASK_STATE_KINDS, "running, ready, blocked, suspended or deleted"),
        coded(
            "reason",
            STATE_REASONS,
            "why: preempted, woken, created, delay, delay_until, queue_send, queue_receive, queue_peek, semaphore, mutex, event_flags, sleep, suspended, deleted, or '' if unknown",
        ),
        int("queue_id", "for blocked states: the queue waited on"),
        int("core_id", "for running states: the core"),
        int("woken_by_isr_core_id", "for ready states: core of the ISR that made the task ready"),
        int("woken_by_isr_id", "for ready states: the ISR that made the task ready"),
        int("start_ns", "start"),
        int("end_ns", "end"),
        DURATION,
        int("truncated", "1 if still in this state when the trace ended"),
    ],
};

pub const TASK_PRIORITIES: Table = Table {
    name: "task_priorities",
    doc: "Priority changes.",
    columns: &[
        int("task_id", "the task"),
        int("ts_ns", "when"),
        int("priority", "the new priority"),
        coded("cause", PRIORITY_CAUSES, "set, inherit or disinherit"),
    ],
};

pub const ISRS: Table = Table {
    name: "isrs",
    doc: "One row per interrupt handler; ISR ids are per core.",
    columns: &[
        int("core_id", "the core"),
        int("isr_id", "the ISR"),
        text("name", "its name, or `isr <id>`"),
    ],
};

pub const ISR_SLICES: Table = Table {
    name: "isr_slices",
    doc: "One row per execution of an ISR.",
    columns: &[
        int("core_id", "the core"),
        int("isr_id", "the ISR"),
        int("start_ns", "entry"),
        int("end_ns", "exit"),
        DURATION,
        int(
            "depth",
            "0 when it interrupted task code, 1 when nested in another ISR, ...",
        ),
        int("truncated", "1 if its exit was never seen"),
    ],
};

pub const MARKERS: Table = Table {
    name: "markers",
    doc: "Marker tracks: global (task_id NULL) or local to one task.",
    columns: &[
        int("marker_id", "the marker"),
        int(
            "task_id",
            "the task for task-local markers, NULL for global ones",
        ),
        text("kind", "event (instants and spans) or value"),
        text("name", "its name, or `marker <id>`"),
    ],
};

pub const MARKER_SPANS: Table = Table {
    name: "marker_spans",
    doc: "Spans between a marker's begin and end.",
    columns: &[
        int("marker_id", "the marker"),
        int("task_id", "NULL for global markers"),
        int("start_ns", "begin"),
        int("end_ns", "end"),
        DURATION,
        text("msg", "the message given at the begin"),
        int("depth", "nesting depth on its track (0 = outermost)"),
        int("truncated", "1 if the span never ended"),
    ],
};

pub const MARKER_INSTANTS: Table = Table {
    name: "marker_instants",
    doc: "Instant markers.",
    columns: &[
        int("marker_id", "the marker"),
        int("task_id", "NULL for global markers"),
        int("ts_ns", "when"),
        text("msg", "the message"),
    ],
};

pub const MARKER_VALUES: Table = Table {
    name: "marker_values",
    doc: "Values of value markers.",
    columns: &[
        int("marker_id", "the marker"),
        int("task_id", "NULL for global markers"),
        int("ts_ns", "when"),
        int("value", "the value"),
    ],
};

pub const QUEUES: Table = Table {
    name: "queues",
    doc: "Queues, semaphores, mutexes and other synchronisation objects.",
    columns: &[
        int("queue_id", "the queue"),
        text("name", "its name, or `queue <id>`"),
        text(
            "kind",
            "queue, counting_semaphore, binary_semaphore, mutex, recursive_mutex, queue_set, event_flags or unknown",
        ),
        int("capacity", "capacity in items, where the format records it"),
        int("high_water", "highest fill level seen"),
    ],
};

pub const QUEUE_OPS: Table = Table {
    name: "queue_ops",
    doc: "Operations on queues.",
    columns: &[
        int("queue_id", "the queue"),
        int("ts_ns", "when"),
        coded(
            "op",
            QUEUE_OP_KINDS,
            "send, overwrite, receive, reset or level",
        ),
        int("from_isr", "1 if done from an ISR"),
        int(
            "task_id",
            "the task that did it (NULL from an ISR or when unknown)",
        ),
        int("core_id", "the core"),
        int("len_after", "items in the queue afterwards, where known"),
    ],
};

pub const MUTEX_HOLDS: Table = Table {
    name: "mutex_holds",
    doc: "Stretches of time a task held a mutex.",
    columns: &[
        int("queue_id", "the mutex"),
        int("task_id", "the holder"),
        int("start_ns", "taken"),
        int("end_ns", "given back"),
        DURATION,
        int("truncated", "1 if still held when the trace ended"),
    ],
};

pub const ANOMALIES: Table = Table {
    name: "anomalies",
    doc: "Things wrong with the trace, placed where they were found.",
    columns: &[
        text(
            "kind",
            "dropped_events, invalid_frame, unknown_event, time_backwards, end_without_begin, never_closed, no_current_task, missing_core_stream, no_timer_resolution or inconsistent",
        ),
        int("core_id", "the core, where known"),
        int("start_ns", "start of the region where the trace may be inconsistent"),
        int("end_ns", "where it was found"),
        int("count", "how many (events dropped, frames invalid, ...)"),
        text("detail", "what exactly"),
    ],
};

pub const TASK_RUN_TIME: Table = Table {
    name: "task_run_time",
    doc: "Per core and task: the time the task ran there, which is its time scheduled minus \
          the depth-0 ISR time inside its slices, and that ISR time. Computed while loading, \
          as `tband-decode --summary` computes it.",
    columns: &[
        int("core_id", "the core"),
        int("task_id", "the task"),
        int("slices", "its scheduling slices on the core"),
        int("run_ns", "time it ran: time scheduled minus isr_ns"),
        int("isr_ns", "depth-0 ISR time inside its slices"),
    ],
};

pub const CPU_TIMELINE: Table = Table {
    name: "cpu_timeline",
    doc: "Each core's time cut into pieces at every scheduling slice and depth-0 ISR \
          boundary, each piece in one state: the task scheduled and whether an ISR runs. \
          Computed while loading, by a sweep over each core's boundaries.",
    columns: &[
        int("core_id", "the core"),
        int("start_ns", "start"),
        int("end_ns", "end: the core's next boundary"),
        DURATION,
        int("task_id", "the task scheduled (NULL when none is)"),
        int("in_isr", "1 if a depth-0 ISR runs, else 0"),
    ],
};

pub const EVENTS: Table = Table {
    name: "events",
    doc: "Every decoded event as the format recorded it, in time order.",
    columns: &[
        int("seq", "position in time order, from 0"),
        int("ts_ns", "time (NULL for metadata events)"),
        int("core_id", "the core whose stream held it"),
        text(
            "name",
            "the event's name (task_switched_in, isr_enter, ...)",
        ),
        int(
            "arg1",
            "its first integer field (see the wire format in the book for the fields of each event)",
        ),
        int("arg2", "its second integer field"),
        int("arg3", "its third integer field"),
        text("arg_text", "its string field (names, marker messages)"),
    ],
};

/// Every table, in creation (and loading) order.
pub const TABLES: &[&Table] = &[
    &TRACE_INFO,
    &CORES,
    &TASKS,
    &TASK_RUN_TIME,
    &SCHED_SLICES,
    &TASK_STATES,
    &TASK_PRIORITIES,
    &ISRS,
    &ISR_SLICES,
    &MARKERS,
    &MARKER_SPANS,
    &MARKER_INSTANTS,
    &MARKER_VALUES,
    &QUEUES,
    &QUEUE_OPS,
    &MUTEX_HOLDS,
    &objects::NOTIFICATIONS,
    &objects::EVENT_GROUPS,
    &objects::EVENT_GROUP_OPS,
    &objects::STREAM_BUFFERS,
    &objects::STREAM_BUFFER_OPS,
    &objects::TIMERS,
    &objects::TIMER_OPS,
    &ANOMALIES,
    &CPU_TIMELINE,
    &EVENTS,
];

/// Tables loaded only for the queries that need them: `events` has one row
/// per decoded event (as many rows as the model tables together) and
/// `cpu_timeline` about as many as the slice tables; the other tables are
/// small next to them.
pub const ON_DEMAND: &[&Table] = &[&CPU_TIMELINE, &EVENTS];

/// The tables filled from a trace's model: every table but `events`, whose
/// rows exist only while the trace is decoded.
pub fn model_tables() -> Vec<&'static Table> {
    TABLES
        .iter()
        .copied()
        .filter(|t| t.name != EVENTS.name)
        .collect()
}

pub struct View {
    pub name: &'static str,
    pub doc: Cow<'static, str>,
    pub sql: Cow<'static, str>,
}

/// Views over the tables, written in the SQL both engines accept.
pub fn views() -> Vec<View> {
    vec![
        View {
            name: "sched_slices_named",
            doc: "sched_slices with task_name and task_kind."
                .into(),
            sql: "SELECT s.*, t.name AS task_name, t.kind AS task_kind \
                  FROM sched_slices s LEFT JOIN tasks t ON t.task_id = s.task_id"
                .into(),
        },
        View {
            name: "isr_slices_named",
            doc: "isr_slices with isr_name."
                .into(),
            sql: "SELECT s.*, i.name AS isr_name \
                  FROM isr_slices s LEFT JOIN isrs i ON i.core_id = s.core_id AND i.isr_id = s.isr_id"
                .into(),
        },
        View {
            name: "task_states_named",
            doc: "task_states with task_name, queue_name and woken_by_isr_name."
                .into(),
            sql: "SELECT s.*, t.name AS task_name, q.name AS queue_name, i.name AS woken_by_isr_name \
                  FROM task_states s LEFT JOIN tasks t ON t.task_id = s.task_id \
                  LEFT JOIN queues q ON q.queue_id = s.queue_id \
                  LEFT JOIN isrs i ON i.core_id = s.woken_by_isr_core_id AND i.isr_id = s.woken_by_isr_id"
                .into(),
        },
        View {
            name: "queue_ops_named",
            doc: "queue_ops with queue_name, queue_kind and task_name."
                .into(),
            sql: "SELECT o.*, q.name AS queue_name, q.kind AS queue_kind, t.name AS task_name \
                  FROM queue_ops o LEFT JOIN queues q ON q.queue_id = o.queue_id \
                  LEFT JOIN tasks t ON t.task_id = o.task_id"
                .into(),
        },
        marker_view("marker_spans_named", "marker_spans", "event"),
        marker_view("marker_instants_named", "marker_instants", "event"),
        marker_view("marker_values_named", "marker_values", "value"),
        objects::fill_levels(),
        // A task's states form a chain: each state ends when the task's next
        // one starts (the model ends the old state where it opens the new one).
        // So the state after a ready state is found by an equality join on the
        // task and that time instead of a LEAD over the task's whole history,
        // which DuckDB sorts on one thread. Several states of a task can start
        // at the same time only when all but the last of them last 0 ns; the
        // running state counts only if no such state lies between the two
        // (rowid, the model's order, tells which came first). Those pairs are
        // found from the zero-length states, which are few, and then left out
        // by an equality join: cheaper than a range condition on every pair.
        View {
            name: "ready_latency",
            doc: "Each ready state that ended with the task running: the task, why it was \
                  ready, the ISR that made it ready (if one did), and latency_ns from ready to running."
                .into(),
            sql: ready_latency_sql().into(),
        },
    ]
}

/// The SQL of the view `ready_latency`. It reads the stored task states,
/// whose codes it compares and whose rowid it needs: the view of them has
/// no rowid.
/// `table` (one of the marker tables) with marker_name and task_name: the
/// marker of `kind` with the row's id and task.
fn marker_view(name: &'static str, table: &str, kind: &str) -> View {
    View {
        name,
        doc: format!("{table} with marker_name and task_name.").into(),
        sql: format!(
            "SELECT s.*, m.name AS marker_name, t.name AS task_name \
             FROM {table} s LEFT JOIN markers m ON m.marker_id = s.marker_id \
             AND m.task_id IS NOT DISTINCT FROM s.task_id AND m.kind = '{kind}' \
             LEFT JOIN tasks t ON t.task_id = s.task_id"
        )
        .into(),
    }
}

fn ready_latency_sql() -> String {
    let states = TASK_STATES.stored_name();
    let ready = code(TASK_STATE_KINDS, "ready");
    let running = code(TASK_STATE_KINDS, "running");
    let reason = TASK_STATES.column("reason").shown_sql("r.");
    format!(
        "WITH ready AS ( \
           SELECT rowid AS id, task_id, reason, woken_by_isr_core_id, woken_by_isr_id, start_ns, end_ns \
           FROM {states} WHERE state = {ready} AND truncated = 0 \
         ), running AS ( \
           SELECT rowid AS id, task_id, start_ns FROM {states} WHERE state = {running} \
         ), passed_over AS ( \
           SELECT r.id AS ready_id, n.id AS running_id FROM {states} i \
           JOIN ready r ON r.task_id = i.task_id AND r.end_ns = i.start_ns AND r.id < i.rowid \
           JOIN running n ON n.task_id = i.task_id AND n.start_ns = i.start_ns AND n.id > i.rowid \
           WHERE i.end_ns = i.start_ns \
         ) \
         SELECT r.task_id, {reason} AS reason, r.woken_by_isr_core_id, r.woken_by_isr_id, r.start_ns AS ready_ns, \
           n.start_ns AS running_ns, n.start_ns - r.start_ns AS latency_ns \
         FROM ready r \
         JOIN running n ON n.task_id = r.task_id AND n.start_ns = r.end_ns AND n.id > r.id \
         LEFT JOIN passed_over p ON p.ready_id = r.id AND p.running_id = n.id \
         WHERE p.ready_id IS NULL"
    )
}

impl View {
    pub fn create_sql(&self) -> String {
        format!("CREATE VIEW IF NOT EXISTS {} AS {}", self.name, self.sql)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_name_every_column_once() {
        let create = TASKS.create_sql();
        assert_eq!(
            create,
            "CREATE TABLE tasks (task_id BIGINT, name TEXT, kind TEXT, created_ns BIGINT, deleted_ns BIGINT, stack_size BIGINT, ever_waited BIGINT)"
        );
        assert_eq!(
            CORES.insert_sql(2),
            "INSERT INTO cores (core_id, idle_task_id) VALUES (?, ?), (?, ?)"
        );
    }

    #[test]
    fn tables_with_codes_or_durations_are_views_of_stored_tables() {
        assert!(!TASKS.is_view());
        assert_eq!(TASKS.stored_name(), "tasks");
        assert_eq!(
            QUEUE_OPS.create_sql(),
            "CREATE TABLE queue_ops_stored (queue_id BIGINT, ts_ns BIGINT, op BIGINT, from_isr BIGINT, \
             task_id BIGINT, core_id BIGINT, len_after BIGINT); \
             CREATE VIEW queue_ops AS SELECT queue_id, ts_ns, CAST(CASE op WHEN 0 THEN 'send' \
             WHEN 1 THEN 'overwrite' WHEN 2 THEN 'receive' WHEN 3 THEN 'reset' WHEN 4 THEN 'level' END AS TEXT) AS op, \
             from_isr, task_id, core_id, len_after FROM queue_ops_stored"
        );
        assert_eq!(
            MUTEX_HOLDS.insert_sql(1),
            "INSERT INTO mutex_holds_stored (queue_id, task_id, start_ns, end_ns, dur_ns, truncated) \
             VALUES (?, ?, ?, ?, ?, ?)"
        );
        assert_eq!(
            DURATION.shown_sql("m."),
            "CAST(COALESCE(m.dur_ns, m.end_ns - m.start_ns) AS BIGINT)"
        );
        assert_eq!(
            MUTEX_HOLDS.drop_sql(),
            "DROP VIEW mutex_holds; DROP TABLE mutex_holds_stored"
        );
        let views: Vec<&str> = TABLES
            .iter()
            .filter(|t| t.is_view())
            .map(|t| t.name)
            .collect();
        assert_eq!(
            views,
            [
                "sched_slices",
                "task_states",
                "task_priorities",
                "isr_slices",
                "marker_spans",
                "queue_ops",
                "mutex_holds",
                "cpu_timeline"
            ]
        );
    }

    #[test]
    fn the_user_docs_list_every_table_column_and_view() {
        let doc = include_str!("../../docs/src/query.md");
        for table in TABLES {
            let heading = format!("### `{}`\n", table.name);
            let section = doc
                .split_once(&heading)
                .unwrap_or_else(|| panic!("docs/src/query.md has no section {heading}"))
                .1;
            let section = section.split("\n### ").next().unwrap_or("");
            for c in table.columns {
                let row = format!("| `{}` | {} | {} |", c.name, c.ty.sql(), c.doc);
                assert!(section.contains(&row), "docs/src/query.md lacks {row}");
            }
        }
        for view in views() {
            let row = format!("| `{}` | {} |", view.name, view.doc);
            assert!(doc.contains(&row), "docs/src/query.md lacks {row}");
        }
    }

    #[test]
    fn table_and_view_names_are_unique() {
        let mut names: Vec<&str> = TABLES.iter().map(|t| t.name).collect();
        let stored: Vec<String> = TABLES
            .iter()
            .filter(|t| t.is_view())
            .map(|t| t.stored_name().into_owned())
            .collect();
        names.extend(stored.iter().map(String::as_str));
        names.extend(views().iter().map(|v| v.name));
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count);
    }
}
