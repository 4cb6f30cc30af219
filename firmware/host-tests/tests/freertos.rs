//! The FreeRTOS example application (`firmware/freertos/`) built on the
//! real kernel, with the `tband-c` library, on two ports: POSIX (a host
//! program streaming its trace into a file) and ARM_CM3 (firmware on QEMU's
//! mps2-an385, its snapshot written out through semihosting, or streamed
//! out of its UART, which QEMU serves on a TCP port, and recorded by
//! `tband-capture --tcp` while it runs). Each is run for three seconds and
//! its trace checked against the application's own record (`truth.txt`,
//! written through semihosting on Cortex-M3) with the tools: `tband-decode` finds no invalid
//! frame, every task, queue and ISR is named, every queue level is the one
//! the application read after the operation, the busy task's CPU load from
//! `tband-query`'s `cpu_load` report is within 2 % of what the application
//! measured (the kernel's run-time statistics; on Cortex-M3 also the task's
//! own spins); the notifications the `counter` task was given and took,
//! the sets and clears of the event group, the expiries of the software
//! timer are the application's counts, and the stream buffer's level after
//! every send and receive is the one the application read; every canned
//! report and the Perfetto export run on it.
//!
//! The kernel is found through `FREERTOS_KERNEL_PATH`; the Cortex-M3 build
//! also needs `arm-none-eabi-gcc` with newlib, `qemu-system-arm` and the
//! rustup target thumbv7m-none-eabi. Without them a test skips with a
//! message, and fails instead when `TBAND_REQUIRE_FREERTOS=1` (as in CI).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Mutex;

use tband_capture::record::Limits;
use tband_capture::source::Source;
use tband_host_tests::qemu::{free_port, spawn_listening};
use tband_host_tests::run;
use tband_model::{EventGroupOpKind, Model, NotificationOp, TimerOpKind};
use tband_trace::{OpenOptions, Trace};

const SECONDS: &str = "3";

/// The host program's CPU load is measured in real time: the tests take
/// turns, so that the other's build does not compete with it.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The kernel sources, or why the test cannot run.
fn kernel() -> Result<PathBuf, String> {
    let Some(path) = std::env::var_os("FREERTOS_KERNEL_PATH") else {
        return Err("FREERTOS_KERNEL_PATH is not set".into());
    };
    let path = PathBuf::from(path);
    if path.join("tasks.c").is_file() {
        Ok(path)
    } else {
        Err(format!(
            "FREERTOS_KERNEL_PATH={} holds no FreeRTOS kernel (tasks.c)",
            path.display()
        ))
    }
}

/// Whether `program --version` runs, or why not.
fn tool(program: &str) -> Result<(), String> {
    match Command::new(program).arg("--version").output() {
        Ok(out) if out.status.success() => Ok(()),
        _ => Err(format!("{program} is not installed")),
    }
}

fn thumbv7m_target() -> Result<(), String> {
    let targets = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output();
    match targets {
        Ok(o) if String::from_utf8_lossy(&o.stdout).contains("thumbv7m-none-eabi") => Ok(()),
        _ => Err("the rustup target thumbv7m-none-eabi is not installed".into()),
    }
}

/// What the test needs, or `None` after saying why it skips (failing
/// under `TBAND_REQUIRE_FREERTOS=1`).
fn needs<T>(what: Result<T, String>) -> Option<T> {
    match what {
        Ok(found) => Some(found),
        Err(why) => {
            assert!(
                std::env::var("TBAND_REQUIRE_FREERTOS").as_deref() != Ok("1"),
                "TBAND_REQUIRE_FREERTOS=1 but {why}"
            );
            println!("skipped: {why}");
            None
        }
    }
}

/// The folder for a build this test starts (never the target folder cargo
/// builds the test in, whose lock it holds).
fn own_dir(name: &str) -> PathBuf {
    let base = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"));
    base.join(name)
}

