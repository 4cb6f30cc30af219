//! The model built from a simulated trace reproduces exactly what the
//! simulator scheduled (its ground truth), single- and multi-core, and with
//! dropped-event episodes flags exactly the damaged regions.

use tband_model::{AnomalyKind, Model, StateReason, TaskStateKind};
use tband_sim::{generate, BlockReason, Config, DropConfig, GroundTruth, Layout, TaskState, Ts};
use tband_trace::input::Input;
use tband_trace::DecodeThread;
use tband_trace::{OpenOptions, Trace};

/// The model of a simulated trace, decoded on `decode_thread`, and what
/// the simulator did.
fn simulate_on(decode_thread: DecodeThread, config: Config) -> (Model, GroundTruth) {
    let (streams, truth) = generate(&Config {
        record_truth: true,
        // Values of every varint length through the decoder and the model.
        wide_values: true,
        ..config
    })
    .unwrap();
    let inputs = Input::per_core("sim", streams);
    let options = OpenOptions {
        decode_thread,
        ..OpenOptions::default()
    };
    let model = Trace::from_inputs(inputs, &options).unwrap().model;
    (model, truth.unwrap())
}

fn simulate(config: Config) -> (Model, GroundTruth) {
    simulate_on(DecodeThread::Calling, config)
}

/// Converts the simulator's ticks to the model's ns.
fn ns(m: &Model, ts: Ts) -> u64 {
    (ts - m.info.first_ts_raw) * m.info.ns_per_tick
}

type Slice = (u32, u32, u64, u64, bool);

fn truth_slices(m: &Model, t: &GroundTruth) -> Vec<Slice> {
    let mut v: Vec<Slice> = t
        .run_slices
        .iter()
        .filter(|s| s.end > s.start || s.truncated)
        .map(|s| (s.core, s.task_id, ns(m, s.start), ns(m, s.end), s.truncated))
        .collect();
    v.sort_by_key(|s| (s.2, s.0));
    v
}

fn model_slices(m: &Model) -> Vec<Slice> {
    m.sched_slices
        .iter()
        .filter(|s| s.end_ns > s.start_ns || s.truncated)
        .map(|s| {
            let task_id = m.tasks[s.task as usize].task_id;
            (s.core_id, task_id, s.start_ns, s.end_ns, s.truncated)
        })
        .collect()
}

type IsrRow = (u32, u32, u64, u64, u32, bool);

fn truth_isrs(m: &Model, t: &GroundTruth) -> Vec<IsrRow> {
    let mut v: Vec<IsrRow> = t
        .isr_runs
        .iter()
        .map(|r| {
            (
                r.core,
                r.isr_id,
                ns(m, r.start),
                ns(m, r.end),
                r.depth,
                r.truncated,
            )
        })
        .collect();
    v.sort_by_key(|r| (r.2, r.0, r.4));
    v
}

fn model_isrs(m: &Model) -> Vec<IsrRow> {
    m.isr_slices
        .iter()
        .map(|s| {
            (
                s.core_id,
                m.isrs[s.isr as usize].isr_id,
                s.start_ns,
                s.end_ns,
                s.depth,
                s.truncated,
            )
        })
        .collect()
}

/// The model's state, in the simulator's terms (the model also knows why a
/// task is ready; the simulator only that it is).
fn state_of(m: &Model, s: &tband_model::TaskState) -> TaskState {
    let queue = s.queue.map_or(0, |q| m.queues[q as usize].queue_id);
    match (s.state, s.reason) {
        (TaskStateKind::Running, _) => TaskState::Running {
            core: s.core_id.unwrap(),
        },
        (TaskStateKind::Ready, _) => TaskState::Ready,
        (TaskStateKind::Suspended, _) => TaskState::Suspended,
        (TaskStateKind::Deleted, _) => TaskState::Deleted,
        (TaskStateKind::Blocked, StateReason::Delay) => {
            TaskState::Blocked(BlockReason::Delay { ticks: 0 })
        }
        (TaskStateKind::Blocked, StateReason::DelayUntil) => {
            TaskState::Blocked(BlockReason::DelayUntil { time_to_wake: 0 })
        }
        (TaskStateKind::Blocked, StateReason::QueueSend) => {
            TaskState::Blocked(BlockReason::QueueSend { queue_id: queue })
        }
        (TaskStateKind::Blocked, StateReason::QueueReceive) => {
            TaskState::Blocked(BlockReason::QueueReceive { queue_id: queue })
        }
        (TaskStateKind::Blocked, StateReason::QueuePeek) => {
            TaskState::Blocked(BlockReason::QueuePeek { queue_id: queue })
        }
        (state, reason) => panic!("unexpected state {state:?} {reason:?}"),
    }
}

