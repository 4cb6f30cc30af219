//! The recording in `tests/corpus/systemview/` that SEGGER's own recorder
//! made of the FreeRTOS example on Cortex-M3 (QEMU's mps2-an385), read
//! against the application's record of what it did (`*.truth.txt`): every
//! task it created is named with its priority, the busy task's CPU time is
//! the kernel's measure, the interrupts came as often as the timers fire,
//! and the notifications and stream-buffer transfers that SystemView's
//! FreeRTOS integration records are the ones the application counted; the
//! model's queue operations (from the integration's API events) leave
//! every level the application read after each of its operations, the
//! stream buffer's levels are the ones it read, and the heap blocks of its
//! `heap_user` task are the ones it allocated, with heap_4's sizes. A
//! copy cut inside a packet and one with a packet of an undefined id
//! decode everything else, with the damage counted.

use std::collections::HashMap;

use tband_model::{Actor, AnomalyKind, ArgValue, EventRow, Model, QueueKind, TaskKind};
use tband_systemview::{build_model, Packets, ReadError, Recording};
use tband_trace::{InputFormat, OpenOptions, Trace};

const RECORDING: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/corpus/systemview/freertos_cm3.sysview"
);
const TRUTH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/corpus/systemview/freertos_cm3.truth.txt"
);

/// Event ids of SystemView's FreeRTOS integration: its API ids plus 32.
const TASK_GENERIC_NOTIFY: u64 = 32 + 30;
const STREAM_BUFFER_SEND: u64 = 32 + 108;
const STREAM_BUFFER_RECEIVE: u64 = 32 + 110;

/// The application's record: its tasks with their priorities, its counts,
/// each queue's levels after its operations, the stream buffer's levels,
/// and its heap_user task's allocations (address, bytes heap_4 counted).
struct Truth {
    tasks: Vec<(String, u32)>,
    counts: HashMap<String, u64>,
    levels: HashMap<String, Vec<u32>>,
    stream_levels: Vec<u32>,
    allocations: Vec<(u64, u32)>,
}

fn truth() -> Truth {
    let text = std::fs::read_to_string(TRUTH).expect("the application's record");
    let mut truth = Truth {
        tasks: Vec::new(),
        counts: HashMap::new(),
        levels: HashMap::new(),
        stream_levels: Vec::new(),
        allocations: Vec::new(),
    };
    let number = |word: &str| word.parse::<u64>().expect("a number");
    for line in text.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        match words[..] {
            ["task", name, priority] => truth
                .tasks
                .push((name.to_string(), priority.parse().expect("a priority"))),
            ["count", name, n] => {
                truth.counts.insert(name.to_string(), number(n));
            }
            ["level", queue, level] => truth
                .levels
                .entry(queue.to_string())
                .or_default()
                .push(number(level) as u32),
            ["stream_level", level] => truth.stream_levels.push(number(level) as u32),
            ["heap_alloc", addr, _, counted] if addr != "0" => truth
                .allocations
                .push((number(addr), number(counted) as u32)),
            _ => {}
        }
    }
    truth
}

fn recording() -> Vec<u8> {
    std::fs::read(RECORDING).expect("the recording")
}

/// A packet as the test keeps it: its event name and integer values.
struct Row {
    name: String,
    values: Vec<u64>,
    text: Option<String>,
}

fn model_and_rows(bytes: &[u8]) -> (Model, Vec<Row>) {
    let recording = Recording::read(bytes).expect("a SystemView recording");
    let mut rows = Vec::new();
    let mut keep = |row: &EventRow<'_>| {
        let mut kept = Row {
            name: row.name.to_string(),
            values: Vec::new(),
            text: None,
        };
        for (_, value) in row.args {
            match *value {
                ArgValue::UInt(v) => kept.values.push(v),
                ArgValue::Str(s) => kept.text = Some(String::from_utf8_lossy(s).into()),
                ArgValue::Int(_) => unreachable!("SystemView values are unsigned"),
            }
        }
        rows.push(kept);
    };
    let model = build_model(&recording, vec!["recording".into()], Some(&mut keep));
    (model, rows)
}

/// The run time of the task at `task` in the model's tasks.
fn run_time_ns(model: &Model, task: u32) -> u64 {
    model
        .sched_slices
        .iter()
        .filter(|s| s.task == task)
        .map(|s| s.end_ns - s.start_ns)
        .sum()
}

/// The index in the model's tasks of the task named `name`.
fn task_index(model: &Model, name: &str) -> u32 {
    let index = model.tasks.iter().position(|t| t.name == name);
    index.unwrap_or_else(|| panic!("no task named {name}")) as u32
}

