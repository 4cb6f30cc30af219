//! The kernel model: preemptive priority scheduling with time slicing on
//! every core, nested interrupts, queues/semaphores/mutexes with blocking
//! and priority inheritance, delays, suspension, task creation/deletion —
//! emitting the events a FreeRTOS tracer would, in time order.

use std::io::{self, Write};

use tband::Event;

mod boot;
mod interrupts;
mod markers;
mod queues;
mod scheduler;
mod tasks;

use crate::config::{Config, ConfigError};
use crate::program::{IsrOp, Op};
use crate::rng::Rng;
use crate::stream::CoreStream;
use crate::system::{self, System};
use crate::truth::{GroundTruth, IsrInfo, QueueInfo, QueueKind, Recorder, TaskInfo, TaskState, Ts};

/// Children a spawner keeps alive at most.
const MAX_CHILDREN: usize = 4;
/// Compute time far beyond any trace: the idle loop.
const FOREVER: u64 = 1 << 62;
/// Stream of [`Rng::derive`] for the values of value markers (the drop
/// plans use 1 + core).
const VALUE_STREAM: u64 = 0x7661_6c75_6573;

struct Task {
    core: usize,
    base_prio: u32,
    prio: u32,
    state: TaskState,
    /// Order in which tasks became ready (round robin among equals).
    ready_seq: u64,
    program: Vec<Op>,
    pc: usize,
    /// Time left before the op at `pc` runs.
    remaining: u64,
    /// RTOS tick at which a delay or a timeout ends.
    wake_tick: Option<u64>,
    /// RTOS tick at which the current queue operation times out.
    deadline: Option<u64>,
    timed_out: bool,
    waiting_on: Option<u32>,
    /// Reference time of `vTaskDelayUntil`.
    last_wake: u64,
    children: Vec<u32>,
    local_value: i64,
    /// When it was last made ready, until it runs.
    readied_at: Option<u64>,
    /// Time from being made ready to running, the last time.
    wake_latency: u64,
}

struct Queue {
    kind: QueueKind,
    capacity: u32,
    len: u32,
    holder: Option<u32>,
    send_waiters: Vec<u32>,
    recv_waiters: Vec<u32>,
}

struct Isr {
    id: u32,
    priority: u32,
    period: u64,
    body: Vec<IsrOp>,
    /// When it next asks for service (`u64::MAX`: not pending).
    next_arrival: u64,
}

struct IsrFrame {
    isr: usize,
    step: usize,
    remaining: u64,
}

struct Core {
    /// Running task (0 before the first switch).
    current: u32,
    isr_stack: Vec<IsrFrame>,
    /// When the top context (ISR or task) last resumed.
    run_start: u64,
    /// Reschedule as soon as the core is back at task level.
    yield_pending: bool,
    /// The tick asked to rotate among tasks of equal priority.
    slice_pending: bool,
    tasks: Vec<u32>,
    isrs: Vec<usize>,
    /// Time its idle task ran, up to `idle_since` while it runs.
    idle_time: u64,
    idle_since: Option<u64>,
    /// Time and `idle_time` at the last CPU load sample on this core.
    load_mark: (u64, u64),
}

#[derive(Clone, Copy)]
enum Action {
    EnterIsr(usize),
    StepIsr,
    Yield,
    StepTask,
}

/// What a finished run hands back.
pub struct Output<W> {
    /// One sink per core, in core order.
    pub sinks: Vec<W>,
    /// Present when [`Config::record_truth`] was set.
    pub truth: Option<GroundTruth>,
    pub stats: RunStats,
}

/// Counts of a finished run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Bytes written per core.
    pub bytes: Vec<u64>,
    /// Timestamped events generated (including lost ones, excluding
    /// `dropped_evt_cnt` frames).
    pub events: u64,
    pub lost_events: u64,
    pub first_ts: Ts,
    pub last_ts: Ts,
}

/// The simulator: build it with a config and one sink per core, then
/// [`run`](Simulator::run) it.
pub struct Simulator<W: Write> {
    config: Config,
    rng: Rng,
    /// Draws the values of value markers (unless `config.wide_values`),
    /// apart from `rng` so that they do not change what is scheduled.
    value_rng: Rng,
    /// Timestamp of the next event, on any core: every event advances it,
    /// so timestamps are unique across cores.
    now: u64,
    last_ts: u64,
    /// RTOS ticks since the scheduler started.
    tick_count: u64,
    ready_seq: u64,
    events: u64,
    lost: u64,
    /// Range of the time one traced kernel call takes, in timestamp ticks.
    cost: (u64, u64),
    /// Range of the time between two operations of a program.
    gap: (u64, u64),
    /// Task `id` is `tasks[id - 1]`; likewise queues.
    tasks: Vec<Task>,
    queues: Vec<Queue>,
    isrs: Vec<Isr>,
    cores: Vec<Core>,
    /// Tasks with a `wake_tick`.
    delayed: Vec<u32>,
    /// State of each global value marker (what it measures now), by id.
    values: Vec<i64>,
    streams: Vec<CoreStream<W>>,
    truth: Option<Recorder>,
    system: System,
    /// Short-lived tasks created so far (for their names and cores).
    spawned: u32,
    /// [`Config::work_scale`]: the task's id and its percent of work.
    work_scale: Option<(u32, u64)>,
}

