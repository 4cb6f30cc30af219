//! embassy's std executor traced through its own trace hooks (tband's
//! `embassy` feature): three tasks count their polls; the trace's model
//! has the same polls per task, every task's name, the task that waits on
//! a `Signal` waiting and the one that only yields never waiting, and no
//! anomalies.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use embassy_executor::{Executor, Spawner};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use tband_host_tests::embassy::{counted, model_of, polls_per_task, waited, yield_once};
use tband_host_tests::snapshot_of;

const ROUNDS: u32 = 8;

static WAITER_POLLS: AtomicU32 = AtomicU32::new(0);
static SIGNALLER_POLLS: AtomicU32 = AtomicU32::new(0);
static SPINNER_POLLS: AtomicU32 = AtomicU32::new(0);
static DONE: AtomicBool = AtomicBool::new(false);
static ROUND: Signal<CriticalSectionRawMutex, u32> = Signal::new();

/// Waits for each round's signal.
#[embassy_executor::task]
async fn waiter() {
    counted(&WAITER_POLLS, async {
        for _ in 0..ROUNDS {
            ROUND.wait().await;
        }
        DONE.store(true, Ordering::Relaxed);
    })
    .await
}

/// Signals a round, then lets the others run twice.
#[embassy_executor::task]
async fn signaller() {
    counted(&SIGNALLER_POLLS, async {
        for round in 0..ROUNDS {
            ROUND.signal(round);
            yield_once().await;
            yield_once().await;
        }
    })
    .await
}

/// Only ever yields: always ready, never waiting.
#[embassy_executor::task]
async fn spinner() {
    counted(&SPINNER_POLLS, async {
        for _ in 0..3 * ROUNDS {
            yield_once().await;
        }
    })
    .await
}

fn spawn_named<S>(spawner: Spawner, name: &str, token: embassy_executor::SpawnToken<S>) {
    tband::embassy::task_name(token.id(), name);
    spawner.spawn(token);
}

#[test]
fn std_executor_polls_names_and_waits() {
    let executor: &'static mut Executor = Box::leak(Box::new(Executor::new()));
    tband::embassy::start();
    executor.run_until(
        |spawner| {
            tband::embassy::executor_name(spawner.executor_id() as u32, "std executor");
            spawn_named(spawner, "waiter", waiter().unwrap());
            spawn_named(spawner, "signaller", signaller().unwrap());
            spawn_named(spawner, "spinner", spinner().unwrap());
        },
        || DONE.load(Ordering::Relaxed) && SPINNER_POLLS.load(Ordering::Relaxed) > 3 * ROUNDS,
    );
    tband::embassy::stop();
    assert_eq!(tband::dropped_events(0), 0, "the snapshot held every event");

    let model = model_of(&[(0, snapshot_of(0))]);

    assert!(model.anomalies.is_empty(), "{:?}", model.anomalies);
    let mut names: Vec<&str> = model.tasks.iter().map(|t| t.name.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        ["idle", "signaller", "spinner", "std executor", "waiter"]
    );

    let counted = [
        ("signaller", &SIGNALLER_POLLS),
        ("spinner", &SPINNER_POLLS),
        ("waiter", &WAITER_POLLS),
    ];
    let expected = counted
        .iter()
        .map(|(name, polls)| (name.to_string(), polls.load(Ordering::Relaxed)))
        .collect();
    let tasks: Vec<&str> = counted.iter().map(|(name, _)| *name).collect();
    assert_eq!(polls_per_task(&model, &tasks), expected);
    assert_eq!(SPINNER_POLLS.load(Ordering::Relaxed), 3 * ROUNDS + 1);

    assert!(waited(&model, "waiter"), "the waiter waits on its signal");
    assert!(!waited(&model, "spinner"), "the spinner is only ever ready");
}