#[test]
fn every_task_the_application_created_is_named_with_its_priority() {
    let (model, _) = model_and_rows(&recording());
    let truth = truth();
    assert_eq!(truth.tasks.len(), 11);
    for (name, priority) in &truth.tasks {
        let task = task_index(&model, name);
        let first = model
            .task_priorities
            .iter()
            .find(|p| p.task == task)
            .unwrap_or_else(|| panic!("{name} has no priority"));
        assert_eq!(first.priority, *priority, "{name}");
        assert!(run_time_ns(&model, task) > 0, "{name} never ran");
    }
    // Besides the application's: the timer task and the idle task, which
    // SystemView's FreeRTOS integration creates without task info.
    assert_eq!(model.tasks.len(), truth.tasks.len() + 2);
    let idle = task_index(&model, "IDLE");
    assert_eq!(model.tasks[idle as usize].kind, TaskKind::Idle);
    let timer = task_index(&model, "Tmr Svc");
    assert_eq!(model.tasks[timer as usize].kind, TaskKind::Timer);
    assert!(model.anomalies.is_empty(), "{:?}", model.anomalies);
    assert_eq!(model.info.invalid_frames, 0);
}

#[test]
fn the_busy_task_runs_as_long_as_the_kernel_measured() {
    let (model, _) = model_and_rows(&recording());
    let truth = truth();
    let measured = truth.counts["busy_run_time_ns"] as f64;
    let traced = run_time_ns(&model, task_index(&model, "busy")) as f64;
    assert!(
        (traced - measured).abs() / measured < 0.02,
        "traced {traced} ns, the kernel measured {measured} ns"
    );
    let window = truth.counts["window_ns"] as f64;
    let duration = model.info.duration_ns as f64;
    assert!(
        (duration - window).abs() / window < 0.02,
        "recorded {duration} ns, the run took {window} ns"
    );
}

#[test]
fn interrupts_come_as_often_as_their_timers_fire() {
    let (model, _) = model_and_rows(&recording());
    let window_ms = truth().counts["window_ns"] / 1_000_000;
    let count = |name: &str| {
        let isr = model.isrs.iter().position(|i| i.name == name);
        let isr = isr.unwrap_or_else(|| panic!("no ISR named {name}")) as u32;
        model.isr_slices.iter().filter(|s| s.isr == isr).count() as u64
    };
    // SysTick every millisecond, TIMER0 every 50.
    assert!(
        count("SysTick").abs_diff(window_ms) <= 2,
        "{}",
        count("SysTick")
    );
    assert_eq!(count("TIMER0"), window_ms / 50);
}

#[test]
fn notifications_and_stream_buffer_transfers_are_the_applications_counts() {
    let (_, rows) = model_and_rows(&recording());
    let counts = truth().counts;
    let counter = rows
        .iter()
        .find(|r| r.name == "task_info" && r.text.as_deref() == Some("counter"))
        .expect("the counter task's info")
        .values[0];
    let module = |id: u64| {
        rows.iter()
            .filter(move |r| r.name == "module_event" && r.values[0] == id)
            .map(|r| &r.values[1..])
    };
    let notified = module(TASK_GENERIC_NOTIFY)
        .filter(|args| args[0] == counter)
        .count() as u64;
    assert_eq!(notified, counts["notifications_given"]);
    let sends: Vec<u64> = module(STREAM_BUFFER_SEND)
        .map(|args| args[1])
        .filter(|&bytes| bytes > 0)
        .collect();
    assert_eq!(sends.len() as u64, counts["stream_buffer_sends"]);
    assert_eq!(
        sends.iter().sum::<u64>(),
        counts["stream_buffer_bytes_sent"]
    );
    let received: u64 = module(STREAM_BUFFER_RECEIVE).map(|args| args[1]).sum();
    assert_eq!(received, counts["stream_buffer_bytes_received"]);
}

#[test]
fn queue_operations_leave_the_levels_the_application_read() {
    let (model, _) = model_and_rows(&recording());
    let truth = truth();
    let mut compared = Vec::new();
    for (index, queue) in model.queues.iter().enumerate() {
        let ops: Vec<_> = model
            .queue_ops
            .iter()
            .filter(|o| o.queue == index as u32)
            .collect();
        if queue.kind == QueueKind::CountingSemaphore {
            // Its initial count is not recorded: no levels.
            assert!(ops.iter().all(|o| o.len_after.is_none()), "{}", queue.name);
            continue;
        }
        let levels: Vec<u32> = ops.iter().map(|o| o.len_after.expect("a level")).collect();
        if let Some(read) = truth.levels.get(&queue.name) {
            assert_eq!(&levels, read, "{}", queue.name);
            compared.push(queue.name.as_str());
        }
    }
    compared.sort_unstable();
    assert_eq!(compared, ["irq_sem", "lock", "work_q"]);
    let stream_levels: Vec<u32> = model
        .rtos_objects
        .stream_buffer_ops
        .iter()
        .map(|o| o.bytes_after)
        .collect();
    assert_eq!(stream_levels, truth.stream_levels);
}