impl<W: Write> Simulator<W> {
    pub fn new(config: Config, sinks: Vec<W>) -> Result<Self, ConfigError> {
        config.validate()?;
        if sinks.len() != config.cores as usize {
            return Err(ConfigError::SinkCount {
                cores: config.cores,
                sinks: sinks.len(),
            });
        }
        let mut rng = Rng::new(config.seed);
        let system = system::build(&config, &mut rng);
        let work_scale = match &config.work_scale {
            None => None,
            Some(scale) => {
                let task = system
                    .tasks
                    .iter()
                    .take(config.tasks as usize)
                    .position(|t| t.name == scale.task)
                    .ok_or_else(|| ConfigError::UnknownTask(scale.task.clone()))?;
                Some((task as u32 + 1, u64::from(scale.percent)))
            }
        };
        let streams = sinks
            .into_iter()
            .enumerate()
            .map(|(core, sink)| {
                let drops = config
                    .drops
                    .map(|d| (Rng::derive(config.seed, 1 + core as u64), d));
                CoreStream::new(core as u32, sink, config.heartbeat, drops)
            })
            .collect();
        let ticks = |ns: u64| (ns / config.ns_per_tick).max(1);
        let mut sim = Simulator {
            rng,
            value_rng: Rng::derive(config.seed, VALUE_STREAM),
            now: 0,
            last_ts: 0,
            tick_count: 0,
            ready_seq: 0,
            events: 0,
            lost: 0,
            cost: (ticks(200), ticks(1200)),
            gap: (ticks(500), ticks(5000)),
            tasks: Vec::new(),
            queues: Vec::new(),
            isrs: Vec::new(),
            cores: Vec::new(),
            delayed: Vec::new(),
            values: vec![0; system.values.len() + 1],
            streams,
            truth: config
                .record_truth
                .then(|| Recorder::new(config.ns_per_tick, config.cores)),
            system,
            spawned: 0,
            work_scale,
            config,
        };
        sim.instantiate();
        Ok(sim)
    }

    /// Creates the runtime objects of the built system.
    fn instantiate(&mut self) {
        for _ in 0..self.config.cores {
            self.cores.push(Core {
                current: 0,
                isr_stack: Vec::new(),
                run_start: 0,
                yield_pending: false,
                slice_pending: false,
                tasks: Vec::new(),
                isrs: Vec::new(),
                idle_time: 0,
                idle_since: None,
                load_mark: (0, 0),
            });
        }
        for (i, spec) in self.system.tasks.iter().enumerate() {
            let id = i as u32 + 1;
            self.cores[spec.core as usize].tasks.push(id);
            self.tasks.push(Task {
                core: spec.core as usize,
                base_prio: spec.priority,
                prio: spec.priority,
                state: TaskState::Ready,
                ready_seq: i as u64,
                program: spec.program.clone(),
                pc: 0,
                remaining: 0,
                wake_tick: None,
                deadline: None,
                timed_out: false,
                waiting_on: None,
                last_wake: 0,
                children: Vec::new(),
                local_value: 0,
                readied_at: None,
                wake_latency: 0,
            });
            if let Some(r) = &mut self.truth {
                r.task(TaskInfo {
                    task_id: id,
                    name: spec.name.clone(),
                    kind: spec.kind,
                    core: spec.core,
                    base_priority: spec.priority,
                    created_at: None,
                    deleted_at: None,
                });
            }
        }
        self.ready_seq = self.tasks.len() as u64;
        for (i, spec) in self.system.queues.iter().enumerate() {
            self.queues.push(Queue {
                kind: spec.kind,
                capacity: spec.capacity,
                len: spec.initial,
                holder: None,
                send_waiters: Vec::new(),
                recv_waiters: Vec::new(),
            });
            if let Some(r) = &mut self.truth {
                r.queue(QueueInfo {
                    queue_id: i as u32 + 1,
                    name: spec.name.clone(),
                    kind: spec.kind,
                    capacity: spec.capacity,
                    high_water: None,
                });
            }
        }
        for (i, spec) in self.system.isrs.iter().enumerate() {
            self.cores[spec.core as usize].isrs.push(i);
            self.isrs.push(Isr {
                id: spec.id,
                priority: spec.priority,
                period: spec.period,
                body: spec.body.clone(),
                next_arrival: u64::MAX,
            });
            if let Some(r) = &mut self.truth {
                r.isr(IsrInfo {
                    core: spec.core,
                    isr_id: spec.id,
                    name: spec.name.clone(),
                    priority: spec.priority,
                });
            }
        }
        if !self.config.wide_values {
            for id in 1..self.values.len() {
                let measure = self.system.values[id - 1].1;
                self.values[id] = self.initial_value(measure);
            }
            for t in 1..=self.system.tasks.len() as u32 {
                if let Some(&(id, _, _)) = self.system.tasks[t as usize - 1].local_values.first() {
                    let measure = self.local_measure(t, id);
                    self.tasks[t as usize - 1].local_value = self.initial_value(measure);
                }
            }
        }
    }

