//! The interpreter that turns a time-ordered stream of RTOS happenings into
//! the model's tables. It knows no wire format: importers translate their
//! events into these calls (times already in ns since the first event).
//!
//! An interval's row is pushed when the interval opens and its end is filled
//! in when it closes, so every interval table comes out in start order
//! without sorting.

use std::collections::BTreeMap;

mod fault;
mod memory;
mod rtos_objects;

use super::columns::Renumbering;
use super::id_index::IdIndex;
use super::table::Table;
use super::{
    Actor, Anomaly, AnomalyKind, Core, FaultAddress, FaultStatus, Isr, IsrKey, IsrSlice, Marker,
    MarkerInstant, MarkerKind, MarkerSpan, MarkerValue, Model, MutexHold, PriorityCause, Queue,
    QueueKind, QueueOp, QueueOpKind, SchedSlice, StateReason, StrId, Task, TaskKind, TaskPriority,
    TaskState, TaskStateKind, TraceInfo,
};

#[derive(Default)]
struct TaskTrack {
    name: Option<String>,
    kind: Option<TaskKind>,
    created_ns: Option<u64>,
    deleted_ns: Option<u64>,
    stack_size: Option<u32>,
    /// The state it is in now and its row in `task_states`.
    state: Option<(TaskStateKind, usize)>,
    /// The state a running task announced it will leave Running for.
    announced: Option<(TaskStateKind, StateReason, Option<u32>)>,
    /// The core it runs on.
    running_on: Option<u32>,
    /// Whether it was ever blocked or suspended.
    ever_waited: bool,
    /// Its slices that ended last: a change of its state at the time they
    /// ended is their end state.
    slices_ended: EndedSlices,
}

/// Slices of a task that ended at one time, by row in `sched_slices`.
struct EndedSlices {
    /// The time they ended (`u64::MAX` before the first).
    at: u64,
    last: usize,
    /// The others (a task that moves between cores may end more than one
    /// slice at a time).
    earlier: Vec<usize>,
}

impl Default for EndedSlices {
    fn default() -> Self {
        EndedSlices {
            at: u64::MAX,
            last: 0,
            earlier: Vec::new(),
        }
    }
}

impl TaskTrack {
    /// Its slice at `row` ended at `t`.
    #[inline(always)]
    fn slice_ended(&mut self, row: usize, t: u64) {
        let ended = &mut self.slices_ended;
        if ended.at == t {
            ended.earlier.push(ended.last);
        } else if !ended.earlier.is_empty() {
            ended.earlier.clear();
        }
        ended.at = t;
        ended.last = row;
    }
}

#[derive(Default)]
struct CoreTrack {
    idle_task: Option<u32>,
    /// The running task and its row in `sched_slices`.
    running: Option<(u32, usize)>,
    /// Active ISRs, outermost first.
    isr_stack: Vec<OpenIsr>,
    /// The ISRs entered on this core: each one's number among the ISRs
    /// entered on any core, which rows hold until the model is made.
    isrs_entered: IdIndex<u32, u32>,
    /// Time of the latest event on this core.
    last_event_ns: Option<u64>,
    dropped_total: u64,
    /// The registers of a fault whose event is still to come.
    fault_registers: (Option<FaultStatus>, Option<FaultAddress>),
}

#[derive(Clone, Copy)]
struct OpenIsr {
    isr: u32,
    /// Its number among the ISRs entered (see `CoreTrack::isrs_entered`).
    entered: u32,
    /// Row in `isr_slices`.
    row: usize,
    /// Events were lost while it ran, so its exit may be one of them.
    suspect: bool,
}

#[derive(Default)]
struct QueueTrack {
    name: Option<String>,
    kind: Option<QueueKind>,
    capacity: Option<u32>,
    level: Option<u32>,
    high_water: u32,
    /// The task holding the mutex and its row in `mutex_holds`.
    holder: Option<(u32, usize)>,
}

struct MarkerTrack {
    /// Its number among the markers seen, which rows hold until the model
    /// is made.
    seen: u32,
    name: Option<String>,
    /// Rows in `marker_spans` of the open spans, outermost first.
    open: Vec<usize>,
}

/// The markers by owning task (none: global), then id and kind.
type MarkerTracks = IdIndex<Option<u32>, IdIndex<(u32, MarkerKind), MarkerTrack>>;

/// A marker: its id, the task it is local to (none: global) and its kind.
type MarkerKey = (u32, Option<u32>, MarkerKind);

/// The track of a marker, created if missing; `seen` counts the markers.
#[inline(always)]
fn marker_track<'a>(
    markers: &'a mut MarkerTracks,
    seen: &mut u32,
    (id, task, kind): MarkerKey,
) -> &'a mut MarkerTrack {
    markers.entry(task).get_or_insert_with((id, kind), || {
        *seen += 1;
        MarkerTrack {
            seen: *seen - 1,
            name: None,
            open: Vec::new(),
        }
    })
}

/// Every marker's track, ordered by task (global first), kind and id.
fn sorted_markers(markers: &MarkerTracks) -> Vec<(MarkerKey, &MarkerTrack)> {
    let mut sorted: Vec<(MarkerKey, &MarkerTrack)> = markers
        .iter()
        .flat_map(|(task, ids)| {
            ids.iter()
                .map(move |((id, kind), track)| ((id, task, kind), track))
        })
        .collect();
    sorted.sort_by_key(|&((id, task, kind), _)| (task, kind as u8, id));
    sorted
}

/// What a new task state is.
#[derive(Clone, Copy)]
struct NewState {
    state: TaskStateKind,
    reason: StateReason,
    queue: Option<u32>,
    core_id: Option<u32>,
    woken_by_isr: Option<u32>,
}

impl NewState {
    fn new(state: TaskStateKind, reason: StateReason) -> Self {
        NewState {
            state,
            reason,
            queue: None,
            core_id: None,
            woken_by_isr: None,
        }
    }
}

/// Ends the current state of `task` (tracked by `track`) at `t` and opens
/// `new` in the model's task states; `new` is also the end state of the
/// task's slices that ended at `t`.
#[inline(always)]
fn push_state(model: &mut Model, track: &mut TaskTrack, task: u32, t: u64, new: NewState) {
    let rows = &mut model.task_states;
    let row = rows.push(TaskState {
        start_ns: t,
        end_ns: t,
        task,
        state: new.state,
        reason: new.reason,
        queue: new.queue,
        core_id: new.core_id,
        woken_by_isr: new.woken_by_isr,
        truncated: false,
    });
    if let Some((_, old)) = track.state.replace((new.state, row)) {
        rows.end_at(old, t);
    }
    track.ever_waited |= new.state.is_waiting();
    if track.slices_ended.at == t {
        end_again(&mut model.sched_slices, &track.slices_ended, t, new);
    }
}

