//! The FreeRTOS example application (`firmware/freertos/`) on Cortex-M3,
//! traced by Percepio TraceRecorder v4.11.0 instead of tband
//! (`make TRACER=tracerecorder`): run in QEMU's mps2-an385 held for a GDB
//! client, its `TzData` RTT channel recorded by `tband-capture` through
//! QEMU's gdbstub until the application exits, and the recording read by
//! the tools against the application's record: every task it created is
//! named with its priority, the busy task's CPU time is within 2 % of the
//! kernel's measure, every queue operation it counted is in the model
//! with the level it left, TIMER0's user events say its ticks in order,
//! and nothing is damaged. This is how
//! `tests/corpus/tracerecorder/freertos_cm3.psf` was made.
//!
//! TraceRecorder's sources are found in `percepio-tracerecorder-4.11.0/`
//! of the folder `TBAND_VENDOR_TRACERS` names (see `tband_host_tests::vendor`).

use std::path::{Path, PathBuf};
use std::process::Command;

use tband_capture::record::Limits;
use tband_capture::rtt::Channel;
use tband_capture::source::{ControlBlock, Source};
use tband_host_tests::qemu::{free_port, gdb_server_args, qemu_mps2_an385, spawn_listening};
use tband_host_tests::{run, vendor};
use tband_model::Model;
use tband_trace::{InputFormat, OpenOptions, Trace};

/// The run's length the corpus recording was made with.
const RUN_NS: &str = "500000000ull";

/// Builds the example traced by TraceRecorder into a folder of its own.
fn build(recorder: &Path, kernel: &Path) -> (PathBuf, PathBuf) {
    let dir = vendor::build_dir("freertos-cm3-tracerecorder");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    run(Command::new("make")
        .current_dir(repo.join("firmware/freertos/cortex-m3"))
        .env("CPPFLAGS", format!("-DRUN_NS={RUN_NS}"))
        .arg("TRACER=tracerecorder")
        .arg(format!("OUT={}", dir.display()))
        .arg(format!("FREERTOS_KERNEL_PATH={}", kernel.display()))
        .arg(format!("TRACERECORDER_PATH={}", recorder.display())));
    let _ = std::fs::remove_file(dir.join("truth.txt"));
    let firmware = dir.join("freertos-cm3-tracerecorder.elf");
    (dir, firmware)
}

/// Runs the firmware held for GDB and records its TzData channel into
/// `recording.psf` until it exits.
fn record(dir: &Path, firmware: &Path) -> PathBuf {
    let port = free_port();
    let (qemu, _stderr) = spawn_listening(
        qemu_mps2_an385(dir)
            .args(gdb_server_args(port))
            .arg("-kernel")
            .arg(firmware),
    );
    let recording = dir.join("recording.psf");
    let capture = tband_capture::cli::Options {
        source: Source::Gdb {
            address: format!("127.0.0.1:{port}"),
            control_block: ControlBlock::Elf(firmware.to_path_buf()),
            channel: Channel::Name("TzData".into()),
        },
        output: recording.clone(),
        limits: Limits::default(),
        tui: false,
        rules: None,
    };
    tband_capture::cli::run(&capture).unwrap();
    let out = qemu.wait_with_output().unwrap();
    assert!(out.status.success(), "the firmware failed");
    recording
}

fn task_id(model: &Model, name: &str) -> u32 {
    let task = model.tasks.iter().position(|t| t.name == name);
    task.unwrap_or_else(|| panic!("no task named {name}")) as u32
}

fn run_time_ns(model: &Model, name: &str) -> u64 {
    let task = task_id(model, name);
    model
        .sched_slices
        .iter()
        .filter(|s| s.task == task)
        .map(|s| s.end_ns - s.start_ns)
        .sum()
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
    let Some((recorder, kernel)) =
        vendor::sources("percepio-tracerecorder-4.11.0", "trcStreamingRecorder.c")
    else {
        return;
    };
    let (dir, firmware) = build(&recorder, &kernel);
    let recording = record(&dir, &firmware);
    let trace = Trace::open(
        &[recording.to_str().unwrap().to_string()],
        &OpenOptions::default(),
    )
    .unwrap();
    assert_eq!(trace.format(), InputFormat::Tracerecorder);
    let model = &trace.model;
    assert!(model.anomalies.is_empty(), "{:?}", model.anomalies);
    let truth = std::fs::read_to_string(dir.join("truth.txt")).unwrap();
    let mut busy_run_time_ns = None;
    let mut truth_levels: Vec<(&str, u32)> = Vec::new();
    for line in truth.lines() {
        match line.split(' ').collect::<Vec<_>>()[..] {
            ["task", name, priority] => {
                let task = task_id(model, name);
                let first = model.task_priorities.iter().find(|p| p.task == task);
                assert_eq!(
                    first.map(|p| p.priority.to_string()).as_deref(),
                    Some(priority),
                    "{name}"
                );
            }
            ["level", queue, level] => truth_levels.push((queue, level.parse().unwrap())),
            ["count", "busy_run_time_ns", ns] => busy_run_time_ns = ns.parse::<f64>().ok(),
            _ => {}
        }
    }
    let measured = busy_run_time_ns.expect("the kernel's measure of busy");
    let traced = run_time_ns(model, "busy") as f64;
    assert!(
        (traced - measured).abs() / measured < 0.02,
        "traced {traced} ns, the kernel measured {measured} ns"
    );
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
    let timer0 = model.isrs.iter().position(|i| i.name == "TIMER0");
    let ticks = (model.isr_slices.iter())
        .filter(|s| Some(s.isr as usize) == timer0)
        .count();
    let texts: Vec<&str> = (model.marker_instants.iter())
        .map(|m| model.strings.get(m.msg))
        .collect();
    let mut expected: Vec<String> = (1..=ticks).map(|n| format!("tick {n}")).collect();
    expected.push("recording stops".into());
    assert!(ticks > 0);
    assert_eq!(texts, expected);
}
