//! The interpreter that turns a time-ordered stream of RTOS happenings into
//! the model's tables. It knows no wire format: importers translate their
//! events into these calls (times already in ns since the first event).

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use super::{
    Anomaly, AnomalyKind, Core, Isr, IsrKey, IsrSlice, Marker, MarkerInstant, MarkerKind,
    MarkerSpan, MarkerValue, Model, MutexHold, PriorityCause, Queue, QueueKind, QueueOp,
    QueueOpKind, SchedSlice, StateReason, StrId, Task, TaskKind, TaskPriority, TaskState,
    TaskStateKind, TraceInfo,
};

/// A cheap hasher for small integer keys (ids are not attacker-chosen in a
/// way that matters: a pathological trace only slows its own decoding).
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// What a task is doing now.
#[derive(Clone, Copy)]
struct OpenState {
    state: TaskStateKind,
    reason: StateReason,
    queue_id: Option<u32>,
    core_id: Option<u32>,
    woken_by_isr: Option<IsrKey>,
    since: u64,
}

#[derive(Default)]
struct TaskTrack {
    name: Option<String>,
    kind: Option<TaskKind>,
    created_ns: Option<u64>,
    deleted_ns: Option<u64>,
    stack_size: Option<u32>,
    state: Option<OpenState>,
    /// The state a running task announced it will leave Running for.
    announced: Option<(TaskStateKind, StateReason, Option<u32>)>,
}

#[derive(Default)]
struct CoreTrack {
    idle_task: Option<u32>,
    /// Running task and since when.
    running: Option<(u32, u64)>,
    /// Active ISRs, outermost first.
    isr_stack: Vec<OpenIsr>,
    /// Time of the latest event on this core.
    last_event_ns: Option<u64>,
    dropped_total: u64,
}

#[derive(Clone, Copy)]
struct OpenIsr {
    isr: u32,
    entered: u64,
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
    /// Mutex holder and since when.
    holder: Option<(u32, u64)>,
}

type MarkerKey = (u32, Option<u32>, MarkerKind);

#[derive(Default)]
struct MarkerTrack {
    name: Option<String>,
    /// Open spans, outermost first: (begin time, message).
    open: Vec<(u64, StrId)>,
}

/// Builds a [`Model`] from calls made in time order.
#[derive(Default)]
pub struct ModelBuilder {
    model: Model,
    tasks: IdMap<u32, TaskTrack>,
    cores: BTreeMap<u32, CoreTrack>,
    isr_names: BTreeMap<IsrKey, String>,
    queues: IdMap<u32, QueueTrack>,
    markers: IdMap<MarkerKey, MarkerTrack>,
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
    pub fn intern(&mut self, bytes: &[u8]) -> StrId {
        self.model.strings.intern(bytes)
    }

    // ---- static facts (metadata); may come at any time ----

    pub fn core_seen(&mut self, core: u32) {
        self.cores.entry(core).or_default();
    }

    pub fn set_task_name(&mut self, task: u32, name: &[u8]) {
        self.tasks.entry(task).or_default().name = Some(String::from_utf8_lossy(name).into());
    }

    pub fn set_task_kind(&mut self, task: u32, kind: TaskKind) {
        self.tasks.entry(task).or_default().kind = Some(kind);
    }

    pub fn set_task_stack_size(&mut self, task: u32, bytes: u32) {
        self.tasks.entry(task).or_default().stack_size = Some(bytes);
    }

    pub fn set_idle_task(&mut self, core: u32, task: u32) {
        self.set_task_kind(task, TaskKind::Idle);
        self.cores.entry(core).or_default().idle_task = Some(task);
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
        self.markers.entry((marker, task, kind)).or_default().name =
            Some(String::from_utf8_lossy(name).into());
    }

    pub fn set_queue_name(&mut self, queue: u32, name: &[u8]) {
        self.queues.entry(queue).or_default().name = Some(String::from_utf8_lossy(name).into());
    }

    pub fn set_queue_kind(&mut self, queue: u32, kind: QueueKind) {
        self.queues.entry(queue).or_default().kind = Some(kind);
    }

    pub fn queue_created(&mut self, queue: u32) {
        self.queues.entry(queue).or_default();
    }

    pub fn set_queue_capacity(&mut self, queue: u32, items: u32) {
        self.queues.entry(queue).or_default().capacity = Some(items);
    }

    // ---- queries importers need ----