/// Ends `ended`, slices that ended at `t`, again in `new`, the state their
/// task went on to at that time.
#[cold]
#[inline(never)]
fn end_again(slices: &mut Table<SchedSlice>, ended: &EndedSlices, t: u64, new: NewState) {
    for &row in std::iter::once(&ended.last).chain(&ended.earlier) {
        slices.end_slice_at(row, t, new.state, new.reason);
    }
}

/// Builds a [`Model`] from calls made in time order.
#[derive(Default)]
pub struct ModelBuilder {
    model: Model,
    tasks: IdIndex<u32, TaskTrack>,
    cores: IdIndex<u32, CoreTrack>,
    isr_names: BTreeMap<IsrKey, String>,
    /// The ISRs entered on any core, in the order they were first entered.
    entered_isrs: Vec<IsrKey>,
    queues: IdIndex<u32, QueueTrack>,
    markers: MarkerTracks,
    /// How many markers were seen.
    markers_seen: u32,
    rtos_objects: rtos_objects::RtosObjectsSoFar,
    memory: memory::MemorySoFar,
    /// The faults so far, their tasks by firmware id and their ISRs by
    /// their number among the ISRs entered (indices when the model is made).
    faults: Vec<super::Fault>,
    last_ns: u64,
}

impl ModelBuilder {
    pub fn new(info: TraceInfo) -> Self {
        ModelBuilder {
            model: Model {
                info,
                ..Model::default()
            },
            ..ModelBuilder::default()
        }
    }

    pub fn info_mut(&mut self) -> &mut TraceInfo {
        &mut self.model.info
    }

    /// Interns a message or other repeated text.
    #[inline(always)]
    pub fn intern(&mut self, bytes: &[u8]) -> StrId {
        self.model.strings.intern(bytes)
    }

    // ---- static facts (metadata); may come at any time ----

    pub fn core_seen(&mut self, core: u32) {
        self.cores.entry(core);
    }

    pub fn set_task_name(&mut self, task: u32, name: &[u8]) {
        self.tasks.entry(task).name = Some(String::from_utf8_lossy(name).into());
    }

    pub fn set_task_kind(&mut self, task: u32, kind: TaskKind) {
        self.tasks.entry(task).kind = Some(kind);
    }

    pub fn set_task_stack_size(&mut self, task: u32, bytes: u32) {
        self.tasks.entry(task).stack_size = Some(bytes);
    }

    pub fn set_idle_task(&mut self, core: u32, task: u32) {
        self.set_task_kind(task, TaskKind::Idle);
        self.cores.entry(core).idle_task = Some(task);
    }

    pub fn set_isr_name(&mut self, core: u32, isr: u32, name: &[u8]) {
        self.core_seen(core);
        self.isr_names.insert(
            IsrKey {
                core_id: core,
                isr_id: isr,
            },
            String::from_utf8_lossy(name).into(),
        );
    }

    pub fn set_marker_name(
        &mut self,
        marker: u32,
        task: Option<u32>,
        kind: MarkerKind,
        name: &[u8],
    ) {
        marker_track(
            &mut self.markers,
            &mut self.markers_seen,
            (marker, task, kind),
        )
        .name = Some(String::from_utf8_lossy(name).into());
    }

    pub fn set_queue_name(&mut self, queue: u32, name: &[u8]) {
        self.queues.entry(queue).name = Some(String::from_utf8_lossy(name).into());
    }

    pub fn set_queue_kind(&mut self, queue: u32, kind: QueueKind) {
        self.queues.entry(queue).kind = Some(kind);
    }

    pub fn queue_created(&mut self, queue: u32) {
        self.queues.entry(queue);
    }

    pub fn set_queue_capacity(&mut self, queue: u32, items: u32) {
        self.queues.entry(queue).capacity = Some(items);
    }

    // ---- queries importers need ----

    /// The task running on `core`, if known.
    pub fn running_task(&self, core: u32) -> Option<u32> {
        self.cores.get(core)?.running.map(|(task, _)| task)
    }

    fn is_running(&self, task: u32) -> bool {
        self.tasks.get(task).is_some_and(|t| t.running_on.is_some())
    }

    /// Whether an ISR is executing on `core`.
    pub fn in_isr(&self, core: u32) -> bool {
        self.cores
            .get(core)
            .is_some_and(|c| !c.isr_stack.is_empty())
    }

    /// The innermost ISR executing on `core`.
    pub fn current_isr(&self, core: u32) -> Option<u32> {
        self.cores.get(core)?.isr_stack.last().map(|open| open.isr)
    }

    /// The innermost ISR executing on `core`, else the task running there.
    pub fn actor(&self, core: u32) -> Option<Actor> {
        match self.current_isr(core) {
            Some(isr_id) => Some(Actor::Isr(IsrKey {
                core_id: core,
                isr_id,
            })),
            None => self.running_task(core).map(Actor::Task),
        }
    }

    /// Records that an event happened on `core` at `t` (every timed event
    /// calls this, so that loss regions start at the last event before them).
    /// Returns the time of the event before it on that core.
    #[inline]
    pub fn event_at(&mut self, core: u32, t: u64) -> Option<u64> {
        self.last_ns = self.last_ns.max(t);
        self.cores.entry(core).last_event_ns.replace(t)
    }

    /// Time of the latest event seen on `core`.
    pub fn last_event_on(&self, core: u32) -> Option<u64> {
        self.cores.get(core)?.last_event_ns
    }

    // ---- tasks ----

    /// Ends the task's current state at `t` and opens `new`.
    #[inline]
    fn set_state(&mut self, task: u32, t: u64, new: NewState) {
        push_state(&mut self.model, self.tasks.entry(task), task, t, new);
    }

    /// A task was created; it has no state until it is made ready.
    pub fn task_created(&mut self, t: u64, task: u32) {
        self.tasks.entry(task).created_ns.get_or_insert(t);
    }