/// Builds the tband-c library into `dir` for `target` (the host when
/// `None`) with `features`; returns the library's path.
fn build_library(
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
/// with the further `variables`.
fn make(port: &str, dir: &Path, kernel: &Path, library: &Path, variables: &[&str]) {
    run(Command::new("make")
        .arg("--silent")
        .arg("-C")
        .arg(repo().join("firmware/freertos").join(port))
        .arg(format!("OUT={}", dir.display()))
        .arg(format!("FREERTOS_KERNEL_PATH={}", kernel.display()))
        .arg(format!("TBAND_LIB={}", library.display()))
        .args(variables));
}

/// What the application recorded (`truth.txt`).
#[derive(Default)]
struct Truth {
    /// (name, priority) of every task it created, in order.
    tasks: Vec<(String, u32)>,
    /// Queue name → its level after each operation, in order.
    levels: BTreeMap<String, Vec<u32>>,
    /// The stream buffer's bytes after each send and receive, in order.
    stream_levels: Vec<u32>,
    counts: BTreeMap<String, u64>,
}

impl Truth {
    fn read(path: &Path) -> Truth {
        let text = std::fs::read_to_string(path).unwrap();
        let mut truth = Truth::default();
        for line in text.lines() {
            let words: Vec<&str> = line.split(' ').collect();
            let number = |i: usize| -> u64 { words[i].parse().unwrap() };
            match words[0] {
                "task" => truth.tasks.push((words[1].into(), number(2) as u32)),
                "queue" => {
                    truth.levels.insert(words[1].into(), Vec::new());
                }
                "level" => truth
                    .levels
                    .get_mut(words[1])
                    .unwrap()
                    .push(number(2) as u32),
                "stream_level" => truth.stream_levels.push(number(1) as u32),
                "count" => {
                    truth.counts.insert(words[1].into(), number(2));
                }
                _ => panic!("unknown line in {}: {line}", path.display()),
            }
        }
        truth
    }

    fn count(&self, name: &str) -> u64 {
        self.counts[name]
    }
}

/// Builds the POSIX example and runs it; returns its folder (with
/// `trace.bin` and `truth.txt`).
fn record_posix(kernel: &Path) -> PathBuf {
    let dir = own_dir("freertos-posix");
    let library = build_library(&dir, None, "streaming,isr,freertos,metadata-buf", &[]);
    make("posix", &dir, kernel, &library, &[]);
    run(Command::new(dir.join("freertos-posix"))
        .arg(dir.join("trace.bin"))
        .arg(dir.join("truth.txt"))
        .arg(SECONDS));
    dir
}

/// How the Cortex-M3 build's trace leaves the board (the Makefile's
/// BACKEND).
enum Backend {
    Snapshot,
    Streaming,
}

/// Builds the Cortex-M3 example with `backend` into its own folder, from
/// which QEMU is to run it (semihosting writes `truth.txt` and, from a
/// snapshot, `trace.bin` there; those of an earlier run are removed);
/// returns the folder and the firmware.
fn build_cortex_m3(kernel: &Path, backend: Backend) -> (PathBuf, PathBuf) {
    let (make_backend, name, features, env): (_, _, _, &[_]) = match backend {
        Backend::Snapshot => (
            "snapshot",
            "freertos-cm3",
            "snapshot,isr,freertos,metadata-buf",
            &[("TBAND_BUF_BYTES", "393216")],
        ),
        Backend::Streaming => (
            "streaming",
            "freertos-cm3-uart",
            "streaming,isr,freertos,metadata-buf",
            &[],
        ),
    };
    let dir = own_dir(name);
    let library = build_library(&dir, Some("thumbv7m-none-eabi"), features, env);
    make(
        "cortex-m3",
        &dir,
        kernel,
        &library,
        &[&format!("BACKEND={make_backend}")],
    );
    for file in ["trace.bin", "truth.txt"] {
        let _ = std::fs::remove_file(dir.join(file));
    }
    let firmware = dir.join(format!("{name}.elf"));
    (dir, firmware)
}

/// QEMU's mps2-an385 in `dir`, in virtual time from the instruction count.
fn qemu_in(dir: &Path) -> Command {
    let mut qemu = Command::new("qemu-system-arm");
    qemu.current_dir(dir)
        .args(["-machine", "mps2-an385", "-cpu", "cortex-m3"])
        .args(["-display", "none", "-monitor", "none"])
        .args(["-semihosting-config", "enable=on,target=native"])
        .args(["-icount", "shift=4"]);
    qemu
}

/// Builds the Cortex-M3 example with the snapshot backend and runs it in
/// QEMU; returns the folder with `trace.bin` and `truth.txt`.
fn record_cortex_m3(kernel: &Path) -> PathBuf {
    let (dir, firmware) = build_cortex_m3(kernel, Backend::Snapshot);
    run(qemu_in(&dir).arg("-kernel").arg(firmware));
    dir
}

/// Builds the Cortex-M3 example with the streaming backend and runs it in
/// QEMU with its UART served on a TCP port, which holds the machine until
/// `tband-capture --tcp` connects and records into `trace.bin` until QEMU
/// exits; returns the folder with `trace.bin` and `truth.txt`.
fn capture_cortex_m3_uart(kernel: &Path) -> PathBuf {
    let (dir, firmware) = build_cortex_m3(kernel, Backend::Streaming);
    let address = format!("127.0.0.1:{}", free_port());
    let serial = format!("tcp:{address},server=on,wait=on");
    let (qemu, _stderr) = spawn_listening(
        qemu_in(&dir)
            .args(["-serial", &serial])
            .arg("-kernel")
            .arg(firmware),
    );
    let capture = tband_capture::cli::Options {
        source: Source::Tcp(address),
        output: dir.join("trace.bin"),
        limits: Limits::default(),
        tui: false,
        rules: None,
    };
    tband_capture::cli::run(&capture).unwrap();
    let out = qemu.wait_with_output().unwrap();
    assert!(out.status.success(), "the firmware failed");
    dir
}

fn path_arg(path: &Path) -> String {
    path.to_str().unwrap().to_string()
}

/// `tband-decode --stats`: its first line.
fn decode_stats(trace: &Path, out: &Path) -> String {
    let options = tband_cli::decode::Options {
        inputs: vec![path_arg(trace)],
        input: OpenOptions::default(),
        pretty: false,
        json: false,
        stats: true,
        summary: false,
        output: Some(out.to_path_buf()),
    };
    assert_eq!(tband_cli::decode::run(&options), Ok(ExitCode::SUCCESS));
    let text = std::fs::read_to_string(out).unwrap();
    text.lines().next().unwrap().to_string()
}

/// `tband-query TRACE QUERY --format csv -o OUT`: the rows, as maps from
/// column to value.
fn query(trace: &Path, query: &str, out: &Path) -> Vec<BTreeMap<String, String>> {
    let options = tband_query::cli::Options {
        args: vec![path_arg(trace), query.to_string()],
        execute: None,
        engine: None,
        db: None,
        fleet: None,
        format: Some(tband_query::output::Format::Csv),
        params: Vec::new(),
        fail_if_rows: false,
        list: false,
        output: Some(out.to_path_buf()),
        input: OpenOptions::default(),
    };
    let code = tband_query::cli::run(options).unwrap_or_else(|e| panic!("{query}: {e}"));
    assert_eq!(code, ExitCode::SUCCESS, "{query}");
    let text = std::fs::read_to_string(out).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    lines
        .map(|line| {
            header
                .iter()
                .zip(line.split(','))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// `tband-perfetto TRACE -o OUT`.
fn perfetto(trace: &Path, out: &Path) {
    let options = tband_perfetto::cli::Options {
        inputs: vec![path_arg(trace)],
        input: OpenOptions::default(),
        output: Some(out.to_path_buf()),
        gzip: false,
        format: tband_perfetto::cli::OutputFormat::Perfetto,
        export: tband_perfetto::ExportOptions::default(),
        serve: None,
        window: Default::default(),
    };
    tband_perfetto::cli::run(&options).unwrap();
    assert!(std::fs::metadata(out).unwrap().len() > 0);
}

/// The priority the task at index `task` of the model's tasks was created
/// with.
fn first_priority(model: &Model, task: u32) -> Option<u32> {
    model
        .task_priorities
        .iter()
        .find(|p| p.task == task)
        .map(|p| p.priority)
}

fn check_tasks(model: &Model, truth: &Truth) {
    for task in &model.tasks {
        assert!(
            !task.name.starts_with("task "),
            "task {} has no name",
            task.task_id
        );
    }
    // The application's tasks, in the order it created them, after the
    // kernel's own (idle and timer tasks are created at scheduler start).
    let traced: Vec<(String, u32)> = (0..)
        .zip(&model.tasks)
        .filter(|(_, t)| truth.tasks.iter().any(|(name, _)| *name == t.name))
        .map(|(i, t)| (t.name.clone(), first_priority(model, i).unwrap()))
        .collect();
    assert_eq!(traced, truth.tasks);
    assert!(model.tasks.iter().any(|t| t.name == "IDLE"));
    assert!(model.tasks.iter().any(|t| t.name == "Tmr Svc"));
}

fn check_queue_levels(model: &Model, truth: &Truth) {
    for queue in &model.queues {
        assert!(
            !queue.name.starts_with("queue "),
            "queue {} has no name",
            queue.queue_id
        );
    }
    for (name, levels) in &truth.levels {
        let queue = (model.queues.iter())
            .position(|q| q.name == *name)
            .unwrap_or_else(|| panic!("queue {name} is not in the trace"));
        let traced: Vec<u32> = model
            .queue_ops
            .iter()
            .filter(|op| op.queue as usize == queue)
            .map(|op| op.len_after.unwrap())
            .collect();
        assert!(!levels.is_empty(), "{name}: no operations recorded");
        assert_eq!(traced, *levels, "{name}: levels");
    }
}

/// The notifications, event group, stream buffer and timer of the trace
/// against the application's record.
fn check_objects(model: &Model, truth: &Truth) {
    let objects = &model.rtos_objects;
    let counter = model.tasks.iter().find(|t| t.name == "counter").unwrap();
    let to_counter = || (objects.notifications.iter()).filter(|n| n.task_id == counter.task_id);
    let given = to_counter().filter(|n| n.op == NotificationOp::Given);
    assert_eq!(given.count() as u64, truth.count("notifications_given"));
    let taken = to_counter().filter(|n| n.op == NotificationOp::Taken);
    let taken: u64 = taken.map(|n| u64::from(n.value)).sum();
    assert_eq!(taken, truth.count("notifications_taken"));

    let names: Vec<&str> = objects
        .event_groups
        .iter()
        .map(|g| g.name.as_str())
        .collect();
    assert_eq!(names, ["progress"]);
    let group_ops = |op| {
        let ops = objects.event_group_ops.iter().filter(|o| o.op == op);
        ops.count() as u64
    };
    assert_eq!(
        group_ops(EventGroupOpKind::Set),
        truth.count("event_group_sets")
    );
    assert_eq!(
        group_ops(EventGroupOpKind::Clear),
        truth.count("event_group_clears")
    );

    let names: Vec<&str> = objects
        .stream_buffers
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    assert_eq!(names, ["bytes"]);
    let levels: Vec<u32> = objects
        .stream_buffer_ops
        .iter()
        .map(|o| o.bytes_after)
        .collect();
    assert!(!truth.stream_levels.is_empty());
    assert_eq!(levels, truth.stream_levels, "stream buffer levels");

    let timer = (objects.timers.iter())
        .position(|t| t.name == "slot_timer")
        .unwrap();
    let expiries = (objects.timer_ops.iter())
        .filter(|o| o.timer as usize == timer && o.op == TimerOpKind::Expired);
    assert!(truth.count("timer_expiries") > 0);
    assert_eq!(expiries.count() as u64, truth.count("timer_expiries"));
}

/// Every check of the module comment on the trace in `dir`; `isrs` are
/// the names of the ISRs the build traces. The busy task's load is checked
/// against the kernel's run-time statistics and, where `spins_are_run_time`,
/// against the time it measured spinning: not on the host, where a thread
/// the scheduler switched to starts running only when the host schedules it.
fn check_recording(dir: &Path, isrs: &[&str], spins_are_run_time: bool) {
    let trace = dir.join("trace.bin");
    let truth = Truth::read(&dir.join("truth.txt"));

    let stats = decode_stats(&trace, &dir.join("stats.txt"));
    assert!(stats.contains(", 0 invalid,"), "{stats}");

    let model = Trace::open(&[path_arg(&trace)], &OpenOptions::default())
        .unwrap()
        .model;
    assert_eq!(model.cores.len(), 1);
    assert!(
        model.anomalies.is_empty(),
        "anomalies: {:?}",
        model.anomalies
    );
    check_tasks(&model, &truth);
    let workers = model.tasks.iter().filter(|t| t.name == "worker");
    assert_eq!(
        workers.filter(|t| t.deleted_ns.is_some()).count() as u64,
        truth.count("tasks_created_at_run_time")
    );
    check_queue_levels(&model, &truth);
    assert!(model
        .task_priorities
        .iter()
        .any(|p| p.cause == tband_model::PriorityCause::Inherit));
    let isr_names: Vec<&str> = model.isrs.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(isr_names, isrs);

    let cpu_load = query(&trace, "cpu_load", &dir.join("cpu_load.csv"));
    let busy = cpu_load
        .iter()
        .find(|row| row["task_name"] == "busy")
        .expect("busy in cpu_load");
    let traced_pct: f64 = busy["load_pct"].parse().unwrap();
    let window = truth.count("window_ns") as f64;
    let mut measures = vec![("the kernel's run-time statistics", "busy_run_time_ns")];
    if spins_are_run_time {
        measures.push(("its own spins", "busy_ns"));
    }
    for (what, count) in measures {
        let measured_pct = truth.count(count) as f64 * 100.0 / window;
        assert!(
            (traced_pct - measured_pct).abs() <= measured_pct * 0.02,
            "busy: {traced_pct} % in the trace, {measured_pct} % by {what}"
        );
    }
    query(
        &trace,
        &path_arg(&repo().join("queries")),
        &dir.join("reports.csv"),
    );
    perfetto(&trace, &dir.join("trace.pftrace"));

    check_objects(&model, &truth);
    assert!(truth.count("notifications_given") > 0);
    assert_eq!(
        truth.count("notifications_given"),
        truth.count("notifications_taken")
    );
    assert!(truth.count("event_group_waits_done") > 0);
    assert!(truth.count("stream_buffer_sends") > 0);
    assert_eq!(
        truth.count("stream_buffer_bytes_sent"),
        truth.count("stream_buffer_bytes_received")
    );
}

#[test]
fn posix_port_trace_matches_the_applications_record() {
    let Some(kernel) = needs(kernel()) else {
        return;
    };
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    check_recording(&record_posix(&kernel), &["tick"], false);
}

/// The kernel, if the Cortex-M3 build and QEMU can run here.
fn cortex_m3_tools() -> Option<PathBuf> {
    let kernel = needs(kernel())?;
    let tools = tool("arm-none-eabi-gcc")
        .and_then(|()| tool("qemu-system-arm"))
        .and_then(|()| thumbv7m_target());
    needs(tools)?;
    Some(kernel)
}

#[test]
fn cortex_m3_port_in_qemu_trace_matches_the_applications_record() {
    let Some(kernel) = cortex_m3_tools() else {
        return;
    };
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    check_recording(&record_cortex_m3(&kernel), &["SysTick", "TIMER0"], true);
}

#[test]
fn cortex_m3_uart_capture_matches_the_applications_record() {
    let Some(kernel) = cortex_m3_tools() else {
        return;
    };
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    check_recording(
        &capture_cortex_m3_uart(&kernel),
        &["SysTick", "TIMER0"],
        true,
    );
}