    /// The task running on `core`, if known.
    pub fn running_task(&self, core: u32) -> Option<u32> {
        self.cores.get(&core)?.running.map(|(task, _)| task)
    }

    /// Whether an ISR is executing on `core`.
    pub fn in_isr(&self, core: u32) -> bool {
        self.cores
            .get(&core)
            .is_some_and(|c| !c.isr_stack.is_empty())
    }

    /// Records that an event happened on `core` at `t` (every timed event
    /// calls this, so that loss regions start at the last event before them).
    pub fn event_at(&mut self, core: u32, t: u64) {
        self.cores.entry(core).or_default().last_event_ns = Some(t);
        self.last_ns = self.last_ns.max(t);
    }

    // ---- tasks ----

    fn set_state(&mut self, task: u32, t: u64, new: OpenState) {
        let track = self.tasks.entry(task).or_default();
        if let Some(old) = track.state.replace(new) {
            self.model.task_states.push(TaskState {
                start_ns: old.since,
                end_ns: t.max(old.since),
                task_id: task,
                state: old.state,
                reason: old.reason,
                queue_id: old.queue_id,
                core_id: old.core_id,
                woken_by_isr: old.woken_by_isr,
                truncated: false,
            });
        }
    }

    fn state(state: TaskStateKind, reason: StateReason, since: u64) -> OpenState {
        OpenState {
            state,
            reason,
            queue_id: None,
            core_id: None,
            woken_by_isr: None,
            since,
        }
    }

    /// A task was created; it has no state until it is made ready.
    pub fn task_created(&mut self, t: u64, task: u32) {
        self.tasks
            .entry(task)
            .or_default()
            .created_ns
            .get_or_insert(t);
    }

    /// `task` now runs on `core`; the task that ran there before leaves
    /// Running for the state it announced, or is Ready (preempted).
    pub fn task_switched_in(&mut self, t: u64, core: u32, task: u32) {
        let core_track = self.cores.entry(core).or_default();
        if core_track.running.is_some_and(|(prev, _)| prev == task) {
            self.tasks.entry(task).or_default().announced = None;
            return;
        }
        if let Some((prev, since)) = core_track.running.replace((task, t)) {
            self.close_slice(core, prev, since, t, false);
            self.leave_running(t, prev);
        }
        // A task that was running on another core has left it.
        let elsewhere = self
            .cores
            .iter()
            .find(|(&c, ct)| c != core && ct.running.is_some_and(|(r, _)| r == task))
            .map(|(&c, _)| c);
        if let Some(other) = elsewhere {
            if let Some((_, since)) = self.cores.get_mut(&other).and_then(|c| c.running.take()) {
                self.close_slice(other, task, since, t, false);
            }
        }
        let mut running = Self::state(TaskStateKind::Running, StateReason::None, t);
        running.core_id = Some(core);
        self.set_state(task, t, running);
    }

    fn close_slice(&mut self, core: u32, task: u32, start: u64, end: u64, truncated: bool) {
        self.model.sched_slices.push(SchedSlice {
            start_ns: start,
            end_ns: end.max(start),
            task_id: task,
            core_id: core,
            truncated,
        });
    }

