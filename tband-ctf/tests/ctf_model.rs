//! The models of the shipped Zephyr CTF recordings hold the facts read off their babeltrace2
//! listings (tests/corpus/zephyr_ctf/*.listing.txt).

use tband_model::{
    AnomalyKind, IsrKey, MarkerKind, Model, QueueKind, QueueOpKind, StateReason, TaskKind,
    TaskStateKind,
};
use tband_model::{ArgValue, EventRow};
use tband_trace::{InputFormat, OpenOptions, Source, Trace};

const ZEPHYR_CTF: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/zephyr_ctf/");

fn open(args: &[&str], options: &OpenOptions) -> Trace {
    let args: Vec<String> = args.iter().map(|a| format!("{ZEPHYR_CTF}{a}")).collect();
    Trace::open(&args, options).unwrap_or_else(|e| panic!("{e}"))
}

/// Opens a trace, handing its raw events to `events`.
fn open_with_events(args: &[String], events: &mut dyn FnMut(&EventRow<'_>)) -> Trace {
    let options = OpenOptions::default();
    let source = Source::open(args, &options).unwrap_or_else(|e| panic!("{e}"));
    Trace::build_with_events(source, &options, events).unwrap_or_else(|e| panic!("{e}"))
}

fn names(m: &Model) -> Vec<(u32, &str, TaskKind)> {
    m.tasks
        .iter()
        .map(|t| (t.task_id, t.name.as_str(), t.kind))
        .collect()
}

fn ops(m: &Model, kind: QueueKind, op: QueueOpKind) -> usize {
    m.queue_ops
        .iter()
        .filter(|o| o.op == op && m.queues[o.queue as usize].kind == kind)
        .count()
}

fn states(m: &Model, state: TaskStateKind, reason: StateReason) -> usize {
    m.task_states
        .iter()
        .filter(|s| s.state == state && s.reason == reason)
        .count()
}

fn assert_slices_cover_time(m: &Model) {
    for pair in m.sched_slices.to_vec().windows(2) {
        assert_eq!(
            pair[0].end_ns, pair[1].start_ns,
            "slices cover time without gaps"
        );
    }
}

#[test]
fn hello_sem() {
    let trace = open(&["hello_sem"], &OpenOptions::default());
    assert_eq!(trace.format(), InputFormat::Ctf);
    let m = &trace.model;
    assert_eq!(m.info.format, "ctf");
    assert_eq!(m.info.events, 284);
    assert_eq!(m.info.duration_ns, 9_690_000_000);
    assert!(m.anomalies.is_empty(), "{:?}", m.anomalies);
    assert_eq!(
        names(m),
        [
            (134_558_688, "thread_a", TaskKind::Normal),
            (134_558_848, "thread_b", TaskKind::Normal),
            (134_560_000, "idle", TaskKind::Idle),
            (134_560_160, "main", TaskKind::Normal),
        ]
    );
    assert_eq!(m.cores.len(), 1);
    assert_eq!(m.cores[0].idle_task.map(|t| id(m, t)), Some(134_560_000));
    let thread_b = m.tasks.iter().find(|t| t.task_id == 134_558_848).unwrap();
    assert_eq!(
        (thread_b.created_ns, thread_b.stack_size),
        (Some(0), Some(2048))
    );

    // 61 thread_switched_in events, each to a thread other than the one running.
    assert_eq!(m.sched_slices.len(), 61);
    assert_slices_cover_time(m);
    // 19 isr_enter/isr_exit pairs, none nested.
    assert_eq!(m.isr_slices.len(), 19);
    assert!(m.isr_slices.iter().all(|s| s.depth == 0 && !s.truncated));
    assert_eq!(
        m.isr(IsrKey {
            core_id: 0,
            isr_id: 0
        })
        .unwrap()
        .name,
        "isr"
    );
    // Two semaphores: 19 gives, 20 takes that returned 0, 20 takes that blocked.
    assert_eq!(m.queues.len(), 2);
    assert_eq!(ops(m, QueueKind::CountingSemaphore, QueueOpKind::Send), 19);
    assert_eq!(
        ops(m, QueueKind::CountingSemaphore, QueueOpKind::Receive),
        20
    );
    assert_eq!(
        states(m, TaskStateKind::Blocked, StateReason::Semaphore),
        20
    );
    // The first give comes from thread_a at 0.51 s.
    let first_give = m
        .queue_ops
        .iter()
        .find(|o| o.op == QueueOpKind::Send)
        .unwrap();
    assert_eq!(
        (
            first_give.ts_ns,
            first_give.task.map(|t| id(m, t)),
            first_give.from_isr
        ),
        (510_000_000, Some(134_558_688), false)
    );
}

#[test]
fn workload() {
    let m = &open(&["workload"], &OpenOptions::default()).model;
    assert_eq!(m.info.events, 9530);
    assert_eq!(m.info.duration_ns, 5_990_600_000);
    assert!(m.anomalies.is_empty(), "{:?}", m.anomalies);
    assert_eq!(
        names(m),
        [
            (134_566_880, "bg_load", TaskKind::Normal),
            (134_567_040, "logger", TaskKind::Normal),
            (134_567_200, "ctrl", TaskKind::Normal),
            (134_567_360, "sensor", TaskKind::Normal),
            (134_568_768, "idle", TaskKind::Idle),
            (134_568_928, "main", TaskKind::Normal),
        ]
    );
    // 1416 thread_switched_in events, 1285 of them to a thread other than the one running.
    assert_eq!(m.sched_slices.len(), 1285);
    assert_slices_cover_time(m);
    assert_eq!(m.isr_slices.len(), 327);
    // The timer's expiry function gives the semaphore from interrupt context.
    assert_eq!(ops(m, QueueKind::CountingSemaphore, QueueOpKind::Send), 352);
    assert!(m
        .queue_ops
        .iter()
        .filter(|o| o.op == QueueOpKind::Send && o.from_isr)
        .all(|o| o.task.is_none()));
    // 354 takes ended, two of them timed out (ret = -11): 352 receives.
    assert_eq!(
        ops(m, QueueKind::CountingSemaphore, QueueOpKind::Receive),
        352
    );
    assert_eq!(ops(m, QueueKind::CountingSemaphore, QueueOpKind::Reset), 1);
    // 966 locks and unlocks, never nested: 966 holds; 59 locks blocked.
    assert_eq!(ops(m, QueueKind::RecursiveMutex, QueueOpKind::Receive), 966);
    assert_eq!(ops(m, QueueKind::RecursiveMutex, QueueOpKind::Send), 966);
    assert_eq!(m.mutex_holds.len(), 966);
    assert_eq!(states(m, TaskStateKind::Blocked, StateReason::Mutex), 59);
    // main suspends bg_load at 1.04 s and resumes it at 1.82 s.
    let suspended: Vec<_> = m
        .task_states
        .iter()
        .filter(|s| s.state == TaskStateKind::Suspended)
        .map(|s| (id(m, s.task), s.start_ns, s.end_ns))
        .collect();
    assert_eq!(suspended, [(134_566_880, 1_040_000_000, 1_820_000_000)]);
    // Two timers: 2 inits, 25 starts, 1 stop, 22 status reads.
    let timers: Vec<&str> = m.markers.iter().map(|mk| mk.name.as_str()).collect();
    assert_eq!(timers.len(), 2, "{timers:?}");
    assert!(m.markers.iter().all(|mk| mk.kind == MarkerKind::Event));
    assert_eq!(m.marker_instants.len(), 50);
}

/// The firmware id of the task at index `task` of the model's tasks.
fn id(m: &Model, task: u32) -> u32 {
    m.tasks[task as usize].task_id
}

/// The end state, reason and truncation of the slice of `task_id` that
/// starts at `start_ns`.
fn ended(m: &Model, task_id: u32, start_ns: u64) -> (Option<TaskStateKind>, StateReason, bool) {
    let s = m
        .sched_slices
        .iter()
        .find(|s| id(m, s.task) == task_id && s.start_ns == start_ns)
        .unwrap_or_else(|| panic!("no slice of {task_id} at {start_ns}"));
    (s.end_state, s.end_reason, s.truncated)
}

#[test]
fn slices_end_in_the_state_their_thread_is_switched_out_in() {
    use StateReason as R;
    use TaskStateKind as S;
    let (thread_a, thread_b, idle) = (134_558_688, 134_558_848, 134_560_000);
    let hello = &open(&["hello_sem"], &OpenOptions::default()).model;
    // At 0.51 s thread_a gives one semaphore and blocks taking the other;
    // thread_b runs and is switched out with no wait; idle, which gave way
    // to thread_a at that instant, is running again at the end of it.
    assert_eq!(
        ended(hello, thread_a, 510_000_000),
        (Some(S::Blocked), R::Semaphore, false)
    );
    assert_eq!(
        ended(hello, thread_b, 510_000_000),
        (Some(S::Ready), R::Preempted, false)
    );
    assert_eq!(ended(hello, idle, 0), (Some(S::Running), R::None, false));
    let last = hello.sched_slices.last().unwrap();
    assert_eq!(
        ended(hello, id(hello, last.task), last.start_ns),
        (None, R::None, true)
    );
    let waited: Vec<_> = hello
        .tasks
        .iter()
        .filter(|t| t.ever_waited)
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(waited, ["thread_a", "thread_b"]);

    // At 60 ms an ISR gives the semaphore sensor waits on: logger is
    // switched out for it; at 60.3 ms sensor blocks on a mutex.
    let (logger, sensor) = (134_567_040, 134_567_360);
    let workload = &open(&["workload"], &OpenOptions::default()).model;
    let logger_at_60ms = workload
        .sched_slices
        .iter()
        .find(|s| id(workload, s.task) == logger && s.end_ns == 60_000_000)
        .expect("logger's slice");
    assert_eq!(
        ended(workload, logger, logger_at_60ms.start_ns),
        (Some(S::Ready), R::Preempted, false)
    );
    assert_eq!(
        ended(workload, sensor, 60_000_000),
        (Some(S::Blocked), R::Mutex, false)
    );
}

#[test]
fn a_stream_file_opens_with_its_metadata_given_or_beside_it() {
    let beside = open(&["hello_sem/channel0_0"], &OpenOptions::default());
    let given = open(
        &["hello_sem/channel0_0"],
        &OpenOptions {
            ctf_metadata: Some(format!("{ZEPHYR_CTF}workload/metadata").into()),
            ..OpenOptions::default()
        },
    );
    assert_eq!(beside.model.info.events, 284);
    assert_eq!(given.model.sched_slices, beside.model.sched_slices);
}

#[test]
fn raw_events_carry_every_field() {
    let mut rows = Vec::new();
    open_with_events(&[format!("{ZEPHYR_CTF}hello_sem")], &mut |row| {
        let args: Vec<String> = row
            .args
            .iter()
            .map(|(name, value)| match value {
                ArgValue::Int(v) => format!("{name}={v}"),
                ArgValue::UInt(v) => format!("{name}={v}"),
                ArgValue::Str(s) => format!("{name}={}", String::from_utf8_lossy(s)),
            })
            .collect();
        rows.push((row.ts_ns, row.name.to_owned(), args.join(" ")));
    });
    assert_eq!(rows.len(), 284);
    assert_eq!(
        rows[1],
        (
            Some(0),
            "thread_info".to_owned(),
            "thread_id=134558688 name=thread_a stack_base=134560704 stack_size=2048".to_owned()
        )
    );
    assert_eq!(
        rows[18],
        (Some(510_000_000), "isr_enter".to_owned(), String::new())
    );
    assert_eq!(rows.last().unwrap().0, Some(9_690_000_000));
}

#[test]
fn a_damaged_stream_keeps_its_intact_events_and_shows_the_damage() {
    let dir = std::env::temp_dir().join(format!("tband-ctf-damage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stream = std::fs::read(format!("{ZEPHYR_CTF}hello_sem/channel0_0")).unwrap();
    std::fs::write(dir.join("channel0_0"), &stream[..stream.len() - 3]).unwrap();
    std::fs::copy(
        format!("{ZEPHYR_CTF}hello_sem/metadata"),
        dir.join("metadata"),
    )
    .unwrap();
    let trace = Trace::open(&[dir.display().to_string()], &OpenOptions::default());
    std::fs::remove_dir_all(&dir).unwrap();
    let m = trace.unwrap().model;
    assert_eq!(m.info.events, 283);
    assert_eq!(m.info.invalid_frames, 1);
    assert_eq!(m.anomalies.len(), 1);
    let anomaly = &m.anomalies[0];
    assert_eq!(anomaly.kind, AnomalyKind::InvalidFrame);
    assert_eq!(anomaly.end_ns, 9_690_000_000);
    assert!(
        anomaly.detail.ends_with(
            "channel0_0 byte 5199: the stream ends inside an event header (2 bytes left)"
        ),
        "{}",
        anomaly.detail
    );
}

#[test]
fn several_streams_are_one_core_each_merged_in_time_order() {
    let dir = std::env::temp_dir().join(format!("tband-ctf-two-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (stream, from) in [("channel0_0", "hello_sem"), ("channel1_0", "workload")] {
        std::fs::copy(format!("{ZEPHYR_CTF}{from}/channel0_0"), dir.join(stream)).unwrap();
    }
    std::fs::copy(
        format!("{ZEPHYR_CTF}hello_sem/metadata"),
        dir.join("metadata"),
    )
    .unwrap();
    let mut last = 0;
    let mut cores = [0usize; 2];
    let trace = open_with_events(&[dir.display().to_string()], &mut |row| {
        let ts = row.ts_ns.unwrap();
        assert!(ts >= last, "events in time order");
        last = ts;
        cores[row.core_id as usize] += 1;
    });
    std::fs::remove_dir_all(&dir).unwrap();
    let m = &trace.model;
    assert_eq!(m.info.events, 284 + 9530);
    assert_eq!(m.cores.len(), 2);
    let per_core = |core| m.sched_slices.iter().filter(|s| s.core_id == core).count();
    assert_eq!((per_core(0), per_core(1)), (61, 1285));
    assert_eq!(cores, [284, 9530]);
}
