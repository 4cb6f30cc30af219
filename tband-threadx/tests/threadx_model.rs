//! The model of the ThreadX conformance buffers: facts read off their
//! reference listings (`*.entries.csv`).

use tband_model::EventRow;
use tband_model::{
    AnomalyKind, Model, QueueKind, QueueOpKind, StateReason, TaskKind, TaskStateKind,
};
use tband_threadx::{
    build_model, Buffer, Context, ReadOptions, INIT_MARKER_ID, INTERRUPT_CONTEXT_ISR_ID,
};

const CONFORMANCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/threadx");

/// The model, and the time of each entry by its `seq` in the listing.
fn model_of(name: &str, options: &ReadOptions) -> (Model, Vec<u64>) {
    let bytes = std::fs::read(format!("{CONFORMANCE}/{name}.trx")).expect("conformance file");
    let buffer = Buffer::read(&bytes, options).expect("reads");
    let times = buffer.entries().map(|e| e.time_ns).collect();
    (build_model(&buffer, vec![name.into()], None), times)
}

fn default_model(name: &str) -> (Model, Vec<u64>) {
    model_of(name, &ReadOptions::default())
}

/// The index in the model's tasks of a thread, by name.
fn task(model: &Model, name: &str) -> u32 {
    let i = (model.tasks.iter())
        .position(|t| t.name == name)
        .unwrap_or_else(|| panic!("no task {name}"));
    i as u32
}

/// The firmware id of the queue at index `queue` of the model's queues.
fn queue_id(model: &Model, queue: u32) -> u32 {
    model.queues[queue as usize].queue_id
}

fn slices(model: &Model, task: u32) -> Vec<(u64, u64, bool)> {
    model
        .sched_slices
        .iter()
        .filter(|s| s.task == task)
        .map(|s| (s.start_ns, s.end_ns, s.truncated))
        .collect()
}

#[test]
fn threads_become_tasks_with_registry_facts() {
    let (model, _) = default_model("threadx_demo_small");
    assert_eq!(model.info.format, "threadx");
    let names: Vec<&str> = model.tasks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "System Timer Thread",
            "thread 0",
            "thread 1",
            "thread 2",
            "thread 3",
            "thread 4",
            "thread 5",
            "thread 6",
            "thread 7"
        ]
    );
    let timer = &model.tasks[0];
    assert_eq!((timer.kind, timer.stack_size), (TaskKind::Timer, Some(400)));
    assert!(model.tasks[1..]
        .iter()
        .all(|t| t.kind == TaskKind::Normal && t.stack_size == Some(1024)));
    // Priorities from the registry's reserved bytes, at time 0.
    let thread5 = task(&model, "thread 5");
    let priority = model
        .task_priorities
        .iter()
        .find(|p| p.task == thread5)
        .expect("priority");
    assert_eq!((priority.ts_ns, priority.priority), (0, 4));
}

#[test]
fn execution_follows_context_words_and_next_thread_words() {
    let (model, t) = default_model("threadx_demo_small");
    // seq 966: the timer ISR exits having resumed the timer thread (I4 of
    // seq 965), which runs until it suspends itself at seq 970 naming
    // thread 0 next; thread 0 runs to the end of the buffer.
    let timer = task(&model, "System Timer Thread");
    assert_eq!(slices(&model, timer), [(t[966], t[970], false)]);
    let thread0 = task(&model, "thread 0");
    assert_eq!(slices(&model, thread0), [(t[970], t[973], true)]);
    // The first entry is thread 2's: it runs from time 0.
    let first = model.sched_slices.first().expect("slices");
    assert_eq!((first.task, first.start_ns), (task(&model, "thread 2"), 0));
    // Slices tile the time: no gaps, no overlaps.
    for pair in model.sched_slices.to_vec().windows(2) {
        assert_eq!(pair[0].end_ns, pair[1].start_ns);
    }
    assert_eq!(model.sched_slices.last().map(|s| s.end_ns), Some(t[973]));
}

