//! The models of the reference recordings hold the facts read off their
//! listings (tests/corpus/tband/*.expected.jsonl).

use tband_model::{
    AnomalyKind, IsrKey, Marker, MarkerKind, Model, QueueKind, StateReason, TaskKind, TaskStateKind,
};
use tband_trace::{OpenOptions, Trace};

fn open(files: &[&str]) -> Model {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/tband/");
    let args: Vec<String> = files.iter().map(|f| format!("{dir}{f}")).collect();
    Trace::open(&args, &OpenOptions::default()).unwrap().model
}

fn isr_name(m: &Model, core_id: u32, isr_id: u32) -> &str {
    &m.isr(IsrKey { core_id, isr_id }).unwrap().name
}

/// The global marker with id `marker_id` of `kind`.
fn marker(m: &Model, marker_id: u32, kind: MarkerKind) -> &Marker {
    (m.markers.iter())
        .find(|mk| mk.marker_id == marker_id && mk.task_id.is_none() && mk.kind == kind)
        .expect("a marker")
}

#[test]
fn freertos_small() {
    let m = open(&["freertos_small.bin"]);
    assert_eq!(m.info.ns_per_tick, 1);
    assert_eq!(m.info.events, 884);
    assert_eq!(m.info.first_ts_raw, 262_492);
    assert_eq!(m.info.duration_ns, 90_097_588 - 262_492);
    let names: Vec<_> = m
        .tasks
        .iter()
        .map(|t| (t.task_id, t.name.as_str(), t.kind))
        .collect();
    assert_eq!(
        names,
        [
            (1, "mytask1", TaskKind::Normal),
            (2, "mytask2", TaskKind::Normal),
            (3, "mytask3", TaskKind::Normal),
            (4, "producer", TaskKind::Normal),
            (5, "consumer", TaskKind::Normal),
            (6, "spawner", TaskKind::Normal),
            (7, "IDLE", TaskKind::Idle),
            (8, "Tmr Svc", TaskKind::Timer),
            (9, "tmpA", TaskKind::Normal),
            (10, "tmpB", TaskKind::Normal),
        ]
    );
    assert_eq!(m.cores.len(), 1);
    assert_eq!(
        m.cores[0].idle_task.map(|t| m.tasks[t as usize].task_id),
        Some(7)
    );
    // 200 task_switched_in events, 17 of which switch to the task already running.
    assert_eq!(m.sched_slices.len(), 183);
    for pair in m.sched_slices.to_vec().windows(2) {
        assert_eq!(
            pair[0].end_ns, pair[1].start_ns,
            "slices cover time without gaps"
        );
    }
    assert_eq!(m.sched_slices.get(0).unwrap().start_ns, 284_494 - 262_492);
    // One ISR, 13 enter/exit pairs, none nested.
    assert_eq!(isr_name(&m, 0, 7), "SimIRQ");
    assert_eq!(m.isr_slices.len(), 13);
    assert!(m.isr_slices.iter().all(|s| !s.truncated && s.depth == 0));
    let hw: Vec<_> = m
        .queues
        .iter()
        .map(|q| (q.queue_id, q.kind, q.high_water))
        .collect();
    assert_eq!(
        hw,
        [
            (1, QueueKind::Mutex, 1),
            (2, QueueKind::RecursiveMutex, 1),
            (3, QueueKind::Queue, 5),
            (4, QueueKind::Queue, 1),
            (5, QueueKind::Queue, 1),
            (6, QueueKind::Queue, 2),
            (7, QueueKind::CountingSemaphore, 1),
            (8, QueueKind::BinarySemaphore, 1),
            (9, QueueKind::Mutex, 1),
            (10, QueueKind::Queue, 0),
            (11, QueueKind::Queue, 2),
        ]
    );
    let queue = |id| m.queues.iter().find(|q| q.queue_id == id).unwrap();
    assert_eq!(queue(3).name, "my_q1");
    assert_eq!(queue(10).name, "queue 10");
    // Queue ops: 114 + 26 sends, 95 + 5 receives, 2 stated levels.
    assert_eq!(m.queue_ops.len(), 114 + 26 + 95 + 5 + 2);
    // Global spans: 8 begin/end pairs; task-local: 19 begins, 18 ends.
    let global = m
        .marker_spans
        .iter()
        .filter(|s| m.markers[s.marker as usize].task_id.is_none())
        .count();
    let local: Vec<_> = m
        .marker_spans
        .iter()
        .filter(|s| m.markers[s.marker as usize].task_id.is_some())
        .collect();
    assert_eq!(global, 8);
    assert_eq!(local.len(), 19);
    assert_eq!(local.iter().filter(|s| s.truncated).count(), 1);
    assert_eq!(marker(&m, 1, MarkerKind::Event).name, "MyEvts");
    assert_eq!(m.marker_values.len(), 24 + 21);
    assert_eq!(m.anomaly_count(AnomalyKind::DroppedEvents), 0);
    assert_eq!(m.anomaly_count(AnomalyKind::NeverClosed), 1);
    assert_eq!(m.anomalies.len(), 1);
    // tmpA is created, runs, suspends itself, is resumed, runs and deletes itself.
    let tmp_a = m.tasks.iter().find(|t| t.task_id == 9).unwrap();
    assert_eq!(tmp_a.created_ns, Some(25_467_139 - 262_492));
    assert_eq!(tmp_a.deleted_ns, Some(42_333_647 - 262_492));
}

