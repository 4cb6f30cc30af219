//! Scheduling and interrupts as kernel (ftrace) events: per core, a stream of
//! `FtraceEventBundle`s with context switches, wake-ups and IRQ entry/exit,
//! so that Perfetto fills its native `sched`, `thread_state` and IRQ tables.

use std::io;

use tband_model::{
    Core, Isr, IsrSlice, Iter, Model, Row, SchedSlice, StateReason, Table, TaskKind, TaskState,
    TaskStateKind,
};

use crate::loss;
use crate::protos::generic_kernel_task_state_event::TaskStateEnum;
use crate::protos::{GenericKernelTaskStateEvent, TracePacket};
use crate::threads::{PriorityCursor, Threads, IDLE_TID};
use crate::wire::{Buffer, Fields, PackedArray, FIELD_MAX, PACKED_VALUES, SHORT_MAX, VARINT_MAX};
use crate::writer::{ChunkSink, PacketWriter};

/// How context switches and wake-ups are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SchedEncoding {
    /// Parallel delta-encoded arrays (`compact_sched`), as Perfetto itself
    /// records them: a few bytes per switch.
    #[default]
    Compact,
    /// One `sched_switch` / `sched_waking` event message each, with both
    /// tasks spelled out: larger, but readable by any ftrace-aware tool.
    Events,
}

/// A task name not yet in the bundle's intern table.
const UNSET: u32 = u32::MAX;

/// Events per bundle before it is written out (each adds a value to each
/// packed array of its kind).
const BUNDLE_EVENTS: usize = PACKED_VALUES;

/// Linux task-state bits of `prev_state`, in the layout Perfetto assumes when
/// the trace names no kernel version.
const STATE_RUNNABLE: i64 = 0;
const STATE_SLEEPING: i64 = 1;
const STATE_STOPPED: i64 = 4;
const STATE_DEAD: i64 = 16;
const STATE_PREEMPTED: i64 = 0x800;

/// Kernel trace flag: the event happened in hard-interrupt context.
const FLAG_HARDIRQ: u32 = 0x08;

/// What one core's stream holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuCounts {
    pub switches: u64,
    pub wakings: u64,
    pub irqs: u64,
}

/// The `prev_state` of a task whose slice ends with it in `state` for `reason`.
fn prev_state(state: Option<TaskStateKind>, reason: StateReason) -> i64 {
    match (state, reason) {
        (None | Some(TaskStateKind::Running), _) => STATE_RUNNABLE,
        (Some(TaskStateKind::Ready), StateReason::Preempted) => STATE_RUNNABLE | STATE_PREEMPTED,
        (Some(TaskStateKind::Ready), _) => STATE_RUNNABLE,
        (Some(TaskStateKind::Blocked), _) => STATE_SLEEPING,
        (Some(TaskStateKind::Suspended), _) => STATE_STOPPED,
        (Some(TaskStateKind::Deleted), _) => STATE_DEAD,
    }
}

/// The thread on a core, as a switch names it.
#[derive(Clone, Copy)]
struct OnCpu<'m> {
    /// Index in `model.tasks`.
    task: Option<usize>,
    tid: i32,
    comm: &'m str,
    prio: i32,
}

/// What comes next in the walk. At equal times they happen in this order,
/// which is the order a kernel trace shows them in.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    IsrExit,
    StateChange,
    IsrEntry,
    SliceStart,
    /// The running slice ends before the next one on its core starts.
    SliceEnd,
}

/// A step and its time and core, ordered by time, then step, then core.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct NextStep(u128);

impl NextStep {
    const NONE: NextStep = NextStep(u128::MAX);
    const STEPS: [Step; 5] = [
        Step::IsrExit,
        Step::StateChange,
        Step::IsrEntry,
        Step::SliceStart,
        Step::SliceEnd,
    ];

    fn new(t: u64, step: Step, cpu: usize) -> Self {
        NextStep(u128::from(t) << 64 | (step as u128) << 32 | cpu as u32 as u128)
    }

    fn get(self) -> Option<(u64, Step, usize)> {
        let step = *Self::STEPS.get((self.0 >> 32) as u32 as usize)?;
        Some(((self.0 >> 64) as u64, step, self.0 as u32 as usize))
    }

    /// The time of the last state change that comes before this step (all
    /// of them when there is no step), if any can.
    #[inline]
    fn last_state_change_before(self) -> Option<u64> {
        match self.get() {
            None => Some(u64::MAX),
            Some((t, Step::IsrExit, _)) => t.checked_sub(1),
            Some((t, _, _)) => Some(t),
        }
    }
}

/// The rows of a table still to come, each a `kind` of step at its time,
/// the next one read ahead with its step.
struct Upcoming<'m, R: Row> {
    rows: Iter<'m, R>,
    next: Option<R>,
    step: NextStep,
    kind: Step,
}

impl<'m, R: Row> Upcoming<'m, R> {
    fn new(table: &'m Table<R>, kind: Step) -> Self {
        let mut upcoming = Upcoming {
            rows: table.iter(),
            next: None,
            step: NextStep::NONE,
            kind,
        };
        upcoming.take();
        upcoming
    }

    /// Consumes the next row, and reads the one after it.
    fn take(&mut self) -> Option<R> {
        let next = std::mem::replace(&mut self.next, self.rows.next());
        self.step = self.next.as_ref().map_or(NextStep::NONE, |row| {
            NextStep::new(row.time_ns(), self.kind, 0)
        });
        next
    }

    /// Rows not consumed yet.
    fn len(&self) -> usize {
        self.rows.len() + usize::from(self.next.is_some())
    }
}

/// The rows of the model that [`write_sched`] reads, which it counts in
/// [`PacketWriter::rows_read`].
pub fn rows_read(model: &Model) -> u64 {
    (model.task_states.len() + model.sched_slices.len() + model.isr_slices.len()) as u64
}

/// Steps of the walk in one call of [`Walk::steps`].
const WALK_STEPS: usize = 4096;

/// Writes the ftrace bundles of every core, in one walk over the model in
/// time order. Returns what they hold.
pub fn write_sched<S: ChunkSink>(
    model: &Model,
    threads: &Threads<'_>,
    encoding: SchedEncoding,
    out: &mut PacketWriter<S>,
) -> io::Result<CpuCounts> {
    let mut walk = Walk::new(model, threads, encoding);
    while walk.steps(out, WALK_STEPS)? {}
    out.rows_read = rows_read(model);
    for cpu in &mut walk.cpus {
        cpu.flush(out, true)?;
    }
    Ok(walk.counts)
}

