//! The simulated firmware: its tasks (each with a role and a program), queues,
//! interrupt sources and markers, built from the config and the seed.

use crate::config::Config;
use crate::program::{IsrOp, Op, WAIT_FOREVER};
use crate::rng::Rng;
use crate::truth::{QueueKind, TaskKind};

/// What a queue is used for; roles look queues up by purpose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Purpose {
    Data,
    Lock,
    IrqSemaphore,
    Events,
    Mailbox,
    IsrQueue,
    Timer,
}

pub(crate) struct QueueSpec {
    pub name: String,
    pub kind: QueueKind,
    pub purpose: Purpose,
    pub capacity: u32,
    /// Level when the trace starts (a mutex starts available).
    pub initial: u32,
}

pub(crate) struct TaskSpec {
    pub name: String,
    pub kind: TaskKind,
    pub core: u32,
    pub priority: u32,
    pub program: Vec<Op>,
    pub local_markers: LocalNames,
    pub local_values: LocalValues,
}

pub(crate) struct IsrSpec {
    pub core: u32,
    pub id: u32,
    pub name: String,
    pub priority: u32,
    /// Mean time between arrivals; 0 for interrupts raised on demand.
    pub period: u64,
    pub body: Vec<IsrOp>,
}

pub(crate) struct System {
    /// Task `i` has id `i + 1`: application tasks, one idle task per core,
    /// then the timer task.
    pub tasks: Vec<TaskSpec>,
    /// Queue `i` has id `i + 1`; the last one is the timer queue, created
    /// when the scheduler starts.
    pub queues: Vec<QueueSpec>,
    pub isrs: Vec<IsrSpec>,
    /// Global event markers, id = index + 1.
    pub markers: Vec<String>,
    /// Global value markers, id = index + 1.
    pub values: Vec<(String, Measure)>,
    pub idle_tasks: Vec<u32>,
    pub timer_task: u32,
}

/// What a value marker measures: its range and how it moves from one
/// sample to the next (unless [`Config::wide_values`] is set).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Measure {
    /// A 12-bit ADC conversion, 0..=4095: a slowly drifting signal with a
    /// few LSB of noise.
    Adc12,
    /// A digital input read in its edge interrupt, 0 or 1: the opposite of
    /// the last reading, except for an edge missed now and then.
    PinLevel,
    /// Events per second, jittering within ±5 % of this nominal rate.
    RatePerSecond(i64),
    /// The load of the sampling task's core since the previous such sample
    /// on that core, in percent: 100 minus the idle task's share.
    CpuLoadPercent,
    /// A counter that goes up by one per sample, wrapping to 0 at this
    /// modulus.
    Counter(i64),
    /// Items waiting in this queue (its length when sampled); without a
    /// queue, a small number that moves by one.
    Backlog(Option<u32>),
    /// Microseconds from the sampling task's last wake-up (made ready, e.g.
    /// by an interrupt giving its semaphore) to it running.
    WakeLatencyUs,
    /// Loop iterations per pass, drifting around a level.
    Iterations,
}

pub(crate) const TICK_ISR_ID: u32 = 15;
pub(crate) const IDLE_PRIORITY: u32 = 0;
pub(crate) const TIMER_PRIORITY: u32 = 6;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Producer,
    Consumer,
    MutexLow,
    Waiter,
    Spawner,
    MutexHigh,
    Manager,
    Sleeper,
    Worker,
}

const ROLES: [Role; 9] = [
    Role::Producer,
    Role::Consumer,
    Role::MutexLow,
    Role::Waiter,
    Role::Spawner,
    Role::MutexHigh,
    Role::Manager,
    Role::Sleeper,
    Role::Worker,
];

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Producer => "prod",
            Role::Consumer => "cons",
            Role::MutexLow => "mtxlo",
            Role::Waiter => "irqwait",
            Role::Spawner => "spawn",
            Role::MutexHigh => "mtxhi",
            Role::Manager => "mgr",
            Role::Sleeper => "sleep",
            Role::Worker => "work",
        }
    }

    fn priority(self) -> u32 {
        match self {
            Role::Producer | Role::Manager => 3,
            Role::Consumer | Role::Spawner => 2,
            Role::MutexLow | Role::Worker => 1,
            Role::MutexHigh | Role::Sleeper => 4,
            Role::Waiter => 5,
        }
    }
}

