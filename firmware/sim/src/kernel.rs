//! The kernel model: preemptive priority scheduling with time slicing on
//! every core, nested interrupts, queues/semaphores/mutexes with blocking
//! and priority inheritance, delays, suspension, task creation/deletion —
//! emitting the events a FreeRTOS tracer would, in time order.

use std::io::{self, Write};

use tband::Event;

use crate::config::{Config, ConfigError, Layout};
use crate::program::{short_lived_program, IsrOp, Op};
use crate::rng::Rng;
use crate::stream::CoreStream;
use crate::system::{self, System};
use crate::truth::{
    BlockReason, GroundTruth, IsrInfo, PriorityCause, QueueInfo, QueueKind, Recorder, TaskInfo,
    TaskKind, TaskState, Ts,
};

/// Children a spawner keeps alive at most.
const MAX_CHILDREN: usize = 4;
/// Compute time far beyond any trace: the idle loop.
const FOREVER: u64 = 1 << 62;

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
    now: u64,
    last_ts: u64,
    tick_count: u64,
    ready_seq: u64,
    events: u64,
    lost: u64,
    cost: (u64, u64),
    gap: (u64, u64),
    tasks: Vec<Task>,
    queues: Vec<Queue>,
    isrs: Vec<Isr>,
    cores: Vec<Core>,
    delayed: Vec<u32>,
    values: Vec<i64>,
    streams: Vec<CoreStream<W>>,
    truth: Option<Recorder>,
    system: System,
    spawned: u32,
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
                Action::Yield => self.reschedule(core)?,
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
        self.config.rtos_tick / 2
    }

    // ---- emitting ------------------------------------------------------

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

    fn write_metadata(&mut self) -> io::Result<()> {
        let cores = self.cores.len();
        match self.config.layout {
            Layout::Streaming => {
                for core in 0..cores {
                    self.streams[0].header_core_id(core as u32)?;
                    self.write_core_metadata(core, 0)?;
                }
                self.streams[0].header_core_id(0)?;
            }
            Layout::Snapshot => {
                for core in 0..cores {
                    self.write_core_metadata(core, core)?;
                }
            }
        }
        Ok(())
    }

    /// Writes what `core`'s metadata buffer holds into stream `out`.
    fn write_core_metadata(&mut self, core: usize, out: usize) -> io::Result<()> {
        let s = &mut self.streams[out];
        let sys = &self.system;
        s.meta(&Event::TsResolutionNs {
            ns_per_ts: self.config.ns_per_tick,
        })?;
        if core == 0 {
            for (i, t) in sys.tasks.iter().enumerate() {
                s.meta(&Event::TaskName {
                    task_id: i as u32 + 1,
                    name: t.name.as_bytes(),
                })?;
            }
            for (c, &task_id) in sys.idle_tasks.iter().enumerate() {
                s.meta(&Event::TaskIsIdleTask {
                    task_id,
                    core_id: c as u32,
                })?;
            }
            s.meta(&Event::TaskIsTimerTask {
                task_id: sys.timer_task,
            })?;
            // The timer queue is created when the scheduler starts.
            for (i, q) in sys.queues.iter().enumerate().take(sys.queues.len() - 1) {
                let queue_id = i as u32 + 1;
                s.meta(&Event::QueueKind {
                    queue_id,
                    kind: q.kind.code(),
                })?;
                s.meta(&Event::QueueName {
                    queue_id,
                    name: q.name.as_bytes(),
                })?;
            }
            for (i, name) in sys.markers.iter().enumerate() {
                s.meta(&Event::EvtmarkerName {
                    evtmarker_id: i as u32 + 1,
                    name: name.as_bytes(),
                })?;
            }
            for (i, name) in sys.values.iter().enumerate() {
                s.meta(&Event::ValmarkerName {
                    valmarker_id: i as u32 + 1,
                    name: name.as_bytes(),
                })?;
            }
        }
        for isr in sys.isrs.iter().filter(|i| i.core as usize == core) {
            s.meta(&Event::IsrName {
                isr_id: isr.id,
                name: isr.name.as_bytes(),
            })?;
        }
        for (i, t) in sys.tasks.iter().enumerate() {
            if t.core as usize != core {
                continue;
            }
            let task_id = i as u32 + 1;
            for &(evtmarker_id, name) in &t.local_markers {
                s.meta(&Event::TaskEvtmarkerName {
                    evtmarker_id,
                    task_id,
                    name: name.as_bytes(),
                })?;
            }
            for &(valmarker_id, name) in &t.local_values {
                s.meta(&Event::TaskValmarkerName {
                    valmarker_id,
                    task_id,
                    name: name.as_bytes(),
                })?;
            }
        }
        Ok(())
    }

    /// `vTaskStartScheduler`: the timer queue is created, the tick starts
    /// and every core switches to its best task.
    fn start_scheduler(&mut self) -> io::Result<()> {
        self.now = self.system_start_ts();
        let timer_queue = self.queues.len() as u32;
        let ts = self.emit(
            0,
            Event::QueueCreated {
                queue_id: timer_queue,
            },
        )?;
        self.record(|r| r.start(ts));
        self.meta(
            0,
            Event::QueueKind {
                queue_id: timer_queue,
                kind: QueueKind::Queue.code(),
            },
        )?;
        let ts = self.emit(
            0,
            Event::QueueCurLength {
                queue_id: timer_queue,
                length: 0,
            },
        )?;
        self.record(|r| r.queue_level(timer_queue, ts, 0));
        let name = self.system.queues[timer_queue as usize - 1].name.clone();
        self.meta(
            0,
            Event::QueueName {
                queue_id: timer_queue,
                name: name.as_bytes(),
            },
        )?;
        for i in 0..self.isrs.len() {
            let isr = &mut self.isrs[i];
            if isr.period > 0 {
                isr.next_arrival = if isr.id == system::TICK_ISR_ID {
                    self.config.rtos_tick
                } else {
                    self.now + self.rng.range(1, isr.period)
                };
            }
        }
        for core in 0..self.cores.len() {
            self.reschedule(core)?;
        }
        Ok(())
    }

    // ---- the main loop's choice -----------------------------------------

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

    // ---- interrupts -----------------------------------------------------

    fn enter_isr(&mut self, core: usize, isr: usize) -> io::Result<()> {
        self.charge_top(core);
        let isr_id = self.isrs[isr].id;
        let ts = self.emit(core, Event::IsrEnter { isr_id })?;
        self.record(|r| r.isr_enter(core as u32, isr_id, ts));
        let i = &mut self.isrs[isr];
        i.next_arrival = if i.period == 0 {
            u64::MAX
        } else if i.id == system::TICK_ISR_ID {
            let mut next = i.next_arrival + i.period;
            while next <= self.now {
                next += i.period;
            }
            next
        } else {
            let p = i.period;
            self.now + self.rng.range(p / 2, p + p / 2)
        };
        let remaining = self.gap();
        let c = &mut self.cores[core];
        c.isr_stack.push(IsrFrame {
            isr,
            step: 0,
            remaining,
        });
        c.run_start = self.now;
        Ok(())
    }

    fn step_isr(&mut self, core: usize) -> io::Result<()> {
        let Some(top) = self.cores[core].isr_stack.last() else {
            return Ok(());
        };
        let (isr, step) = (top.isr, top.step);
        match self.isrs[isr].body.get(step).copied() {
            Some(op) => {
                self.isr_op(core, op)?;
                let remaining = self.gap();
                let c = &mut self.cores[core];
                if let Some(top) = c.isr_stack.last_mut() {
                    top.step += 1;
                    top.remaining = remaining;
                }
                c.run_start = self.now;
            }
            None => {
                let isr_id = self.isrs[isr].id;
                let ts = self.emit(core, Event::IsrExit { isr_id })?;
                self.record(|r| r.isr_exit(core as u32, ts));
                let c = &mut self.cores[core];
                c.isr_stack.pop();
                c.run_start = self.now;
            }
        }
        Ok(())
    }

    fn isr_op(&mut self, core: usize, op: IsrOp) -> io::Result<()> {
        match op {
            IsrOp::Tick => self.tick(core)?,
            IsrOp::Yield => self.cores[core].yield_pending = true,
            IsrOp::Send { queue } => {
                self.send(core, None, queue)?;
            }
            IsrOp::Overwrite { queue } => self.overwrite(core, None, queue)?,
            IsrOp::Receive { queue } => {
                self.receive(core, None, queue)?;
            }
            IsrOp::Resume { task } => self.resume(core, task, true)?,
            IsrOp::Value { id } => self.value(core, id)?,
            IsrOp::Instant { id, msg } => self.instant(core, None, id, msg)?,
            IsrOp::SpanBegin { id, msg } => self.span_begin(core, None, id, msg)?,
            IsrOp::SpanEnd { id } => self.span_end(core, None, id)?,
        }
        Ok(())
    }

    /// The RTOS tick: wakes tasks whose delay or timeout ended and asks
    /// cores to rotate among equal priorities.
    fn tick(&mut self, core: usize) -> io::Result<()> {
        self.tick_count += 1;
        let mut i = 0;
        while i < self.delayed.len() {
            let t = self.delayed[i];
            let task = &mut self.tasks[t as usize - 1];
            if task.wake_tick.is_some_and(|w| w <= self.tick_count) {
                self.delayed.swap_remove(i);
                task.wake_tick = None;
                if let Some(q) = task.waiting_on.take() {
                    task.timed_out = true;
                    let queue = &mut self.queues[q as usize - 1];
                    queue.send_waiters.retain(|&w| w != t);
                    queue.recv_waiters.retain(|&w| w != t);
                }
                let ts = self.emit(core, Event::TaskToRdyState { task_id: t })?;
                self.make_ready(core, t, ts);
            } else {
                i += 1;
            }
        }
        for c in 0..self.cores.len() {
            let cur = self.cores[c].current;
            if cur == 0 {
                continue;
            }
            let prio = self.tasks[cur as usize - 1].prio;
            let peer = self.cores[c].tasks.iter().any(|&t| {
                let task = &self.tasks[t as usize - 1];
                t != cur && task.state == TaskState::Ready && task.prio == prio
            });
            if peer {
                self.cores[c].slice_pending = true;
                self.request_yield(core, c);
            }
        }
        Ok(())
    }

    // ---- scheduling -----------------------------------------------------

    fn best_ready(&self, core: usize) -> Option<u32> {
        let mut best: Option<(u32, u32, u64)> = None;
        for &t in &self.cores[core].tasks {
            let task = &self.tasks[t as usize - 1];
            if task.state != TaskState::Ready {
                continue;
            }
            let better = match best {
                None => true,
                Some((_, prio, seq)) => {
                    task.prio > prio || (task.prio == prio && task.ready_seq < seq)
                }
            };
            if better {
                best = Some((t, task.prio, task.ready_seq));
            }
        }
        best.map(|(t, _, _)| t)
    }

    /// Whether a ready task should preempt the running task of `core`.
    fn needs_preempt(&self, core: usize) -> bool {
        let cur = self.cores[core].current;
        let Some(best) = self.best_ready(core) else {
            return false;
        };
        if cur == 0 {
            return true;
        }
        let cur = &self.tasks[cur as usize - 1];
        !matches!(cur.state, TaskState::Running { .. })
            || self.tasks[best as usize - 1].prio > cur.prio
    }

    /// Asks `target` to reschedule: on the executing core at the next
    /// task-level moment, on another core through its inter-core interrupt.
    fn request_yield(&mut self, executing: usize, target: usize) {
        if target == executing {
            self.cores[target].yield_pending = true;
            return;
        }
        let latency = self.gap();
        let now = self.now;
        if let Some(&ipi) = self.cores[target]
            .isrs
            .iter()
            .find(|&&i| self.isrs[i].period == 0)
        {
            let isr = &mut self.isrs[ipi];
            if isr.next_arrival == u64::MAX {
                isr.next_arrival = now + latency;
            }
        }
    }

    fn check_preempt(&mut self, executing: usize, target: usize) {
        if self.needs_preempt(target) {
            self.request_yield(executing, target);
        }
    }

    /// Switches `core` to its best task if that differs from the running
    /// one (which stays if it can still run and is not outranked).
    fn reschedule(&mut self, core: usize) -> io::Result<()> {
        let c = &mut self.cores[core];
        c.yield_pending = false;
        let slice = std::mem::take(&mut c.slice_pending);
        let cur = c.current;
        let Some(best) = self.best_ready(core) else {
            return Ok(());
        };
        if cur != 0 {
            let task = &self.tasks[cur as usize - 1];
            let running = matches!(task.state, TaskState::Running { .. });
            let best_prio = self.tasks[best as usize - 1].prio;
            if running && (best_prio < task.prio || (best_prio == task.prio && !slice)) {
                return Ok(());
            }
            self.charge_top(core);
            let task = &mut self.tasks[cur as usize - 1];
            if running {
                task.state = TaskState::Ready;
                task.ready_seq = self.ready_seq;
                self.ready_seq += 1;
            }
        }
        let ts = self.emit(core, Event::TaskSwitchedIn { task_id: best })?;
        let core_id = core as u32;
        let running = TaskState::Running { core: core_id };
        if cur != 0 {
            let state = self.tasks[cur as usize - 1].state;
            self.record(|r| r.state(cur, state, ts));
        }
        self.record(|r| {
            r.switch(core_id, best, ts);
            r.state(best, running, ts);
        });
        self.tasks[best as usize - 1].state = running;
        let c = &mut self.cores[core];
        c.current = best;
        c.run_start = self.now;
        Ok(())
    }

    /// `t` became ready at `ts` (its event was emitted by the caller).
    fn make_ready(&mut self, executing: usize, t: u32, ts: Ts) {
        let task = &mut self.tasks[t as usize - 1];
        task.state = TaskState::Ready;
        task.ready_seq = self.ready_seq;
        self.ready_seq += 1;
        if task.wake_tick.take().is_some() {
            self.delayed.retain(|&d| d != t);
        }
        let target = task.core;
        self.record(|r| r.state(t, TaskState::Ready, ts));
        self.check_preempt(executing, target);
    }

    /// Wakes the highest-priority task waiting on `queue` (to receive when
    /// `receivers`, else to send).
    fn wake_waiter(&mut self, core: usize, queue: u32, receivers: bool) -> io::Result<()> {
        let q = &self.queues[queue as usize - 1];
        let list = if receivers {
            &q.recv_waiters
        } else {
            &q.send_waiters
        };
        let mut best: Option<(usize, u32)> = None;
        for (i, &t) in list.iter().enumerate() {
            let prio = self.tasks[t as usize - 1].prio;
            if best.is_none_or(|(_, p)| prio > p) {
                best = Some((i, prio));
            }
        }
        let Some((i, _)) = best else {
            return Ok(());
        };
        let q = &mut self.queues[queue as usize - 1];
        let t = if receivers {
            q.recv_waiters.remove(i)
        } else {
            q.send_waiters.remove(i)
        };
        self.tasks[t as usize - 1].waiting_on = None;
        let ts = self.emit(core, Event::TaskToRdyState { task_id: t })?;
        self.make_ready(core, t, ts);
        Ok(())
    }

    /// The running task of `core` announced `state` and gives up the core.
    fn block(&mut self, core: usize, t: u32, state: TaskState) -> io::Result<()> {
        self.tasks[t as usize - 1].state = state;
        self.reschedule(core)
    }

    fn set_priority(&mut self, t: u32, prio: u32, cause: PriorityCause, ts: Ts) {
        self.tasks[t as usize - 1].prio = prio;
        self.record(|r| r.priority(t, ts, prio, cause));
    }

    /// After `t`'s priority changed: the core it runs on or waits for may
    /// need another task.
    fn after_priority_change(&mut self, executing: usize, t: u32) {
        let task = &self.tasks[t as usize - 1];
        match task.state {
            TaskState::Ready => self.check_preempt(executing, task.core),
            TaskState::Running { core } => self.check_preempt(executing, core as usize),
            _ => {}
        }
    }

    // ---- queues ---------------------------------------------------------

    /// Sends to (gives) `queue` if it has room; `task` is `None` from an ISR.
    fn send(&mut self, core: usize, task: Option<u32>, queue: u32) -> io::Result<bool> {
        let q = &mut self.queues[queue as usize - 1];
        if q.len >= q.capacity {
            return Ok(false);
        }
        q.len += 1;
        let (len_after, is_mutex) = (q.len, q.kind.is_mutex());
        let event = match task {
            Some(_) => Event::QueueSend {
                queue_id: queue,
                len_after,
            },
            None => Event::QueueSendFromIsr {
                queue_id: queue,
                len_after,
            },
        };
        let ts = self.emit(core, event)?;
        self.record(|r| r.queue_level(queue, ts, len_after));
        if let (Some(t), true) = (task, is_mutex) {
            self.queues[queue as usize - 1].holder = None;
            let task = &self.tasks[t as usize - 1];
            if task.prio != task.base_prio {
                let base = task.base_prio;
                let ts = self.emit(
                    core,
                    Event::TaskPriorityDisinherit {
                        task_id: t,
                        priority: base,
                    },
                )?;
                self.set_priority(t, base, PriorityCause::Disinherit, ts);
                self.after_priority_change(core, t);
            }
        }
        self.wake_waiter(core, queue, true)?;
        Ok(true)
    }

    fn overwrite(&mut self, core: usize, task: Option<u32>, queue: u32) -> io::Result<()> {
        let q = &mut self.queues[queue as usize - 1];
        q.len = q.capacity;
        let len_after = q.len;
        let event = match task {
            Some(_) => Event::QueueOverwrite {
                queue_id: queue,
                len_after,
            },
            None => Event::QueueOverwriteFromIsr {
                queue_id: queue,
                len_after,
            },
        };
        let ts = self.emit(core, event)?;
        self.record(|r| r.queue_level(queue, ts, len_after));
        self.wake_waiter(core, queue, true)
    }

    /// Receives from (takes) `queue` if it holds something.
    fn receive(&mut self, core: usize, task: Option<u32>, queue: u32) -> io::Result<bool> {
        let q = &mut self.queues[queue as usize - 1];
        if q.len == 0 {
            return Ok(false);
        }
        q.len -= 1;
        let len_after = q.len;
        if q.kind.is_mutex() {
            q.holder = task;
        }
        let event = match task {
            Some(_) => Event::QueueReceive {
                queue_id: queue,
                len_after,
            },
            None => Event::QueueReceiveFromIsr {
                queue_id: queue,
                len_after,
            },
        };
        let ts = self.emit(core, event)?;
        self.record(|r| r.queue_level(queue, ts, len_after));
        self.wake_waiter(core, queue, false)?;
        Ok(true)
    }

    /// Ticks left to wait for the running task's queue operation, or
    /// `None` when it must give up now.
    fn ticks_to_wait(&mut self, t: u32, timeout: u32) -> Option<u32> {
        let tick = self.tick_count;
        let task = &mut self.tasks[t as usize - 1];
        if timeout == 0 || task.timed_out {
            return None;
        }
        if timeout == crate::program::WAIT_FOREVER {
            return Some(timeout);
        }
        let deadline = *task.deadline.get_or_insert(tick + u64::from(timeout));
        let left = deadline.checked_sub(tick).filter(|&l| l > 0)?;
        Some(u32::try_from(left).unwrap_or(u32::MAX - 1))
    }

    /// Puts the running task on a queue's wait list and blocks it.
    fn wait_on_queue(
        &mut self,
        core: usize,
        t: u32,
        queue: u32,
        state: TaskState,
    ) -> io::Result<()> {
        let task = &mut self.tasks[t as usize - 1];
        task.waiting_on = Some(queue);
        if let Some(deadline) = task.deadline {
            task.wake_tick = Some(deadline);
            self.delayed.push(t);
        }
        let q = &mut self.queues[queue as usize - 1];
        match state {
            TaskState::Blocked(BlockReason::QueueSend { .. }) => q.send_waiters.push(t),
            _ => q.recv_waiters.push(t),
        }
        self.block(core, t, state)
    }

    /// A failed mutex take after a timeout lowers the holder's inherited
    /// priority to what the remaining waiters need.
    fn disinherit_after_timeout(&mut self, core: usize, queue: u32) -> io::Result<()> {
        let q = &self.queues[queue as usize - 1];
        let Some(holder) = q.holder else {
            return Ok(());
        };
        let needed = q
            .recv_waiters
            .iter()
            .map(|&w| self.tasks[w as usize - 1].prio)
            .max()
            .unwrap_or(0);
        let h = &self.tasks[holder as usize - 1];
        let new = needed.max(h.base_prio);
        if new < h.prio {
            let ts = self.emit(
                core,
                Event::TaskPriorityDisinherit {
                    task_id: holder,
                    priority: new,
                },
            )?;
            self.set_priority(holder, new, PriorityCause::Disinherit, ts);
            self.after_priority_change(core, holder);
        }
        Ok(())
    }

    // ---- markers --------------------------------------------------------

    fn span_begin(&mut self, core: usize, task: Option<u32>, id: u32, msg: &str) -> io::Result<()> {
        let event = match task {
            Some(_) => Event::TaskEvtmarkerBegin {
                evtmarker_id: id,
                msg: msg.as_bytes(),
            },
            None => Event::EvtmarkerBegin {
                evtmarker_id: id,
                msg: msg.as_bytes(),
            },
        };
        let ts = self.emit(core, event)?;
        self.record(|r| r.span_begin(task, id, core as u32, ts, msg));
        Ok(())
    }

    fn span_end(&mut self, core: usize, task: Option<u32>, id: u32) -> io::Result<()> {
        let event = match task {
            Some(_) => Event::TaskEvtmarkerEnd { evtmarker_id: id },
            None => Event::EvtmarkerEnd { evtmarker_id: id },
        };
        let ts = self.emit(core, event)?;
        self.record(|r| r.span_end(task, id, ts));
        Ok(())
    }

    fn instant(&mut self, core: usize, task: Option<u32>, id: u32, msg: &str) -> io::Result<()> {
        let event = match task {
            Some(_) => Event::TaskEvtmarker {
                evtmarker_id: id,
                msg: msg.as_bytes(),
            },
            None => Event::Evtmarker {
                evtmarker_id: id,
                msg: msg.as_bytes(),
            },
        };
        let ts = self.emit(core, event)?;
        self.record(|r| r.instant(task, id, core as u32, ts, msg));
        Ok(())
    }

    /// A sample of a random walk (`state`); now and then an outlier of any
    /// size and sign instead, so values of every varint length occur.
    fn sample(&mut self, state: &mut i64) -> i64 {
        match self.rng.range(0, 999) {
            0 => i64::MIN,
            1 => i64::MAX,
            2..=11 => (self.rng.next_u64() as i64) >> self.rng.range(0, 62),
            _ => {
                let step = self.rng.range(0, 200) as i64 - 100;
                *state = state.saturating_add(step).clamp(-1_000_000, 1_000_000);
                *state
            }
        }
    }

    fn value(&mut self, core: usize, id: u32) -> io::Result<()> {
        let mut state = self.values[id as usize];
        let val = self.sample(&mut state);
        self.values[id as usize] = state;
        let ts = self.emit(
            core,
            Event::Valmarker {
                valmarker_id: id,
                val,
            },
        )?;
        self.record(|r| r.value(None, id, core as u32, ts, val));
        Ok(())
    }

    fn local_value(&mut self, core: usize, t: u32, id: u32) -> io::Result<()> {
        let mut state = self.tasks[t as usize - 1].local_value;
        let val = self.sample(&mut state);
        self.tasks[t as usize - 1].local_value = state;
        let ts = self.emit(
            core,
            Event::TaskValmarker {
                valmarker_id: id,
                val,
            },
        )?;
        self.record(|r| r.value(Some(t), id, core as u32, ts, val));
        Ok(())
    }

    // ---- tasks ----------------------------------------------------------

    fn resume(&mut self, core: usize, t: u32, from_isr: bool) -> io::Result<()> {
        if self.tasks[t as usize - 1].state != TaskState::Suspended {
            return Ok(());
        }
        let event = if from_isr {
            Event::TaskResumedFromIsr { task_id: t }
        } else {
            Event::TaskResumed { task_id: t }
        };
        let ts = self.emit(core, event)?;
        self.emit(core, Event::TaskToRdyState { task_id: t })?;
        self.make_ready(core, t, ts);
        Ok(())
    }

    fn delete(&mut self, core: usize, t: u32) -> io::Result<Ts> {
        let ts = self.emit(core, Event::TaskDeleted { task_id: t })?;
        self.record(|r| r.task_deleted(t, ts));
        let home = self.tasks[t as usize - 1].core;
        self.cores[home].tasks.retain(|&x| x != t);
        Ok(ts)
    }

    fn spawn(&mut self, core: usize, parent: u32) -> io::Result<()> {
        let id = self.tasks.len() as u32 + 1;
        let p = &mut self.tasks[parent as usize - 1];
        if p.children.len() >= MAX_CHILDREN {
            return Ok(());
        }
        p.children.push(id);
        let home = (p.core + self.spawned as usize) % self.cores.len();
        let name = format!("tmp{}", (b'A' + (self.spawned % 26) as u8) as char);
        self.spawned += 1;
        let prio = self.rng.range(1, 4) as u32;
        let ns = self.config.ns_per_tick;
        let program = short_lived_program(|us| (us * 1000 / ns).max(1));
        self.tasks.push(Task {
            core: home,
            base_prio: prio,
            prio,
            state: TaskState::Ready,
            ready_seq: 0,
            program,
            pc: 0,
            remaining: 0,
            wake_tick: None,
            deadline: None,
            timed_out: false,
            waiting_on: None,
            last_wake: 0,
            children: Vec::new(),
            local_value: 0,
        });
        self.cores[home].tasks.push(id);
        let created = self.emit(core, Event::TaskCreated { task_id: id })?;
        let prio_ts = self.emit(
            core,
            Event::TaskPrioritySet {
                task_id: id,
                priority: prio,
            },
        )?;
        self.meta(
            core,
            Event::TaskName {
                task_id: id,
                name: name.as_bytes(),
            },
        )?;
        self.record(|r| {
            r.task(TaskInfo {
                task_id: id,
                name,
                kind: TaskKind::Normal,
                core: home as u32,
                base_priority: prio,
                created_at: Some(created),
                deleted_at: None,
            });
            r.priority(id, prio_ts, prio, PriorityCause::Set);
        });
        let ts = self.emit(core, Event::TaskToRdyState { task_id: id })?;
        self.make_ready(core, id, ts);
        Ok(())
    }

    /// Resumes or deletes the suspended children of `parent`.
    fn reap_children(&mut self, core: usize, parent: u32) -> io::Result<()> {
        let children = std::mem::take(&mut self.tasks[parent as usize - 1].children);
        let mut alive = Vec::with_capacity(children.len());
        for child in children {
            match self.tasks[child as usize - 1].state {
                TaskState::Deleted => {}
                TaskState::Suspended if self.rng.percent(30) => {
                    let ts = self.delete(core, child)?;
                    self.tasks[child as usize - 1].state = TaskState::Deleted;
                    self.record(|r| r.state(child, TaskState::Deleted, ts));
                }
                TaskState::Suspended => {
                    self.resume(core, child, false)?;
                    alive.push(child);
                }
                _ => alive.push(child),
            }
        }
        self.tasks[parent as usize - 1].children = alive;
        Ok(())
    }

    fn step_task(&mut self, core: usize) -> io::Result<()> {
        let t = self.cores[core].current;
        let task = &self.tasks[t as usize - 1];
        let pc = task.pc;
        let op = task.program[pc];
        let next = (pc + 1) % task.program.len();
        // Where the program goes on; a blocking op that must retry stays.
        let mut goto = Some(next);
        match op {
            Op::Compute { min, max } => {
                let d = self.rng.range(min, max);
                let task = &mut self.tasks[t as usize - 1];
                task.remaining = d;
                task.pc = next;
                self.cores[core].run_start = self.now;
                return Ok(());
            }
            Op::Idle => {
                self.tasks[t as usize - 1].remaining = FOREVER;
                self.cores[core].run_start = self.now;
                return Ok(());
            }
            Op::Delay { min, max } => {
                let ticks = self.rng.range(u64::from(min), u64::from(max)) as u32;
                self.emit(core, Event::CurtaskDelay { ticks })?;
                self.delay(
                    core,
                    t,
                    u64::from(ticks),
                    BlockReason::Delay { ticks },
                    next,
                )?;
                goto = None;
            }
            Op::DelayUntil { period } => {
                let task = &mut self.tasks[t as usize - 1];
                let mut wake = task.last_wake + u64::from(period);
                if wake <= self.tick_count {
                    wake = self.tick_count + u64::from(period);
                }
                task.last_wake = wake;
                let time_to_wake = wake as u32;
                self.emit(core, Event::CurtaskDelayUntil { time_to_wake })?;
                let ticks = wake - self.tick_count;
                self.delay(
                    core,
                    t,
                    ticks,
                    BlockReason::DelayUntil { time_to_wake },
                    next,
                )?;
                goto = None;
            }
            Op::Send {
                queue,
                timeout,
                on_fail,
            } => {
                if self.send(core, Some(t), queue)? {
                    self.op_done(t);
                } else if let Some(ticks) = self.ticks_to_wait(t, timeout) {
                    self.emit(
                        core,
                        Event::CurtaskBlockOnQueueSend {
                            queue_id: queue,
                            ticks_to_wait: ticks,
                        },
                    )?;
                    let state = TaskState::Blocked(BlockReason::QueueSend { queue_id: queue });
                    self.tasks[t as usize - 1].remaining = 0;
                    self.wait_on_queue(core, t, queue, state)?;
                    goto = None;
                } else {
                    self.op_done(t);
                    goto = Some(on_fail.unwrap_or(next));
                }
            }
            Op::Receive {
                queue,
                timeout,
                on_fail,
            } => {
                if self.receive(core, Some(t), queue)? {
                    self.op_done(t);
                } else if let Some(ticks) = self.ticks_to_wait(t, timeout) {
                    self.emit(
                        core,
                        Event::CurtaskBlockOnQueueReceive {
                            queue_id: queue,
                            ticks_to_wait: ticks,
                        },
                    )?;
                    self.inherit(core, t, queue)?;
                    let state = TaskState::Blocked(BlockReason::QueueReceive { queue_id: queue });
                    self.tasks[t as usize - 1].remaining = 0;
                    self.wait_on_queue(core, t, queue, state)?;
                    goto = None;
                } else {
                    let timed_out = self.tasks[t as usize - 1].timed_out;
                    if timed_out && self.queues[queue as usize - 1].kind.is_mutex() {
                        self.disinherit_after_timeout(core, queue)?;
                    }
                    self.op_done(t);
                    goto = Some(on_fail.unwrap_or(next));
                }
            }
            Op::Peek { queue, timeout } => {
                if self.queues[queue as usize - 1].len > 0 {
                    self.op_done(t);
                } else if let Some(ticks) = self.ticks_to_wait(t, timeout) {
                    self.emit(
                        core,
                        Event::CurtaskBlockOnQueuePeek {
                            queue_id: queue,
                            ticks_to_wait: ticks,
                        },
                    )?;
                    let state = TaskState::Blocked(BlockReason::QueuePeek { queue_id: queue });
                    self.tasks[t as usize - 1].remaining = 0;
                    self.wait_on_queue(core, t, queue, state)?;
                    goto = None;
                } else {
                    self.op_done(t);
                }
            }
            Op::Overwrite { queue } => self.overwrite(core, Some(t), queue)?,
            Op::MarkerBegin { id, msg } => self.span_begin(core, None, id, msg)?,
            Op::MarkerEnd { id } => self.span_end(core, None, id)?,
            Op::MarkerInstant { id, msg } => self.instant(core, None, id, msg)?,
            Op::Value { id } => self.value(core, id)?,
            Op::LocalBegin { id, msg } => self.span_begin(core, Some(t), id, msg)?,
            Op::LocalEnd { id } => self.span_end(core, Some(t), id)?,
            Op::LocalInstant { id, msg } => self.instant(core, Some(t), id, msg)?,
            Op::LocalValue { id } => self.local_value(core, t, id)?,
            Op::RegisterLocalMarker { id, name } => self.meta(
                core,
                Event::TaskEvtmarkerName {
                    evtmarker_id: id,
                    task_id: t,
                    name: name.as_bytes(),
                },
            )?,
            Op::SuspendSelf => {
                self.emit(core, Event::TaskSuspended { task_id: t })?;
                self.tasks[t as usize - 1].pc = next;
                self.tasks[t as usize - 1].remaining = self.gap();
                self.block(core, t, TaskState::Suspended)?;
                goto = None;
            }
            Op::DeleteSelf => {
                self.delete(core, t)?;
                self.block(core, t, TaskState::Deleted)?;
                goto = None;
            }
            Op::Suspend { task } => self.suspend_other(core, task)?,
            Op::Resume { task } => self.resume(core, task, false)?,
            Op::TogglePriority { task, low, high } => {
                let target = &self.tasks[task as usize - 1];
                let new = if target.base_prio == low { high } else { low };
                let inherited = target.prio != target.base_prio;
                let ts = self.emit(
                    core,
                    Event::TaskPrioritySet {
                        task_id: task,
                        priority: new,
                    },
                )?;
                let target = &mut self.tasks[task as usize - 1];
                target.base_prio = new;
                let effective = if inherited { target.prio.max(new) } else { new };
                self.set_priority(task, effective, PriorityCause::Set, ts);
                self.after_priority_change(core, task);
            }
            Op::Spawn => self.spawn(core, t)?,
            Op::ReapChildren => self.reap_children(core, t)?,
        }
        if let Some(pc) = goto {
            let gap = self.gap();
            let task = &mut self.tasks[t as usize - 1];
            task.pc = pc % task.program.len();
            task.remaining = gap;
            self.cores[core].run_start = self.now;
        }
        Ok(())
    }

    /// A queue operation of `t` finished (done or given up).
    fn op_done(&mut self, t: u32) {
        let task = &mut self.tasks[t as usize - 1];
        task.deadline = None;
        task.timed_out = false;
    }

    /// Blocks the running task for `ticks` RTOS ticks.
    fn delay(
        &mut self,
        core: usize,
        t: u32,
        ticks: u64,
        reason: BlockReason,
        next: usize,
    ) -> io::Result<()> {
        let remaining = self.gap();
        let task = &mut self.tasks[t as usize - 1];
        task.wake_tick = Some(self.tick_count + ticks);
        task.pc = next;
        task.remaining = remaining;
        self.delayed.push(t);
        self.block(core, t, TaskState::Blocked(reason))
    }

    /// A task blocking on a held mutex lends its priority to the holder.
    fn inherit(&mut self, core: usize, t: u32, queue: u32) -> io::Result<()> {
        let Some(holder) = self.queues[queue as usize - 1].holder else {
            return Ok(());
        };
        let prio = self.tasks[t as usize - 1].prio;
        if self.tasks[holder as usize - 1].prio >= prio {
            return Ok(());
        }
        let ts = self.emit(
            core,
            Event::TaskPriorityInherit {
                task_id: holder,
                priority: prio,
            },
        )?;
        self.set_priority(holder, prio, PriorityCause::Inherit, ts);
        self.after_priority_change(core, holder);
        Ok(())
    }

    /// `vTaskSuspend` of another task, when it is ready or delayed.
    fn suspend_other(&mut self, core: usize, t: u32) -> io::Result<()> {
        let task = &self.tasks[t as usize - 1];
        let suspendable = matches!(
            task.state,
            TaskState::Ready
                | TaskState::Blocked(BlockReason::Delay { .. } | BlockReason::DelayUntil { .. })
        );
        if !suspendable {
            return Ok(());
        }
        let ts = self.emit(core, Event::TaskSuspended { task_id: t })?;
        let task = &mut self.tasks[t as usize - 1];
        task.state = TaskState::Suspended;
        if task.wake_tick.take().is_some() {
            self.delayed.retain(|&d| d != t);
        }
        self.record(|r| r.state(t, TaskState::Suspended, ts));
        Ok(())
    }
}