/// The walk of [`write_sched`]: where it has got on each table and core.
struct Walk<'t, 'm> {
    model: &'m Model,
    threads: &'t Threads<'m>,
    cpus: Vec<Cpu<'m>>,
    counts: CpuCounts,
    states: StateCursor<'m>,
    prios: PriorityCursor<'m>,
    on_cpus: OnCpuTable<'t, 'm>,
    slices: Upcoming<'m, SchedSlice>,
    isrs: Upcoming<'m, IsrSlice>,
}

impl<'t, 'm> Walk<'t, 'm> {
    fn new(model: &'m Model, threads: &'t Threads<'m>, encoding: SchedEncoding) -> Self {
        let mut cpus: Vec<Cpu<'_>> = model
            .cores
            .iter()
            .map(|core| Cpu::new(model, threads, core, encoding))
            .collect();
        for a in model.anomalies.iter().filter(|a| loss::is_loss(a.kind)) {
            if let Some(i) = a.core_id.and_then(|c| cpu_index(&cpus, c)) {
                cpus[i].losses.push(a.end_ns);
            }
        }
        for cpu in &mut cpus {
            // Latest first, so that the next one is popped from the end.
            cpu.losses.sort_unstable_by(|a, b| b.cmp(a));
        }
        Walk {
            model,
            threads,
            cpus,
            counts: CpuCounts::default(),
            states: StateCursor::new(model),
            prios: PriorityCursor::new(model),
            on_cpus: OnCpuTable::new(threads, model.tasks.len()),
            slices: Upcoming::new(&model.sched_slices, Step::SliceStart),
            isrs: Upcoming::new(&model.isr_slices, Step::IsrEntry),
        }
    }

    /// Takes up to `steps` steps of the walk (each with the state changes
    /// before it): whether there are more to take.
    ///
    /// A function of its own, called again and again: in WebAssembly, V8
    /// first runs a function in quickly compiled, slow code and switches to
    /// its optimised code only at the next call, so a walk of the whole
    /// model in one call would run slow throughout.
    #[inline(never)]
    fn steps<S: ChunkSink>(&mut self, out: &mut PacketWriter<S>, steps: usize) -> io::Result<bool> {
        let Walk {
            model,
            threads,
            cpus,
            counts,
            states,
            prios,
            on_cpus,
            slices,
            isrs,
        } = self;
        for _ in 0..steps {
            // The next step other than a state change.
            let mut other = isrs.step.min(slices.step);
            for (i, cpu) in cpus.iter().enumerate() {
                if let Some(&(Some(end), _)) = cpu.isr_open.last() {
                    other = other.min(NextStep::new(end, Step::IsrExit, i));
                }
                if let Some(end) = cpu.running_until {
                    other = other.min(NextStep::new(end, Step::SliceEnd, i));
                }
            }
            // The state changes before it (most steps are state changes; they
            // move none of the other steps).
            if let Some(last) = other.last_state_change_before() {
                while let Some(t) = states.peek_start() {
                    if t > last {
                        break;
                    }
                    let wakeup = match states.next_row() {
                        Some(StateStep::Waking(wakeup)) => wakeup,
                        Some(StateStep::Change(change)) => {
                            out.write(&change.packet(threads))?;
                            continue;
                        }
                        None => continue,
                    };
                    if let Some(target) = cpu_index(cpus, wakeup.core_id) {
                        let woken = on_cpus.get(wakeup.task, prios.at(wakeup.ts, wakeup.task));
                        cpus[target].waking(&wakeup, woken);
                        counts.wakings += 1;
                        let left = || states.rows_left() + slices.len() + isrs.len();
                        cpus[target].flush_if_full(model, left, out)?;
                    }
                }
            }
            let Some((t, step, i)) = other.get() else {
                return Ok(false);
            };
            let touched = match step {
                Step::IsrExit => {
                    cpus[i].isr_exit();
                    Some(i)
                }
                // Not among the other steps.
                Step::StateChange => None,
                Step::IsrEntry => {
                    let Some(isr) = isrs.take() else { continue };
                    let target = cpu_index(cpus, isr.core_id);
                    if let Some(target) = target {
                        cpus[target].isr_entry(&isr);
                        counts.irqs += 1;
                    }
                    target
                }
                Step::SliceStart => {
                    let Some(s) = slices.take() else { continue };
                    let target = cpu_index(cpus, s.core_id);
                    if let Some(target) = target {
                        let task = Some(s.task as usize);
                        let next = on_cpus.get(task, prios.at(t, task));
                        let cpu = &mut cpus[target];
                        // A slice that starts before the last one ended ends it.
                        cpu.running_until = None;
                        counts.switches +=
                            cpu.switch(t, next, prev_state(s.end_state, s.end_reason));
                        cpu.running_until = (!s.truncated).then_some(s.end_ns);
                    }
                    target
                }
                Step::SliceEnd => {
                    let cpu = &mut cpus[i];
                    cpu.running_until = None;
                    counts.switches += cpu.switch(t, cpu.idle, STATE_RUNNABLE);
                    Some(i)
                }
            };
            if let Some(i) = touched {
                let left = || states.rows_left() + slices.len() + isrs.len();
                cpus[i].flush_if_full(model, left, out)?;
            }
        }
        Ok(true)
    }
}

#[inline]
fn cpu_index(cpus: &[Cpu<'_>], core_id: u32) -> Option<usize> {
    // Cores are almost always numbered 0, 1, ... in order.
    match cpus.get(core_id as usize) {
        Some(cpu) if cpu.bundle.cpu == core_id => Some(core_id as usize),
        _ => cpus.iter().position(|c| c.bundle.cpu == core_id),
    }
}

/// Each task as a thread on a core, its thread id and name looked up once.
struct OnCpuTable<'t, 'm> {
    threads: &'t Threads<'m>,
    /// By task index, with the priority of an unknown one.
    tasks: Vec<OnCpu<'m>>,
    /// For a task that is not in the model.
    unknown: OnCpu<'m>,
}

impl<'t, 'm> OnCpuTable<'t, 'm> {
    fn new(threads: &'t Threads<'m>, tasks: usize) -> Self {
        let on_cpu = |task| OnCpu {
            task,
            tid: threads.tid_at(task),
            comm: threads.comm_at(task),
            prio: threads.linux_prio(None),
        };
        OnCpuTable {
            threads,
            tasks: (0..tasks).map(|i| on_cpu(Some(i))).collect(),
            unknown: on_cpu(None),
        }
    }

    /// A task as a thread on a core, with its priority at the time.
    fn get(&self, task: Option<usize>, rtos_prio: Option<u32>) -> OnCpu<'m> {
        let mut on_cpu = match task.and_then(|i| self.tasks.get(i)) {
            Some(&on_cpu) => on_cpu,
            None => OnCpu {
                task,
                ..self.unknown
            },
        };
        if rtos_prio.is_some() {
            on_cpu.prio = self.threads.linux_prio(rtos_prio);
        }
        on_cpu
    }
}

