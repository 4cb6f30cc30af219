//! Builds the embassy example firmware (`firmware/embassy-cortex-m3`: a
//! thread-mode and an interrupt executor traced through embassy's own
//! trace hooks), runs it on QEMU's lm3s6965evb and checks the model of the
//! trace it writes: the polls of each task equal the counts the firmware
//! printed, every task and executor has its name, the task that waits on
//! a `Signal` waits and the one that yields never does, the interrupt
//! executor's task runs inside the thread-mode tasks' polls, no anomalies.
//! Without qemu-system-arm or the rustup target the test says why and
//! passes, unless TBAND_REQUIRE_QEMU=1.

use std::collections::BTreeMap;

use tband_host_tests::embassy::{polls_per_task, waited};
use tband_host_tests::qemu::{self, build_embassy_firmware};
use tband_host_tests::run;
use tband_model::TaskStateKind;
use tband_trace::{OpenOptions, Trace};

/// The counts of the firmware's line `polls: ticker=N worker=N fast=N`.
fn printed_polls(printed: &str) -> BTreeMap<String, u32> {
    let line = printed.lines().find_map(|l| l.strip_prefix("polls: "));
    line.expect("the firmware prints its polls")
        .split(' ')
        .map(|pair| {
            let (name, count) = pair.split_once('=').unwrap();
            (name.to_string(), count.parse().unwrap())
        })
        .collect()
}

#[test]
fn embassy_executors_in_qemu() {
    if !qemu::tools_present() {
        return;
    }
    let elf = build_embassy_firmware("tband-embassy-cortex-m3", &["trace"]);
    let work = elf.with_file_name("run");
    std::fs::create_dir_all(&work).unwrap();
    let trace = work.join("trace.bin");
    let _ = std::fs::remove_file(&trace);
    let out = run(qemu::qemu().current_dir(&work).arg("-kernel").arg(&elf));
    let printed = String::from_utf8(out.stdout).unwrap();
    let model = Trace::open(&[trace.display().to_string()], &OpenOptions::default())
        .expect("the firmware writes trace.bin")
        .model;

    assert!(model.anomalies.is_empty(), "{:?}", model.anomalies);
    let mut names: Vec<&str> = model.tasks.iter().map(|t| t.name.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "fast",
            "idle",
            "interrupt",
            "report",
            "thread",
            "ticker",
            "worker"
        ]
    );

    let expected = printed_polls(&printed);
    assert!(expected["ticker"] > 20 && expected["worker"] > 20 && expected["fast"] > 10);
    assert_eq!(
        polls_per_task(&model, &["fast", "ticker", "worker"]),
        expected
    );

    assert!(waited(&model, "ticker"), "the ticker waits on its signal");
    // Between ticks it is waiting (or, woken, ready while the worker
    // computes), not running.
    let ticker = model.tasks.iter().position(|t| t.name == "ticker").unwrap() as u32;
    let time_in = |state: TaskStateKind| -> u64 {
        let states = model.task_states.iter();
        let of_ticker = states.filter(|s| s.task == ticker && s.state == state);
        of_ticker.map(|s| s.end_ns - s.start_ns).sum()
    };
    let duration = model.info.duration_ns;
    let (blocked, running) = (
        time_in(TaskStateKind::Blocked),
        time_in(TaskStateKind::Running),
    );
    assert!(
        blocked > duration / 2 && running < duration / 50,
        "the ticker waits {blocked} and runs {running} of {duration} ns"
    );
    assert!(waited(&model, "fast"), "fast waits on its signal");
    assert!(!waited(&model, "worker"), "the worker is only ever ready");

    // The interrupt executor's task runs in the middle of the worker's
    // polls: some of its polls go on in a second slice after fast's.
    let worker = model.tasks.iter().position(|t| t.name == "worker").unwrap() as u32;
    let slices = model
        .sched_slices
        .iter()
        .filter(|s| s.task == worker)
        .count();
    assert!(
        slices > expected["worker"] as usize,
        "the worker is never interrupted"
    );
}

/// Runs the cost program (`poll_cost`) in QEMU at one instruction per
/// nanosecond; returns the instructions per poll it printed.
fn instructions_per_poll(features: &[&str]) -> u64 {
    let elf = build_embassy_firmware("poll_cost", features);
    let out = run(qemu::qemu_counting_instructions().arg("-kernel").arg(&elf));
    let printed = String::from_utf8(out.stdout).unwrap();
    let line = printed
        .lines()
        .find_map(|l| l.strip_prefix("embassy poll: "));
    let count = line
        .expect("the program prints its count")
        .split(' ')
        .next();
    count.unwrap().parse().unwrap()
}

/// The cost program runs traced (every event kept, or it fails) and
/// untraced, and tracing costs instructions. The figures are in
/// docs/performance.md.
#[test]
fn poll_cost_in_qemu() {
    if !qemu::tools_present() {
        return;
    }
    let traced = instructions_per_poll(&["trace"]);
    let untraced = instructions_per_poll(&[]);
    println!("instructions per poll: {untraced} untraced, {traced} traced");
    assert!(untraced > 0 && traced > untraced, "{untraced} → {traced}");
}
