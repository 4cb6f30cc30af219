//! Building and running the FreeRTOS example (`firmware/freertos/`) for
//! the tests that trace it: the tband-c library, `make` of a port, and the
//! Cortex-M3 firmware traced by tband (its snapshot written out through
//! semihosting) or by SEGGER SystemView (its RTT channel recorded through
//! QEMU's gdbstub by `tband-capture`). Each test uses some of it.
#![allow(dead_code)]

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command};
use std::time::Duration;

use tband_capture::record::Limits;
use tband_capture::rtt::Channel;
use tband_capture::source::{ControlBlock, Source};
use tband_capture::start::Start;
use tband_host_tests::qemu::{free_port, gdb_server_args, qemu_mps2_an385, spawn_listening};
use tband_host_tests::{run, vendor};
use tband_model::Model;
use tband_trace::{InputFormat, OpenOptions, Trace};

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The folder for a build this test starts.
pub fn own_dir(name: &str) -> PathBuf {
    vendor::build_dir(name)
}

/// Builds the tband-c library into `dir` for `target` (the host when
/// `None`) with `features`; returns the library's path.
pub fn build_library(
    dir: &Path,
    target: Option<&str>,
    features: &str,
    env: &[(&str, &str)],
) -> PathBuf {
    let mut cargo = Command::new(env!("CARGO"));
    cargo
        .args(["build", "--quiet", "--release", "--manifest-path"])
        .arg(repo().join("tband-c/Cargo.toml"))
        .args(["--features", features])
        .arg("--target-dir")
        .arg(dir)
        .env("TBAND_CORES", "1")
        .env("TBAND_METADATA_BUF_BYTES", "1024")
        .envs(env.iter().copied());
    if let Some(target) = target {
        cargo.args(["--target", target]);
    }
    run(&mut cargo);
    let mut lib = dir.to_path_buf();
    if let Some(target) = target {
        lib.push(target);
    }
    lib.join("release/libtband_c.a")
}

/// `make` of the example for `port` (`posix` or `cortex-m3`) into `dir`,
/// with the further `variables` and `cppflags` added to the build's
/// (`CPPFLAGS`).
pub fn make_with(
    port: &str,
    dir: &Path,
    kernel: &Path,
    library: &Path,
    variables: &[&str],
    cppflags: &str,
) {
    run(Command::new("make")
        .env("CPPFLAGS", cppflags)
        .arg("--silent")
        .arg("-C")
        .arg(repo().join("firmware/freertos").join(port))
        .arg(format!("OUT={}", dir.display()))
        .arg(format!("FREERTOS_KERNEL_PATH={}", kernel.display()))
        .arg(format!("TBAND_LIB={}", library.display()))
        .args(variables));
}

/// How the Cortex-M3 build's trace leaves the board (the Makefile's
/// BACKEND).
pub enum Backend {
    Snapshot,
    Streaming,
    /// The post-mortem ring, small enough that the run goes round it many
    /// times before its task `crasher` faults.
    PostMortem,
}

/// Builds the Cortex-M3 example with `backend` and `cppflags` into the
/// folder `folder` of its own, from which QEMU is to run it (semihosting
/// writes `truth.txt` and, from a snapshot, `trace.bin` there; those of an
/// earlier run are removed); returns the folder and the firmware.
pub fn build_cortex_m3(
    kernel: &Path,
    backend: Backend,
    folder: &str,
    cppflags: &str,
) -> (PathBuf, PathBuf) {
    let (make_backend, name, features, env): (_, _, _, &[_]) = match backend {
        Backend::Snapshot => (
            "snapshot",
            "freertos-cm3",
            "snapshot,isr,markers,freertos,metadata-buf",
            &[("TBAND_BUF_BYTES", "393216")],
        ),
        Backend::Streaming => (
            "streaming",
            "freertos-cm3-uart",
            "streaming,isr,markers,freertos,metadata-buf",
            &[],
        ),
        Backend::PostMortem => (
            "postmortem",
            "freertos-cm3-postmortem",
            "postmortem,isr,markers,freertos,metadata-buf",
            &[("TBAND_BUF_BYTES", "16384")],
        ),
    };
    let dir = own_dir(folder);
    let library = build_library(&dir, Some("thumbv7m-none-eabi"), features, env);
    make_with(
        "cortex-m3",
        &dir,
        kernel,
        &library,
        &[&format!("BACKEND={make_backend}")],
        cppflags,
    );
    for file in ["trace.bin", "truth.txt"] {
        let _ = std::fs::remove_file(dir.join(file));
    }
    let firmware = dir.join(format!("{name}.elf"));
    (dir, firmware)
}
/// Builds the Cortex-M3 example with the snapshot backend into `folder`
/// and runs it in QEMU; returns the folder with `trace.bin` and
/// `truth.txt`.
pub fn record_cortex_m3(kernel: &Path, folder: &str, cppflags: &str) -> PathBuf {
    let (dir, firmware) = build_cortex_m3(kernel, Backend::Snapshot, folder, cppflags);
    run(qemu_mps2_an385(&dir).arg("-kernel").arg(firmware));
    dir
}