#[test]
fn states_carry_suspension_reasons_and_objects() {
    let (model, t) = default_model("threadx_demo_small");
    let queue = model
        .queues
        .iter()
        .find(|q| q.name == "queue 0")
        .expect("queue");
    // seq 962..963: thread 1 sends to the full queue (100 messages) and
    // suspends in state 5 (queue).
    let thread1 = task(&model, "thread 1");
    let blocked = model
        .task_states
        .iter()
        .find(|s| s.task == thread1 && s.start_ns == t[963])
        .expect("state after suspension");
    assert_eq!(
        (
            blocked.state,
            blocked.reason,
            blocked.queue.map(|q| queue_id(&model, q))
        ),
        (
            TaskStateKind::Blocked,
            StateReason::QueueSend,
            Some(queue.queue_id)
        )
    );
    // seq 970: the timer thread suspends itself (state 3).
    let timer = task(&model, "System Timer Thread");
    let suspended = model
        .task_states
        .iter()
        .find(|s| s.task == timer && s.start_ns == t[970])
        .expect("timer thread state");
    assert_eq!(suspended.state, TaskStateKind::Suspended);
    // seq 972: thread 0 resumes thread 5, which stays ready (lower priority).
    let thread5 = task(&model, "thread 5");
    let ready = model
        .task_states
        .iter()
        .find(|s| s.task == thread5 && s.start_ns == t[972])
        .expect("thread 5 state");
    assert_eq!(
        (ready.state, ready.reason, ready.truncated),
        (TaskStateKind::Ready, StateReason::Woken, true)
    );
}

#[test]
fn slices_end_in_the_state_their_thread_is_left_in() {
    use StateReason as R;
    use TaskStateKind as S;
    let (model, t) = default_model("threadx_demo_small");
    // The end, end state and reason of the slice of `thread` that ends at `end`.
    let ended = |thread: &str, end: u64| {
        let task_id = task(&model, thread);
        let s = model
            .sched_slices
            .iter()
            .find(|s| s.task == task_id && s.end_ns == end)
            .unwrap_or_else(|| panic!("no slice of {thread} ending at {end}"));
        (s.end_state, s.end_reason, s.truncated)
    };
    // seq 963: thread 1 suspends on the full queue, naming thread 2 next.
    assert_eq!(
        ended("thread 1", t[963]),
        (Some(S::Blocked), R::QueueSend, false)
    );
    // Thread 2 last suspended on the empty queue before that, at seq 859.
    assert_eq!(
        ended("thread 2", t[859]),
        (Some(S::Blocked), R::QueueReceive, false)
    );
    // seq 964..966: the timer ISR resumes the timer thread, which takes the
    // core from thread 2 and suspends itself at seq 970.
    assert_eq!(
        ended("thread 2", t[966]),
        (Some(S::Ready), R::Preempted, false)
    );
    assert_eq!(
        ended("System Timer Thread", t[970]),
        (Some(S::Suspended), R::Suspend, false)
    );
    // Thread 0 runs to the end of the buffer.
    assert_eq!(ended("thread 0", t[973]), (None, R::None, true));
    let waited: Vec<_> = model
        .tasks
        .iter()
        .filter(|t| t.ever_waited)
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(waited, ["System Timer Thread", "thread 1", "thread 2"]);
}

#[test]
fn isr_enter_and_exit_become_slices() {
    let (model, t) = default_model("threadx_demo_small");
    let isrs: Vec<_> = model
        .isr_slices
        .iter()
        .map(|s| {
            (
                model.isrs[s.isr as usize].isr_id,
                s.start_ns,
                s.end_ns,
                s.depth,
                s.truncated,
            )
        })
        .collect();
    assert_eq!(isrs, [(0, t[964], t[966], 0, false)]);
    // The timer thread was made ready by the ISR.
    let timer = task(&model, "System Timer Thread");
    let woken = model
        .task_states
        .iter()
        .find(|s| s.task == timer && s.start_ns == t[965])
        .expect("woken state");
    assert_eq!(
        woken.woken_by_isr.map(|i| model.isrs[i as usize].isr_id),
        Some(0)
    );

    // The older kernel does not repeat the ISR id in the exit event.
    let (model, t) = model_of("tracex_samples/demo_threadx", &ReadOptions::default());
    let isrs: Vec<_> = model
        .isr_slices
        .iter()
        .map(|s| {
            (
                model.isrs[s.isr as usize].isr_id,
                s.start_ns,
                s.end_ns,
                s.truncated,
            )
        })
        .collect();
    assert_eq!(
        isrs,
        [
            (0, t[144], t[146], false),
            (0, t[551], t[552], false),
            (0, t[961], t[963], false)
        ]
    );
    assert_eq!(model.anomaly_count(AnomalyKind::EndWithoutBegin), 0);
    assert!(model
        .isrs
        .iter()
        .all(|i| i.isr_id != INTERRUPT_CONTEXT_ISR_ID));
}