#[test]
fn freertos_small_slices_end_as_their_tasks_leave_the_core() {
    use StateReason as R;
    use TaskStateKind as S;
    let m = open(&["freertos_small.bin"]);
    let ns = |ts: u64| ts - 262_492;
    // The slice of `task` that starts at `ts`: its end, end state and reason.
    let ended = |task_id: u32, ts: u64| {
        let s = m
            .sched_slices
            .iter()
            .find(|s| m.tasks[s.task as usize].task_id == task_id && s.start_ns == ns(ts))
            .unwrap_or_else(|| panic!("no slice of task {task_id} at {ts}"));
        (s.end_ns, s.end_state, s.end_reason, s.truncated)
    };
    // tmpA (9) is suspended at 37254991 and consumer (5) runs at 37256775.
    assert_eq!(
        ended(9, 25_468_643),
        (ns(37_256_775), Some(S::Suspended), R::Suspend, false)
    );
    // consumer blocks on work_q (curtask_block_on_queue_receive).
    assert_eq!(
        ended(5, 37_256_775),
        (ns(37_298_753), Some(S::Blocked), R::QueueReceive, false)
    );
    // spawner (6) delays itself (curtask_delay), and IDLE runs.
    assert_eq!(
        ended(6, 37_298_753),
        (ns(37_311_663), Some(S::Blocked), R::Delay, false)
    );
    // IDLE (7) gives way to mytask1, made ready at 41225079.
    assert_eq!(
        ended(7, 37_311_663),
        (ns(41_228_013), Some(S::Ready), R::Preempted, false)
    );
    // tmpA, resumed, deletes itself at 42333647.
    assert_eq!(
        ended(9, 42_306_158),
        (ns(42_335_336), Some(S::Deleted), R::Deleted, false)
    );
    let last = m.sched_slices.last().unwrap();
    assert_eq!(
        (last.end_state, last.end_reason, last.truncated),
        (None, R::None, true)
    );
    // Every task but IDLE delays, blocks or is suspended at some point.
    let waited: Vec<_> = m
        .tasks
        .iter()
        .filter(|t| !t.ever_waited)
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(waited, ["IDLE"]);
}