/// One core's part of the walk.
struct Cpu<'m> {
    bundle: Bundle<'m>,
    /// The core's idle thread.
    idle: OnCpu<'m>,
    current: OnCpu<'m>,
    /// The `prev_state` of the current thread when it is switched out.
    current_leaves_as: i64,
    /// The model's ISRs, which its ISR slices index.
    isrs: &'m [Isr],
    /// Exit times and irq numbers of the ISRs executing, innermost last; no
    /// exit time for one cut by the end of the trace, which stays open.
    isr_open: Vec<(Option<u64>, i32)>,
    /// The end of the trace.
    trace_end: u64,
    last_isr_ts: u64,
    /// End of the running slice, when it ends before the trace does.
    running_until: Option<u64>,
    /// Time of the first switch written, from which on Perfetto knows the
    /// thread current on the core. A compact switch names only the thread
    /// switched in, so Perfetto drops the first one of each core, and drops
    /// compact wake-ups on a core whose current thread it does not know: the
    /// first switch and the switches and wake-ups up to its time are written
    /// as full events (at one time, Perfetto may take compact events before
    /// full ones).
    first_switch_ts: Option<u64>,
    /// Times at which the trace reports events of the core lost, latest
    /// first; each flags the bundle that holds the events up to it.
    losses: Vec<u64>,
}

impl<'m> Cpu<'m> {
    fn new(model: &'m Model, threads: &Threads<'m>, core: &Core, encoding: SchedEncoding) -> Self {
        let idle_task = core.idle_task.map(|t| t as usize);
        let idle = OnCpu {
            task: idle_task,
            tid: IDLE_TID,
            comm: idle_task.map_or("swapper", |i| threads.comm_at(Some(i))),
            prio: threads.linux_prio(None),
        };
        Cpu {
            bundle: Bundle::new(core.core_id, encoding, model.tasks.len()),
            idle,
            current: idle,
            current_leaves_as: STATE_RUNNABLE,
            isrs: &model.isrs,
            isr_open: Vec::new(),
            trace_end: model.info.duration_ns,
            last_isr_ts: 0,
            running_until: None,
            first_switch_ts: None,
            losses: Vec::new(),
        }
    }

    /// Switches from the current thread to `next` (nothing if it is already
    /// current), which will be switched out as `leaves_as`; returns the
    /// number of switches written.
    fn switch(&mut self, ts: u64, next: OnCpu<'m>, leaves_as: i64) -> u64 {
        let state = std::mem::replace(&mut self.current_leaves_as, leaves_as);
        if next.tid == self.current.tid && self.first_switch_ts.is_some() {
            return 0;
        }
        let prev = self.current;
        let state = if prev.tid == IDLE_TID {
            STATE_RUNNABLE
        } else {
            state
        };
        let full = self.full_events_at(ts);
        self.bundle.switch(ts, prev, state, next, full);
        self.current = next;
        self.first_switch_ts.get_or_insert(ts);
        1
    }

    /// Whether switches and wake-ups at `ts` must be full events.
    fn full_events_at(&self, ts: u64) -> bool {
        self.first_switch_ts.is_none_or(|first| ts <= first)
    }

    /// Writes the bundle out once it is full; `rows_left` says how many
    /// rows of the model are still to be read.
    fn flush_if_full<S: ChunkSink>(
        &mut self,
        model: &Model,
        rows_left: impl FnOnce() -> usize,
        out: &mut PacketWriter<S>,
    ) -> io::Result<()> {
        if self.bundle.len >= BUNDLE_EVENTS {
            out.rows_read = rows_read(model).saturating_sub(rows_left() as u64);
            self.flush(out, false)?;
        }
        Ok(())
    }

    /// Writes the bundle out, flagged if events were lost up to its last
    /// one (or, for the core's `last` bundle, at all since the one before).
    fn flush<S: ChunkSink>(&mut self, out: &mut PacketWriter<S>, last: bool) -> io::Result<()> {
        let mut lost = false;
        while let Some(&t) = self.losses.last() {
            if !last && (self.bundle.len == 0 || t > self.bundle.last_ts) {
                break;
            }
            self.losses.pop();
            lost = true;
        }
        self.bundle.flush(out, lost)
    }

    fn isr_exit(&mut self) {
        if let Some((Some(end), irq)) = self.isr_open.pop() {
            let ts = end.max(self.last_isr_ts);
            self.last_isr_ts = ts;
            self.bundle.irq_exit(ts, self.current.tid, irq);
        }
    }

    fn isr_entry(&mut self, isr: &IsrSlice) {
        let (isr_id, name) =
            (self.isrs.get(isr.isr as usize)).map_or((0, ""), |i| (i.isr_id, i.name.as_str()));
        let irq = i32::try_from(isr_id).unwrap_or(i32::MAX);
        self.last_isr_ts = self.last_isr_ts.max(isr.start_ns);
        self.bundle
            .irq_entry(self.last_isr_ts, self.current.tid, irq, name);
        // Cut by the end of the trace: truncated there, inside no ISR that
        // exits (an ISR exiting at the end ends those nested in it).
        let cut = isr.truncated
            && isr.end_ns >= self.trace_end
            && self.isr_open.last().is_none_or(|&(end, _)| end.is_none());
        self.isr_open.push(((!cut).then_some(isr.end_ns), irq));
    }

    fn waking(&mut self, wakeup: &Wakeup, woken: OnCpu<'m>) {
        let flags = if wakeup.by_isr { FLAG_HARDIRQ } else { 0 };
        let full = self.full_events_at(wakeup.ts);
        self.bundle
            .waking(wakeup.ts, self.current.tid, woken, flags, full);
    }
}