/// SystemView's sources and the kernel, or `None` after saying why the
/// test skips (failing under `TBAND_REQUIRE_VENDOR_TRACERS=1`).
pub fn systemview_sources() -> Option<(PathBuf, PathBuf)> {
    vendor::sources("segger-systemview-3.58", "SEGGER/SEGGER_SYSVIEW.c")
}

/// Whether the rustup target the Cortex-M3 library is built for is there.
pub fn thumbv7m_target() -> Result<(), String> {
    let targets = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output();
    match targets {
        Ok(o) if String::from_utf8_lossy(&o.stdout).contains("thumbv7m-none-eabi") => Ok(()),
        _ => Err("the rustup target thumbv7m-none-eabi is not installed".into()),
    }
}

/// Builds the example traced by SystemView (`make TRACER=systemview`, its
/// target sources in `systemview`) with `cppflags` into `folder`; returns
/// the folder and the firmware.
pub fn build_systemview(
    systemview: &Path,
    kernel: &Path,
    folder: &str,
    cppflags: &str,
) -> (PathBuf, PathBuf) {
    let dir = own_dir(folder);
    let sources = format!("SYSTEMVIEW_PATH={}", systemview.display());
    make_traced_by("systemview", &dir, kernel, &[&sources], cppflags);
    let firmware = dir.join("freertos-cm3-systemview.elf");
    (dir, firmware)
}

/// `make` of the Cortex-M3 example traced by the vendor's tracer `tracer`
/// (the Makefile's TRACER) into `dir`, with the further `variables` and
/// `cppflags`; the `truth.txt` of an earlier run is removed.
fn make_traced_by(tracer: &str, dir: &Path, kernel: &Path, variables: &[&str], cppflags: &str) {
    run(Command::new("make")
        .current_dir(repo().join("firmware/freertos/cortex-m3"))
        .env("CPPFLAGS", cppflags)
        .arg("--silent")
        .arg(format!("TRACER={tracer}"))
        .arg(format!("OUT={}", dir.display()))
        .arg(format!("FREERTOS_KERNEL_PATH={}", kernel.display()))
        .args(variables));
    let _ = std::fs::remove_file(dir.join("truth.txt"));
}

/// Runs the SystemView firmware held for GDB and records its SysView
/// channel into `recording.sysview` beside it until it exits, sending
/// `start` first for firmware that waits for its host.
pub fn record_systemview(dir: &Path, firmware: &Path, start: Option<Start>) -> PathBuf {
    record_rtt(dir, firmware, "SysView", start, "recording.sysview")
}

/// Percepio TraceRecorder's sources and the kernel, or `None` after saying
/// why the test skips (failing under `TBAND_REQUIRE_VENDOR_TRACERS=1`).
pub fn tracerecorder_sources() -> Option<(PathBuf, PathBuf)> {
    vendor::sources("percepio-tracerecorder-4.11.0", "trcStreamingRecorder.c")
}

/// Builds the example traced by TraceRecorder (`make TRACER=tracerecorder`,
/// its sources in `recorder`) with `stream_port` and `cppflags` into
/// `folder`; returns the folder and the firmware.
pub fn build_tracerecorder(
    recorder: &Path,
    kernel: &Path,
    stream_port: &str,
    folder: &str,
    cppflags: &str,
) -> (PathBuf, PathBuf) {
    let dir = own_dir(folder);
    let port = format!("TR_STREAM_PORT={stream_port}");
    let sources = format!("TRACERECORDER_PATH={}", recorder.display());
    make_traced_by("tracerecorder", &dir, kernel, &[&port, &sources], cppflags);
    let name = match stream_port {
        "RingBuffer" => "freertos-cm3-tracerecorder-ringbuffer",
        _ => "freertos-cm3-tracerecorder",
    };
    let firmware = dir.join(format!("{name}.elf"));
    (dir, firmware)
}