    /// Runs until the streams hold [`Config::size`] bytes in total.
    pub fn run(mut self) -> io::Result<Output<W>> {
        self.write_metadata()?;
        self.start_scheduler()?;
        while self.total_bytes() < self.config.size {
            let (core, time, action) = self.next_action();
            self.now = self.now.max(time);
            match action {
                Action::EnterIsr(isr) => self.enter_isr(core, isr)?,
                Action::StepIsr => self.step_isr(core)?,
                Action::Yield => self.context_switch(core)?,
                Action::StepTask => self.step_task(core)?,
            }
        }
        self.finish()
    }

    fn total_bytes(&self) -> u64 {
        self.streams.iter().map(CoreStream::bytes).sum()
    }

    fn finish(self) -> io::Result<Output<W>> {
        let first_ts = self.system_start_ts();
        let mut sinks = Vec::new();
        let mut episodes = Vec::new();
        let mut bytes = Vec::new();
        for s in self.streams {
            bytes.push(s.bytes());
            let (sink, mut e) = s.finish()?;
            sinks.push(sink);
            episodes.append(&mut e);
        }
        let truth = self.truth.map(|r| r.finish(self.last_ts, episodes));
        Ok(Output {
            sinks,
            truth,
            stats: RunStats {
                bytes,
                events: self.events,
                lost_events: self.lost,
                first_ts,
                last_ts: self.last_ts,
            },
        })
    }

    fn system_start_ts(&self) -> Ts {
        self.config.tick_period() / 2
    }

    /// Emits a timestamped event on `core` at the current time and advances
    /// time by the cost of tracing it. Returns its timestamp.
    #[inline]
    fn emit(&mut self, core: usize, event: Event<'_>) -> io::Result<Ts> {
        let ts = self.now;
        if !self.streams[core].event(ts, &event)? {
            self.lost += 1;
        }
        self.events += 1;
        self.last_ts = ts;
        self.now += self.rng.range(self.cost.0, self.cost.1);
        Ok(ts)
    }

    fn meta(&mut self, core: usize, event: Event<'_>) -> io::Result<()> {
        self.streams[core].meta(&event)
    }

    fn record(&mut self, f: impl FnOnce(&mut Recorder)) {
        if let Some(r) = &mut self.truth {
            f(r);
        }
    }

    fn next_action(&self) -> (usize, u64, Action) {
        let mut best = (0, u64::MAX, Action::StepTask);
        for (c, core) in self.cores.iter().enumerate() {
            let level = core
                .isr_stack
                .last()
                .map_or(0, |f| self.isrs[f.isr].priority);
            for &i in &core.isrs {
                let isr = &self.isrs[i];
                if isr.priority > level && isr.next_arrival < best.1 {
                    best = (c, isr.next_arrival, Action::EnterIsr(i));
                }
            }
            let (time, action) = match core.isr_stack.last() {
                Some(top) => (
                    core.run_start.saturating_add(top.remaining),
                    Action::StepIsr,
                ),
                None if core.yield_pending => (core.run_start, Action::Yield),
                None => {
                    let task = &self.tasks[core.current as usize - 1];
                    (
                        core.run_start.saturating_add(task.remaining),
                        Action::StepTask,
                    )
                }
            };
            if time < best.1 {
                best = (c, time, action);
            }
        }
        best
    }

    /// The top context of `core` stops consuming its remaining time now.
    fn charge_top(&mut self, core: usize) {
        let c = &mut self.cores[core];
        let used = self.now.saturating_sub(c.run_start);
        match c.isr_stack.last_mut() {
            Some(top) => top.remaining = top.remaining.saturating_sub(used),
            None if c.current != 0 => {
                let t = &mut self.tasks[c.current as usize - 1];
                t.remaining = t.remaining.saturating_sub(used);
            }
            None => {}
        }
        c.run_start = self.now;
    }

    fn gap(&mut self) -> u64 {
        self.rng.range(self.gap.0, self.gap.1)
    }
}