const QUEUE_CYCLE: [(Purpose, QueueKind, u32, &str); 7] = [
    (Purpose::Data, QueueKind::Queue, 4, "data"),
    (Purpose::Lock, QueueKind::Mutex, 1, "lock"),
    (
        Purpose::IrqSemaphore,
        QueueKind::BinarySemaphore,
        1,
        "irqsem",
    ),
    (Purpose::Events, QueueKind::CountingSemaphore, 10, "events"),
    (Purpose::Mailbox, QueueKind::Queue, 1, "mbox"),
    (Purpose::IsrQueue, QueueKind::Queue, 16, "isrq"),
    (Purpose::Lock, QueueKind::RecursiveMutex, 1, "rlock"),
];

const DEVICE_NAMES: [&str; 5] = ["UART", "DMA", "ADC", "TIM", "GPIO"];

struct Builder<'c> {
    config: &'c Config,
    rng: &'c mut Rng,
    queues: Vec<QueueSpec>,
    markers: Vec<String>,
    values: Vec<(String, Measure)>,
}

impl Builder<'_> {
    /// Timestamp ticks in `n` microseconds.
    fn us(&self, n: u64) -> u64 {
        (n * 1000 / self.config.ns_per_tick).max(1)
    }

    /// Work of `min_us..max_us` at the default load; with more than eight
    /// tasks per core it shrinks so the cores still idle now and then.
    fn compute(&mut self, min_us: u64, max_us: u64) -> Op {
        let per_core = u64::from(self.config.tasks.div_ceil(self.config.cores)).max(8);
        let lo = self.rng.range(min_us, (min_us + max_us) / 2) * 8 / per_core;
        Op::Compute {
            min: self.us(lo),
            max: self.us(max_us * 8 / per_core),
        }
    }

    fn marker(&mut self, name: String) -> u32 {
        self.markers.push(name);
        self.markers.len() as u32
    }

    fn value(&mut self, name: String, measure: Measure) -> u32 {
        self.values.push((name, measure));
        self.values.len() as u32
    }

    /// The queues with this purpose that instance `slot` uses: they are
    /// shared out among the instances so that every queue has a user, and
    /// every instance gets one when there are fewer queues than instances.
    fn queues(&self, purpose: Purpose, slot: Slot) -> Vec<u32> {
        let ids: Vec<u32> = (1..)
            .zip(&self.queues)
            .filter(|(_, q)| q.purpose == purpose)
            .map(|(id, _)| id)
            .collect();
        if ids.len() <= slot.count {
            return ids
                .get(slot.n % ids.len().max(1))
                .copied()
                .into_iter()
                .collect();
        }
        (0..)
            .zip(ids)
            .filter(|(i, _)| i % slot.count == slot.n)
            .map(|(_, id)| id)
            .collect()
    }
}

/// Instance `n` of `count` tasks with the same role (or interrupts of the
/// same kind).
#[derive(Clone, Copy)]
struct Slot {
    n: usize,
    count: usize,
}

/// Task ids of the first task of each role that others refer to.
struct Targets {
    consumer: Option<u32>,
    worker: Option<u32>,
    sleeper: Option<u32>,
}

fn role_of(index: u32) -> (Role, usize) {
    let i = index as usize;
    (ROLES[i % ROLES.len()], i / ROLES.len())
}