#[test]
fn queue_operations_and_fill_levels() {
    let (model, _) = default_model("threadx_demo_small");
    let queue = model
        .queues
        .iter()
        .find(|q| q.name == "queue 0")
        .expect("queue");
    assert_eq!(
        (queue.kind, queue.capacity, queue.high_water),
        (QueueKind::Queue, Some(100), 100)
    );
    let ops: Vec<_> = model
        .queue_ops
        .iter()
        .filter(|o| queue_id(&model, o.queue) == queue.queue_id)
        .collect();
    let count = |op| ops.iter().filter(|o| o.op == op).count();
    assert_eq!(
        (count(QueueOpKind::Send), count(QueueOpKind::Receive)),
        (510, 435)
    );
    // seq 0: thread 2 receives with 26 messages queued, leaving 25.
    assert_eq!(ops[0].op, QueueOpKind::Receive);
    assert_eq!(ops[0].len_after, Some(25));
    assert_eq!(ops[0].task, Some(task(&model, "thread 2")));

    // The older kernel's demo: semaphore and mutex operations (seq 150..157).
    let (model, t) = model_of("tracex_samples/demo_threadx", &ReadOptions::default());
    let semaphore = model
        .queues
        .iter()
        .find(|q| q.kind == QueueKind::CountingSemaphore)
        .expect("semaphore");
    let put = model
        .queue_ops
        .iter()
        .find(|o| queue_id(&model, o.queue) == semaphore.queue_id && o.ts_ns == t[150])
        .expect("semaphore put");
    // A thread was waiting, so the count went to it: still 0.
    assert_eq!((put.op, put.len_after), (QueueOpKind::Send, Some(0)));
    let thread6 = task(&model, "thread 6");
    let blocked = model
        .task_states
        .iter()
        .find(|s| s.task == thread6 && s.start_ns == t[158])
        .expect("thread 6 state");
    let mutex = model
        .queues
        .iter()
        .find(|q| q.kind == QueueKind::Mutex)
        .expect("mutex");
    assert_eq!(
        (
            blocked.state,
            blocked.reason,
            blocked.queue.map(|q| queue_id(&model, q))
        ),
        (
            TaskStateKind::Blocked,
            StateReason::Mutex,
            Some(mutex.queue_id)
        )
    );
    let thread4 = task(&model, "thread 4");
    let sleeping = model
        .task_states
        .iter()
        .find(|s| s.task == thread4 && s.start_ns == t[160])
        .expect("thread 4 state");
    assert_eq!(
        (sleeping.state, sleeping.reason),
        (TaskStateKind::Blocked, StateReason::Sleep)
    );
}

#[test]
fn mutex_holds_in_the_filex_demo() {
    let (model, _) = default_model("tracex_samples/demo_filex");
    let mutex = model
        .queues
        .iter()
        .find(|q| q.name == "FileX Media Mutex")
        .expect("mutex");
    assert_eq!(mutex.kind, QueueKind::Mutex);
    let holds: Vec<_> = model
        .mutex_holds
        .iter()
        .filter(|h| queue_id(&model, h.queue) == mutex.queue_id)
        .collect();
    let thread0 = task(&model, "thread 0");
    assert!(holds.iter().all(|h| h.task == thread0));
    // Every put of ownership count 1 ends a hold (148 puts in the listing)
    // but the first, whose get was overwritten when the buffer wrapped.
    assert_eq!(holds.iter().filter(|h| !h.truncated).count(), 147);
}

