//! The views over the tables that reports keep needing: the joins that
//! name tasks, ISRs, queues and markers, and `ready_latency`. Written in
//! the SQL every engine accepts.

use std::borrow::Cow;

use crate::schema::{Table, TASK_STATE_KINDS};
use crate::tables::TaskStates;

/// The code of `text` among `texts`.
fn code(texts: &[&str], text: &str) -> usize {
    texts
        .iter()
        .position(|t| *t == text)
        .unwrap_or_else(|| panic!("no code for {text:?}"))
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
        },
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

/// The SQL of the view `ready_latency`. It reads the stored task states,
/// whose codes it compares and whose rowid it needs: the view of them has
/// no rowid.
fn ready_latency_sql() -> String {
    let states = TaskStates.stored_name();
    let ready = code(TASK_STATE_KINDS, "ready");
    let running = code(TASK_STATE_KINDS, "running");
    let reason = TaskStates.column("reason").shown_sql("r.");
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