pub(crate) fn build(config: &Config, rng: &mut Rng) -> System {
    let cores = config.cores;
    let mut b = Builder {
        config,
        rng,
        queues: Vec::new(),
        markers: Vec::new(),
        values: Vec::new(),
    };
    for i in 0..config.queues as usize {
        let (purpose, kind, capacity, stem) = QUEUE_CYCLE[i % QUEUE_CYCLE.len()];
        b.queues.push(QueueSpec {
            name: format!("{stem}{}", i / QUEUE_CYCLE.len()),
            kind,
            purpose,
            capacity,
            initial: u32::from(kind.is_mutex()),
        });
    }
    let log = b.marker("log".to_owned());

    let first_of = |role: Role| {
        (0..config.tasks)
            .find(|&i| role_of(i).0 == role)
            .map(|i| i + 1)
    };
    let targets = Targets {
        consumer: first_of(Role::Consumer),
        worker: first_of(Role::Worker).or(first_of(Role::Producer)),
        sleeper: first_of(Role::Sleeper),
    };

    let timer_queue = config.queues + 1;
    let mut tasks = Vec::new();
    for i in 0..config.tasks {
        let (role, n) = role_of(i);
        let name = format!("{}{n}", role.name());
        let count = (0..config.tasks).filter(|&j| role_of(j).0 == role).count();
        let slot = Slot { n, count };
        let program = role_program(&mut b, role, slot, &name, &targets, log, timer_queue);
        let (local_markers, local_values) = role_locals(&b, role, slot);
        tasks.push(TaskSpec {
            name,
            kind: TaskKind::Normal,
            core: i % cores,
            priority: role.priority(),
            program,
            local_markers,
            local_values,
        });
    }
    let mut idle_tasks = Vec::new();
    for core in 0..cores {
        tasks.push(TaskSpec {
            name: if cores == 1 {
                "IDLE".to_owned()
            } else {
                format!("IDLE{core}")
            },
            kind: TaskKind::Idle,
            core,
            priority: IDLE_PRIORITY,
            program: vec![Op::Idle],
            local_markers: Vec::new(),
            local_values: Vec::new(),
        });
        idle_tasks.push(tasks.len() as u32);
    }
    let timer_value = b.value("tmr fired".to_owned(), Measure::Counter(1 << 32));
    let timer_program = vec![
        Op::Receive {
            queue: timer_queue,
            timeout: 10,
            on_fail: None,
        },
        b.compute(5, 30),
        Op::Value { id: timer_value },
    ];
    tasks.push(TaskSpec {
        name: "Tmr Svc".to_owned(),
        kind: TaskKind::Timer,
        core: 0,
        priority: TIMER_PRIORITY,
        program: timer_program,
        local_markers: Vec::new(),
        local_values: Vec::new(),
    });
    let timer_task = tasks.len() as u32;
    b.queues.push(QueueSpec {
        name: "TmrQ".to_owned(),
        kind: QueueKind::Queue,
        purpose: Purpose::Timer,
        capacity: 10,
        initial: 0,
    });

    let isrs = build_isrs(&mut b, &targets, log);
    System {
        tasks,
        queues: b.queues,
        isrs,
        markers: b.markers,
        values: b.values,
        idle_tasks,
        timer_task,
    }
}