/// Forgets what the model cannot know from the events (delay amounts).
fn comparable(state: TaskState) -> TaskState {
    match state {
        TaskState::Blocked(BlockReason::Delay { .. }) => {
            TaskState::Blocked(BlockReason::Delay { ticks: 0 })
        }
        TaskState::Blocked(BlockReason::DelayUntil { .. }) => {
            TaskState::Blocked(BlockReason::DelayUntil { time_to_wake: 0 })
        }
        s => s,
    }
}

type StateRow = (u32, TaskState, u64, u64, bool);

fn truth_states(m: &Model, t: &GroundTruth) -> Vec<StateRow> {
    let mut v: Vec<StateRow> = t
        .task_states
        .iter()
        .filter(|s| s.end > s.start || s.truncated)
        .map(|s| {
            (
                s.task_id,
                comparable(s.state),
                ns(m, s.start),
                ns(m, s.end),
                s.truncated,
            )
        })
        .collect();
    v.sort_by_key(|s| (s.0, s.2));
    v
}

fn model_states(m: &Model) -> Vec<StateRow> {
    let mut v: Vec<StateRow> = m
        .task_states
        .iter()
        .filter(|s| s.end_ns > s.start_ns || s.truncated)
        .map(|s| {
            let task_id = m.tasks[s.task as usize].task_id;
            (task_id, state_of(m, &s), s.start_ns, s.end_ns, s.truncated)
        })
        .collect();
    v.sort_by_key(|s| (s.0, s.2));
    // Consecutive ready rows (preempted, then woken) are one ready stretch to the simulator.
    v.dedup_by(|b, a| {
        if a.0 == b.0 && a.1 == b.1 && a.3 == b.2 {
            a.3 = b.3;
            a.4 = b.4;
            true
        } else {
            false
        }
    });
    v
}

fn assert_same<T: PartialEq + std::fmt::Debug>(what: &str, model: &[T], truth: &[T]) {
    if let Some(i) = (0..model.len().max(truth.len())).find(|&i| model.get(i) != truth.get(i)) {
        panic!(
            "{what}: first difference at row {i}:\n model: {:?}\n truth: {:?}\n ({} model rows, {} truth rows)",
            model.get(i),
            truth.get(i),
            model.len(),
            truth.len()
        );
    }
}

fn assert_reproduces(m: &Model, t: &GroundTruth) {
    assert_eq!(m.info.ns_per_tick, t.ns_per_tick);
    assert_same("sched slices", &model_slices(m), &truth_slices(m, t));
    assert_same("ISR slices", &model_isrs(m), &truth_isrs(m, t));
    assert_same("task states", &model_states(m), &truth_states(m, t));
    for q in &t.queues {
        let levels: Vec<(u64, u32)> = t
            .queue_levels
            .iter()
            .filter(|l| l.queue_id == q.queue_id)
            .map(|l| (ns(m, l.ts), l.len))
            .collect();
        let ours: Vec<(u64, u32)> = m
            .queue_ops
            .iter()
            .filter(|o| m.queues[o.queue as usize].queue_id == q.queue_id)
            .filter_map(|o| o.len_after.map(|l| (o.ts_ns, l)))
            .collect();
        assert_same(&format!("levels of queue {}", q.queue_id), &ours, &levels);
        let model_q = m
            .queues
            .iter()
            .find(|mq| mq.queue_id == q.queue_id)
            .unwrap();
        assert_eq!(model_q.name, q.name);
        assert_eq!(Some(model_q.high_water), q.high_water.or(Some(0)));
    }
    let spans: Vec<_> = t
        .marker_spans
        .iter()
        .map(|s| {
            (
                s.marker_id,
                s.task_id,
                ns(m, s.start),
                ns(m, s.end),
                s.depth,
                s.truncated,
            )
        })
        .collect();
    let mut ours: Vec<_> = m
        .marker_spans
        .iter()
        .map(|s| {
            let marker = &m.markers[s.marker as usize];
            (
                marker.marker_id,
                marker.task_id,
                s.start_ns,
                s.end_ns,
                s.depth,
                s.truncated,
            )
        })
        .collect();
    let mut theirs = spans;
    ours.sort();
    theirs.sort();
    assert_same("marker spans", &ours, &theirs);
    assert_eq!(m.marker_values.len(), t.values.len());
    assert_eq!(m.marker_instants.len(), t.marker_instants.len());
    for task in &t.tasks {
        let ours = m.tasks.iter().find(|t| t.task_id == task.task_id).unwrap();
        assert_eq!(ours.name, task.name);
    }
}

