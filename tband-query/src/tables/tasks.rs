//! The tables of cores, tasks and ISRs: who ran where and when, the
//! tasks' states and priorities, and the analyses of that time
//! (`task_run_time`, `cpu_timeline`).

use tband_model::analysis::{self, CpuPiece, TaskCoreTime};
use tband_model::{Core, Isr, IsrSlice, SchedSlice, Task, TaskPriority, TaskState};

use super::{coded, dur, duration, int, text, Column, Context, Each, ModelTable, Value};
use crate::rows::{Part, RowSource};
use crate::schema::{PRIORITY_CAUSES, STATE_REASONS, TASK_STATE_KINDS};

/// The model's scheduling slices, which `cpu_timeline` and `task_run_time`
/// read too.
const SCHED_SLICE_ROWS: Part<SchedSlice> = Part {
    table: |m| &m.sched_slices,
    table_mut: |m| &mut m.sched_slices,
    readers: &["sched_slices", "cpu_timeline", "task_run_time"],
};

/// The model's ISR slices, which `cpu_timeline` and `task_run_time` read too.
const ISR_SLICE_ROWS: Part<IsrSlice> = Part {
    table: |m| &m.isr_slices,
    table_mut: |m| &mut m.isr_slices,
    readers: &["isr_slices", "cpu_timeline", "task_run_time"],
};

pub struct Cores;

impl ModelTable for Cores {
    type Row = Core;
    const NAME: &str = "cores";
    const DOC: &str = "One row per core.";
    const COLUMNS: &[Column<Value<Core>>] = &[
        int("core_id", "the core", |c, _| c.core_id.into()),
        int("idle_task_id", "its idle task (NULL if unknown)", |c, x| {
            c.idle_task.map(|t| x.task_id(t)).into()
        }),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<Core>) -> Result<(), String> {
        source.each_in(|m| &m.cores, each)
    }
}

pub struct Tasks;

impl ModelTable for Tasks {
    type Row = Task;
    const NAME: &str = "tasks";
    const DOC: &str = "One row per task.";
    const COLUMNS: &[Column<Value<Task>>] = &[
        int("task_id", "the task", |t, _| t.task_id.into()),
        text("name", "its name, or `task <id>`", |t, _| {
            t.name.as_str().into()
        }),
        text("kind", "normal, idle or timer", |t, _| {
            t.kind.as_str().into()
        }),
        int(
            "created_ns",
            "when it was created (NULL if before the trace)",
            |t, _| t.created_ns.into(),
        ),
        int(
            "deleted_ns",
            "when it was deleted (NULL if never)",
            |t, _| t.deleted_ns.into(),
        ),
        int(
            "stack_size",
            "stack size in bytes, where the format records it",
            |t, _| t.stack_size.into(),
        ),
        int(
            "ever_waited",
            "1 if it was ever blocked or suspended",
            |t, _| t.ever_waited.into(),
        ),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<Task>) -> Result<(), String> {
        source.each_in(|m| &m.tasks, each)
    }
}

pub struct TaskRunTime;

impl ModelTable for TaskRunTime {
    type Row = TaskCoreTime;
    const NAME: &str = "task_run_time";
    const DOC: &str =
        "Per core and task: the time the task ran there, which is its time scheduled minus \
          the depth-0 ISR time inside its slices, and that ISR time. Computed while loading, \
          as `tband-decode --summary` computes it.";
    const COLUMNS: &[Column<Value<TaskCoreTime>>] = &[
        int("core_id", "the core", |t, _| t.core_id.into()),
        int("task_id", "the task", |t, x| x.task_id(t.task).into()),
        int("slices", "its scheduling slices on the core", |t, _| {
            t.slices.into()
        }),
        int(
            "run_ns",
            "time it ran: time scheduled minus isr_ns",
            |t, _| t.run_ns.into(),
        ),
        int("isr_ns", "depth-0 ISR time inside its slices", |t, _| {
            t.isr_ns.into()
        }),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<TaskCoreTime>) -> Result<(), String> {
        source.each_made(analysis::task_core_times, each)
    }
}