/// Task-local event marker ids and names.
type LocalNames = Vec<(u32, &'static str)>;
/// Task-local value marker ids, names and what they measure.
pub(crate) type LocalValues = Vec<(u32, &'static str, Measure)>;

fn role_locals(b: &Builder<'_>, role: Role, slot: Slot) -> (LocalNames, LocalValues) {
    match role {
        Role::Producer => (
            vec![(0, "sent")],
            vec![(0, "seq", Measure::Counter(1 << 16))],
        ),
        Role::Consumer => {
            // The queue it blocks on (see `role_program`).
            let data = b.queues(Purpose::Data, slot).first().copied();
            (
                vec![(0, "process")],
                vec![(0, "backlog", Measure::Backlog(data))],
            )
        }
        Role::MutexHigh => (vec![(0, "lock")], Vec::new()),
        Role::Waiter => (
            vec![(0, "irq work")],
            vec![(0, "latency", Measure::WakeLatencyUs)],
        ),
        Role::Sleeper => (vec![(0, "wake")], Vec::new()),
        Role::Worker => (Vec::new(), vec![(0, "iterations", Measure::Iterations)]),
        Role::MutexLow | Role::Spawner | Role::Manager => (Vec::new(), Vec::new()),
    }
}

fn role_program(
    b: &mut Builder<'_>,
    role: Role,
    slot: Slot,
    name: &str,
    targets: &Targets,
    log: u32,
    timer_queue: u32,
) -> Vec<Op> {
    let mut p = Vec::new();
    let send = |queue, timeout| Op::Send {
        queue,
        timeout,
        on_fail: None,
    };
    let receive = |queue, timeout| Op::Receive {
        queue,
        timeout,
        on_fail: None,
    };
    match role {
        Role::Producer => {
            let frame = b.marker(format!("{name} frame"));
            let period = b.rng.range(2, 8);
            // Frames per second at one frame per period (RTOS ticks).
            let nominal =
                (1_000_000_000 / period.saturating_mul(b.config.tick_period_ns).max(1)) as i64;
            let rate = b.value(format!("{name} rate"), Measure::RatePerSecond(nominal));
            p.push(Op::DelayUntil {
                period: period as u32,
            });
            p.push(Op::MarkerBegin {
                id: frame,
                msg: "produce",
            });
            p.push(b.compute(20, 200));
            p.push(Op::Value { id: rate });
            // A nested span on the same track around the sends.
            p.push(Op::MarkerBegin {
                id: frame,
                msg: "send",
            });
            // A burst longer than the first queue makes the producer wait
            // for room; the other queues get one item each.
            for (i, q) in b.queues(Purpose::Data, slot).into_iter().enumerate() {
                let burst = if i == 0 { b.rng.range(2, 6) } else { 1 };
                for _ in 0..burst {
                    p.push(send(q, 5));
                }
            }
            for q in b.queues(Purpose::Events, slot) {
                p.push(send(q, 0));
            }
            p.push(Op::MarkerEnd { id: frame });
            p.push(Op::MarkerEnd { id: frame });
            p.push(Op::LocalInstant { id: 0, msg: "sent" });
            p.push(Op::LocalValue { id: 0 });
        }
        Role::Consumer => {
            let data = b.queues(Purpose::Data, slot);
            match data.first() {
                Some(&q) => {
                    let timeout = if slot.n.is_multiple_of(2) {
                        WAIT_FOREVER
                    } else {
                        20
                    };
                    p.push(receive(q, timeout));
                }
                None => p.push(Op::Delay { min: 1, max: 5 }),
            }
            p.push(Op::LocalBegin {
                id: 0,
                msg: "process",
            });
            p.push(Op::LocalBegin {
                id: 0,
                msg: "decode",
            });
            p.push(b.compute(30, 200));
            p.push(Op::LocalEnd { id: 0 });
            p.push(b.compute(20, 200));
            p.push(Op::LocalValue { id: 0 });
            for &q in data.iter().skip(1) {
                p.push(receive(q, 0));
            }
            for q in b.queues(Purpose::Mailbox, slot) {
                p.push(Op::Peek {
                    queue: q,
                    timeout: 3,
                });
                p.push(receive(q, 0));
            }
            p.push(Op::LocalEnd { id: 0 });
        }
        Role::MutexLow => {
            let hold = b.marker(format!("{name} hold"));
            for lock in b.queues(Purpose::Lock, slot) {
                // Held across a delay, so waiters lend it their priority.
                let give_up = p.len() + 6;
                p.push(Op::Receive {
                    queue: lock,
                    timeout: WAIT_FOREVER,
                    on_fail: Some(give_up),
                });
                p.push(Op::MarkerBegin {
                    id: hold,
                    msg: "hold",
                });
                p.push(b.compute(100, 1500));
                p.push(Op::Delay { min: 1, max: 2 });
                p.push(Op::MarkerEnd { id: hold });
                p.push(send(lock, 0));
                p.push(Op::Delay { min: 2, max: 8 });
            }
            if p.is_empty() {
                p.push(Op::Delay { min: 2, max: 8 });
            }
        }
        Role::MutexHigh => {
            for lock in b.queues(Purpose::Lock, slot) {
                let next_lock = p.len() + 5;
                p.push(Op::Delay { min: 1, max: 5 });
                p.push(Op::Receive {
                    queue: lock,
                    timeout: 3,
                    on_fail: Some(next_lock),
                });
                p.push(b.compute(10, 50));
                p.push(send(lock, 0));
                p.push(Op::LocalInstant {
                    id: 0,
                    msg: "got lock",
                });
            }
            if p.is_empty() {
                p.push(Op::Delay { min: 1, max: 5 });
            }
        }
        Role::Waiter => {
            let sems = b.queues(Purpose::IrqSemaphore, slot);
            for &sem in &sems {
                p.push(receive(sem, 100));
            }
            if sems.is_empty() {
                p.push(Op::Delay { min: 5, max: 20 });
            }
            p.push(Op::LocalBegin { id: 0, msg: "irq" });
            p.push(b.compute(10, 100));
            for q in b.queues(Purpose::IsrQueue, slot) {
                p.push(receive(q, 0));
            }
            p.push(Op::LocalEnd { id: 0 });
            p.push(Op::LocalValue { id: 0 });
        }
        Role::Spawner => {
            let spawn = b.marker(format!("{name} spawn"));
            p.push(Op::Delay { min: 10, max: 30 });
            p.push(Op::MarkerBegin {
                id: spawn,
                msg: "spawn",
            });
            p.push(Op::Spawn);
            p.push(b.compute(30, 100));
            p.push(Op::MarkerEnd { id: spawn });
            p.push(Op::Delay { min: 2, max: 5 });
            p.push(Op::ReapChildren);
        }
        Role::Manager => {
            let load = b.value(format!("{name} load"), Measure::CpuLoadPercent);
            p.push(Op::Delay { min: 5, max: 20 });
            if let Some(task) = targets.consumer {
                p.push(Op::TogglePriority {
                    task,
                    low: Role::Consumer.priority(),
                    high: Role::Consumer.priority() + 2,
                });
            }
            for q in b.queues(Purpose::Mailbox, slot) {
                p.push(Op::Overwrite { queue: q });
            }
            p.push(send(timer_queue, 0));
            for q in b.queues(Purpose::Events, slot) {
                p.push(receive(q, 2));
            }
            if let Some(task) = targets.worker {
                p.push(Op::Suspend { task });
                p.push(Op::MarkerInstant {
                    id: log,
                    msg: "suspend",
                });
                p.push(Op::Delay { min: 1, max: 3 });
                p.push(Op::Resume { task });
            }
            if let Some(task) = targets.sleeper {
                p.push(Op::Resume { task });
            }
            p.push(Op::Value { id: load });
        }
        Role::Sleeper => {
            p.push(Op::SuspendSelf);
            p.push(Op::LocalInstant {
                id: 0,
                msg: "woken",
            });
            p.push(b.compute(10, 100));
            p.push(Op::Delay { min: 1, max: 1 });
        }
        Role::Worker => {
            p.push(b.compute(100, 3000));
            p.push(Op::LocalValue { id: 0 });
            p.push(Op::Delay { min: 1, max: 4 });
        }
    }
    p
}

fn build_isrs(b: &mut Builder<'_>, targets: &Targets, log: u32) -> Vec<IsrSpec> {
    let cores = b.config.cores;
    let mut isrs = vec![IsrSpec {
        core: 0,
        id: TICK_ISR_ID,
        name: "SysTick".to_owned(),
        priority: 1,
        period: b.config.tick_period(),
        body: vec![IsrOp::Tick],
    }];
    for k in 0..b.config.isrs {
        let n = k as usize;
        let kind = n % DEVICE_NAMES.len();
        let name = format!("{}{}", DEVICE_NAMES[kind], n / DEVICE_NAMES.len());
        let count = (0..b.config.isrs as usize)
            .filter(|j| j % DEVICE_NAMES.len() == kind)
            .count();
        let slot = Slot {
            n: n / DEVICE_NAMES.len(),
            count,
        };
        let mut body = Vec::new();
        match kind {
            0 => {
                for q in b.queues(Purpose::IsrQueue, slot) {
                    body.push(IsrOp::Send { queue: q });
                }
                body.push(IsrOp::Instant { id: log, msg: "rx" });
            }
            1 => {
                let span = b.marker(format!("{name} xfer"));
                body.push(IsrOp::SpanBegin {
                    id: span,
                    msg: "xfer",
                });
                for q in b.queues(Purpose::IrqSemaphore, slot) {
                    body.push(IsrOp::Send { queue: q });
                }
                body.push(IsrOp::SpanEnd { id: span });
            }
            2 => {
                let sample = b.value(format!("{name} sample"), Measure::Adc12);
                body.push(IsrOp::Value { id: sample });
                for q in b.queues(Purpose::Mailbox, slot) {
                    body.push(IsrOp::Overwrite { queue: q });
                }
            }
            3 => {
                for q in b.queues(Purpose::Events, slot) {
                    body.push(IsrOp::Send { queue: q });
                }
                for q in b.queues(Purpose::IsrQueue, slot) {
                    body.push(IsrOp::Receive { queue: q });
                }
            }
            _ => {
                if let Some(task) = targets.sleeper {
                    body.push(IsrOp::Resume { task });
                }
                let level = b.value(format!("{name} level"), Measure::PinLevel);
                body.push(IsrOp::Value { id: level });
            }
        }
        let period_us = b.rng.range(300, 3000);
        let period = b.us(period_us);
        isrs.push(IsrSpec {
            core: k % cores,
            id: 16 + k,
            name,
            priority: 2 + k % 3,
            period,
            body,
        });
    }
    if cores > 1 {
        for core in 0..cores {
            isrs.push(IsrSpec {
                core,
                id: 16 + b.config.isrs,
                name: "IPI".to_owned(),
                priority: 1,
                period: 0,
                body: vec![IsrOp::Yield],
            });
        }
    }
    isrs
}
