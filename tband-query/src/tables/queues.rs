//! The tables of queues (semaphores and mutexes among them): the queues,
//! the operations on them and the holds of mutexes.

use tband_model::{MutexHold, Queue, QueueOp};

use super::{coded, dur, duration, int, text, Column, Each, ModelTable, Value};
use crate::rows::{Part, RowSource};
use crate::schema::QUEUE_OP_KINDS;

pub struct Queues;

impl ModelTable for Queues {
    type Row = Queue;
    const NAME: &str = "queues";
    const DOC: &str = "Queues, semaphores, mutexes and other synchronisation objects.";
    const COLUMNS: &[Column<Value<Queue>>] = &[
        int("queue_id", "the queue", |q, _| q.queue_id.into()),
        text("name", "its name, or `queue <id>`", |q, _| {
            q.name.as_str().into()
        }),
        text(
            "kind",
            "queue, counting_semaphore, binary_semaphore, mutex, recursive_mutex, queue_set, event_flags or unknown",
            |q, _| q.kind.as_str().into(),
        ),
        int(
            "capacity",
            "capacity in items, where the format records it",
            |q, _| q.capacity.into(),
        ),
        int("high_water", "highest fill level seen", |q, _| {
            q.high_water.into()
        }),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<Queue>) -> Result<(), String> {
        source.each_in(|m| &m.queues, each)
    }
}

const QUEUE_OP_ROWS: Part<QueueOp> = Part {
    table: |m| &m.queue_ops,
    table_mut: |m| &mut m.queue_ops,
    readers: &["queue_ops"],
};

pub struct QueueOps;

impl ModelTable for QueueOps {
    type Row = QueueOp;
    const NAME: &str = "queue_ops";
    const DOC: &str = "Operations on queues.";
    const COLUMNS: &[Column<Value<QueueOp>>] = &[
        int("queue_id", "the queue", |o, x| x.queue_id(o.queue).into()),
        int("ts_ns", "when", |o, _| o.ts_ns.into()),
        coded(
            "op",
            QUEUE_OP_KINDS,
            "send, overwrite, receive, reset or level",
            |o, _| o.op.into(),
        ),
        int("from_isr", "1 if done from an ISR", |o, _| {
            o.from_isr.into()
        }),
        int(
            "task_id",
            "the task that did it (NULL from an ISR or when unknown)",
            |o, x| o.task.map(|t| x.task_id(t)).into(),
        ),
        int("core_id", "the core", |o, _| o.core_id.into()),
        int(
            "len_after",
            "items in the queue afterwards, where known",
            |o, _| o.len_after.into(),
        ),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<QueueOp>) -> Result<(), String> {
        source.each_of(&QUEUE_OP_ROWS, each)
    }
}

const MUTEX_HOLD_ROWS: Part<MutexHold> = Part {
    table: |m| &m.mutex_holds,
    table_mut: |m| &mut m.mutex_holds,
    readers: &["mutex_holds"],
};

pub struct MutexHolds;

impl ModelTable for MutexHolds {
    type Row = MutexHold;
    const NAME: &str = "mutex_holds";
    const DOC: &str = "Stretches of time a task held a mutex.";
    const COLUMNS: &[Column<Value<MutexHold>>] = &[
        int("queue_id", "the mutex", |h, x| x.queue_id(h.queue).into()),
        int("task_id", "the holder", |h, x| x.task_id(h.task).into()),
        int("start_ns", "taken", |h, _| h.start_ns.into()),
        int("end_ns", "given back", |h, _| h.end_ns.into()),
        duration(|h, _| dur(h.start_ns, h.end_ns)),
        int(
            "truncated",
            "1 if still held when the trace ended",
            |h, _| h.truncated.into(),
        ),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<MutexHold>) -> Result<(), String> {
        source.each_of(&MUTEX_HOLD_ROWS, each)
    }
}
