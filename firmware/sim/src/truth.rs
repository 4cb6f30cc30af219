//! The ground truth: what the simulator actually scheduled, in the same
//! timestamp ticks as the events it emitted, for tests that check a trace
//! model against reality.
//!
//! Every interval starts and ends at the timestamp of an emitted (or, inside
//! a dropped-event episode, lost) event. Intervals still open when the trace
//! ends close at [`GroundTruth::end_ts`] with `truncated` set.

use std::collections::HashMap;

/// Timestamp ticks of the simulated timer (multiply by
/// [`GroundTruth::ns_per_tick`] for nanoseconds).
pub type Ts = u64;

/// What kind of task a task is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskKind {
    Normal,
    /// A core's idle task (announced by `task_is_idle_task`).
    Idle,
    /// The timer service task (announced by `task_is_timer_task`).
    Timer,
}

/// A task that existed at some point of the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskInfo {
    pub task_id: u32,
    pub name: String,
    pub kind: TaskKind,
    /// The core the task is pinned to.
    pub core: u32,
    pub base_priority: u32,
    /// `task_created` timestamp; `None` for tasks created before the trace
    /// started (known from the metadata only).
    pub created_at: Option<Ts>,
    /// `task_deleted` timestamp.
    pub deleted_at: Option<Ts>,
}

/// Queue kinds with their `queue_kind` codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueueKind {
    Queue = 0,
    CountingSemaphore = 1,
    BinarySemaphore = 2,
    Mutex = 3,
    RecursiveMutex = 4,
}

impl QueueKind {
    /// The `queue_kind.kind` value.
    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn is_mutex(self) -> bool {
        matches!(self, QueueKind::Mutex | QueueKind::RecursiveMutex)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueInfo {
    pub queue_id: u32,
    pub name: String,
    pub kind: QueueKind,
    /// Items it can hold (1 for mutexes and binary semaphores).
    pub capacity: u32,
    /// Highest level in [`GroundTruth::queue_levels`] for this queue.
    pub high_water: Option<u32>,
}

/// An interrupt source of one core.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IsrInfo {
    pub core: u32,
    pub isr_id: u32,
    pub name: String,
    /// Nesting priority: an ISR preempts only ISRs of lower priority.
    pub priority: u32,
}

/// A task running on a core from the `task_switched_in` at `start` to the
/// next one on that core that switches to another task, at `end` (a switch
/// to the running task again does not split it, nor do ISRs). Per core,
/// slices are contiguous from the first switch on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunSlice {
    pub core: u32,
    pub task_id: u32,
    pub start: Ts,
    pub end: Ts,
    pub truncated: bool,
}

/// One ISR execution, `isr_enter` to `isr_exit`; `depth` 0 is outermost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IsrRun {
    pub core: u32,
    pub isr_id: u32,
    pub start: Ts,
    pub end: Ts,
    pub depth: u32,
    pub truncated: bool,
}