#[test]
fn initialization_is_a_labelled_span() {
    let (model, t) = default_model("threadx_demo_startup");
    let marker = model
        .markers
        .iter()
        .find(|m| m.marker_id == INIT_MARKER_ID && m.task_id.is_none())
        .expect("initialization marker");
    assert_eq!(marker.name, "initialization");
    let spans: Vec<_> = model
        .marker_spans
        .iter()
        .map(|s| (s.start_ns, s.end_ns, s.truncated))
        .collect();
    assert_eq!(spans, [(0, t[36], false)]);
    // Threads created during initialization, thread 0 running at the end.
    assert!(model
        .tasks
        .iter()
        .filter(|t| t.name.starts_with("thread"))
        .all(|t| t.created_ns.is_some()));
    let thread0 = task(&model, "thread 0");
    assert_eq!(slices(&model, thread0), [(t[36], t[36], true)]);
    // No marker span at all in a buffer that wrapped past initialization.
    let (model, _) = default_model("threadx_demo_small");
    assert!(model.marker_spans.is_empty() && model.markers.is_empty());
}

#[test]
fn tick_length_scales_times_and_silences_the_resolution_anomaly() {
    let (model, _) = default_model("threadx_demo_small");
    assert_eq!(model.anomaly_count(AnomalyKind::NoTimerResolution), 1);
    assert_eq!(model.anomalies.len(), 1);
    assert_eq!(model.info.duration_ns, 403_498_060 - 402_982_026);
    let options = ReadOptions {
        tick_ns: Some(2.0),
        timer_direction: None,
    };
    let (scaled, _) = model_of("threadx_demo_small", &options);
    assert!(scaled.anomalies.is_empty());
    assert!(scaled.info.ns_per_tick_known);
    assert_eq!(scaled.info.duration_ns, 2 * model.info.duration_ns);
}

#[test]
fn filex_events_are_named_in_the_raw_events() {
    let bytes =
        std::fs::read(format!("{CONFORMANCE}/tracex_samples/demo_filex.trx")).expect("file");
    let buffer = Buffer::read(&bytes, &ReadOptions::default()).expect("reads");
    let mut writes = 0;
    let mut media_reads = 0;
    let mut count = |row: &EventRow<'_>| match row.name {
        "FX_TRACE_FILE_WRITE" => writes += 1,
        "FX_TRACE_INTERNAL_IO_DRIVER_READ" => media_reads += 1,
        _ => {}
    };
    build_model(&buffer, Vec::new(), Some(&mut count));
    assert_eq!((writes, media_reads), (18, 94));
}

#[test]
fn interrupt_context_without_an_enter_event_is_still_an_isr() {
    let mut bytes =
        std::fs::read(format!("{CONFORMANCE}/threadx_demo_small.trx")).expect("conformance file");
    // Slot 337 (seq 964) is the ISR_ENTER; make it an interrupt-control event.
    let event_id = 1584 + 337 * 32 + 8;
    bytes[event_id..event_id + 4].copy_from_slice(&40u32.to_le_bytes());
    let buffer = Buffer::read(&bytes, &ReadOptions::default()).expect("reads");
    let times: Vec<u64> = buffer.entries().map(|e| e.time_ns).collect();
    let model = build_model(&buffer, Vec::new(), None);
    let slices: Vec<_> = model
        .isr_slices
        .iter()
        .map(|s| (model.isrs[s.isr as usize].isr_id, s.start_ns, s.end_ns))
        .collect();
    assert_eq!(slices, [(INTERRUPT_CONTEXT_ISR_ID, times[964], times[966])]);
    let isr = model.isrs.first().expect("isr");
    assert_eq!(isr.name, "interrupt context");
    // The exit event found no ISR of its own to end.
    assert_eq!(model.anomaly_count(AnomalyKind::EndWithoutBegin), 1);
}

#[test]
fn tools_open_threadx_buffers_without_being_told() {
    use tband_trace::{InputFormat, OpenOptions, Source, Trace};

    let path = format!("{CONFORMANCE}/threadx_demo_small.trx");
    let options = OpenOptions::default();
    let source = Source::open(std::slice::from_ref(&path), &options).expect("opens");
    let mut rows = 0;
    let mut resumes = 0;
    let trace = Trace::build_with_events(source, &options, &mut |row| {
        rows += 1;
        if row.name == "TX_TRACE_THREAD_RESUME" {
            resumes += 1;
        }
    })
    .expect("opens");
    assert_eq!(trace.format(), InputFormat::Threadx);
    assert_eq!(trace.model.info.events, 974);
    assert_eq!(trace.model.info.first_ts_raw, 402_982_026);
    assert_eq!((rows, resumes), (974, 14));
}

