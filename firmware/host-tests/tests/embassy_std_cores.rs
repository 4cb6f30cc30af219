//! Two of embassy's std executors on two threads that are two cores for
//! the tracer: a task on core 0 and one on core 1 hand a signal back and
//! forth (each wakes the other across cores), each after a millisecond of
//! work, so that the other is waiting by then. Each executor and its task
//! stay on their core, each core has its idle task, the polls per task are
//! the tasks' own counts, both tasks wait, no anomalies.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::thread;
use std::time::Duration;

use embassy_executor::Executor;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use tband_host_tests::embassy::{counted, model_of, polls_per_task, waited};
use tband_host_tests::{run_as_core, snapshot_of};
use tband_model::TaskKind;

const ROUNDS: u32 = 10;

static PING: Signal<CriticalSectionRawMutex, u32> = Signal::new();
static PONG: Signal<CriticalSectionRawMutex, ()> = Signal::new();
static PINGER_POLLS: AtomicU32 = AtomicU32::new(0);
static PONGER_POLLS: AtomicU32 = AtomicU32::new(0);
/// Whether the task of each core has finished.
static FINISHED: [AtomicBool; 2] = [const { AtomicBool::new(false) }; 2];

/// A poll's work: long enough for the other core to be waiting.
fn work() {
    thread::sleep(Duration::from_millis(1));
}

/// On core 0: pings, and waits for each answer.
#[embassy_executor::task]
async fn pinger() {
    counted(&PINGER_POLLS, async {
        for round in 0..ROUNDS {
            work();
            PING.signal(round);
            PONG.wait().await;
        }
    })
    .await;
    FINISHED[0].store(true, Ordering::Relaxed);
}

/// On core 1: answers each ping.
#[embassy_executor::task]
async fn ponger() {
    counted(&PONGER_POLLS, async {
        for _ in 0..ROUNDS {
            PING.wait().await;
            work();
            PONG.signal(());
        }
    })
    .await;
    FINISHED[1].store(true, Ordering::Relaxed);
}

/// Runs an executor as core `core` with the one task `task` spawns, until
/// that task has finished.
fn run_core(core: usize, name: &'static str, task: fn(embassy_executor::Spawner)) {
    run_as_core(core);
    tband::embassy::start();
    let executor: &'static mut Executor = Box::leak(Box::new(Executor::new()));
    executor.run_until(
        |spawner| {
            tband::embassy::executor_name(spawner.executor_id() as u32, name);
            task(spawner);
        },
        || FINISHED[core].load(Ordering::Relaxed),
    );
}

#[test]
fn executors_on_two_cores() {
    let cores = [
        thread::spawn(|| {
            run_core(0, "core 0 executor", |spawner| {
                let token = pinger().unwrap();
                tband::embassy::task_name(token.id(), "pinger");
                spawner.spawn(token);
            })
        }),
        thread::spawn(|| {
            run_core(1, "core 1 executor", |spawner| {
                let token = ponger().unwrap();
                tband::embassy::task_name(token.id(), "ponger");
                spawner.spawn(token);
            })
        }),
    ];
    for core in cores {
        core.join().unwrap();
    }
    tband::embassy::stop();
    for core in 0..2 {
        assert_eq!(
            tband::dropped_events(core),
            0,
            "core {core} kept every event"
        );
    }
    let model = model_of(&[(0, snapshot_of(0)), (1, snapshot_of(1))]);

    assert!(model.anomalies.is_empty(), "{:?}", model.anomalies);
    assert_eq!(model.cores.len(), 2);
    let on_core = |name: &str| -> Vec<u32> {
        let task = model.tasks.iter().position(|t| t.name == name).unwrap() as u32;
        let mut cores: Vec<u32> = model
            .sched_slices
            .iter()
            .filter(|s| s.task == task)
            .map(|s| s.core_id)
            .collect();
        cores.dedup();
        cores
    };
    assert_eq!(on_core("pinger"), [0]);
    assert_eq!(on_core("core 0 executor"), [0]);
    assert_eq!(on_core("ponger"), [1]);
    assert_eq!(on_core("core 1 executor"), [1]);
    let idle: Vec<u32> = model.cores.iter().filter_map(|c| c.idle_task).collect();
    assert_eq!(idle.len(), 2, "each core has its idle task");
    assert!(idle
        .iter()
        .all(|&t| model.tasks[t as usize].kind == TaskKind::Idle));

    let expected = [
        ("pinger".to_string(), PINGER_POLLS.load(Ordering::Relaxed)),
        ("ponger".to_string(), PONGER_POLLS.load(Ordering::Relaxed)),
    ];
    assert!(expected.iter().all(|(_, polls)| *polls > 1));
    assert_eq!(
        polls_per_task(&model, &["pinger", "ponger"]),
        expected.into_iter().collect()
    );
    assert!(waited(&model, "pinger") && waited(&model, "ponger"));
}