/// Why a task is blocked, with the values of the event that announced it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockReason {
    Delay { ticks: u32 },
    DelayUntil { time_to_wake: u32 },
    QueueSend { queue_id: u32 },
    QueueReceive { queue_id: u32 },
    QueuePeek { queue_id: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskState {
    Running { core: u32 },
    Ready,
    Blocked(BlockReason),
    Suspended,
    Deleted,
}

/// A task in one state. A task's spans start at the first event that
/// changes its state in the trace (tasks that exist when the trace starts are
/// Ready until then, which no event shows) and are contiguous from there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateSpan {
    pub task_id: u32,
    pub state: TaskState,
    pub start: Ts,
    pub end: Ts,
    pub truncated: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PriorityCause {
    /// `task_priority_set` (at creation and by `vTaskPrioritySet`).
    Set,
    /// `task_priority_inherit`.
    Inherit,
    /// `task_priority_disinherit`.
    Disinherit,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PriorityChange {
    pub task_id: u32,
    pub ts: Ts,
    pub priority: u32,
    pub cause: PriorityCause,
}

/// A queue's fill level after an operation (`len_after`) or as announced by
/// `queue_cur_length`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueLevel {
    pub queue_id: u32,
    pub ts: Ts,
    pub len: u32,
}

/// A span of an event marker: `task_id` is `None` for global markers
/// (`evtmarker_begin`/`_end`) and the owning task for task-local ones.
/// `depth` 0 is the outermost span on that marker's track.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkerSpan {
    pub marker_id: u32,
    pub task_id: Option<u32>,
    pub core: u32,
    pub start: Ts,
    pub end: Ts,
    pub depth: u32,
    pub msg: String,
    pub truncated: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkerInstant {
    pub marker_id: u32,
    pub task_id: Option<u32>,
    pub core: u32,
    pub ts: Ts,
    pub msg: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkerValue {
    pub marker_id: u32,
    pub task_id: Option<u32>,
    pub core: u32,
    pub ts: Ts,
    pub value: i64,
}

/// A stretch of consecutive events of one core that the sink refused. A
/// reader of the trace sees the damage as the gap between `previous_ts` and
/// `reported_at_ts` on that core.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DropEpisode {
    pub core: u32,
    /// Timestamp of the last event of this core written before the loss.
    pub previous_ts: Option<Ts>,
    pub first_lost_ts: Ts,
    pub last_lost_ts: Ts,
    pub lost_events: u32,
    /// Timestamp of the `dropped_evt_cnt` frame that first shows the
    /// increase; `None` if the trace ended before another event got through.
    pub reported_at_ts: Option<Ts>,
}

/// Everything the simulator scheduled. Lists are sorted by start time (then
/// core / id); see the module documentation for how intervals are bounded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroundTruth {
    pub ns_per_tick: u64,
    pub cores: u32,
    /// Timestamp of the first event after the metadata.
    pub start_ts: Ts,
    /// Timestamp of the last event; open intervals end here.
    pub end_ts: Ts,
    pub tasks: Vec<TaskInfo>,
    pub queues: Vec<QueueInfo>,
    pub isrs: Vec<IsrInfo>,
    pub run_slices: Vec<RunSlice>,
    pub isr_runs: Vec<IsrRun>,
    pub task_states: Vec<StateSpan>,
    pub priorities: Vec<PriorityChange>,
    pub queue_levels: Vec<QueueLevel>,
    pub marker_spans: Vec<MarkerSpan>,
    pub marker_instants: Vec<MarkerInstant>,
    pub values: Vec<MarkerValue>,
    pub drop_episodes: Vec<DropEpisode>,
}

impl GroundTruth {
    pub fn task(&self, task_id: u32) -> Option<&TaskInfo> {
        self.tasks.iter().find(|t| t.task_id == task_id)
    }

    pub fn queue(&self, queue_id: u32) -> Option<&QueueInfo> {
        self.queues.iter().find(|q| q.queue_id == queue_id)
    }
}

type SpanKey = (Option<u32>, u32);

struct OpenSpan {
    core: u32,
    start: Ts,
    msg: String,
}

/// Builds a [`GroundTruth`] while the simulation runs, holding the
/// intervals that are still open.
pub(crate) struct Recorder {
    truth: GroundTruth,
    open_slice: Vec<Option<(u32, Ts)>>,
    open_isrs: Vec<Vec<(u32, Ts)>>,
    open_state: HashMap<u32, (TaskState, Ts)>,
    open_spans: HashMap<SpanKey, Vec<OpenSpan>>,
}

impl Recorder {
    pub fn new(ns_per_tick: u64, cores: u32) -> Self {
        Recorder {
            truth: GroundTruth {
                ns_per_tick,
                cores,
                ..GroundTruth::default()
            },
            open_slice: vec![None; cores as usize],
            open_isrs: vec![Vec::new(); cores as usize],
            open_state: HashMap::new(),
            open_spans: HashMap::new(),
        }
    }

    pub fn task(&mut self, info: TaskInfo) {
        self.truth.tasks.push(info);
    }

    pub fn queue(&mut self, info: QueueInfo) {
        self.truth.queues.push(info);
    }

    pub fn isr(&mut self, info: IsrInfo) {
        self.truth.isrs.push(info);
    }

    pub fn start(&mut self, ts: Ts) {
        self.truth.start_ts = ts;
    }

    pub fn task_deleted(&mut self, task_id: u32, ts: Ts) {
        if let Some(t) = self
            .truth
            .tasks
            .iter_mut()
            .rev()
            .find(|t| t.task_id == task_id)
        {
            t.deleted_at = Some(ts);
        }
    }

    pub fn switch(&mut self, core: u32, task_id: u32, ts: Ts) {
        let slot = &mut self.open_slice[core as usize];
        if let Some((prev, start)) = slot.replace((task_id, ts)) {
            self.truth.run_slices.push(RunSlice {
                core,
                task_id: prev,
                start,
                end: ts,
                truncated: false,
            });
        }
    }

    pub fn isr_enter(&mut self, core: u32, isr_id: u32, ts: Ts) {
        self.open_isrs[core as usize].push((isr_id, ts));
    }

    pub fn isr_exit(&mut self, core: u32, ts: Ts) {
        let stack = &mut self.open_isrs[core as usize];
        if let Some((isr_id, start)) = stack.pop() {
            let depth = stack.len() as u32;
            self.truth.isr_runs.push(IsrRun {
                core,
                isr_id,
                start,
                end: ts,
                depth,
                truncated: false,
            });
        }
    }