    fn leave_running(&mut self, t: u64, task: u32) {
        let announced = self.tasks.entry(task).or_default().announced.take();
        let mut next = match announced {
            Some((state, reason, queue)) => {
                let mut s = Self::state(state, reason, t);
                s.queue_id = queue;
                s
            }
            None => Self::state(TaskStateKind::Ready, StateReason::Preempted, t),
        };
        if next.state == TaskStateKind::Ready {
            next.core_id = None;
        }
        self.set_state(task, t, next);
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
        match self.running_task(core) {
            Some(task) => {
                self.tasks.entry(task).or_default().announced = Some((state, reason, queue))
            }
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
        let running = self
            .cores
            .values()
            .any(|c| c.running.is_some_and(|(r, _)| r == task));
        if running {
            self.tasks.entry(task).or_default().announced = Some((state, reason, None));
        } else {
            self.set_state(task, t, Self::state(state, reason, t));
        }
    }

    pub fn task_suspended(&mut self, t: u64, task: u32) {
        self.task_to(t, task, TaskStateKind::Suspended, StateReason::Suspend);
    }

    pub fn task_deleted(&mut self, t: u64, task: u32) {
        self.tasks.entry(task).or_default().deleted_ns = Some(t);
        self.task_to(t, task, TaskStateKind::Deleted, StateReason::Deleted);
    }

    /// `task` became ready (woken, resumed, timed out); `core` is where the
    /// event happened, so an ISR active there is recorded as the waker.
    pub fn task_ready(&mut self, t: u64, core: u32, task: u32) {
        let track = self.tasks.entry(task).or_default();
        let is_running = self
            .cores
            .values()
            .any(|c| c.running.is_some_and(|(r, _)| r == task));
        if is_running {
            // A running task asked to be made ready again cancels a pending block.
            track.announced = None;
            return;
        }
        if track.state.is_some_and(|s| s.state == TaskStateKind::Ready) {
            return;
        }
        let reason = match track.state {
            None if track.created_ns.is_some() => StateReason::Created,
            _ => StateReason::Woken,
        };
        let mut ready = Self::state(TaskStateKind::Ready, reason, t);
        ready.woken_by_isr = self
            .cores
            .get(&core)
            .and_then(|c| c.isr_stack.last())
            .map(|open| IsrKey {
                core_id: core,
                isr_id: open.isr,
            });
        self.set_state(task, t, ready);
    }

    pub fn task_priority(&mut self, t: u64, task: u32, priority: u32, cause: PriorityCause) {
        self.tasks.entry(task).or_default();
        self.model.task_priorities.push(TaskPriority {
            ts_ns: t,
            task_id: task,
            priority,
            cause,
        });
    }

    // ---- ISRs ----

    /// An ISR starts. An ISR cannot preempt itself, so if it is still open
    /// its exit was lost: it is closed here, flagged truncated.
    pub fn isr_enter(&mut self, t: u64, core: u32, isr: u32) {
        let stack = &self.cores.entry(core).or_default().isr_stack;
        if let Some(pos) = stack.iter().rposition(|open| open.isr == isr) {
            let closed = stack.len() - pos;
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
        self.cores.entry(core).or_default().isr_stack.push(OpenIsr {
            isr,
            entered: t,
            suspect: false,
        });
    }

    pub fn isr_exit(&mut self, t: u64, core: u32, isr: u32) {
        let stack = &self.cores.entry(core).or_default().isr_stack;
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
        let stack = &mut self.cores.entry(core).or_default().isr_stack;
        let closed = stack.split_off(from);
        for (i, open) in closed.iter().enumerate().rev() {
            self.model.isr_slices.push(IsrSlice {
                start_ns: open.entered,
                end_ns: t.max(open.entered),
                core_id: core,
                isr_id: open.isr,
                depth: (from + i) as u32,
                truncated: truncated || i > 0 || open.suspect,
            });
        }
    }

    // ---- markers ----

    pub fn marker_instant(&mut self, t: u64, marker: u32, task: Option<u32>, msg: StrId) {
        self.markers
            .entry((marker, task, MarkerKind::Event))
            .or_default();
        self.model.marker_instants.push(MarkerInstant {
            ts_ns: t,
            marker_id: marker,
            task_id: task,
            msg,
        });
    }

    pub fn marker_begin(&mut self, t: u64, marker: u32, task: Option<u32>, msg: StrId) {
        self.markers
            .entry((marker, task, MarkerKind::Event))
            .or_default()
            .open
            .push((t, msg));
    }

    pub fn marker_end(&mut self, t: u64, core: u32, marker: u32, task: Option<u32>) {
        let track = self
            .markers
            .entry((marker, task, MarkerKind::Event))
            .or_default();
        match track.open.pop() {
            Some((start, msg)) => {
                let depth = track.open.len() as u32;
                self.model.marker_spans.push(MarkerSpan {
                    start_ns: start,
                    end_ns: t.max(start),
                    marker_id: marker,
                    task_id: task,
                    msg,
                    depth,
                    truncated: false,
                });
            }
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

    pub fn marker_value(&mut self, t: u64, marker: u32, task: Option<u32>, value: i64) {
        self.markers
            .entry((marker, task, MarkerKind::Value))
            .or_default();
        self.model.marker_values.push(MarkerValue {
            ts_ns: t,
            marker_id: marker,
            task_id: task,
            value,
        });
    }

    // ---- queues ----

    /// An operation on a queue, semaphore or mutex. The task is the one
    /// running on `core` unless the operation came from an ISR.
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
        let track = self.queues.entry(queue).or_default();
        let before = track.level;
        if let Some(len) = len_after {
            track.level = Some(len);
            track.high_water = track.high_water.max(len);
        } else if op == QueueOpKind::Reset {
            track.level = Some(0);
        }
        if track.kind.is_some_and(QueueKind::is_mutex) && op != QueueOpKind::Level {
            let taken = len_after == Some(0) && op == QueueOpKind::Receive;
            let given = len_after.is_some_and(|l| l > 0) && before == Some(0);
            if taken && track.holder.is_none() {
                if let Some(task) = task {
                    track.holder = Some((task, t));
                }
            } else if given {
                if let Some((holder, since)) = track.holder.take() {
                    self.model.mutex_holds.push(MutexHold {
                        start_ns: since,
                        end_ns: t.max(since),
                        queue_id: queue,
                        task_id: holder,
                        truncated: false,
                    });
                }
            }
        }
        self.model.queue_ops.push(QueueOp {
            ts_ns: t,
            queue_id: queue,
            op,
            from_isr,
            task_id: task,
            core_id: core,
            len_after,
        });
    }

    // ---- damage ----

    /// The tracer's running total of lost events on `core`, as reported at `t`.
    /// An increase is a loss just before `t`, after the previous event on that core.
    pub fn dropped_total(&mut self, t: u64, core: u32, total: u64, previous_event_ns: Option<u64>) {
        let track = self.cores.entry(core).or_default();
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

    /// Time of the latest event seen on `core`.
    pub fn last_event_on(&self, core: u32) -> Option<u64> {
        self.cores.get(&core)?.last_event_ns
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
        self.model.info.duration_ns = end;
        let cores = std::mem::take(&mut self.cores);
        for (&core, track) in &cores {
            if let Some((task, since)) = track.running {
                self.close_slice(core, task, since, end, true);
            }
            for (depth, open) in track.isr_stack.iter().enumerate() {
                self.model.isr_slices.push(IsrSlice {
                    start_ns: open.entered,
                    end_ns: end.max(open.entered),
                    core_id: core,
                    isr_id: open.isr,
                    depth: depth as u32,
                    truncated: true,
                });
            }
        }
        let mut tasks: Vec<_> = std::mem::take(&mut self.tasks).into_iter().collect();
        tasks.sort_by_key(|&(id, _)| id);
        for (id, track) in &tasks {
            if let Some(open) = track.state {
                self.model.task_states.push(TaskState {
                    start_ns: open.since,
                    end_ns: end.max(open.since),
                    task_id: *id,
                    state: open.state,
                    reason: open.reason,
                    queue_id: open.queue_id,
                    core_id: open.core_id,
                    woken_by_isr: open.woken_by_isr,
                    truncated: true,
                });
            }
        }
        let mut markers: Vec<_> = std::mem::take(&mut self.markers).into_iter().collect();
        markers.sort_by_key(|&((id, task, kind), _)| (task, kind as u8, id));
        for &((marker, task, _), ref track) in &markers {
            for (depth, &(start, msg)) in track.open.iter().enumerate() {
                self.model.marker_spans.push(MarkerSpan {
                    start_ns: start,
                    end_ns: end.max(start),
                    marker_id: marker,
                    task_id: task,
                    msg,
                    depth: depth as u32,
                    truncated: true,
                });
            }
            if !track.open.is_empty() {
                self.anomaly(
                    track.open[0].0,
                    end,
                    None,
                    AnomalyKind::NeverClosed,
                    track.open.len() as u64,
                    format!("marker {marker} span(s) never ended"),
                );
            }
        }
        let mut queues: Vec<_> = std::mem::take(&mut self.queues).into_iter().collect();
        queues.sort_by_key(|&(id, _)| id);
        for (id, track) in &queues {
            if let Some((task, since)) = track.holder {
                self.model.mutex_holds.push(MutexHold {
                    start_ns: since,
                    end_ns: end.max(since),
                    queue_id: *id,
                    task_id: task,
                    truncated: true,
                });
            }
        }

        let m = &mut self.model;
        m.cores = cores
            .iter()
            .map(|(&core_id, t)| Core {
                core_id,
                idle_task_id: t.idle_task,
            })
            .collect();
        m.tasks = tasks
            .into_iter()
            .map(|(task_id, t)| Task {
                task_id,
                name: t.name.unwrap_or_else(|| format!("task {task_id}")),
                kind: t.kind.unwrap_or(TaskKind::Normal),
                created_ns: t.created_ns,
                deleted_ns: t.deleted_ns,
                stack_size: t.stack_size,
            })
            .collect();
        let mut isr_keys: Vec<IsrKey> = self.isr_names.keys().copied().collect();
        isr_keys.extend(m.isr_slices.iter().map(|s| IsrKey {
            core_id: s.core_id,
            isr_id: s.isr_id,
        }));
        isr_keys.sort();
        isr_keys.dedup();
        m.isrs = isr_keys
            .into_iter()
            .map(|key| Isr {
                core_id: key.core_id,
                isr_id: key.isr_id,
                name: self
                    .isr_names
                    .remove(&key)
                    .unwrap_or_else(|| format!("isr {}", key.isr_id)),
            })
            .collect();
        m.markers = markers
            .into_iter()
            .map(|((marker_id, task_id, kind), t)| Marker {
                marker_id,
                task_id,
                kind,
                name: t.name.unwrap_or_else(|| format!("marker {marker_id}")),
            })
            .collect();
        m.queues = queues
            .into_iter()
            .map(|(queue_id, t)| Queue {
                queue_id,
                name: t.name.unwrap_or_else(|| format!("queue {queue_id}")),
                kind: t.kind.unwrap_or(QueueKind::Unknown),
                capacity: t.capacity,
                high_water: t.high_water,
            })
            .collect();
        m.sched_slices.sort_by_key(|s| (s.start_ns, s.core_id));
        m.task_states.sort_by_key(|s| (s.start_ns, s.task_id));
        m.isr_slices
            .sort_by_key(|s| (s.start_ns, s.core_id, s.depth));
        m.marker_spans.sort_by_key(|s| (s.start_ns, s.depth));
        m.mutex_holds.sort_by_key(|h| (h.start_ns, h.queue_id));
        m.anomalies.sort_by_key(|a| (a.end_ns, a.start_ns, a.kind));
        self.model
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finish(b: ModelBuilder) -> Model {
        b.finish()
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
            .map(|s| (s.task_id, s.start_ns, s.end_ns, s.truncated))
            .collect();
        assert_eq!(
            slices,
            [(1, 0, 10, false), (9, 10, 20, false), (1, 20, 30, true)]
        );
        let t1: Vec<_> = m
            .task_states
            .iter()
            .filter(|s| s.task_id == 1)
            .map(|s| (s.state, s.reason, s.queue_id, s.start_ns, s.end_ns))
            .collect();
        assert_eq!(
            t1,
            [
                (TaskStateKind::Running, StateReason::None, None, 0, 10),
                (
                    TaskStateKind::Blocked,
                    StateReason::QueueReceive,
                    Some(4),
                    10,
                    15
                ),
                (TaskStateKind::Ready, StateReason::Woken, None, 15, 20),
                (TaskStateKind::Running, StateReason::None, None, 20, 30),
            ]
        );
        assert!(m.is_idle(9));
        assert_eq!(m.cores[0].idle_task_id, Some(9));
        let idle_states: Vec<_> = m
            .task_states
            .iter()
            .filter(|s| s.task_id == 9)
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
            .find(|s| s.task_id == 2 && s.state == TaskStateKind::Ready)
            .unwrap();
        assert_eq!(
            s.woken_by_isr,
            Some(IsrKey {
                core_id: 0,
                isr_id: 3
            })
        );
        let s = m
            .task_states
            .iter()
            .find(|s| s.task_id == 1 && s.state == TaskStateKind::Ready)
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
            .map(|s| (s.isr_id, s.start_ns, s.end_ns, s.depth, s.truncated))
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
                    s.task_id,
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
        assert_eq!(m.marker(1, None, MarkerKind::Event).unwrap().name, "work");
        assert_eq!(
            m.marker(2, None, MarkerKind::Value).unwrap().name,
            "marker 2"
        );
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
        assert_eq!(m.queue(2).unwrap().high_water, 3);
        assert_eq!(m.queue(1).unwrap().high_water, 1);
        let holds: Vec<_> = m
            .mutex_holds
            .iter()
            .map(|h| (h.task_id, h.start_ns, h.end_ns, h.truncated))
            .collect();
        assert_eq!(holds, [(5, 1, 4, false), (5, 7, 9, true)]);
        assert_eq!(m.queue_ops[3].task_id, None);
        assert_eq!(m.queue_ops[4].task_id, Some(5));
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
                .find(|s| s.task_id == task)
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
        assert_eq!(m.task(2).unwrap().deleted_ns, Some(4));
        assert_eq!(last(3).state, TaskStateKind::Running);
    }
}