pub struct SchedSlices;

impl ModelTable for SchedSlices {
    type Row = SchedSlice;
    const NAME: &str = "sched_slices";
    const DOC: &str = "Who ran where: one row per stretch of time a task ran on a core.";
    const COLUMNS: &[Column<Value<SchedSlice>>] = &[
        int("core_id", "the core", |s, _| s.core_id.into()),
        int("task_id", "the task", |s, x| x.task_id(s.task).into()),
        int("start_ns", "start", |s, _| s.start_ns.into()),
        int("end_ns", "end", |s, _| s.end_ns.into()),
        duration(|s, _| dur(s.start_ns, s.end_ns)),
        int("truncated", "1 if still running when the trace ended", |s, _| {
            s.truncated.into()
        }),
        coded(
            "end_state",
            TASK_STATE_KINDS,
            "the task's state when the slice ended: ready, blocked, suspended, deleted, or running (it ran again at that instant); NULL if truncated",
            |s, _| s.end_state.into(),
        ),
        coded(
            "end_reason",
            STATE_REASONS,
            "why, as in task_states.reason; NULL if truncated",
            |s, _| s.end_state.map(|_| s.end_reason).into(),
        ),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<SchedSlice>) -> Result<(), String> {
        source.each_of(&SCHED_SLICE_ROWS, each)
    }
}

const TASK_STATE_ROWS: Part<TaskState> = Part {
    table: |m| &m.task_states,
    table_mut: |m| &mut m.task_states,
    readers: &["task_states"],
};

pub struct TaskStates;

impl ModelTable for TaskStates {
    type Row = TaskState;
    const NAME: &str = "task_states";
    const DOC: &str = "One row per stretch of time a task spent in one state.";
    const COLUMNS: &[Column<Value<TaskState>>] = &[
        int("task_id", "the task", |s, x| x.task_id(s.task).into()),
        coded(
            "state",
            TASK_STATE_KINDS,
            "running, ready, blocked, suspended or deleted",
            |s, _| s.state.into(),
        ),
        coded(
            "reason",
            STATE_REASONS,
            "why: preempted, woken, created, delay, delay_until, queue_send, queue_receive, queue_peek, semaphore, mutex, event_flags, sleep, suspended, deleted, or '' if unknown",
            |s, _| s.reason.into(),
        ),
        int(
            "queue_id",
            "for blocked states: the queue waited on",
            |s, x| s.queue.map(|q| x.queue_id(q)).into(),
        ),
        int("core_id", "for running states: the core", |s, _| {
            s.core_id.into()
        }),
        int(
            "woken_by_isr_core_id",
            "for ready states: core of the ISR that made the task ready",
            |s, x| s.woken_by_isr.map(|i| x.isr(i).core_id).into(),
        ),
        int(
            "woken_by_isr_id",
            "for ready states: the ISR that made the task ready",
            |s, x| s.woken_by_isr.map(|i| x.isr(i).isr_id).into(),
        ),
        int("start_ns", "start", |s, _| s.start_ns.into()),
        int("end_ns", "end", |s, _| s.end_ns.into()),
        duration(|s, _| dur(s.start_ns, s.end_ns)),
        int(
            "truncated",
            "1 if still in this state when the trace ended",
            |s, _| s.truncated.into(),
        ),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<TaskState>) -> Result<(), String> {
        source.each_of(&TASK_STATE_ROWS, each)
    }
}

const TASK_PRIORITY_ROWS: Part<TaskPriority> = Part {
    table: |m| &m.task_priorities,
    table_mut: |m| &mut m.task_priorities,
    readers: &["task_priorities"],
};

pub struct TaskPriorities;