#[test]
fn heap_blocks_are_the_allocations_the_application_made() {
    let (model, _) = model_and_rows(&recording());
    let heap_user = model.tasks[task_index(&model, "heap_user") as usize].task_id;
    let blocks: Vec<(u64, u32)> = model
        .memory
        .blocks
        .iter()
        .filter(|b| b.allocated_by == Some(Actor::Task(heap_user)))
        .map(|b| (b.addr, b.size))
        .collect();
    assert_eq!(blocks, truth().allocations);
    assert_eq!(model.memory.failed_allocations.len(), 1);
    assert_eq!(model.memory.heaps[0].name, "heap_4");
}

#[test]
fn a_recording_cut_inside_a_packet_decodes_every_packet_before_the_cut() {
    let whole = recording();
    let (whole_model, _) = model_and_rows(&whole);
    // Cut one byte into the first packet with a payload past the middle.
    let (index, packet) = Packets::new(&whole)
        .enumerate()
        .find(|(_, p)| p.offset > whole.len() / 2 && !p.payload.is_empty())
        .expect("a packet past the middle");
    let (model, rows) = model_and_rows(&whole[..packet.offset + 1]);
    assert_eq!(model.info.events, index as u64);
    assert_eq!(rows.len(), index);
    assert_eq!(model.info.invalid_frames, 1);
    let cut: Vec<_> = model
        .anomalies
        .iter()
        .filter(|a| a.kind == AnomalyKind::InvalidFrame)
        .collect();
    assert_eq!(cut.len(), 1, "{:?}", model.anomalies);
    let expected = format!("1 byte(s) from byte {} not decoded", packet.offset);
    assert!(cut[0].detail.ends_with(&expected), "{}", cut[0].detail);
    assert_eq!(model.tasks.len(), whole_model.tasks.len());
}

#[test]
fn garbage_in_the_middle_leaves_the_packets_before_it() {
    let whole = recording();
    let (_, whole_rows) = model_and_rows(&whole);
    let middle = whole.len() / 2;
    let before = Packets::new(&whole)
        .take_while(|p| p.offset + p.payload.len() < middle)
        .count();
    let mut bytes = whole.clone();
    bytes[middle..middle + 64].fill(0xff);
    let (model, rows) = model_and_rows(&bytes);
    assert!(rows.len() >= before);
    for (damaged, intact) in rows.iter().zip(&whole_rows).take(before) {
        assert_eq!(
            (&damaged.name, &damaged.values),
            (&intact.name, &intact.values)
        );
    }
    assert!(model.info.events >= before as u64);
}

#[test]
fn every_cut_of_the_recording_decodes_what_it_holds() {
    let whole = recording();
    for len in (11..whole.len()).step_by(97) {
        let (model, rows) = model_and_rows(&whole[..len]);
        assert_eq!(rows.len() as u64, model.info.events, "cut at {len}");
        assert!(model.info.invalid_frames <= 1, "cut at {len}");
    }
}

#[test]
fn a_packet_of_an_undefined_id_is_counted_and_the_rest_decoded() {
    let whole = recording();
    let (whole_model, _) = model_and_rows(&whole);
    let mut bytes = whole.clone();
    // Id 30 is not defined: a sized packet of 2 payload bytes, delta 0, then
    // an idle packet.
    bytes.extend([30, 2, 0x81, 0x01, 0, 17, 5]);
    let (model, rows) = model_and_rows(&bytes);
    let unknown: Vec<_> = model
        .anomalies
        .iter()
        .filter(|a| a.kind == AnomalyKind::UnknownEvent)
        .collect();
    assert_eq!(unknown.len(), 1);
    assert!(unknown[0].detail.contains("packet id 30"));
    assert_eq!(model.info.events, whole_model.info.events + 2);
    assert_eq!(rows.last().map(|r| r.name.as_str()), Some("idle"));
}

#[test]
fn an_empty_or_foreign_input_is_one_clear_error() {
    assert_eq!(Recording::read(&[]).err(), Some(ReadError::Empty));
    let error = Recording::read(b"TXTB and more").expect_err("not SystemView");
    assert_eq!(error, ReadError::NotSystemview);
    assert!(error.to_string().starts_with("not a SystemView recording"));
}

#[test]
fn the_tools_recognise_the_recording_without_an_option() {
    let trace = Trace::open(&[RECORDING.to_string()], &OpenOptions::default()).expect("opened");
    assert_eq!(trace.format(), InputFormat::Systemview);
    assert_eq!(trace.model.info.format, "systemview");
    assert_eq!(trace.model.info.ns_per_tick, 40);
}