/// Runs the TraceRecorder firmware (Jlink_RTT stream port) held for GDB
/// and records its TzData channel into `recording.psf` beside it until it
/// exits.
pub fn record_tracerecorder(dir: &Path, firmware: &Path) -> PathBuf {
    record_rtt(dir, firmware, "TzData", None, "recording.psf")
}

/// Runs the SystemView firmware held for GDB, records its SysView channel
/// for `duration` without sending a start command, and stops QEMU; returns
/// the recording, `unstarted.sysview` beside the firmware.
pub fn record_systemview_unstarted(dir: &Path, firmware: &Path, duration: Duration) -> PathBuf {
    let limits = Limits {
        duration: Some(duration),
        bytes: None,
    };
    let (mut qemu, _stderr, source) = rtt_target(dir, firmware, "SysView", None);
    let recording = dir.join("unstarted.sysview");
    capture(source, &recording, limits);
    qemu.kill().unwrap();
    qemu.wait().unwrap();
    recording
}

/// Runs `firmware` held for GDB and records its RTT up channel `channel`
/// through QEMU's gdbstub with `tband-capture`, as a user would (with
/// `--start` when `start` is given), into `file` in `dir` until the
/// firmware exits.
fn record_rtt(
    dir: &Path,
    firmware: &Path,
    channel: &str,
    start: Option<Start>,
    file: &str,
) -> PathBuf {
    let (qemu, _stderr, source) = rtt_target(dir, firmware, channel, start);
    let recording = dir.join(file);
    capture_until_exit(source, &recording, qemu);
    recording
}

/// QEMU running `firmware` held for GDB (and its stderr, which must stay
/// open while it runs), and the RTT source of its up channel `channel`
/// through QEMU's gdbstub, sending `start` first when given.
fn rtt_target(
    dir: &Path,
    firmware: &Path,
    channel: &str,
    start: Option<Start>,
) -> (Child, BufReader<ChildStderr>, Source) {
    let port = free_port();
    let (qemu, stderr) = spawn_listening(
        qemu_mps2_an385(dir)
            .args(gdb_server_args(port))
            .arg("-kernel")
            .arg(firmware),
    );
    let source = Source::Gdb {
        address: format!("127.0.0.1:{port}"),
        control_block: ControlBlock::Elf(firmware.to_path_buf()),
        channel: Channel::Name(channel.into()),
        start,
    };
    (qemu, stderr, source)
}

/// Records `source` with `tband-capture` into `output` until `limits` or
/// the source's end.
fn capture(source: Source, output: &Path, limits: Limits) {
    let capture = tband_capture::cli::Options {
        source,
        output: output.to_path_buf(),
        limits,
        tui: false,
        rules: None,
    };
    tband_capture::cli::run(&capture).unwrap();
}

/// Records `source` with `tband-capture` into `output` until the firmware
/// in `qemu` exits, which it must do successfully.
pub fn capture_until_exit(source: Source, output: &Path, qemu: Child) {
    capture(source, output, Limits::default());
    let out = qemu.wait_with_output().unwrap();
    assert!(out.status.success(), "the firmware failed");
}

/// The model of the vendor's recording at `path`, read as the tools read
/// it, which must take it for `format`.
pub fn open_recording(path: &Path, format: InputFormat) -> Model {
    let trace = Trace::open(
        &[path.to_str().unwrap().to_string()],
        &OpenOptions::default(),
    );
    let trace = trace.unwrap();
    assert_eq!(trace.format(), format);
    trace.model
}

/// The index of the task named `name` in the model's tasks.
pub fn task_id(model: &Model, name: &str) -> u32 {
    let task = model.tasks.iter().position(|t| t.name == name);
    task.unwrap_or_else(|| panic!("no task named {name}")) as u32
}

/// The time the task named `name` ran.
pub fn run_time_ns(model: &Model, name: &str) -> u64 {
    let task = task_id(model, name);
    model
        .sched_slices
        .iter()
        .filter(|s| s.task == task)
        .map(|s| s.end_ns - s.start_ns)
        .sum()
}

/// Checks a vendor's recording against the application's record `truth`
/// (its `truth.txt`): every task it created is named with its priority,
/// and the busy task's CPU time is within 2 % of the kernel's measure.
pub fn check_tasks_and_busy_time(model: &Model, truth: &str) {
    let mut busy_run_time_ns = None;
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