impl ModelTable for TaskPriorities {
    type Row = TaskPriority;
    const NAME: &str = "task_priorities";
    const DOC: &str = "Priority changes.";
    const COLUMNS: &[Column<Value<TaskPriority>>] = &[
        int("task_id", "the task", |p, x| x.task_id(p.task).into()),
        int("ts_ns", "when", |p, _| p.ts_ns.into()),
        int("priority", "the new priority", |p, _| p.priority.into()),
        coded(
            "cause",
            PRIORITY_CAUSES,
            "set, inherit or disinherit",
            |p, _| p.cause.into(),
        ),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<TaskPriority>) -> Result<(), String> {
        source.each_of(&TASK_PRIORITY_ROWS, each)
    }
}

pub struct Isrs;

impl ModelTable for Isrs {
    type Row = Isr;
    const NAME: &str = "isrs";
    const DOC: &str = "One row per interrupt handler; ISR ids are per core.";
    const COLUMNS: &[Column<Value<Isr>>] = &[
        int("core_id", "the core", |i, _| i.core_id.into()),
        int("isr_id", "the ISR", |i, _| i.isr_id.into()),
        text("name", "its name, or `isr <id>`", |i, _| {
            i.name.as_str().into()
        }),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<Isr>) -> Result<(), String> {
        source.each_in(|m| &m.isrs, each)
    }
}

pub struct IsrSlices;

impl ModelTable for IsrSlices {
    type Row = IsrSlice;
    const NAME: &str = "isr_slices";
    const DOC: &str = "One row per execution of an ISR.";
    const COLUMNS: &[Column<Value<IsrSlice>>] = &[
        int("core_id", "the core", |s, _| s.core_id.into()),
        int("isr_id", "the ISR", |s, x| x.isr(s.isr).isr_id.into()),
        int("start_ns", "entry", |s, _| s.start_ns.into()),
        int("end_ns", "exit", |s, _| s.end_ns.into()),
        duration(|s, _| dur(s.start_ns, s.end_ns)),
        int(
            "depth",
            "0 when it interrupted task code, 1 when nested in another ISR, ...",
            |s, _| s.depth.into(),
        ),
        int("truncated", "1 if its exit was never seen", |s, _| {
            s.truncated.into()
        }),
    ];

    fn rows(source: &mut RowSource<'_>, each: impl Each<IsrSlice>) -> Result<(), String> {
        source.each_of(&ISR_SLICE_ROWS, each)
    }
}

pub struct CpuTimeline;

impl ModelTable for CpuTimeline {
    type Row = CpuPiece;
    const NAME: &str = "cpu_timeline";
    const DOC: &str = "Each core's time cut into pieces at every scheduling slice and depth-0 ISR \
          boundary, each piece in one state: the task scheduled and whether an ISR runs. \
          Computed while loading, by a sweep over each core's boundaries.";
    const COLUMNS: &[Column<Value<CpuPiece>>] = &[
        int("core_id", "the core", |p, _| p.core_id.into()),
        int("start_ns", "start", |p, _| p.start_ns.into()),
        int("end_ns", "end: the core's next boundary", |p, _| {
            p.end_ns.into()
        }),
        duration(|p, _| dur(p.start_ns, p.end_ns)),
        int(
            "task_id",
            "the task scheduled (NULL when none is)",
            |p, x| p.task.map(|t| x.task_id(t)).into(),
        ),
        int("in_isr", "1 if a depth-0 ISR runs, else 0", |p, _| {
            p.in_isr.into()
        }),
    ];

    fn rows(source: &mut RowSource<'_>, mut each: impl Each<CpuPiece>) -> Result<(), String> {
        let sched = source.take(&SCHED_SLICE_ROWS);
        let isr = source.take(&ISR_SLICE_ROWS);
        let context = Context::new(source.model());
        let sched = SCHED_SLICE_ROWS.rows(sched, context.model);
        let isr = ISR_SLICE_ROWS.rows(isr, context.model);
        analysis::for_each_cpu_piece(sched, isr, |p| {
            // Times past BIGINT's range are NULL in the database; a piece
            // ending there could not be placed in time, so it is left out.
            if i64::try_from(p.end_ns).is_err() {
                return Ok(());
            }
            each(&p, &context)
        })
    }
}
