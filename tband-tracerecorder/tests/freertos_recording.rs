//! The recording in `tests/corpus/tracerecorder/` that Percepio's own
//! recorder (TraceRecorder v4.11.0) made of the FreeRTOS example on
//! Cortex-M3 (QEMU's mps2-an385), read against the application's record of
//! what it did (`*.truth.txt`): every task it created is named with its
//! priority, the busy task's CPU time is the kernel's measure, the
//! interrupts came as often as the timers fire, every queue, semaphore,
//! mutex and stream-buffer operation left the level the application saw,
//! the heap's blocks are the application's, and every user event says its
//! text. A copy cut inside an event, one with garbage in the middle and
//! one with an undefined event id decode everything else, with the damage
//! counted.

use tband_model::{AnomalyKind, ArgValue, EventRow, Model, TaskKind};
use tband_trace::{InputFormat, OpenOptions, Trace};
use tband_tracerecorder::{build_model, Framed, ReadError, Recording, Stream};

const RECORDING: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/corpus/tracerecorder/freertos_cm3.psf"
);
const TRUTH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/corpus/tracerecorder/freertos_cm3.truth.txt"
);

/// The application's record, line by line, split into words.
fn truth() -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(TRUTH).expect("the application's record");
    text.lines()
        .map(|l| l.split(' ').map(String::from).collect())
        .collect()
}

fn truth_count(name: &str) -> u64 {
    let line = truth()
        .into_iter()
        .find(|w| w[0] == "count" && w[1] == name);
    line.expect("the count")[2].parse().expect("a number")
}

fn recording() -> Vec<u8> {
    std::fs::read(RECORDING).expect("the corpus recording")
}

/// A decoded event as the listing shows it: its name and its arguments.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    name: String,
    values: Vec<String>,
}

fn model_and_rows(bytes: &[u8]) -> (Model, Vec<Row>) {
    let recording = Recording::read(bytes).expect("a TraceRecorder recording");
    let mut rows = Vec::new();
    let mut each = |row: &EventRow<'_>| {
        let values = row.args.iter().map(|(_, v)| value(v)).collect();
        rows.push(Row {
            name: row.name.to_string(),
            values,
        });
    };
    let model = build_model(&recording, vec!["recording".into()], Some(&mut each));
    (model, rows)
}

fn value(v: &ArgValue<'_>) -> String {
    match v {
        ArgValue::UInt(n) => n.to_string(),
        ArgValue::Str(s) => String::from_utf8_lossy(s).into_owned(),
        other => format!("{other:?}"),
    }
}

fn task_index(model: &Model, name: &str) -> u32 {
    let task = model.tasks.iter().position(|t| t.name == name);
    task.unwrap_or_else(|| panic!("no task named {name}")) as u32
}

fn isr_count(model: &Model, name: &str) -> usize {
    let isr = model.isrs.iter().position(|i| i.name == name);
    let isr = isr.unwrap_or_else(|| panic!("no ISR named {name}")) as u32;
    model.isr_slices.iter().filter(|s| s.isr == isr).count()
}

#[test]
fn every_task_the_application_created_is_named_with_its_priority() {
    let (model, _) = model_and_rows(&recording());
    assert!(model.anomalies.is_empty(), "{:?}", model.anomalies);
    let tasks: Vec<_> = truth().into_iter().filter(|w| w[0] == "task").collect();
    assert_eq!(tasks.len(), 11);
    for words in tasks {
        let task = task_index(&model, &words[1]);
        let first = model.task_priorities.iter().find(|p| p.task == task);
        assert_eq!(
            first.map(|p| p.priority.to_string()),
            Some(words[2].clone()),
            "{}",
            words[1]
        );
    }
    let kind = |name| model.tasks[task_index(&model, name) as usize].kind;
    assert_eq!(kind("IDLE"), TaskKind::Idle);
    assert_eq!(kind("Tmr Svc"), TaskKind::Timer);
    // The code before the scheduler ends when the first task runs.
    let startup = &model.tasks[task_index(&model, "(startup)") as usize];
    let first_switch = model
        .sched_slices
        .iter()
        .find(|s| s.task != startup.task_id);
    assert_eq!(startup.deleted_ns, first_switch.map(|s| s.start_ns));
}

#[test]
fn the_busy_task_runs_as_long_as_the_kernel_measured() {
    let (model, _) = model_and_rows(&recording());
    let busy = task_index(&model, "busy");
    let traced: u64 = (model.sched_slices.iter())
        .filter(|s| s.task == busy)
        .map(|s| s.end_ns - s.start_ns)
        .sum();
    let measured = truth_count("busy_run_time_ns") as f64;
    // The kernel's measure includes the interrupts that came while busy ran.
    assert!(
        (traced as f64 - measured).abs() / measured < 0.02,
        "traced {traced} ns, the kernel measured {measured} ns"
    );
}