/// What a task-state row shows in the kernel events, when the switch that
/// ends a running slice does not.
enum StateStep {
    Waking(Wakeup),
    Change(StateChange),
}

/// A wake-up found in the task states: a task made ready by something
/// other than being preempted.
struct Wakeup {
    ts: u64,
    /// Index in `model.tasks`.
    task: Option<usize>,
    /// The core it wakes the task on: the interrupted core for an ISR
    /// wake-up, else where the task last ran.
    core_id: u32,
    by_isr: bool,
}

/// A change of state of a task that is not running, other than a wake-up
/// (a waiting task suspended, or deleted): no context switch or wake-up can
/// say it, so it is a task-state event of Perfetto's generic kernel events,
/// which its `thread_state` table takes as they come.
struct StateChange {
    ts: u64,
    /// Index in `model.tasks`.
    task: usize,
    state: TaskStateKind,
}

impl StateChange {
    fn packet(&self, threads: &Threads<'_>) -> TracePacket {
        let state = match self.state {
            TaskStateKind::Running | TaskStateKind::Ready => TaskStateEnum::TaskStateRunnable,
            TaskStateKind::Blocked => TaskStateEnum::TaskStateInterruptibleSleep,
            TaskStateKind::Suspended => TaskStateEnum::TaskStateStopped,
            // Perfetto ends a destroyed thread, and then makes its tracks
            // a thread of their own: a deleted task is a dead one ("Z").
            TaskStateKind::Deleted => TaskStateEnum::TaskStateDead,
        };
        TracePacket {
            timestamp: Some(self.ts),
            trusted_packet_sequence_id: Some(crate::FTRACE_SEQUENCE_ID),
            generic_kernel_task_state_event: Some(GenericKernelTaskStateEvent {
                comm: Some(threads.comm_at(Some(self.task)).to_owned()),
                tid: Some(threads.tid_at(Some(self.task)).into()),
                state: Some(state as i32),
            }),
            ..Default::default()
        }
    }
}

/// What the walk uses of a task-state row.
#[derive(Clone, Copy)]
struct StateRow {
    start_ns: u64,
    /// An index into `model.tasks`.
    task: u32,
    state: TaskStateKind,
    reason: StateReason,
    /// Where a running task runs.
    core_id: Option<u32>,
    /// The core of the ISR that made the task ready.
    isr_core_id: Option<u32>,
}

impl StateRow {
    /// Only these fields are read, so the others are not unpacked.
    #[inline(always)]
    fn of(row: TaskState, isrs: &[Isr]) -> Self {
        StateRow {
            start_ns: row.start_ns,
            task: row.task,
            state: row.state,
            reason: row.reason,
            core_id: row.core_id,
            isr_core_id: (row.woken_by_isr)
                .and_then(|i| isrs.get(i as usize))
                .map(|i| i.core_id),
        }
    }

    /// Whether the row is a wake-up: a task made ready by something other
    /// than being preempted.
    fn is_waking(&self) -> bool {
        self.state == TaskStateKind::Ready && self.reason != StateReason::Preempted
    }
}

/// What the walk keeps of a task.
#[derive(Clone, Copy)]
struct TaskSoFar {
    /// The core it last ran on.
    last_core: Option<u32>,
    /// Whether its last state is running.
    running: bool,
    idle: bool,
}

/// Walks `model.task_states` in time order, keeping what it needs of each
/// task.
struct StateCursor<'m> {
    rows: Iter<'m, TaskState>,
    /// The next row, not consumed yet (each row is unpacked once).
    next: Option<StateRow>,
    /// By task index.
    tasks: Vec<TaskSoFar>,
    /// The model's ISRs, which task states index.
    isrs: &'m [Isr],
}

impl<'m> StateCursor<'m> {
    fn new(model: &'m Model) -> Self {
        let mut rows = model.task_states.iter();
        let isrs = &model.isrs;
        StateCursor {
            next: rows.next().map(|row| StateRow::of(row, isrs)),
            rows,
            isrs,
            tasks: model
                .tasks
                .iter()
                .map(|t| TaskSoFar {
                    last_core: None,
                    running: false,
                    idle: t.kind == TaskKind::Idle,
                })
                .collect(),
        }
    }

    fn peek_start(&self) -> Option<u64> {
        self.next.as_ref().map(|s| s.start_ns)
    }

    /// Consumes the next row; returns what it shows besides the context
    /// switches, if anything.
    fn next_row(&mut self) -> Option<StateStep> {
        let row = self.next.as_ref()?;
        let idx = Some(row.task as usize);
        let mut core_id = row.isr_core_id;
        // Whether the row needs no event of its own: the task ran until it
        // (its switch out says it), or is an idle task.
        let mut said = true;
        if let Some(task) = idx.and_then(|i| self.tasks.get_mut(i)) {
            core_id = core_id.or(task.last_core);
            if row.core_id.is_some() {
                task.last_core = row.core_id;
            }
            let running = row.state == TaskStateKind::Running;
            said = std::mem::replace(&mut task.running, running) || task.idle;
        }
        let step = if row.is_waking() {
            Some(StateStep::Waking(Wakeup {
                ts: row.start_ns,
                task: idx,
                core_id: core_id.unwrap_or(0),
                by_isr: row.isr_core_id.is_some(),
            }))
        } else if said || row.state == TaskStateKind::Running {
            None
        } else {
            idx.map(|task| {
                StateStep::Change(StateChange {
                    ts: row.start_ns,
                    task,
                    state: row.state,
                })
            })
        };
        let isrs = self.isrs;
        self.next = self.rows.next().map(|row| StateRow::of(row, isrs));
        step
    }

    /// Rows not consumed yet.
    fn rows_left(&self) -> usize {
        self.rows.len() + usize::from(self.next.is_some())
    }
}