    /// `task` now runs on `core`; the task that ran there before leaves
    /// Running for the state it announced, or is Ready (preempted).
    pub fn task_switched_in(&mut self, t: u64, core: u32, task: u32) {
        let slices = &mut self.model.sched_slices;
        let slice_row = slices.len();
        let core_track = self.cores.entry(core);
        let previous = match core_track.running {
            Some((prev, _)) if prev == task => {
                self.tasks.entry(task).announced = None;
                return;
            }
            previous => previous,
        };
        core_track.running = Some((task, slice_row));
        if let Some((prev, row)) = previous {
            self.leave_running(t, prev, row);
        }
        let slices = &mut self.model.sched_slices;
        slices.push(SchedSlice {
            start_ns: t,
            end_ns: t,
            task,
            core_id: core,
            end_state: None,
            end_reason: StateReason::None,
            truncated: false,
        });
        // A task that was running on another core has left it.
        let track = self.tasks.entry(task);
        let other = track.running_on.replace(core);
        let mut running = NewState::new(TaskStateKind::Running, StateReason::None);
        running.core_id = Some(core);
        push_state(&mut self.model, track, task, t, running);
        if let Some(other) = other.filter(|&other| other != core) {
            if let Some((_, row)) = self.cores.get_mut(other).and_then(|c| c.running.take()) {
                let slices = &mut self.model.sched_slices;
                slices.end_slice_at(row, t, TaskStateKind::Running, StateReason::None);
                track.slice_ended(row, t);
            }
        }
    }

    /// `task` leaves Running at `t`, ending its slice at row `slice`.
    #[inline]
    fn leave_running(&mut self, t: u64, task: u32, slice: usize) {
        let track = self.tasks.entry(task);
        track.running_on = None;
        let next = match track.announced.take() {
            Some((state, reason, queue)) => NewState {
                queue,
                ..NewState::new(state, reason)
            },
            None => NewState::new(TaskStateKind::Ready, StateReason::Preempted),
        };
        push_state(&mut self.model, track, task, t, next);
        let slices = &mut self.model.sched_slices;
        slices.end_slice_at(slice, t, next.state, next.reason);
        track.slice_ended(slice, t);
    }

    /// The task running on `core` will leave Running for `state` at its next
    /// switch-out (it is about to block, delay, suspend or delete itself).
    pub fn current_task_announces(
        &mut self,
        t: u64,
        core: u32,
        state: TaskStateKind,
        reason: StateReason,
        queue: Option<u32>,
    ) {
        if let Some(queue) = queue {
            // Every queue a row names is in the model's list of queues.
            self.queues.entry(queue);
        }
        match self.running_task(core) {
            Some(task) => self.tasks.entry(task).announced = Some((state, reason, queue)),
            None => self.anomaly(
                t,
                t,
                Some(core),
                AnomalyKind::NoCurrentTask,
                1,
                format!(
                    "a task announced it {} but no running task is known",
                    reason.as_str()
                ),
            ),
        }
    }

    /// Moves `task` to `state` now, or, if it is running, when it is switched out.
    fn task_to(&mut self, t: u64, task: u32, state: TaskStateKind, reason: StateReason) {
        if self.is_running(task) {
            self.tasks.entry(task).announced = Some((state, reason, None));
        } else {
            self.set_state(task, t, NewState::new(state, reason));
        }
    }

    pub fn task_suspended(&mut self, t: u64, task: u32) {
        self.task_to(t, task, TaskStateKind::Suspended, StateReason::Suspend);
    }

    pub fn task_deleted(&mut self, t: u64, task: u32) {
        self.tasks.entry(task).deleted_ns = Some(t);
        self.task_to(t, task, TaskStateKind::Deleted, StateReason::Deleted);
    }

    /// `task` became ready (woken, resumed, timed out); `core` is where the
    /// event happened, so an ISR active there is recorded as the waker.
    #[inline(always)]
    pub fn task_ready(&mut self, t: u64, core: u32, task: u32) {
        let track = self.tasks.entry(task);
        if track.running_on.is_some() {
            // A running task asked to be made ready again cancels a pending block.
            track.announced = None;
            return;
        }
        let first = track.state.is_none() && track.created_ns.is_some();
        if track
            .state
            .is_some_and(|(state, _)| state == TaskStateKind::Ready)
        {
            return;
        }
        let reason = if first {
            StateReason::Created
        } else {
            StateReason::Woken
        };
        let mut ready = NewState::new(TaskStateKind::Ready, reason);
        ready.woken_by_isr = self
            .cores
            .get(core)
            .and_then(|c| c.isr_stack.last())
            .map(|open| open.entered);
        push_state(&mut self.model, track, task, t, ready);
    }

    pub fn task_priority(&mut self, t: u64, task: u32, priority: u32, cause: PriorityCause) {
        self.tasks.entry(task);
        self.model.task_priorities.push(TaskPriority {
            ts_ns: t,
            task,
            priority,
            cause,
        });
    }

    // ---- ISRs ----

    /// An ISR starts. An ISR cannot preempt itself, so if it is still open
    /// its exit was lost: it is closed here, flagged truncated.
    #[inline(always)]
    pub fn isr_enter(&mut self, t: u64, core: u32, isr: u32) {
        let mut track = self.cores.entry(core);
        if let Some(pos) = track.isr_stack.iter().rposition(|open| open.isr == isr) {
            self.reenter_isr(t, core, isr, pos);
            track = self.cores.entry(core);
        }
        let slices = &mut self.model.isr_slices;
        let row = slices.len();
        let entered_isrs = &mut self.entered_isrs;
        let entered = *track.isrs_entered.get_or_insert_with(isr, || {
            entered_isrs.push(IsrKey {
                core_id: core,
                isr_id: isr,
            });
            entered_isrs.len() as u32 - 1
        });
        let stack = &mut track.isr_stack;
        slices.push(IsrSlice {
            start_ns: t,
            end_ns: t,
            core_id: core,
            isr: entered,
            depth: stack.len() as u32,
            truncated: false,
        });
        stack.push(OpenIsr {
            isr,
            entered,
            row,
            suspect: false,
        });
    }

    /// Closes the open ISR at stack position `pos` that is entered again.
    #[cold]
    fn reenter_isr(&mut self, t: u64, core: u32, isr: u32, pos: usize) {
        let closed = self.cores.entry(core).isr_stack.len() - pos;
        self.close_isrs(t, core, pos, true);
        self.anomaly(
            t,
            t,
            Some(core),
            AnomalyKind::NeverClosed,
            closed as u64,
            format!("ISR {isr} entered again before its exit was seen"),
        );
    }

    #[inline(always)]
    pub fn isr_exit(&mut self, t: u64, core: u32, isr: u32) {
        let stack = &mut self.cores.entry(core).isr_stack;
        // The usual case: the innermost ISR exits, with no events lost.
        if let Some(&OpenIsr {
            isr: open,
            row,
            suspect: false,
            ..
        }) = stack.last()
        {
            if open == isr {
                stack.pop();
                self.model.isr_slices.end_at(row, t);
                return;
            }
        }
        self.unusual_isr_exit(t, core, isr);
    }

