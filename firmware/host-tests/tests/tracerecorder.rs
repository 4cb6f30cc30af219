//! The FreeRTOS example application (`firmware/freertos/`) on Cortex-M3,
//! traced by Percepio TraceRecorder v4.11.0 instead of tband
//! (`make TRACER=tracerecorder`), read by the tools against the
//! application's record. These tests make
//! `tests/corpus/tracerecorder/freertos_cm3.psf` and `freertos_cm3_ring.psfdump`.
//!
//! - With the Jlink_RTT stream port: run in QEMU's mps2-an385 held for a
//!   GDB client, its `TzData` RTT channel recorded by `tband-capture`
//!   through QEMU's gdbstub until the application exits. Every task it
//!   created is named with its priority, the busy task's CPU time is within
//!   2 % of the kernel's measure, every queue operation it counted is in
//!   the model with the level it left, TIMER0's user events say its ticks
//!   in order, and nothing is damaged.
//! - With the RingBuffer stream port: the recorder's data dumped from RAM
//!   through semihosting at the end. The ring holds the newest events, in
//!   order: the last TIMER0 ticks and the end, every task named, nothing
//!   damaged.
//!
//! TraceRecorder's sources are found in `percepio-tracerecorder-4.11.0/`
//! of the folder `TBAND_VENDOR_TRACERS` names (see `tband_host_tests::vendor`).

use std::path::Path;

use tband_host_tests::qemu::qemu_mps2_an385;
use tband_host_tests::run;
use tband_model::Model;
use tband_trace::InputFormat;

mod example;
use example::{
    build_tracerecorder, check_tasks_and_busy_time, open_recording, record_tracerecorder, task_id,
    tracerecorder_sources,
};

/// The run's length the corpus recordings were made with.
const CPPFLAGS: &str = "-DRUN_NS=500000000ull";

/// The model of the recording at `path`, read as the tools read it.
fn open(path: &Path) -> Model {
    open_recording(path, InputFormat::Tracerecorder)
}

/// The texts of the user events on the channel "timer0" (the
/// application's own messages go to "log").
fn timer0_messages(model: &Model) -> Vec<&str> {
    (model.marker_instants.iter())
        .filter(|m| model.markers[m.marker as usize].name == "timer0")
        .map(|m| model.strings.get(m.msg))
        .collect()
}

/// How many times the ISR named `name` ran.
fn isr_count(model: &Model, name: &str) -> usize {
    let isr = model.isrs.iter().position(|i| i.name == name);
    (model.isr_slices.iter())
        .filter(|s| Some(s.isr as usize) == isr)
        .count()
}

/// The levels each operation on the queue named `name` left, in order.
fn levels(model: &Model, name: &str) -> Vec<u32> {
    let queue = model.queues.iter().position(|q| q.name == name);
    let queue = queue.unwrap_or_else(|| panic!("no queue named {name}")) as u32;
    model
        .queue_ops
        .iter()
        .filter(|op| op.queue == queue)
        .map(|op| op.len_after.expect("TraceRecorder records every level"))
        .collect()
}

#[test]
fn the_tracerecorder_recording_is_the_applications_record() {
    let Some((recorder, kernel)) = tracerecorder_sources() else {
        return;
    };
    let (dir, firmware) = build_tracerecorder(
        &recorder,
        &kernel,
        "Jlink_RTT",
        "freertos-cm3-tracerecorder",
        CPPFLAGS,
    );
    let recording = record_tracerecorder(&dir, &firmware);
    let model = &open(&recording);
    assert!(model.anomalies.is_empty(), "{:?}", model.anomalies);
    let truth = std::fs::read_to_string(dir.join("truth.txt")).unwrap();
    check_tasks_and_busy_time(model, &truth);
    let mut truth_levels: Vec<(&str, u32)> = Vec::new();
    for line in truth.lines() {
        if let ["level", queue, level] = line.split(' ').collect::<Vec<_>>()[..] {
            truth_levels.push((queue, level.parse().unwrap()));
        }
    }
    for queue in ["work_q", "lock", "irq_sem", "slots"] {
        let mut expected: Vec<u32> = truth_levels
            .iter()
            .filter(|(q, _)| *q == queue)
            .map(|&(_, level)| level)
            .collect();
        // The application records slots' initial count, which is no
        // operation; a new mutex is given by the kernel, which is.
        if queue == "slots" {
            expected.remove(0);
        }
        assert_eq!(levels(model, queue), expected, "{queue}");
    }
    let ticks = isr_count(model, "TIMER0");
    let mut expected: Vec<String> = (1..=ticks).map(|n| format!("tick {n}")).collect();
    expected.push("recording stops".into());
    assert!(ticks > 0);
    assert_eq!(timer0_messages(model), expected);
}

#[test]
fn the_tracerecorder_ring_buffer_dump_holds_the_newest_events() {
    let Some((recorder, kernel)) = tracerecorder_sources() else {
        return;
    };
    let (dir, firmware) = build_tracerecorder(
        &recorder,
        &kernel,
        "RingBuffer",
        "freertos-cm3-tracerecorder-ringbuffer",
        CPPFLAGS,
    );
    let _ = std::fs::remove_file(dir.join("trace.psfdump"));
    run(qemu_mps2_an385(&dir)
        .args(["-serial", "null", "-kernel"])
        .arg(&firmware));
    let model = &open(&dir.join("trace.psfdump"));
    assert!(model.anomalies.is_empty(), "{:?}", model.anomalies);
    let truth = std::fs::read_to_string(dir.join("truth.txt")).unwrap();
    for line in truth.lines() {
        if let ["task", name, _] = line.split(' ').collect::<Vec<_>>()[..] {
            task_id(model, name);
        }
    }
    // The run's 10 TIMER0 ticks, of which the ring kept the last.
    let ticks = isr_count(model, "TIMER0");
    let mut expected: Vec<String> = (11 - ticks..=10).map(|n| format!("tick {n}")).collect();
    expected.push("recording stops".into());
    assert!(ticks > 0);
    assert_eq!(timer0_messages(model), expected);
}