/// Field numbers (proto/perfetto_subset.proto).
mod field {
    pub const PACKET_FTRACE_EVENTS: u32 = 1;
    pub const PACKET_SEQUENCE_ID: u32 = 10;
    pub const BUNDLE_CPU: u32 = 1;
    pub const BUNDLE_EVENT: u32 = 2;
    pub const BUNDLE_LOST_EVENTS: u32 = 3;
    pub const BUNDLE_COMPACT_SCHED: u32 = 4;
    pub const COMPACT_SWITCH_TIMESTAMP: u32 = 1;
    pub const COMPACT_SWITCH_PREV_STATE: u32 = 2;
    pub const COMPACT_SWITCH_NEXT_PID: u32 = 3;
    pub const COMPACT_SWITCH_NEXT_PRIO: u32 = 4;
    pub const COMPACT_INTERN_TABLE: u32 = 5;
    pub const COMPACT_SWITCH_NEXT_COMM_INDEX: u32 = 6;
    pub const COMPACT_WAKING_TIMESTAMP: u32 = 7;
    pub const COMPACT_WAKING_PID: u32 = 8;
    pub const COMPACT_WAKING_TARGET_CPU: u32 = 9;
    pub const COMPACT_WAKING_PRIO: u32 = 10;
    pub const COMPACT_WAKING_COMM_INDEX: u32 = 11;
    pub const COMPACT_WAKING_COMMON_FLAGS: u32 = 12;
    pub const EVENT_TIMESTAMP: u32 = 1;
    pub const EVENT_PID: u32 = 2;
    pub const EVENT_SCHED_SWITCH: u32 = 4;
    pub const EVENT_COMMON_FLAGS: u32 = 5;
    pub const EVENT_SCHED_WAKING: u32 = 20;
    pub const EVENT_IRQ_ENTRY: u32 = 36;
    pub const EVENT_IRQ_EXIT: u32 = 37;
    pub const SWITCH_PREV_COMM: u32 = 1;
    pub const SWITCH_PREV_PID: u32 = 2;
    pub const SWITCH_PREV_PRIO: u32 = 3;
    pub const SWITCH_PREV_STATE: u32 = 4;
    pub const SWITCH_NEXT_COMM: u32 = 5;
    pub const SWITCH_NEXT_PID: u32 = 6;
    pub const SWITCH_NEXT_PRIO: u32 = 7;
    pub const WAKING_COMM: u32 = 1;
    pub const WAKING_PID: u32 = 2;
    pub const WAKING_PRIO: u32 = 3;
    pub const WAKING_SUCCESS: u32 = 4;
    pub const WAKING_TARGET_CPU: u32 = 5;
    pub const IRQ_NUMBER: u32 = 1;
    pub const IRQ_ENTRY_NAME: u32 = 2;
    pub const IRQ_EXIT_RET: u32 = 2;
}

/// The bundle being filled for one core, encoded as it fills.
struct Bundle<'m> {
    cpu: u32,
    encoding: SchedEncoding,
    /// `FtraceEvent` messages, each as a bundle field.
    events: Buffer,
    /// The packed arrays of `CompactSched`, by field number - 1 (the slot of
    /// the intern table stays empty).
    compact: [PackedArray; 12],
    intern_table: Vec<&'m str>,
    /// Position of each task's name in `intern_table`, by task index
    /// (the last slot is for a core without a known idle task); `UNSET` if
    /// not in the table yet.
    comm_index: Vec<u32>,
    /// The slots of `comm_index` that are set.
    comm_set: Vec<usize>,
    last_switch_ts: u64,
    last_waking_ts: u64,
    /// Time of the last event added.
    last_ts: u64,
    len: usize,
}

impl<'m> Bundle<'m> {
    fn new(cpu: u32, encoding: SchedEncoding, tasks: usize) -> Self {
        Bundle {
            cpu,
            encoding,
            events: Buffer::default(),
            compact: Default::default(),
            intern_table: Vec::new(),
            comm_index: vec![UNSET; tasks + 1],
            comm_set: Vec::new(),
            last_switch_ts: 0,
            last_waking_ts: 0,
            last_ts: 0,
            len: 0,
        }
    }

    #[inline]
    fn comm(&mut self, on_cpu: &OnCpu<'m>) -> u32 {
        let slot = on_cpu
            .task
            .filter(|&t| t < self.comm_index.len())
            .unwrap_or(self.comm_index.len() - 1);
        if self.comm_index[slot] == UNSET {
            self.intern_table.push(on_cpu.comm);
            self.comm_index[slot] = (self.intern_table.len() - 1) as u32;
            self.comm_set.push(slot);
        }
        self.comm_index[slot]
    }

    /// Appends to a packed array of `CompactSched`.
    #[inline]
    fn push(&mut self, field: u32, value: u64) {
        self.compact[field as usize - 1].push(value);
    }

    /// Appends a signed value (`int32` / `int64`) to a packed array.
    #[inline]
    fn push_int(&mut self, field: u32, value: i64) {
        self.push(field, value as u64);
    }

    /// Adds a switch, as a full event if `full` whatever the encoding.
    fn switch(&mut self, ts: u64, prev: OnCpu<'m>, prev_state: i64, next: OnCpu<'m>, full: bool) {
        use field::*;
        self.len += 1;
        self.last_ts = ts;
        match self.encoding {
            SchedEncoding::Compact if !full => {
                let comm = self.comm(&next);
                self.push(
                    COMPACT_SWITCH_TIMESTAMP,
                    ts.saturating_sub(self.last_switch_ts),
                );
                self.last_switch_ts = ts;
                self.push_int(COMPACT_SWITCH_PREV_STATE, prev_state);
                self.push_int(COMPACT_SWITCH_NEXT_PID, next.tid.into());
                self.push_int(COMPACT_SWITCH_NEXT_PRIO, next.prio.into());
                self.push(COMPACT_SWITCH_NEXT_COMM_INDEX, comm.into());
            }
            _ => self.push_event(|| FtraceEvent {
                ts,
                pid: prev.tid,
                body: EventBody::Switch {
                    prev,
                    prev_state,
                    next,
                },
            }),
        }
    }

    /// Adds a wake-up, as a full event if `full` whatever the encoding.
    fn waking(&mut self, ts: u64, waker_tid: i32, woken: OnCpu<'m>, flags: u32, full: bool) {
        use field::*;
        self.len += 1;
        self.last_ts = ts;
        let cpu = self.cpu as i32;
        match self.encoding {
            SchedEncoding::Compact if !full => {
                let comm = self.comm(&woken);
                self.push(
                    COMPACT_WAKING_TIMESTAMP,
                    ts.saturating_sub(self.last_waking_ts),
                );
                self.last_waking_ts = ts;
                self.push_int(COMPACT_WAKING_PID, woken.tid.into());
                self.push_int(COMPACT_WAKING_TARGET_CPU, cpu.into());
                self.push_int(COMPACT_WAKING_PRIO, woken.prio.into());
                self.push(COMPACT_WAKING_COMM_INDEX, comm.into());
                self.push(COMPACT_WAKING_COMMON_FLAGS, flags.into());
            }
            _ => self.push_event(|| FtraceEvent {
                ts,
                pid: waker_tid,
                body: EventBody::Waking { woken, cpu, flags },
            }),
        }
    }