#[test]
fn every_thread_entry_lies_in_a_slice_of_its_thread() {
    for name in [
        "threadx_demo_small",
        "threadx_demo_startup",
        "tracex_samples/demo_threadx",
        "tracex_samples/demo_filex",
    ] {
        let bytes = std::fs::read(format!("{CONFORMANCE}/{name}.trx")).expect("conformance file");
        let buffer = Buffer::read(&bytes, &ReadOptions::default()).expect("reads");
        let model = build_model(&buffer, Vec::new(), None);
        for entry in buffer.entries() {
            let Context::Thread { address } = entry.context() else {
                continue;
            };
            let task = task(
                &model,
                &buffer.registry.thread(address).expect("registered").name,
            );
            let t = entry.time_ns;
            assert!(
                model
                    .sched_slices
                    .iter()
                    .any(|s| s.task == task && s.start_ns <= t && t <= s.end_ns),
                "{name}: entry {} of task {task} at {t} ns outside its slices",
                entry.seq
            );
        }
    }
}

/// The listing's entries of one event: (seq, info words), the words
/// parsed from their hexadecimal.
fn listed(name: &str, event: &str) -> Vec<(usize, [u32; 4])> {
    let csv = std::fs::read_to_string(format!("{CONFORMANCE}/{name}.entries.csv")).unwrap();
    (csv.lines().skip(1))
        .map(|line| line.split(',').collect::<Vec<_>>())
        .filter(|f| f[6] == event)
        .map(|f| {
            let word = |i: usize| u32::from_str_radix(&f[i][2..], 16).unwrap();
            (
                f[0].parse().unwrap(),
                [word(8), word(9), word(10), word(11)],
            )
        })
        .collect()
}

#[test]
fn pool_allocations_and_releases_are_heap_blocks() {
    let (model, times) = default_model("threadx_demo_startup");
    let memory = &model.memory;
    let names: Vec<_> = (memory.heaps.iter())
        .map(|h| (h.name.as_str(), h.total_size))
        .collect();
    assert_eq!(
        names,
        [("byte pool 0", Some(9120)), ("block pool 0", Some(100))]
    );
    let byte_pool = memory.heaps[0].heap_id;
    let listed_bytes = listed("threadx_demo_startup", "TX_TRACE_BYTE_ALLOCATE");
    assert_eq!(listed_bytes.len(), 10);
    let blocks: Vec<_> = (memory.blocks.iter())
        .filter(|b| b.heap_id == byte_pool)
        .map(|b| (b.start_ns, b.addr, b.size, b.truncated))
        .collect();
    let expected: Vec<_> = (listed_bytes.iter())
        .map(|&(seq, [_, addr, size, _])| (times[seq], u64::from(addr), size, true))
        .collect();
    assert_eq!(blocks, expected);
    let in_use: u64 = expected.iter().map(|b| u64::from(b.2)).sum();
    assert_eq!(memory.heaps[0].peak_bytes, in_use);

    let [(alloc_seq, [_, addr, _, _])] =
        listed("threadx_demo_startup", "TX_TRACE_BLOCK_ALLOCATE")[..]
    else {
        panic!("one block allocation listed")
    };
    let [(release_seq, [_, released, _, _])] =
        listed("threadx_demo_startup", "TX_TRACE_BLOCK_RELEASE")[..]
    else {
        panic!("one block release listed")
    };
    assert_eq!(addr, released);
    let block = (memory.blocks.iter()).find(|b| b.heap_id == memory.heaps[1].heap_id);
    let block = block.map(|b| (b.addr, b.size, b.start_ns, b.end_ns, b.truncated));
    assert_eq!(
        block,
        Some((
            u64::from(addr),
            4,
            times[alloc_seq],
            times[release_seq],
            false
        ))
    );
    assert!(memory.failed_allocations.is_empty());
    assert_eq!(model.anomaly_count(AnomalyKind::UnknownFree), 0);
}