    /// An ISR exit that is not the innermost ISR's, or whose ISR may have
    /// lost events.
    #[inline(never)]
    fn unusual_isr_exit(&mut self, t: u64, core: u32, isr: u32) {
        let stack = &mut self.cores.entry(core).isr_stack;
        let Some(pos) = stack.iter().rposition(|open| open.isr == isr) else {
            self.anomaly(
                t,
                t,
                Some(core),
                AnomalyKind::EndWithoutBegin,
                1,
                format!("exit of ISR {isr} that was not entered"),
            );
            return;
        };
        let missing = stack.len() - pos - 1;
        self.close_isrs(t, core, pos, false);
        if missing > 0 {
            self.anomaly(
                t,
                t,
                Some(core),
                AnomalyKind::NeverClosed,
                missing as u64,
                format!("ISR {isr} exited while {missing} ISR(s) nested in it had not exited"),
            );
        }
    }

    /// Closes the ISRs from stack position `from` up at `t`; those nested in
    /// the one at `from`, and suspect ones, are flagged truncated.
    fn close_isrs(&mut self, t: u64, core: u32, from: usize, truncated: bool) {
        let stack = &mut self.cores.entry(core).isr_stack;
        let slices = &mut self.model.isr_slices;
        for (i, open) in stack.iter().enumerate().skip(from) {
            slices.end_at(open.row, t);
            if truncated || i > from || open.suspect {
                slices.update(open.row, |slice| slice.truncated = true);
            }
        }
        stack.truncate(from);
    }

    // ---- logs ----

    /// The firmware logged the encoded `frame` on `core` at `t`; it is
    /// decoded once the model is made ([`Model::decode_logs`]).
    pub fn log_frame(&mut self, t: u64, core: u32, frame: &[u8]) {
        let by = self.actor(core);
        self.model.logs.push(crate::LogLine {
            ts_ns: t,
            core_id: core,
            by,
            frame: frame.to_vec(),
            message: None,
        });
    }

    // ---- markers ----

    #[inline(always)]
    pub fn marker_instant(&mut self, t: u64, marker: u32, task: Option<u32>, msg: StrId) {
        let key = (marker, task, MarkerKind::Event);
        let seen = marker_track(&mut self.markers, &mut self.markers_seen, key).seen;
        self.model.marker_instants.push(MarkerInstant {
            ts_ns: t,
            marker: seen,
            msg,
        });
    }

    #[inline(always)]
    pub fn marker_begin(&mut self, t: u64, marker: u32, task: Option<u32>, msg: StrId) {
        let row = self.model.marker_spans.len();
        let key = (marker, task, MarkerKind::Event);
        let track = marker_track(&mut self.markers, &mut self.markers_seen, key);
        let open = &mut track.open;
        self.model.marker_spans.push(MarkerSpan {
            start_ns: t,
            end_ns: t,
            marker: track.seen,
            msg,
            depth: open.len() as u32,
            truncated: false,
        });
        open.push(row);
    }

    #[inline(always)]
    pub fn marker_end(&mut self, t: u64, core: u32, marker: u32, task: Option<u32>) {
        let key = (marker, task, MarkerKind::Event);
        let track = marker_track(&mut self.markers, &mut self.markers_seen, key);
        match track.open.pop() {
            Some(row) => self.model.marker_spans.end_at(row, t),
            None => self.anomaly(
                t,
                t,
                Some(core),
                AnomalyKind::EndWithoutBegin,
                1,
                format!("end of marker {marker} span that was not begun"),
            ),
        }
    }

    #[inline(always)]
    pub fn marker_value(&mut self, t: u64, marker: u32, task: Option<u32>, value: i64) {
        let key = (marker, task, MarkerKind::Value);
        let seen = marker_track(&mut self.markers, &mut self.markers_seen, key).seen;
        self.model.marker_values.push(MarkerValue {
            ts_ns: t,
            marker: seen,
            value,
        });
    }

    // ---- queues ----

    /// An operation on a queue, semaphore or mutex. The task is the one
    /// running on `core` unless the operation came from an ISR.
    #[inline(always)]
    pub fn queue_op(
        &mut self,
        t: u64,
        core: u32,
        queue: u32,
        op: QueueOpKind,
        from_isr: bool,
        len_after: Option<u32>,
    ) {
        let task = if from_isr {
            None
        } else {
            self.running_task(core)
        };
        let hold_row = self.model.mutex_holds.len();
        let track = self.queues.entry(queue);
        let before = track.level;
        if let Some(len) = len_after {
            track.level = Some(len);
            track.high_water = track.high_water.max(len);
        } else if op == QueueOpKind::Reset {
            track.level = Some(0);
        }
        // Holders are tracked for every queue, since its kind may be named
        // later in the trace; `finish` keeps those of mutexes.
        if op != QueueOpKind::Level {
            let taken = len_after == Some(0) && op == QueueOpKind::Receive;
            let given = len_after.is_some_and(|l| l > 0) && before == Some(0);
            if taken && track.holder.is_none() {
                if let Some(task) = task {
                    track.holder = Some((task, hold_row));
                    self.model.mutex_holds.push(MutexHold {
                        start_ns: t,
                        end_ns: t,
                        queue,
                        task,
                        truncated: false,
                    });
                }
            } else if given {
                if let Some((_, row)) = track.holder.take() {
                    self.model.mutex_holds.end_at(row, t);
                }
            }
        }
        self.model.queue_ops.push(QueueOp {
            ts_ns: t,
            queue,
            op,
            from_isr,
            task,
            core_id: core,
            len_after,
        });
    }

    // ---- damage ----

    /// The tracer's running total of lost events on `core`, as reported at `t`.
    /// An increase is a loss just before `t`, after the previous event on that core.
    pub fn dropped_total(&mut self, t: u64, core: u32, total: u64, previous_event_ns: Option<u64>) {
        let track = self.cores.entry(core);
        let before = track.dropped_total;
        track.dropped_total = total;
        if total > before {
            for open in &mut track.isr_stack {
                open.suspect = true;
            }
            self.anomaly(
                previous_event_ns.unwrap_or(t).min(t),
                t,
                Some(core),
                AnomalyKind::DroppedEvents,
                total - before,
                format!(
                    "the tracer lost {} event(s) (running total {total})",
                    total - before
                ),
            );
        }
    }

    pub fn anomaly(
        &mut self,
        start_ns: u64,
        end_ns: u64,
        core_id: Option<u32>,
        kind: AnomalyKind,
        count: u64,
        detail: String,
    ) {
        self.model.anomalies.push(Anomaly {
            start_ns,
            end_ns,
            core_id,
            kind,
            count,
            detail,
        });
    }