    fn irq_entry(&mut self, ts: u64, current_tid: i32, irq: i32, name: &'m str) {
        self.len += 1;
        self.last_ts = ts;
        self.push_event(|| FtraceEvent {
            ts,
            pid: current_tid,
            body: EventBody::IrqEntry { irq, name },
        });
    }

    fn irq_exit(&mut self, ts: u64, current_tid: i32, irq: i32) {
        self.len += 1;
        self.last_ts = ts;
        self.push_event(|| FtraceEvent {
            ts,
            pid: current_tid,
            body: EventBody::IrqExit { irq },
        });
    }

    /// Appends the `FtraceEvent` that `event` makes. It is made where it is
    /// encoded, so that each caller's encoder is compiled for its kind of
    /// event only.
    #[inline(always)]
    fn push_event(&mut self, event: impl Fn() -> FtraceEvent<'m>) {
        let max_len = event().max_len();
        if max_len <= SHORT_MAX {
            self.events
                .encode_short(field::BUNDLE_EVENT, |e| event().encode(e));
        } else {
            // Room for the field's key and length, for lengths that take
            // more than a byte, and for the encoder's reckoning per field.
            self.events.encode(max_len + 4 * FIELD_MAX, |e| {
                let fields = e.begin(field::BUNDLE_EVENT);
                event().encode(e);
                e.end(fields);
            });
        }
    }

    /// Writes the bundle out (if it holds events or `lost_events` is set).
    fn flush<S: ChunkSink>(
        &mut self,
        out: &mut PacketWriter<S>,
        lost_events: bool,
    ) -> io::Result<()> {
        use field::*;
        if self.len == 0 && !lost_events {
            return Ok(());
        }
        let has_compact = [COMPACT_SWITCH_TIMESTAMP, COMPACT_WAKING_TIMESTAMP]
            .iter()
            .any(|&f| !self.compact[f as usize - 1].is_empty());
        let max_len = 6 * FIELD_MAX
            + self.events.len()
            + self
                .compact
                .iter()
                .map(|c| FIELD_MAX + c.len())
                .sum::<usize>()
            + self
                .intern_table
                .iter()
                .map(|n| FIELD_MAX + n.len())
                .sum::<usize>();
        out.packet(max_len, |e| {
            let bundle = e.begin(PACKET_FTRACE_EVENTS);
            e.uint(BUNDLE_CPU, self.cpu.into());
            e.raw(self.events.as_slice());
            if lost_events {
                e.uint(BUNDLE_LOST_EVENTS, 1);
            }
            if has_compact {
                let compact = e.begin(BUNDLE_COMPACT_SCHED);
                for (field, values) in (1..).zip(&self.compact) {
                    if field == COMPACT_INTERN_TABLE {
                        for name in &self.intern_table {
                            e.bytes(COMPACT_INTERN_TABLE, name.as_bytes());
                        }
                    } else if !values.is_empty() {
                        e.bytes(field, values.as_slice());
                    }
                }
                e.end(compact);
            }
            e.end(bundle);
            e.uint(PACKET_SEQUENCE_ID, crate::FTRACE_SEQUENCE_ID.into());
        })?;

        self.events.clear();
        self.compact.iter_mut().for_each(PackedArray::clear);
        self.intern_table.clear();
        for slot in self.comm_set.drain(..) {
            self.comm_index[slot] = UNSET;
        }
        self.last_switch_ts = 0;
        self.last_waking_ts = 0;
        self.len = 0;
        Ok(())
    }
}

/// An `FtraceEvent`: its time, the task current on the core, and what happened.
struct FtraceEvent<'m> {
    ts: u64,
    pid: i32,
    body: EventBody<'m>,
}

enum EventBody<'m> {
    Switch {
        prev: OnCpu<'m>,
        prev_state: i64,
        next: OnCpu<'m>,
    },
    Waking {
        woken: OnCpu<'m>,
        cpu: i32,
        flags: u32,
    },
    IrqEntry {
        irq: i32,
        name: &'m str,
    },
    IrqExit {
        irq: i32,
    },
}