#[test]
fn interrupts_come_as_often_as_their_timers_fire() {
    let (model, _) = model_and_rows(&recording());
    let window_ms = truth_count("window_ns") / 1_000_000;
    let systick = isr_count(&model, "SysTick") as u64;
    assert!(
        systick.abs_diff(window_ms) <= 2,
        "{systick} ticks in {window_ms} ms"
    );
    // TIMER0 fires every 50 ms and gives irq_sem each time.
    let timer0 = isr_count(&model, "TIMER0");
    assert_eq!(timer0 as u64, window_ms / 50);
    let gives = (model.queue_ops.iter()).filter(|op| op.from_isr).count();
    assert_eq!(gives, timer0);
}

#[test]
fn every_queue_operation_left_the_level_the_application_saw() {
    let (model, _) = model_and_rows(&recording());
    let truth = truth();
    for queue in ["work_q", "lock", "irq_sem", "slots"] {
        let mut expected: Vec<u32> = (truth.iter())
            .filter(|w| w[0] == "level" && w[1] == queue)
            .map(|w| w[2].parse().expect("a level"))
            .collect();
        // The application records slots' initial count, which is no
        // operation; a new mutex is given by the kernel, which is one.
        if queue == "slots" {
            expected.remove(0);
        }
        let index = model.queues.iter().position(|q| q.name == queue);
        let index = index.unwrap_or_else(|| panic!("no queue {queue}")) as u32;
        let levels: Vec<u32> = (model.queue_ops.iter())
            .filter(|op| op.queue == index)
            .map(|op| op.len_after.expect("a level"))
            .collect();
        assert_eq!(levels, expected, "{queue}");
    }
    let stream_levels: Vec<u32> = (truth.iter())
        .filter(|w| w[0] == "stream_level")
        .map(|w| w[1].parse().expect("a level"))
        .collect();
    let ops = &model.rtos_objects.stream_buffer_ops;
    let recorded: Vec<u32> = ops.iter().map(|op| op.bytes_after).collect();
    assert_eq!(recorded, stream_levels);
}

#[test]
fn the_heaps_blocks_are_the_ones_the_application_allocated_and_freed() {
    let (model, _) = model_and_rows(&recording());
    let memory = &model.memory;
    let mut failed = 0;
    for words in truth() {
        match &words[..] {
            [op, block, _, counted] if op == "heap_alloc" => {
                let block: u64 = block.parse().expect("an address");
                let counted: u32 = counted.parse().expect("a size");
                if block == 0 {
                    failed += 1;
                    continue;
                }
                let found = memory
                    .blocks
                    .iter()
                    .any(|b| b.addr == block && b.size == counted);
                assert!(found, "no block of {counted} bytes at {block}");
            }
            [op, block, _] if op == "heap_free" => {
                let block: u64 = block.parse().expect("an address");
                let freed = memory
                    .blocks
                    .iter()
                    .any(|b| b.addr == block && b.freed_by.is_some());
                assert!(freed, "the block at {block} was not freed");
            }
            _ => {}
        }
    }
    assert_eq!(memory.failed_allocations.len(), failed);
    assert_eq!(memory.heaps[0].total_size, Some(98_304));
}

#[test]
fn every_user_event_says_its_text() {
    let (model, _) = model_and_rows(&recording());
    let texts: Vec<&str> = (model.marker_instants.iter())
        .map(|m| model.strings.get(m.msg))
        .collect();
    let timer0 = isr_count(&model, "TIMER0");
    let mut expected: Vec<String> = (1..=timer0).map(|n| format!("tick {n}")).collect();
    expected.push("recording stops".into());
    assert_eq!(texts, expected);
    assert_eq!(model.markers[0].name, "timer0");
}

/// The offset of the first event that starts past the middle, and how
/// many events come before it.
fn event_past_the_middle(bytes: &[u8]) -> (usize, usize) {
    let recording = Recording::read(bytes).unwrap();
    let events = Stream::new(bytes, recording.events_offset, true);
    let offsets = events.filter_map(|f| match f {
        Framed::Event(e) => Some(e.offset),
        _ => None,
    });
    let found = offsets.enumerate().find(|&(_, o)| o > bytes.len() / 2);
    let (index, offset) = found.expect("an event past the middle");
    (offset, index)
}

#[test]
fn a_recording_cut_inside_an_event_decodes_every_event_before_the_cut() {
    let whole = recording();
    let (whole_model, whole_rows) = model_and_rows(&whole);
    let (offset, before) = event_past_the_middle(&whole);
    let (model, rows) = model_and_rows(&whole[..offset + 5]);
    assert_eq!(model.info.events, before as u64);
    assert_eq!(rows[..], whole_rows[..before]);
    assert_eq!(model.info.invalid_frames, 1);
    let [cut] = &model.anomalies.iter().collect::<Vec<_>>()[..] else {
        panic!("one anomaly expected: {:?}", model.anomalies);
    };
    assert_eq!(cut.kind, AnomalyKind::InvalidFrame);
    let expected = format!("5 byte(s) from byte {offset} not decoded");
    assert!(cut.detail.ends_with(&expected), "{}", cut.detail);
    assert_eq!(model.tasks.len(), whole_model.tasks.len());
}