#[test]
fn freertos_lossy_flags_every_loss() {
    let m = open(&["freertos_lossy.bin"]);
    // The counter ends at 731: every lost write is in a dropped-events anomaly.
    assert_eq!(m.anomaly_count(AnomalyKind::DroppedEvents), 731);
    for a in m
        .anomalies
        .iter()
        .filter(|a| a.kind == AnomalyKind::DroppedEvents)
    {
        assert!(a.start_ns <= a.end_ns);
        assert_eq!(a.core_id, Some(0));
    }
    // 33 enters, 25 exits: an ISR whose exit was lost is closed when it is
    // entered again, flagged truncated, and never overlaps the next one.
    assert_eq!(m.isr_slices.len(), 33);
    assert!(m.isr_slices.iter().any(|s| s.truncated));
    assert!(m
        .isr_slices
        .to_vec()
        .windows(2)
        .all(|w| w[0].end_ns <= w[1].start_ns));
    assert!(m.anomaly_count(AnomalyKind::NeverClosed) >= 33 - 25);
}

#[test]
fn baremetal_basic() {
    let m = open(&["baremetal_basic.bin"]);
    assert!(m.tasks.is_empty() && m.sched_slices.is_empty());
    assert_eq!(isr_name(&m, 0, 0), "SysTick");
    assert_eq!(isr_name(&m, 0, u32::MAX), "MaxIdIRQ");
    assert_eq!(m.isr_slices.len(), 6);
    assert!(m.isr_slices.iter().any(|s| s.depth == 1));
    let extremes: Vec<i64> = m
        .marker_values
        .iter()
        .filter(|v| m.markers[v.marker as usize].marker_id == 1)
        .map(|v| v.value)
        .collect();
    assert!(extremes.contains(&i64::MIN) && extremes.contains(&i64::MAX));
    // The message cut inside a UTF-8 character is kept, lossily.
    assert!(m
        .marker_instants
        .iter()
        .any(|i| m.strings.get(i.msg) == "0123456789abcdefghi\u{FFFD}"));
    assert_eq!(m.info.duration_ns, u64::MAX - 10);
}

#[test]
fn two_core_streams_merge_with_per_core_metadata() {
    let m = open(&["baremetal_2core_c0.bin", "baremetal_2core_c1.bin@1"]);
    assert_eq!(m.info.ns_per_tick, 250);
    assert_eq!(
        m.cores.iter().map(|c| c.core_id).collect::<Vec<_>>(),
        [0, 1]
    );
    assert_eq!(isr_name(&m, 0, 0), "C0_SysTick");
    assert_eq!(isr_name(&m, 1, 0), "C1_SysTick");
    assert_eq!(isr_name(&m, 1, 4), "C1_SPI");
    let per_core = |c| m.isr_slices.iter().filter(|s| s.core_id == c).count();
    assert_eq!((per_core(0), per_core(1)), (27, 24));
    assert_eq!(marker(&m, 7, MarkerKind::Event).name, "C1Late");
    assert!(m
        .isr_slices
        .to_vec()
        .windows(2)
        .all(|w| w[0].start_ns <= w[1].start_ns));
    assert!(m.anomalies.is_empty(), "{:?}", m.anomalies);
}

#[test]
fn two_core_snapshots() {
    let m = open(&[
        "baremetal_2core_snap_c0.bin",
        "baremetal_2core_snap_c1.bin@1",
    ]);
    assert_eq!(isr_name(&m, 0, 0), "C0_Timer");
    assert_eq!(isr_name(&m, 1, 0), "C1_Timer");
    assert_eq!(m.isr_slices.len(), 30);
    assert_eq!(marker(&m, 0, MarkerKind::Value).name, "C1Val");
}

#[test]
fn a_missing_core_stream_is_reported() {
    let m = open(&["baremetal_2core_c0.bin"]);
    let missing: Vec<_> = m
        .anomalies
        .iter()
        .filter(|a| a.kind == AnomalyKind::MissingCoreStream)
        .map(|a| a.core_id)
        .collect();
    assert_eq!(missing, [Some(1)]);
    assert_eq!(m.isr_slices.len(), 27);
}