#[test]
fn single_core_reproduces_ground_truth() {
    for seed in 1..=3 {
        let (m, t) = simulate(Config {
            seed,
            size: 400 << 10,
            ..Config::default()
        });
        assert!(m.sched_slices.len() > 1000, "a meaningful trace");
        assert_reproduces(&m, &t);
        assert_eq!(m.anomaly_count(AnomalyKind::DroppedEvents), 0);
    }
}

#[test]
fn multi_core_reproduces_ground_truth_in_both_layouts() {
    for (cores, layout) in [
        (2, Layout::Streaming),
        (4, Layout::Snapshot),
        (4, Layout::Streaming),
    ] {
        let config = Config {
            seed: 7,
            cores,
            layout,
            size: 600 << 10,
            ..Config::default()
        };
        let (m, t) = simulate(config.clone());
        let (on_two_threads, _) = simulate_on(DecodeThread::Second, config);
        assert_eq!(format!("{on_two_threads:?}"), format!("{m:?}"));
        assert_eq!(m.cores.len() as u32, cores);
        for core in 0..cores {
            assert!(m.sched_slices.iter().any(|s| s.core_id == core));
        }
        assert_reproduces(&m, &t);
    }
}

#[test]
fn dropped_event_episodes_are_exactly_the_flagged_regions() {
    let (m, t) = simulate(Config {
        seed: 11,
        cores: 2,
        size: 800 << 10,
        drops: Some(DropConfig {
            mean_gap_events: 2_000,
            max_lost_events: 30,
        }),
        ..Config::default()
    });
    let mut expected: Vec<(Option<u32>, u64, u64, u64)> = t
        .drop_episodes
        .iter()
        .filter_map(|e| {
            let reported = e.reported_at_ts?;
            let start = e.previous_ts.unwrap_or(reported);
            Some((
                Some(e.core),
                ns(&m, start),
                ns(&m, reported),
                u64::from(e.lost_events),
            ))
        })
        .collect();
    assert!(
        expected.len() >= 5,
        "the simulation should lose events a few times"
    );
    let mut found: Vec<_> = m
        .anomalies
        .iter()
        .filter(|a| a.kind == AnomalyKind::DroppedEvents)
        .map(|a| (a.core_id, a.start_ns, a.end_ns, a.count))
        .collect();
    expected.sort();
    found.sort();
    assert_eq!(found, expected);
    // Away from the damaged regions the schedule is still exact.
    let damaged = |core: u32, start: u64, end: u64| {
        found
            .iter()
            .any(|&(c, s, e, _)| c == Some(core) && start <= e && end >= s)
    };
    let clean = |v: Vec<Slice>| -> Vec<Slice> {
        v.into_iter().filter(|s| !damaged(s.0, s.2, s.3)).collect()
    };
    let ours = clean(model_slices(&m));
    let theirs = clean(truth_slices(&m, &t));
    assert!(ours.len() > 1000);
    let ours_set: std::collections::BTreeSet<_> = ours.iter().collect();
    let missing: Vec<_> = theirs.iter().filter(|s| !ours_set.contains(s)).collect();
    assert!(
        missing.len() <= found.len(),
        "{} clean slices differ (first {:?})",
        missing.len(),
        missing.first()
    );
}
