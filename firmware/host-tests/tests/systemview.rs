//! The FreeRTOS example application (`firmware/freertos/`) on Cortex-M3,
//! traced by SEGGER SystemView instead of tband (`make TRACER=systemview`):
//! run in QEMU's mps2-an385 held for a GDB client, its `SysView` RTT
//! channel recorded by `tband-capture` through QEMU's gdbstub until the
//! application exits, and the recording read by the tools against the
//! application's record: every task it created is named with its
//! priority, the busy task's CPU time is within 2 % of the kernel's
//! measure, and nothing is damaged. This is how
//! `tests/corpus/systemview/freertos_cm3.sysview` was made.
//!
//! SystemView's target sources are found in `segger-systemview-3.58/` of
//! the folder `TBAND_VENDOR_TRACERS` names, the kernel through
//! `FREERTOS_KERNEL_PATH`; the build needs `arm-none-eabi-gcc` with newlib
//! and `qemu-system-arm`. Without any of them the test skips with a message.

use std::path::{Path, PathBuf};
use std::process::Command;

use tband_capture::record::Limits;
use tband_capture::rtt::Channel;
use tband_capture::source::{ControlBlock, Source};
use tband_host_tests::qemu::{free_port, gdb_server_args, qemu_mps2_an385, spawn_listening};
use tband_host_tests::run;
use tband_model::Model;
use tband_trace::{InputFormat, OpenOptions, Trace};

/// The run's length the corpus recording was made with.
const RUN_NS: &str = "500000000ull";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The folder of `variable` holding `file`, or why the test cannot run.
fn folder(variable: &str, sub: &str, file: &str) -> Result<PathBuf, String> {
    let base = std::env::var_os(variable).ok_or(format!("{variable} is not set"))?;
    let path = PathBuf::from(base).join(sub);
    if path.join(file).is_file() {
        Ok(path)
    } else {
        Err(format!("{} holds no {file}", path.display()))
    }
}

fn tool(program: &str) -> Result<(), String> {
    match Command::new(program).arg("--version").output() {
        Ok(out) if out.status.success() => Ok(()),
        _ => Err(format!("{program} is not installed")),
    }
}

/// SystemView's sources and the kernel, or `None` after saying why the
/// test skips.
fn sources() -> Option<(PathBuf, PathBuf)> {
    let found = folder(
        "TBAND_VENDOR_TRACERS",
        "segger-systemview-3.58",
        "SEGGER/SEGGER_SYSVIEW.c",
    )
    .and_then(|systemview| {
        let kernel = folder("FREERTOS_KERNEL_PATH", "", "tasks.c")?;
        tool("arm-none-eabi-gcc")?;
        tool("qemu-system-arm")?;
        Ok((systemview, kernel))
    });
    found.map_err(|why| println!("skipped: {why}")).ok()
}

/// Builds the example traced by SystemView into a folder of its own.
fn build(systemview: &Path, kernel: &Path) -> (PathBuf, PathBuf) {
    let base = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"));
    let dir = base.join("freertos-cm3-systemview");
    run(Command::new("make")
        .current_dir(repo().join("firmware/freertos/cortex-m3"))
        .env("CPPFLAGS", format!("-DRUN_NS={RUN_NS}"))
        .arg("TRACER=systemview")
        .arg(format!("OUT={}", dir.display()))
        .arg(format!("FREERTOS_KERNEL_PATH={}", kernel.display()))
        .arg(format!("SYSTEMVIEW_PATH={}", systemview.display())));
    let _ = std::fs::remove_file(dir.join("truth.txt"));
    let firmware = dir.join("freertos-cm3-systemview.elf");
    (dir, firmware)
}

/// Runs the firmware held for GDB and records its SysView channel into
/// `recording.sysview` until it exits.
fn record(dir: &Path, firmware: &Path) -> PathBuf {
    let port = free_port();
    let (qemu, _stderr) = spawn_listening(
        qemu_mps2_an385(dir)
            .args(gdb_server_args(port))
            .arg("-kernel")
            .arg(firmware),
    );
    let recording = dir.join("recording.sysview");
    let capture = tband_capture::cli::Options {
        source: Source::Gdb {
            address: format!("127.0.0.1:{port}"),
            control_block: ControlBlock::Elf(firmware.to_path_buf()),
            channel: Channel::Name("SysView".into()),
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

fn run_time_ns(model: &Model, name: &str) -> u64 {
    let task = model.tasks.iter().position(|t| t.name == name);
    let task = task.unwrap_or_else(|| panic!("no task named {name}")) as u32;
    model
        .sched_slices
        .iter()
        .filter(|s| s.task == task)
        .map(|s| s.end_ns - s.start_ns)
        .sum()
}

#[test]
fn the_systemview_recording_is_the_applications_record() {
    let Some((systemview, kernel)) = sources() else {
        return;
    };
    let (dir, firmware) = build(&systemview, &kernel);
    let recording = record(&dir, &firmware);
    let trace = Trace::open(
        &[recording.to_str().unwrap().to_string()],
        &OpenOptions::default(),
    )
    .unwrap();
    assert_eq!(trace.format(), InputFormat::Systemview);
    let model = &trace.model;
    assert!(model.anomalies.is_empty(), "{:?}", model.anomalies);
    let truth = std::fs::read_to_string(dir.join("truth.txt")).unwrap();
    let mut busy_run_time_ns = None;
    for line in truth.lines() {
        match line.split(' ').collect::<Vec<_>>()[..] {
            ["task", name, priority] => {
                let task = model.tasks.iter().position(|t| t.name == name);
                let task = task.unwrap_or_else(|| panic!("{name} is not named")) as u32;
                let first = model.task_priorities.iter().find(|p| p.task == task);
                assert_eq!(
                    first.map(|p| p.priority.to_string()).as_deref(),
                    Some(priority),
                    "{name}"
                );
            }
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
}