    // ---- the end ----

    /// Closes everything still open at the last event and returns the model.
    pub fn finish(mut self) -> Model {
        let end = self.last_ns;
        self.set_open_ends(OpenEnds::ClosedAt(end));
        let m = &mut self.model;
        for ((marker, _, _), track) in sorted_markers(&self.markers) {
            if let Some(first) = track.open.first().and_then(|&row| m.marker_spans.get(row)) {
                m.anomalies.push(Anomaly {
                    start_ns: first.start_ns,
                    end_ns: end,
                    core_id: None,
                    kind: AnomalyKind::NeverClosed,
                    count: track.open.len() as u64,
                    detail: format!("marker {marker} span(s) never ended"),
                });
            }
        }
        self.fill_lists();
        let m = &mut self.model;
        m.anomalies.extend(self.memory.anomalies());
        let queues = &m.queues;
        let is_mutex = |queue: u32| {
            queues
                .get(queue as usize)
                .is_some_and(|q| q.kind.is_mutex())
        };
        if !m.mutex_holds.iter().all(|h| is_mutex(h.queue)) {
            m.mutex_holds.retain(|h| is_mutex(h.queue));
        }
        m.anomalies.sort_by_key(|a| (a.end_ns, a.start_ns, a.kind));
        self.model
    }

    /// The model of the calls so far, lent out while more may come (a trace
    /// read as it grows): what is still open is shown closed at the last
    /// event and flagged truncated, as [`finish`](Self::finish) closes it,
    /// and the lists of cores, tasks, ISRs, markers and queues are filled.
    /// Unlike `finish` it judges nothing that more calls could change: no
    /// marker span is called never closed, and the mutex holds of queues
    /// not (yet) known to be mutexes stay. Hand the model back with
    /// [`resume`](Self::resume) before the next call.
    pub fn take_so_far(&mut self) -> Model {
        self.set_open_ends(OpenEnds::ClosedAt(self.last_ns));
        self.fill_lists();
        // A stable sort: sorting again later, with more rows, orders them
        // as one sort at the end would.
        let m = &mut self.model;
        m.anomalies.sort_by_key(|a| (a.end_ns, a.start_ns, a.kind));
        std::mem::take(&mut self.model)
    }

    /// Takes back the model [`take_so_far`](Self::take_so_far) lent out,
    /// opening again what it closed, so that the calls go on.
    pub fn resume(&mut self, model: Model) {
        self.model = model;
        let task_ids: Vec<u32> = self.model.tasks.iter().map(|t| t.task_id).collect();
        let task_id = |task: u32| task_ids.get(task as usize).copied().unwrap_or(task);
        let queue_ids: Vec<u32> = self.model.queues.iter().map(|q| q.queue_id).collect();
        let queue_id = |queue: u32| queue_ids.get(queue as usize).copied().unwrap_or(queue);
        let cores = &self.cores;
        let entered_numbers: Vec<u32> = (self.model.isrs.iter())
            .map(|i| {
                let core = cores.get(i.core_id);
                core.and_then(|c| c.isrs_entered.get(i.isr_id))
                    .copied()
                    .unwrap_or(u32::MAX)
            })
            .collect();
        let entered = |isr: u32| entered_numbers.get(isr as usize).copied().unwrap_or(isr);
        let markers = &self.markers;
        let markers_seen: Vec<u32> = (self.model.markers.iter())
            .map(|mk| {
                let of_owner = markers.get(mk.task_id);
                let track = of_owner.and_then(|ids| ids.get((mk.marker_id, mk.kind)));
                track.map_or(u32::MAX, |t| t.seen)
            })
            .collect();
        let seen = |marker: u32| markers_seen.get(marker as usize).copied().unwrap_or(marker);
        let ids = Renumbering {
            task: &task_id,
            queue: &queue_id,
            isr: &entered,
            marker: &seen,
        };
        self.model.renumber_rows(&ids);
        rtos_objects::renumber(&mut self.model.rtos_objects, &task_id, false);
        self.set_open_ends(OpenEnds::Reopened);
    }

    /// Ends (or opens again) the rows of everything still open: running
    /// slices, ISRs, task states, marker spans, mutex holds.
    fn set_open_ends(&mut self, ends: OpenEnds) {
        let m = &mut self.model;
        if let OpenEnds::ClosedAt(end) = ends {
            m.info.duration_ns = end;
        }
        for track in self.cores.values() {
            if let Some((_, row)) = track.running {
                m.sched_slices.update(row, |s| {
                    ends.apply(s.start_ns, &mut s.end_ns, &mut s.truncated)
                });
            }
            for open in &track.isr_stack {
                m.isr_slices.update(open.row, |s| {
                    ends.apply(s.start_ns, &mut s.end_ns, &mut s.truncated)
                });
            }
        }
        for track in self.tasks.values() {
            if let Some((_, row)) = track.state {
                m.task_states.update(row, |s| {
                    ends.apply(s.start_ns, &mut s.end_ns, &mut s.truncated)
                });
            }
        }
        for track in self.markers.values().flat_map(IdIndex::values) {
            for &row in &track.open {
                m.marker_spans.update(row, |s| {
                    ends.apply(s.start_ns, &mut s.end_ns, &mut s.truncated)
                });
            }
        }
        for track in self.queues.values() {
            if let Some((_, row)) = track.holder {
                m.mutex_holds.update(row, |h| {
                    ends.apply(h.start_ns, &mut h.end_ns, &mut h.truncated)
                });
            }
        }
        self.memory.set_open_ends(&mut m.memory, ends);
    }