    /// `task_id` is in `state` from `ts` on.
    pub fn state(&mut self, task_id: u32, state: TaskState, ts: Ts) {
        if let Some((prev, start)) = self.open_state.insert(task_id, (state, ts)) {
            if prev == state {
                self.open_state.insert(task_id, (prev, start));
                return;
            }
            self.truth.task_states.push(StateSpan {
                task_id,
                state: prev,
                start,
                end: ts,
                truncated: false,
            });
        }
    }

    pub fn priority(&mut self, task_id: u32, ts: Ts, priority: u32, cause: PriorityCause) {
        self.truth.priorities.push(PriorityChange {
            task_id,
            ts,
            priority,
            cause,
        });
    }

    pub fn queue_level(&mut self, queue_id: u32, ts: Ts, len: u32) {
        self.truth
            .queue_levels
            .push(QueueLevel { queue_id, ts, len });
    }

    pub fn span_begin(
        &mut self,
        task_id: Option<u32>,
        marker_id: u32,
        core: u32,
        ts: Ts,
        msg: &str,
    ) {
        self.open_spans
            .entry((task_id, marker_id))
            .or_default()
            .push(OpenSpan {
                core,
                start: ts,
                msg: msg.to_owned(),
            });
    }

    pub fn span_end(&mut self, task_id: Option<u32>, marker_id: u32, ts: Ts) {
        let Some(stack) = self.open_spans.get_mut(&(task_id, marker_id)) else {
            return;
        };
        if let Some(open) = stack.pop() {
            let depth = stack.len() as u32;
            self.truth.marker_spans.push(MarkerSpan {
                marker_id,
                task_id,
                core: open.core,
                start: open.start,
                end: ts,
                depth,
                msg: open.msg,
                truncated: false,
            });
        }
    }

    pub fn instant(&mut self, task_id: Option<u32>, marker_id: u32, core: u32, ts: Ts, msg: &str) {
        self.truth.marker_instants.push(MarkerInstant {
            marker_id,
            task_id,
            core,
            ts,
            msg: msg.to_owned(),
        });
    }

    pub fn value(&mut self, task_id: Option<u32>, marker_id: u32, core: u32, ts: Ts, value: i64) {
        self.truth.values.push(MarkerValue {
            marker_id,
            task_id,
            core,
            ts,
            value,
        });
    }

    /// Closes what is still open at `end_ts` and sorts every list.
    pub fn finish(mut self, end_ts: Ts, drop_episodes: Vec<DropEpisode>) -> GroundTruth {
        let t = &mut self.truth;
        t.end_ts = end_ts;
        for (core, slot) in self.open_slice.iter().enumerate() {
            if let Some((task_id, start)) = *slot {
                t.run_slices.push(RunSlice {
                    core: core as u32,
                    task_id,
                    start,
                    end: end_ts,
                    truncated: true,
                });
            }
        }
        for (core, stack) in self.open_isrs.iter().enumerate() {
            for (depth, &(isr_id, start)) in stack.iter().enumerate() {
                t.isr_runs.push(IsrRun {
                    core: core as u32,
                    isr_id,
                    start,
                    end: end_ts,
                    depth: depth as u32,
                    truncated: true,
                });
            }
        }
        for (task_id, (state, start)) in self.open_state {
            t.task_states.push(StateSpan {
                task_id,
                state,
                start,
                end: end_ts,
                truncated: true,
            });
        }
        for ((task_id, marker_id), stack) in self.open_spans {
            for (depth, open) in stack.into_iter().enumerate() {
                t.marker_spans.push(MarkerSpan {
                    marker_id,
                    task_id,
                    core: open.core,
                    start: open.start,
                    end: end_ts,
                    depth: depth as u32,
                    msg: open.msg,
                    truncated: true,
                });
            }
        }
        let mut high: HashMap<u32, u32> = HashMap::new();
        for l in &t.queue_levels {
            let h = high.entry(l.queue_id).or_default();
            *h = (*h).max(l.len);
        }
        for q in &mut t.queues {
            q.high_water = high.get(&q.queue_id).copied();
        }
        t.drop_episodes = drop_episodes;
        t.run_slices.sort_by_key(|s| (s.start, s.core));
        t.isr_runs.sort_by_key(|r| (r.start, r.core, r.depth));
        t.task_states.sort_by_key(|s| (s.start, s.task_id));
        t.marker_spans
            .sort_by_key(|s| (s.start, s.task_id, s.marker_id, s.depth));
        t.drop_episodes.sort_by_key(|d| (d.first_lost_ts, d.core));
        t.tasks.sort_by_key(|t| t.task_id);
        self.truth
    }
}