#[test]
fn garbage_in_the_middle_leaves_the_events_before_and_after_it() {
    let whole = recording();
    let (whole_model, whole_rows) = model_and_rows(&whole);
    let (offset, before) = event_past_the_middle(&whole);
    let mut bytes = whole.clone();
    bytes[offset..offset + 64].fill(0xa5);
    let (model, rows) = model_and_rows(&bytes);
    assert_eq!(rows[..before], whole_rows[..before]);
    // Decoding picks up again after the garbage, up to the same end.
    assert_eq!(rows.last(), whole_rows.last());
    assert!(model.info.events < whole_model.info.events);
    let damaged: Vec<_> = (model.anomalies.iter())
        .filter(|a| a.kind == AnomalyKind::InvalidFrame)
        .collect();
    assert_eq!(damaged.len(), 1, "{:?}", model.anomalies);
    assert!(damaged[0]
        .detail
        .contains(&format!("from byte {offset} are no events")));
    assert!(damaged[0].count >= 64);
}

#[test]
fn every_cut_of_the_recording_decodes_what_it_holds() {
    let whole = recording();
    let start = Recording::read(&whole).unwrap().events_offset;
    for len in (start..whole.len()).step_by(97) {
        let (model, rows) = model_and_rows(&whole[..len]);
        assert_eq!(rows.len() as u64, model.info.events, "cut at {len}");
        assert!(model.info.invalid_frames <= 1, "cut at {len}");
    }
}

#[test]
fn an_event_of_an_undefined_id_is_counted_and_the_rest_decoded() {
    let whole = recording();
    let (whole_model, whole_rows) = model_and_rows(&whole);
    let (offset, before) = event_past_the_middle(&whole);
    let mut bytes = whole.clone();
    // Id 0xFFF is not defined; its parameter count stays, so it frames.
    bytes[offset] = 0xFF;
    bytes[offset + 1] |= 0x0F;
    let (model, rows) = model_and_rows(&bytes);
    let unknown: Vec<_> = (model.anomalies.iter())
        .filter(|a| a.kind == AnomalyKind::UnknownEvent)
        .collect();
    assert_eq!(unknown.len(), 1, "{:?}", model.anomalies);
    assert!(unknown[0].detail.contains("event id 4095"));
    assert_eq!(model.info.events, whole_model.info.events);
    assert_eq!(rows[before].name, "UNKNOWN");
    assert_eq!(rows[before + 1..], whole_rows[before + 1..]);
}

#[test]
fn an_unknown_version_an_empty_or_a_foreign_input_is_one_clear_error() {
    assert_eq!(Recording::read(&[]).err(), Some(ReadError::Empty));
    let error = Recording::read(b"TXTB and more").expect_err("not TraceRecorder");
    assert_eq!(error, ReadError::NotTracerecorder);
    assert!(error
        .to_string()
        .starts_with("not a TraceRecorder recording"));
    let mut bytes = recording();
    bytes[4] = 15;
    let error = Recording::read(&bytes).expect_err("version 15");
    assert_eq!(error, ReadError::UnsupportedVersion(15));
    assert_eq!(
        error.to_string(),
        "TraceRecorder streaming format version 15 is not read: tband reads versions 10, 12, 13 and 14 (TraceRecorder v4, up to v4.11.0)"
    );
}

#[test]
fn the_tools_recognise_the_recording_without_an_option() {
    let trace = Trace::open(&[RECORDING.to_string()], &OpenOptions::default()).expect("opened");
    assert_eq!(trace.format(), InputFormat::Tracerecorder);
    assert_eq!(trace.model.info.format, "tracerecorder");
    assert_eq!(trace.model.info.ns_per_tick, 40);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Bytes overwritten anywhere past the header: never a panic, and the
    /// events listed are the events the model counts.
    #[test]
    fn any_overwritten_stretch_decodes_what_it_can(
        at in 0.0..1.0f64,
        len in 1usize..256,
        byte in proptest::prelude::any::<u8>(),
    ) {
        let mut bytes = recording();
        let start = Recording::read(&bytes).unwrap().events_offset;
        let from = start + ((bytes.len() - start) as f64 * at) as usize;
        let to = (from + len).min(bytes.len());
        bytes[from..to].fill(byte);
        let (model, rows) = model_and_rows(&bytes);
        proptest::prop_assert_eq!(rows.len() as u64, model.info.events);
    }
}