    /// Fills the model's lists of cores, tasks, ISRs, markers and queues
    /// from what is known of them, and changes the rows' ids of them to
    /// indices into those lists.
    fn fill_lists(&mut self) {
        self.memory.fill(&mut self.model.memory);
        let m = &mut self.model;
        m.tasks = self
            .tasks
            .sorted()
            .into_iter()
            .map(|(task_id, t)| Task {
                task_id,
                name: t.name.clone().unwrap_or_else(|| format!("task {task_id}")),
                kind: t.kind.unwrap_or(TaskKind::Normal),
                created_ns: t.created_ns,
                deleted_ns: t.deleted_ns,
                stack_size: t.stack_size,
                ever_waited: t.ever_waited,
            })
            .collect();
        let task_index = index_by_id(m.tasks.iter().map(|t| t.task_id));
        let task_index = |task: u32| task_index.get(task).copied().unwrap_or(task);
        self.rtos_objects.fill(&mut m.rtos_objects);
        rtos_objects::renumber(&mut m.rtos_objects, &task_index, true);
        let cores = self.cores.sorted();
        m.cores = cores
            .iter()
            .map(|&(core_id, t)| Core {
                core_id,
                idle_task: t.idle_task.map(task_index),
            })
            .collect();
        let mut isr_keys: Vec<IsrKey> = self.isr_names.keys().copied().collect();
        isr_keys.extend(&self.entered_isrs);
        isr_keys.sort_unstable();
        isr_keys.dedup();
        m.isrs = isr_keys
            .into_iter()
            .map(|key| Isr {
                core_id: key.core_id,
                isr_id: key.isr_id,
                name: self
                    .isr_names
                    .get(&key)
                    .cloned()
                    .unwrap_or_else(|| format!("isr {}", key.isr_id)),
            })
            .collect();
        let markers = sorted_markers(&self.markers);
        let mut marker_index = vec![0; self.markers_seen as usize];
        for (i, (_, track)) in markers.iter().enumerate() {
            marker_index[track.seen as usize] = i as u32;
        }
        m.markers = markers
            .into_iter()
            .map(|((marker_id, task_id, kind), t)| Marker {
                marker_id,
                task_id,
                kind,
                name: t
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("marker {marker_id}")),
            })
            .collect();
        m.queues = self
            .queues
            .sorted()
            .into_iter()
            .map(|(queue_id, t)| Queue {
                queue_id,
                name: t
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("queue {queue_id}")),
                kind: t.kind.unwrap_or(QueueKind::Unknown),
                capacity: t.capacity,
                high_water: t.high_water,
            })
            .collect();
        let queue_index = index_by_id(m.queues.iter().map(|q| q.queue_id));
        let queue_index = |queue: u32| queue_index.get(queue).copied().unwrap_or(queue);
        let isrs = &m.isrs;
        let entered_index: Vec<u32> = (self.entered_isrs.iter())
            .map(|&key| isrs.partition_point(|i| isr_key(i) < key) as u32)
            .collect();
        let isr_index = |entered: u32| {
            entered_index
                .get(entered as usize)
                .copied()
                .unwrap_or(entered)
        };
        let marker_index = |seen: u32| marker_index.get(seen as usize).copied().unwrap_or(seen);
        let faults = self.faults_as_rows(&task_index, &isr_index);
        let m = &mut self.model;
        m.faults = faults;
        let indices = Renumbering {
            task: &task_index,
            queue: &queue_index,
            isr: &isr_index,
            marker: &marker_index,
        };
        m.renumber_rows(&indices);
    }
}

/// The key an ISR is sorted by.
fn isr_key(isr: &Isr) -> IsrKey {
    IsrKey {
        core_id: isr.core_id,
        isr_id: isr.isr_id,
    }
}

/// The index of each id of an entity table sorted by id.
fn index_by_id(ids: impl Iterator<Item = u32>) -> IdIndex<u32, u32> {
    let mut index = IdIndex::default();
    for (i, id) in ids.enumerate() {
        index.insert(id, i as u32);
    }
    index
}

/// What [`ModelBuilder::set_open_ends`] does to the rows still open.
#[derive(Clone, Copy)]
enum OpenEnds {
    /// Ends them at this time, flagged truncated.
    ClosedAt(u64),
    /// Opens them again: no end yet, not truncated.
    Reopened,
}