impl FtraceEvent<'_> {
    /// Bytes the event's fields take at most: the time and pid, the key and
    /// length of the event's message (a two-byte key), and its fields (a
    /// one-byte key, a varint or a string's length, and the strings).
    #[inline(always)]
    fn max_len(&self) -> usize {
        let (fields, text) = match self.body {
            EventBody::Switch { prev, next, .. } => (7, prev.comm.len() + next.comm.len()),
            EventBody::Waking { woken, .. } => (6, woken.comm.len()),
            EventBody::IrqEntry { name, .. } => (3, name.len()),
            EventBody::IrqExit { .. } => (3, 0),
        };
        2 * (1 + VARINT_MAX) + 3 + fields * (1 + VARINT_MAX) + text
    }

    #[inline(always)]
    fn encode(&self, e: &mut impl Fields) {
        use field::*;
        e.uint(EVENT_TIMESTAMP, self.ts);
        e.uint(EVENT_PID, u64::from(self.pid as u32));
        match self.body {
            EventBody::Switch {
                prev,
                prev_state,
                next,
            } => {
                let switch = e.begin(EVENT_SCHED_SWITCH);
                e.bytes(SWITCH_PREV_COMM, prev.comm.as_bytes());
                e.int(SWITCH_PREV_PID, prev.tid.into());
                e.int(SWITCH_PREV_PRIO, prev.prio.into());
                e.int(SWITCH_PREV_STATE, prev_state);
                e.bytes(SWITCH_NEXT_COMM, next.comm.as_bytes());
                e.int(SWITCH_NEXT_PID, next.tid.into());
                e.int(SWITCH_NEXT_PRIO, next.prio.into());
                e.end(switch);
            }
            EventBody::Waking { woken, cpu, flags } => {
                e.uint(EVENT_COMMON_FLAGS, flags.into());
                let waking = e.begin(EVENT_SCHED_WAKING);
                e.bytes(WAKING_COMM, woken.comm.as_bytes());
                e.int(WAKING_PID, woken.tid.into());
                e.int(WAKING_PRIO, woken.prio.into());
                e.int(WAKING_SUCCESS, 1);
                e.int(WAKING_TARGET_CPU, cpu.into());
                e.end(waking);
            }
            // No `common_flags` on IRQ events: they are in hard-interrupt
            // context by definition, and trace_processor reads the field
            // there as an event of its own, a nameless row of its raw
            // `ftrace_event` table for every IRQ event.
            EventBody::IrqEntry { irq, name } => {
                let entry = e.begin(EVENT_IRQ_ENTRY);
                e.int(IRQ_NUMBER, irq.into());
                e.bytes(IRQ_ENTRY_NAME, name.as_bytes());
                e.end(entry);
            }
            EventBody::IrqExit { irq } => {
                let exit = e.begin(EVENT_IRQ_EXIT);
                e.int(IRQ_NUMBER, irq.into());
                e.int(IRQ_EXIT_RET, 1);
                e.end(exit);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;
    use tband_model::{Core, SchedSlice, Task, TaskKind};

    use crate::protos::{FtraceEventBundle, Trace};

    fn task(task_id: u32, name: &str, kind: TaskKind) -> Task {
        Task::new(task_id, name, kind)
    }

    /// A slice on core 0 of the task with id `task_id` (at index
    /// `task_id - 1`) that ends with its task in `end`; truncated without
    /// one.
    fn slice(
        task_id: u32,
        start_ns: u64,
        end_ns: u64,
        end: Option<(TaskStateKind, StateReason)>,
    ) -> SchedSlice {
        SchedSlice {
            start_ns,
            end_ns,
            task: task_id - 1,
            core_id: 0,
            end_state: end.map(|(state, _)| state),
            end_reason: end.map_or(StateReason::None, |(_, reason)| reason),
            truncated: end.is_none(),
        }
    }

    fn state(task_id: u32, start_ns: u64, state: TaskStateKind, reason: StateReason) -> TaskState {
        TaskState {
            start_ns,
            end_ns: start_ns,
            task: task_id - 1,
            state,
            reason,
            queue: None,
            core_id: (state == TaskStateKind::Running).then_some(0),
            woken_by_isr: None,
            truncated: false,
        }
    }

    /// One core: idle (id 1), A (2) and B (3). A runs, is preempted by B,
    /// B blocks, a gap with nothing known, A runs to the end. An ISR wakes B
    /// and a nested ISR runs inside it.
    fn model() -> Model {
        use StateReason as R;
        use TaskStateKind as S;
        let mut m = Model::default();
        m.info.format = "tband".into();
        m.info.priority_order = tband_model::PriorityOrder::HigherIsMoreImportant;
        m.info.duration_ns = 100;
        m.cores = vec![Core {
            core_id: 0,
            idle_task: Some(0),
        }];
        m.tasks = vec![
            task(1, "IDLE", TaskKind::Idle),
            task(2, "A", TaskKind::Normal),
            task(3, "B", TaskKind::Normal),
        ];
        m.tasks[2].ever_waited = true;
        m.sched_slices = vec![
            slice(1, 0, 10, Some((S::Ready, R::Preempted))),
            slice(2, 10, 30, Some((S::Ready, R::Preempted))),
            slice(3, 30, 40, Some((S::Blocked, R::QueueReceive))),
            slice(2, 50, 100, None),
        ]
        .into();
        let mut states = vec![
            state(2, 10, S::Running, R::None),
            state(3, 20, S::Ready, R::Woken),
            state(2, 30, S::Ready, R::Preempted),
            state(3, 30, S::Running, R::None),
            state(3, 40, S::Blocked, R::QueueReceive),
            state(2, 50, S::Running, R::None),
        ];
        // ISR 5 of core 0, the model's first.
        states[1].woken_by_isr = Some(0);
        m.task_states = states.into();
        m.isrs = vec![Isr {
            core_id: 0,
            isr_id: 5,
            name: "UART".into(),
        }];
        m.isr_slices = vec![
            IsrSlice {
                start_ns: 18,
                end_ns: 25,
                core_id: 0,
                isr: 0,
                depth: 0,
                truncated: false,
            },
            IsrSlice {
                start_ns: 19,
                end_ns: 21,
                core_id: 0,
                isr: 0,
                depth: 1,
                truncated: false,
            },
        ]
        .into();
        m
    }

    fn bundles(encoding: SchedEncoding) -> (Vec<FtraceEventBundle>, CpuCounts) {
        bundles_of(&model(), encoding)
    }

    fn bundles_of(m: &Model, encoding: SchedEncoding) -> (Vec<FtraceEventBundle>, CpuCounts) {
        let (packets, counts) = packets_of(m, encoding);
        let bundles = packets
            .into_iter()
            .filter_map(|p| p.ftrace_events)
            .collect();
        (bundles, counts)
    }

    fn packets_of(m: &Model, encoding: SchedEncoding) -> (Vec<TracePacket>, CpuCounts) {
        let threads = Threads::new(m);
        let mut w = PacketWriter::new(Vec::new());
        let counts = write_sched(m, &threads, encoding, &mut w).unwrap();
        let bytes = w.finish().unwrap();
        let trace = Trace::decode(bytes.as_slice()).unwrap();
        // The hand-encoded bundles are what prost would encode.
        assert_eq!(trace.encode_to_vec(), bytes);
        (trace.packet, counts)
    }

    #[test]
    fn wake_ups_before_the_first_switch_of_a_core_are_full_events() {
        use StateReason as R;
        use TaskStateKind as S;
        // The core's first slice starts at 10, and B is woken at 5.
        let mut m = model();
        let slices: Vec<_> = m.sched_slices.iter().skip(1).collect();
        m.sched_slices = slices.into();
        let mut states: Vec<_> = m.task_states.iter().collect();
        states.insert(0, state(3, 5, S::Ready, R::Woken));
        m.task_states = states.into();
        let (bundles, counts) = bundles_of(&m, SchedEncoding::Compact);
        assert_eq!(counts.wakings, 2);
        let events = &bundles[0].event;
        let full_wakings: Vec<_> = events
            .iter()
            .filter(|e| e.sched_waking.is_some())
            .filter_map(|e| e.timestamp)
            .collect();
        assert_eq!(full_wakings, [5]);
        let full_switches: Vec<_> = events
            .iter()
            .filter(|e| e.sched_switch.is_some())
            .filter_map(|e| e.timestamp)
            .collect();
        assert_eq!(full_switches, [10]);
        let compact = bundles[0].compact_sched.as_ref().unwrap();
        assert_eq!(compact.waking_timestamp, [20]);
        assert_eq!(compact.switch_timestamp.len(), 3);
    }

    #[test]
    fn a_state_change_of_a_task_that_does_not_run_is_a_generic_task_state_event() {
        use StateReason as R;
        use TaskStateKind as S;
        // B, blocked at 40, is suspended at 45 and deleted at 48.
        let mut m = model();
        let mut states: Vec<_> = m.task_states.iter().collect();
        states.insert(5, state(3, 45, S::Suspended, R::None));
        states.insert(6, state(3, 48, S::Deleted, R::None));
        m.task_states = states.into();
        let (packets, _) = packets_of(&m, SchedEncoding::Compact);
        let changes: Vec<_> = packets
            .iter()
            .filter_map(|p| Some((p.timestamp?, p.generic_kernel_task_state_event.clone()?)))
            .map(|(ts, e)| (ts, e.tid.unwrap(), e.state(), e.comm.unwrap()))
            .collect();
        assert_eq!(
            changes,
            [
                (45, 4, TaskStateEnum::TaskStateStopped, "B".to_string()),
                (48, 4, TaskStateEnum::TaskStateDead, "B".to_string()),
            ]
        );
    }

    #[test]
    fn lost_events_flag_the_bundle_of_their_core() {
        let mut m = model();
        let (bundles, _) = bundles_of(&m, SchedEncoding::Compact);
        assert!(bundles.iter().all(|b| b.lost_events.is_none()));
        m.anomalies.push(tband_model::Anomaly {
            start_ns: 20,
            end_ns: 30,
            core_id: Some(0),
            kind: tband_model::AnomalyKind::DroppedEvents,
            count: 3,
            detail: String::new(),
        });
        let (bundles, _) = bundles_of(&m, SchedEncoding::Compact);
        assert_eq!(bundles.len(), 1);
        assert_eq!(bundles[0].lost_events, Some(true));
    }

    #[test]
    fn full_events_chain_switches_and_map_states() {
        let (bundles, counts) = bundles(SchedEncoding::Events);
        assert_eq!(
            counts,
            CpuCounts {
                switches: 5,
                wakings: 1,
                irqs: 2
            }
        );
        let events: Vec<_> = bundles.iter().flat_map(|b| b.event.iter()).collect();
        let switches: Vec<_> = events
            .iter()
            .filter_map(|e| Some((e.timestamp?, e.sched_switch.clone()?)))
            .map(|(ts, s)| {
                (
                    ts,
                    s.prev_pid.unwrap(),
                    s.prev_state.unwrap(),
                    s.next_pid.unwrap(),
                )
            })
            .collect();
        // IDLE's first slice is a switch from the idle thread to itself (so
        // that Perfetto knows what runs from then on); the gap 40..50 is
        // idle; A's last slice stays open.
        assert_eq!(
            switches,
            [
                (0, 0, STATE_RUNNABLE, 0),
                (10, 0, STATE_RUNNABLE, 3),
                (30, 3, STATE_RUNNABLE | STATE_PREEMPTED, 4),
                (40, 4, STATE_SLEEPING, 0),
                (50, 0, STATE_RUNNABLE, 3),
            ]
        );
        let waking = events
            .iter()
            .find_map(|e| e.sched_waking.as_ref().map(|w| (e, w)))
            .unwrap();
        assert_eq!(waking.0.common_flags, Some(FLAG_HARDIRQ));
        assert_eq!(waking.1.pid, Some(4));
        // B (priority unknown) maps to the least important priority.
        assert_eq!(waking.1.prio, Some(0));
        let irqs: Vec<_> = events
            .iter()
            .filter_map(|e| match (&e.irq_handler_entry, &e.irq_handler_exit) {
                (Some(_), _) => Some(("entry", e.timestamp.unwrap())),
                (_, Some(_)) => Some(("exit", e.timestamp.unwrap())),
                _ => None,
            })
            .collect();
        assert_eq!(
            irqs,
            [("entry", 18), ("entry", 19), ("exit", 21), ("exit", 25)]
        );
    }

    #[test]
    fn events_with_long_names_are_encoded_as_prost_would() {
        // Names long enough that an event's length takes two bytes.
        let mut m = model();
        m.tasks[2].name = "B".repeat(200);
        m.isrs[0].name = "U".repeat(300);
        let (bundles, counts) = bundles_of(&m, SchedEncoding::Events);
        assert_eq!(counts.switches, 5);
        let events: Vec<_> = bundles.iter().flat_map(|b| b.event.iter()).collect();
        let irq_name = events
            .iter()
            .find_map(|e| e.irq_handler_entry.as_ref()?.name.clone());
        assert_eq!(irq_name, Some(m.isrs[0].name.clone()));
        let woken = events
            .iter()
            .find_map(|e| e.sched_waking.as_ref()?.comm.clone());
        assert_eq!(woken, Some(m.tasks[2].name.clone()));
    }

    #[test]
    fn compact_encoding_holds_the_same_switches_after_a_full_first_one() {
        let (bundles, counts) = bundles(SchedEncoding::Compact);
        assert_eq!(counts.switches, 5);
        // The first switch names the thread switched out, as a compact one
        // cannot.
        let first: Vec<_> = bundles[0]
            .event
            .iter()
            .filter_map(|e| Some((e.timestamp?, e.sched_switch.clone()?)))
            .map(|(ts, s)| (ts, s.prev_pid.unwrap(), s.next_pid.unwrap()))
            .collect();
        assert_eq!(first, [(0, 0, 0)]);
        let c = bundles[0].compact_sched.as_ref().unwrap();
        assert_eq!(c.switch_timestamp, [10, 20, 10, 10]);
        assert_eq!(c.switch_next_pid, [3, 4, 0, 3]);
        assert_eq!(
            c.switch_prev_state,
            [
                STATE_RUNNABLE,
                STATE_RUNNABLE | STATE_PREEMPTED,
                STATE_SLEEPING,
                STATE_RUNNABLE
            ]
        );
        let names: Vec<_> = c
            .switch_next_comm_index
            .iter()
            .map(|&i| c.intern_table[i as usize].as_str())
            .collect();
        assert_eq!(names, ["A", "B", "IDLE", "A"]);
        assert_eq!(c.waking_pid, [4]);
        assert_eq!(c.waking_common_flags, [FLAG_HARDIRQ]);
        assert_eq!(bundles[0].cpu, Some(0));
    }
}