impl OpenEnds {
    fn apply(self, start: u64, end: &mut u64, truncated: &mut bool) {
        match self {
            OpenEnds::ClosedAt(t) => {
                *end = t.max(start);
                *truncated = true;
            }
            OpenEnds::Reopened => {
                *end = start;
                *truncated = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finish(b: ModelBuilder) -> Model {
        b.finish()
    }

    /// The firmware id of the task at `index` in the model's tasks.
    fn id(m: &Model, index: u32) -> u32 {
        m.tasks[index as usize].task_id
    }

    /// The task with firmware id `task_id`.
    fn task(m: &Model, task_id: u32) -> &Task {
        m.tasks.iter().find(|t| t.task_id == task_id).unwrap()
    }

    #[test]
    fn switches_make_slices_and_states() {
        let mut b = ModelBuilder::default();
        b.set_idle_task(0, 9);
        b.event_at(0, 0);
        b.task_switched_in(0, 0, 1);
        b.current_task_announces(
            10,
            0,
            TaskStateKind::Blocked,
            StateReason::QueueReceive,
            Some(4),
        );
        b.task_switched_in(10, 0, 9);
        b.task_ready(15, 0, 1);
        b.task_switched_in(20, 0, 1);
        b.task_switched_in(25, 0, 1);
        b.event_at(0, 30);
        let m = finish(b);
        let slices: Vec<_> = m
            .sched_slices
            .iter()
            .map(|s| (id(&m, s.task), s.start_ns, s.end_ns, s.truncated))
            .collect();
        assert_eq!(
            slices,
            [(1, 0, 10, false), (9, 10, 20, false), (1, 20, 30, true)]
        );
        let t1: Vec<_> = m
            .task_states
            .iter()
            .filter(|s| id(&m, s.task) == 1)
            .map(|s| (s.state, s.reason, s.queue, s.start_ns, s.end_ns))
            .collect();
        assert_eq!(
            t1,
            [
                (TaskStateKind::Running, StateReason::None, None, 0, 10),
                (
                    TaskStateKind::Blocked,
                    StateReason::QueueReceive,
                    Some(0),
                    10,
                    15
                ),
                (TaskStateKind::Ready, StateReason::Woken, None, 15, 20),
                (TaskStateKind::Running, StateReason::None, None, 20, 30),
            ]
        );
        // Queue 4, which the task waits on, is the first queue.
        assert_eq!(m.queues[0].queue_id, 4);
        assert!(m.is_idle(1));
        assert_eq!(m.cores[0].idle_task, Some(1));
        assert_eq!(id(&m, 1), 9);
        let idle_states: Vec<_> = m
            .task_states
            .iter()
            .filter(|s| id(&m, s.task) == 9)
            .map(|s| s.state)
            .collect();
        assert_eq!(idle_states, [TaskStateKind::Running, TaskStateKind::Ready]);
    }

    #[test]
    fn preempted_task_is_ready_and_woken_by_isr_is_recorded() {
        let mut b = ModelBuilder::default();
        b.task_switched_in(0, 0, 1);
        b.isr_enter(5, 0, 3);
        b.task_ready(6, 0, 2);
        b.isr_exit(7, 0, 3);
        b.task_switched_in(8, 0, 2);
        b.event_at(0, 9);
        let m = finish(b);
        let s = m
            .task_states
            .iter()
            .find(|s| id(&m, s.task) == 2 && s.state == TaskStateKind::Ready)
            .unwrap();
        let isr = &m.isrs[s.woken_by_isr.unwrap() as usize];
        assert_eq!((isr.core_id, isr.isr_id), (0, 3));
        let s = m
            .task_states
            .iter()
            .find(|s| id(&m, s.task) == 1 && s.state == TaskStateKind::Ready)
            .unwrap();
        assert_eq!(
            (s.reason, s.start_ns, s.truncated),
            (StateReason::Preempted, 8, true)
        );
        assert_eq!(m.isr_slices.len(), 1);
        assert_eq!(m.isrs[0].name, "isr 3");
    }

    #[test]
    fn nested_isrs_and_unbalanced_exits() {
        let mut b = ModelBuilder::default();
        b.isr_enter(0, 0, 1);
        b.isr_enter(2, 0, 2);
        b.isr_exit(3, 0, 2);
        b.isr_exit(5, 0, 1);
        b.isr_exit(6, 0, 1);
        b.isr_enter(7, 0, 1);
        b.isr_enter(8, 0, 2);
        b.isr_exit(9, 0, 1);
        b.isr_enter(10, 0, 4);
        b.isr_enter(11, 0, 4);
        b.event_at(0, 12);
        let m = finish(b);
        let slices: Vec<_> = m
            .isr_slices
            .iter()
            .map(|s| {
                let isr_id = m.isrs[s.isr as usize].isr_id;
                (isr_id, s.start_ns, s.end_ns, s.depth, s.truncated)
            })
            .collect();
        assert_eq!(
            slices,
            [
                (1, 0, 5, 0, false),
                (2, 2, 3, 1, false),
                (1, 7, 9, 0, false),
                (2, 8, 9, 1, true),
                (4, 10, 11, 0, true),
                (4, 11, 12, 0, true)
            ]
        );
        assert_eq!(m.anomaly_count(AnomalyKind::EndWithoutBegin), 1);
        assert_eq!(m.anomaly_count(AnomalyKind::NeverClosed), 2);
    }

    #[test]
    fn markers_nest_and_report_damage() {
        let mut b = ModelBuilder::default();
        let msg = b.intern(b"hello");
        b.set_marker_name(1, None, MarkerKind::Event, b"work");
        b.marker_begin(0, 1, None, msg);
        b.marker_begin(1, 1, None, StrId::EMPTY);
        b.marker_end(2, 0, 1, None);
        b.marker_end(3, 0, 1, None);
        b.marker_end(4, 0, 1, None);
        b.marker_begin(5, 1, Some(7), msg);
        b.marker_value(6, 2, None, -5);
        b.event_at(0, 8);
        let m = finish(b);
        let spans: Vec<_> = m
            .marker_spans
            .iter()
            .map(|s| {
                (
                    s.start_ns,
                    s.end_ns,
                    s.depth,
                    m.markers[s.marker as usize].task_id,
                    m.strings.get(s.msg),
                    s.truncated,
                )
            })
            .collect();
        assert_eq!(
            spans,
            [
                (0, 3, 0, None, "hello", false),
                (1, 2, 1, None, "", false),
                (5, 8, 0, Some(7), "hello", true)
            ]
        );
        assert_eq!(m.anomaly_count(AnomalyKind::EndWithoutBegin), 1);
        assert_eq!(m.anomaly_count(AnomalyKind::NeverClosed), 1);
        let markers: Vec<_> = (m.markers.iter())
            .map(|mk| (mk.marker_id, mk.task_id, mk.kind, mk.name.as_str()))
            .collect();
        assert_eq!(
            markers,
            [
                (1, None, MarkerKind::Event, "work"),
                (2, None, MarkerKind::Value, "marker 2"),
                (1, Some(7), MarkerKind::Event, "marker 1")
            ]
        );
        let values: Vec<_> = m
            .marker_values
            .iter()
            .map(|v| (v.marker, v.value))
            .collect();
        assert_eq!(values, [(1, -5)]);
    }

    #[test]
    fn queues_track_high_water_and_mutex_holders() {
        let mut b = ModelBuilder::default();
        b.set_queue_kind(1, QueueKind::Mutex);
        b.task_switched_in(0, 0, 5);
        b.queue_op(0, 0, 1, QueueOpKind::Level, false, Some(1));
        b.queue_op(1, 0, 1, QueueOpKind::Receive, false, Some(0));
        b.queue_op(4, 0, 1, QueueOpKind::Send, false, Some(1));
        b.queue_op(5, 0, 2, QueueOpKind::Send, true, Some(3));
        b.queue_op(6, 0, 2, QueueOpKind::Receive, false, Some(2));
        b.queue_op(7, 0, 1, QueueOpKind::Receive, false, Some(0));
        b.event_at(0, 9);
        let m = finish(b);
        assert_eq!(m.queues[1].high_water, 3);
        assert_eq!(m.queues[0].high_water, 1);
        let holds: Vec<_> = m
            .mutex_holds
            .iter()
            .map(|h| (id(&m, h.task), h.start_ns, h.end_ns, h.truncated))
            .collect();
        assert_eq!(holds, [(5, 1, 4, false), (5, 7, 9, true)]);
        assert_eq!(m.queue_ops.get(3).unwrap().task, None);
        let task = m.queue_ops.get(4).unwrap().task;
        assert_eq!(task.map(|t| id(&m, t)), Some(5));
    }

    #[test]
    fn dropped_totals_become_regions() {
        let mut b = ModelBuilder::default();
        b.dropped_total(10, 0, 0, None);
        b.dropped_total(20, 0, 3, Some(15));
        b.dropped_total(30, 0, 3, Some(25));
        let m = finish(b);
        assert_eq!(m.anomalies.len(), 1);
        let a = &m.anomalies[0];
        assert_eq!(
            (a.kind, a.start_ns, a.end_ns, a.count),
            (AnomalyKind::DroppedEvents, 15, 20, 3)
        );
    }

    #[test]
    fn suspend_and_delete_of_running_task_take_effect_at_switch_out() {
        let mut b = ModelBuilder::default();
        b.task_switched_in(0, 0, 1);
        b.task_suspended(2, 1);
        b.task_switched_in(3, 0, 2);
        b.task_deleted(4, 2);
        b.task_switched_in(5, 0, 3);
        b.task_suspended(6, 3);
        b.event_at(0, 8);
        let m = finish(b);
        let last = |task| {
            m.task_states
                .iter()
                .rev()
                .find(|s| id(&m, s.task) == task)
                .unwrap()
        };
        assert_eq!(
            (last(1).state, last(1).start_ns),
            (TaskStateKind::Suspended, 3)
        );
        assert_eq!(
            (last(2).state, last(2).start_ns),
            (TaskStateKind::Deleted, 5)
        );
        assert_eq!(task(&m, 2).deleted_ns, Some(4));
        assert_eq!(last(3).state, TaskStateKind::Running);
    }

    /// Each slice's task, end state and reason, and whether it is truncated.
    fn slice_ends(m: &Model) -> Vec<(u32, Option<TaskStateKind>, StateReason, bool)> {
        m.sched_slices
            .iter()
            .map(|s| (id(m, s.task), s.end_state, s.end_reason, s.truncated))
            .collect()
    }

    #[test]
    fn slices_end_in_the_state_their_task_leaves_running_for() {
        use StateReason as R;
        use TaskStateKind as S;
        let mut b = ModelBuilder::default();
        b.set_idle_task(0, 9);
        b.task_switched_in(0, 0, 1);
        // 2 preempts 1; 2 blocks on queue 4; 1 suspends itself; 3 deletes
        // itself; 1 runs to the end.
        b.task_switched_in(10, 0, 2);
        b.current_task_announces(15, 0, S::Blocked, R::QueueReceive, Some(4));
        b.task_switched_in(20, 0, 1);
        b.task_suspended(25, 1);
        b.task_switched_in(30, 0, 9);
        b.task_ready(35, 0, 3);
        b.task_switched_in(40, 0, 3);
        b.task_deleted(45, 3);
        b.task_switched_in(50, 0, 1);
        b.event_at(0, 60);
        let m = finish(b);
        assert_eq!(
            slice_ends(&m),
            [
                (1, Some(S::Ready), R::Preempted, false),
                (2, Some(S::Blocked), R::QueueReceive, false),
                (1, Some(S::Suspended), R::Suspend, false),
                (9, Some(S::Ready), R::Preempted, false),
                (3, Some(S::Deleted), R::Deleted, false),
                (1, None, R::None, true),
            ]
        );
        let waited: Vec<_> = m.tasks.iter().map(|t| (t.task_id, t.ever_waited)).collect();
        assert_eq!(waited, [(1, true), (2, true), (3, false), (9, false)]);
    }

    #[test]
    fn a_state_change_at_the_instant_a_slice_ends_is_its_end_state() {
        use StateReason as R;
        use TaskStateKind as S;
        let mut b = ModelBuilder::default();
        // 1 blocks at 10 and is woken at 10, by the ISR running then.
        b.task_switched_in(0, 0, 1);
        b.current_task_announces(5, 0, S::Blocked, R::Semaphore, Some(2));
        b.task_switched_in(10, 0, 2);
        b.isr_enter(10, 0, 7);
        b.task_ready(10, 0, 1);
        b.isr_exit(11, 0, 7);
        // 2 moves to core 1 at 20 and runs on; at 30 it moves back to core
        // 0 and is preempted there at once.
        b.task_switched_in(20, 1, 2);
        b.task_switched_in(30, 0, 2);
        b.task_switched_in(30, 0, 3);
        b.event_at(0, 40);
        let m = finish(b);
        assert_eq!(
            slice_ends(&m),
            [
                (1, Some(S::Ready), R::Woken, false),
                (2, Some(S::Running), R::None, false),
                (2, Some(S::Ready), R::Preempted, false),
                (2, Some(S::Ready), R::Preempted, false),
                (3, None, R::None, true),
            ]
        );
        // Blocked for no time is blocked.
        assert!(task(&m, 1).ever_waited);
    }

    #[test]
    fn rows_refer_to_tasks_by_index_when_a_later_task_comes_first_by_id() {
        let mut b = ModelBuilder::default();
        b.task_switched_in(0, 0, 9);
        b.event_at(0, 5);
        let so_far = b.take_so_far();
        assert_eq!(so_far.sched_slices.get(0).unwrap().task, 0);
        b.resume(so_far);
        b.task_switched_in(10, 0, 2);
        b.task_priority(15, 9, 3, PriorityCause::Set);
        b.event_at(0, 20);
        let m = finish(b);
        let slices: Vec<_> = m
            .sched_slices
            .iter()
            .map(|s| (s.task, id(&m, s.task)))
            .collect();
        assert_eq!(slices, [(1, 9), (0, 2)]);
        let states: Vec<_> = m.task_states.iter().map(|s| id(&m, s.task)).collect();
        assert_eq!(states, [9, 9, 2]);
        assert_eq!(m.task_priorities.get(0).unwrap().task, 1);
    }

    /// Calls on a builder, each given the step it is: a bit of every kind
    /// of row that opens and closes.
    fn call(b: &mut ModelBuilder, step: u64) {
        let t = step * 10;
        b.event_at(0, t);
        // Later tasks, ISRs, markers, queues and RTOS objects come before
        // earlier ones by id, which moves the earlier ones' indices.
        let id = 9 - (step / 8 % 3) as u32;
        match step % 8 {
            0 => b.task_switched_in(t, 0, id),
            1 => b.isr_enter(t, 0, id),
            2 => b.isr_exit(t, 0, id),
            3 => b.marker_begin(t, id, None, StrId::EMPTY),
            4 => b.queue_op(t, 0, id, QueueOpKind::Receive, false, Some(0)),
            5 => b.marker_end(t, 0, id, None),
            6 => b.queue_op(t, 0, id, QueueOpKind::Send, false, Some(1)),
            _ => {
                b.task_ready(t, 0, 8);
                b.event_group_op(t, 0, id, crate::EventGroupOpKind::Set, 1, false);
                b.stream_buffer_op(t, 0, id, crate::StreamBufferOpKind::Send, false, 4);
                b.timer_op(t, 0, id, crate::TimerOpKind::Start, Some(1), false);
            }
        }
    }

    #[test]
    fn a_model_lent_out_between_calls_finishes_as_one_never_lent() {
        let mut whole = ModelBuilder::default();
        whole.set_queue_kind(8, QueueKind::Mutex);
        let mut lent = ModelBuilder::default();
        lent.set_queue_kind(8, QueueKind::Mutex);
        for step in 0..100 {
            call(&mut whole, step);
            call(&mut lent, step);
            let so_far = lent.take_so_far();
            assert_eq!(so_far.info.duration_ns, step * 10);
            // What is open is shown up to the last call, as if it ended there.
            let last = so_far.sched_slices.last().unwrap();
            assert_eq!((last.end_ns, last.truncated), (step * 10, true));
            assert_eq!(so_far.anomaly_count(AnomalyKind::NeverClosed), 0);
            lent.resume(so_far);
        }
        assert_eq!(
            format!("{:?}", lent.finish()),
            format!("{:?}", whole.finish())
        );
    }
}
