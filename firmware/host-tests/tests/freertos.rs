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
//! every send and receive is the one the application read; the heap events
//! of the application's `heap_user` task are the allocations (one failing
//! on purpose) and frees it recorded, with the sizes heap_4 counted, the
//! model's peak of bytes in use is the kernel's low mark of
//! free bytes, the blocks never freed are the ones it leaked and those the
//! kernel keeps (none leaked in the build without leaks), every task's
//! stack size is recorded and its last stack margin is the kernel's
//! high-water mark, and the reports `heap_leaks`, `heap_usage` and
//! `stack_margin` say so too; every canned report and the Perfetto export
//! run on it.
//!
//! The kernel is found through `FREERTOS_KERNEL_PATH`; the Cortex-M3 build
//! also needs `arm-none-eabi-gcc` with newlib, `qemu-system-arm` and the
//! rustup target thumbv7m-none-eabi. Without them a test skips with a
//! message, and fails instead when `TBAND_REQUIRE_FREERTOS=1` (as in CI).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tband_capture::flight_cli::Memory;
use tband_capture::flight_recorder::Table;
use tband_capture::gdb::Gdb;
use tband_capture::rtt::TargetMemory;
use tband_capture::rtt_stream::Attached;
use tband_capture::source::Source;
use tband_host_tests::event_lines::trace_with_event_lines;
use tband_host_tests::qemu::{
    free_port, qemu_mps2_an385, run_until_fault, spawn_listening, Console,
};
use tband_host_tests::run;
use tband_host_tests::vendor::tool;
use tband_model::{
    Actor, ArgValue, EventGroupOpKind, EventRow, Model, NotificationOp, TimerOpKind,
};
use tband_trace::symbols::Symbols;
use tband_trace::{OpenOptions, Source as TraceSource, Trace};

mod example;
use example::{
    build_cortex_m3, build_library, capture_until_exit, make_with, own_dir, record_cortex_m3, repo,
    thumbv7m_target, Backend,
};

const SECONDS: &str = "3";

/// The host program's CPU load is measured in real time: the tests take
/// turns, so that the other's build does not compete with it.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

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
    /// configTOTAL_HEAP_SIZE, the heap's free bytes before anything was
    /// allocated, its fewest free bytes ever.
    heap_total: u64,
    heap_free_at_start: u64,
    heap_min_free: u64,
    /// heap_user's allocations and frees, in order.
    heap_ops: Vec<TruthHeapOp>,
    /// (address, size, task) of every block left allocated for good.
    leaks: Vec<(u64, u64, String)>,
    /// Bytes of each task's stack as created.
    stack_bytes: u64,
    /// (task name, its stack high-water mark in bytes) at the end, of every
    /// task but the one that ended the run.
    stack_free: Vec<(String, u64)>,
}

/// An allocation or free of the application's task, with the size the
/// heap counted (the change of its free bytes).
#[derive(Debug)]
enum TruthHeapOp {
    /// Address 0 (and size 0): the allocation failed.
    Alloc {
        addr: u64,
        asked: u64,
        size: u64,
    },
    Free {
        addr: u64,
        size: u64,
    },
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
                "heap_total" => truth.heap_total = number(1),
                "heap_free_at_start" => truth.heap_free_at_start = number(1),
                "heap_min_free" => truth.heap_min_free = number(1),
                "heap_alloc" => truth.heap_ops.push(TruthHeapOp::Alloc {
                    addr: number(1),
                    asked: number(2),
                    size: number(3),
                }),
                "heap_free" => truth.heap_ops.push(TruthHeapOp::Free {
                    addr: number(1),
                    size: number(2),
                }),
                "heap_leak" => truth
                    .leaks
                    .push((number(1), number(2), words[3..].join(" "))),
                "stack_bytes" => truth.stack_bytes = number(1),
                "stack_free" => truth.stack_free.push((words[2..].join(" "), number(1))),
                _ => panic!("unknown line in {}: {line}", path.display()),
            }
        }
        truth
    }

    fn count(&self, name: &str) -> u64 {
        self.counts[name]
    }
}

/// Builds the POSIX example into `name` with `cppflags` and runs it;
/// returns its folder (with `trace.bin` and `truth.txt`).
fn record_posix(kernel: &Path, name: &str, cppflags: &str) -> PathBuf {
    let dir = own_dir(name);
    let library = build_library(
        &dir,
        None,
        "streaming,isr,markers,freertos,metadata-buf",
        &[],
    );
    make_with("posix", &dir, kernel, &library, &[], cppflags);
    run(Command::new(dir.join("freertos-posix"))
        .arg(dir.join("trace.bin"))
        .arg(dir.join("truth.txt"))
        .arg(SECONDS));
    dir
}

/// Builds the Cortex-M3 example with the streaming backend and runs it in
/// QEMU with its UART served on a TCP port, which holds the machine until
/// `tband-capture --tcp` connects and records into `trace.bin` until QEMU
/// exits; returns the folder with `trace.bin` and `truth.txt`.
fn capture_cortex_m3_uart(kernel: &Path) -> PathBuf {
    let (dir, firmware) = build_cortex_m3(kernel, Backend::Streaming, "freertos-cm3-uart", "");
    let address = format!("127.0.0.1:{}", free_port());
    let serial = format!("tcp:{address},server=on,wait=on");
    let (qemu, _stderr) = spawn_listening(
        qemu_mps2_an385(&dir)
            .args(["-serial", &serial])
            .arg("-kernel")
            .arg(firmware),
    );
    capture_until_exit(Source::Tcp(address), &dir.join("trace.bin"), qemu);
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
        output: Some(out.to_path_buf()),
        ..tband_cli::decode::Options::default()
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
        format: Some(tband_query::output::Format::Csv),
        output: Some(out.to_path_buf()),
        ..Default::default()
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

/// A heap event of the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HeapOp {
    Alloc,
    Free,
}

#[derive(Clone, Copy, Debug)]
struct HeapEvent {
    /// The task that ran, `None` before the scheduler started.
    task: Option<u32>,
    op: HeapOp,
    addr: u64,
    size: u64,
}

/// The heap events of a trace, as recorded.
#[derive(Default)]
struct MemoryEvents {
    heap: Vec<HeapEvent>,
}

impl MemoryEvents {
    fn take(&mut self, row: &EventRow<'_>) {
        let int = |name: &str| -> u64 {
            match row.args.iter().find(|(n, _)| *n == name) {
                Some((_, ArgValue::UInt(v))) => *v,
                other => panic!("{}: {name} is {other:?}", row.name),
            }
        };
        let task = match row.actor {
            Some(Actor::Task(id)) => Some(id),
            _ => None,
        };
        let heap_event = |op| HeapEvent {
            task,
            op,
            addr: int("addr"),
            size: int("size"),
        };
        match row.name {
            "heap_alloc" => self.heap.push(heap_event(HeapOp::Alloc)),
            "heap_free" => self.heap.push(heap_event(HeapOp::Free)),
            _ => {}
        }
    }
}

/// The id of the last task named `name`.
fn task_id(model: &Model, name: &str) -> u32 {
    let task = model.tasks.iter().rev().find(|t| t.name == name);
    task.unwrap_or_else(|| panic!("no task {name}")).task_id
}

/// The heap events of the application's task against its record: each
/// allocation (the failed one with address 0) and free in order, with the
/// size the heap counted.
fn check_heap_user(model: &Model, memory: &MemoryEvents, truth: &Truth) {
    let heap_user = task_id(model, "heap_user");
    let traced: Vec<&HeapEvent> = (memory.heap.iter())
        .filter(|e| e.task == Some(heap_user))
        .collect();
    assert_eq!(
        traced.len(),
        truth.heap_ops.len(),
        "heap_user's heap events"
    );
    for (i, (event, op)) in traced.iter().zip(&truth.heap_ops).enumerate() {
        let matches = match *op {
            TruthHeapOp::Alloc { addr: 0, asked, .. } => {
                event.op == HeapOp::Alloc && event.addr == 0 && event.size >= asked
            }
            TruthHeapOp::Alloc { addr, size, .. } => {
                event.op == HeapOp::Alloc && event.addr == addr && event.size == size
            }
            TruthHeapOp::Free { addr, size } => {
                event.op == HeapOp::Free && event.addr == addr && event.size == size
            }
        };
        assert!(
            matches,
            "heap event {i}: {event:?} in the trace, {op:?} recorded"
        );
    }
    let failed = traced
        .iter()
        .filter(|e| e.op == HeapOp::Alloc && e.addr == 0);
    assert_eq!(failed.count(), 1, "the failed allocation");
}

/// The model's heap: its peak of bytes in use equals the kernel's own low
/// mark of free bytes, and the blocks never freed are the leaked ones and
/// those the kernel keeps: each object and task `app_create` made before
/// the scheduler started (a task has its stack and its TCB), the idle and
/// timer tasks and the timer queue.
fn check_heap(model: &Model, truth: &Truth) {
    let memory = &model.memory;
    let heaps: Vec<_> = (memory.heaps.iter())
        .map(|h| (h.heap_id, h.total_size.map(u64::from), h.name.as_str()))
        .collect();
    assert_eq!(heaps, [(0, Some(truth.heap_total), "FreeRTOS heap")]);
    // The heap keeps the rest of configTOTAL_HEAP_SIZE for itself (its
    // start aligned, its end marker).
    assert!(truth.heap_free_at_start <= truth.heap_total);
    assert_eq!(
        memory.heaps[0].peak_bytes,
        truth.heap_free_at_start - truth.heap_min_free,
        "peak"
    );
    assert!(
        memory.failed_allocations.len() == 1,
        "the failed allocation"
    );

    let live = || memory.blocks.iter().filter(|b| b.truncated);
    let mut leaked: Vec<(u64, u64, String)> = live()
        .filter_map(|b| match b.allocated_by? {
            Actor::Task(id) => Some((b.addr, b.size.into(), model.task_by_id(id)?.name.clone())),
            Actor::Isr(_) => None,
        })
        .collect();
    leaked.sort();
    let mut expected = truth.leaks.clone();
    expected.sort();
    assert_eq!(
        leaked, expected,
        "blocks allocated by tasks and never freed"
    );
    let tasks_before_start = (truth.tasks.iter())
        .filter(|(name, _)| name != "worker")
        .count()
        + 2;
    let objects = truth.levels.len() + ["progress", "bytes", "slot_timer", "TmrQ"].len();
    let kept = live().filter(|b| b.allocated_by.is_none()).count();
    assert_eq!(
        kept,
        2 * tasks_before_start + objects,
        "blocks the kernel keeps"
    );
}

/// The reports say the same as the model: `heap_leaks` lists exactly the
/// blocks the tasks leaked, with their task, and none in the build without
/// leaks (the kernel's own blocks were allocated before any task ran);
/// `heap_usage` the kernel's peak;
/// `stack_margin` the high-water marks the application read.
fn check_memory_reports(trace: &Path, dir: &Path, truth: &Truth) {
    let leaks = query(trace, "heap_leaks", &dir.join("heap_leaks.csv"));
    let mut by_tasks: Vec<(u64, u64, String)> = (leaks.iter())
        .map(|row| {
            let addr = u64::from_str_radix(row["addr"].trim_start_matches("0x"), 16).unwrap();
            (
                addr,
                row["size"].parse().unwrap(),
                row["allocated_by"].clone(),
            )
        })
        .collect();
    by_tasks.sort();
    let mut expected = truth.leaks.clone();
    expected.sort();
    assert_eq!(by_tasks, expected, "heap_leaks' blocks allocated by tasks");

    let usage = query(trace, "heap_usage", &dir.join("heap_usage.csv"));
    let peak = truth.heap_free_at_start - truth.heap_min_free;
    assert_eq!(usage.len(), 1);
    assert_eq!(
        usage[0]["peak_bytes"],
        peak.to_string(),
        "heap_usage's peak"
    );
    assert_eq!(usage[0]["failed"], "1");

    let margins = query(trace, "stack_margin", &dir.join("stack_margin.csv"));
    for (name, high_water_mark) in &truth.stack_free {
        let row = margins.iter().find(|row| row["task_name"] == *name);
        let row = row.unwrap_or_else(|| panic!("stack_margin has no row of {name}"));
        assert_eq!(row["min_free_bytes"], high_water_mark.to_string(), "{name}");
    }
}

/// Each task's stack size as created, and its last stack margin in the
/// model equals the high-water mark the application read at the end.
fn check_stacks(model: &Model, truth: &Truth) {
    assert!(!truth.stack_free.is_empty());
    let margins = |task_id: u32| -> Vec<u64> {
        (model.memory.stack_margins.iter())
            .filter(|m| m.task_id == task_id)
            .map(|m| m.free_bytes.into())
            .collect()
    };
    for task in &model.tasks {
        let size = task.stack_size.map(u64::from);
        let size = size.unwrap_or_else(|| panic!("{}: no stack size", task.name));
        // The kernel aligns the stack's top down, by less than 8 bytes.
        assert!(
            size <= truth.stack_bytes && size + 8 > truth.stack_bytes,
            "{}: stack of {size} bytes",
            task.name
        );
        let frees = margins(task.task_id);
        assert!(
            frees.windows(2).all(|w| w[1] < w[0]),
            "{}: {frees:?}",
            task.name
        );
        assert!(frees.first().is_none_or(|&f| f <= size));
    }
    for (name, high_water_mark) in &truth.stack_free {
        let frees = margins(task_id(model, name));
        assert_eq!(frees.last(), Some(high_water_mark), "{name}: stack margin");
    }
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

    let mut memory = MemoryEvents::default();
    let options = OpenOptions::default();
    let source = TraceSource::open(&[path_arg(&trace)], &options).unwrap();
    let model = Trace::build_with_events(source, &options, &mut |row| memory.take(row))
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
    check_heap_user(&model, &memory, &truth);
    check_heap(&model, &truth);
    check_stacks(&model, &truth);
    check_memory_reports(&trace, dir, &truth);
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
    let dir = record_posix(&kernel, "freertos-posix", "");
    check_recording(&dir, &["tick"], false);
    assert_eq!(Truth::read(&dir.join("truth.txt")).leaks.len(), 4);
}

#[test]
fn posix_port_without_leaks_frees_every_block_its_tasks_allocate() {
    let Some(kernel) = needs(kernel()) else {
        return;
    };
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = record_posix(&kernel, "freertos-posix-no-leaks", "-DAPP_HEAP_LEAKS=0");
    check_recording(&dir, &["tick"], false);
    assert!(Truth::read(&dir.join("truth.txt")).leaks.is_empty());
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
    check_recording(
        &record_cortex_m3(&kernel, "freertos-cm3", ""),
        &["SysTick", "TIMER0"],
        true,
    );
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

/// Builds the Cortex-M3 example with the post-mortem backend and runs it in
/// QEMU, its gdbstub on a free port, until its task `crasher` faults and
/// the fault handler says so; returns the folder, the firmware, QEMU (left
/// waiting in the fault handler) and the gdbstub's address.
fn crash_cortex_m3(kernel: &Path) -> (PathBuf, PathBuf, Child, String) {
    let (dir, firmware) =
        build_cortex_m3(kernel, Backend::PostMortem, "freertos-cm3-postmortem", "");
    let (qemu, address) = run_until_fault(&mut qemu_mps2_an385(&dir), &firmware, Console::Stderr);
    (dir, firmware, qemu, address)
}

/// The line of the firmware's source where its task `crasher` faults.
fn faulting_line() -> usize {
    let source = repo().join("firmware/freertos/cortex-m3/postmortem.c");
    let text = std::fs::read_to_string(source).unwrap();
    1 + text
        .lines()
        .position(|l| l.contains("/* the bad dereference */"))
        .expect("postmortem.c marks its bad dereference")
}

/// `tband-capture --flight-recorder` with `memory`: the report's lines.
fn read_flight_recorder(firmware: &Path, memory: Memory, output: &Path) -> Vec<String> {
    let options = tband_capture::flight_cli::Options {
        elf: firmware.to_path_buf(),
        memory,
        output: output.to_path_buf(),
    };
    let mut report = Vec::new();
    tband_capture::flight_cli::run(&options, &mut report).unwrap();
    String::from_utf8(report)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// The RAM of the firmware's data, read through the GDB server as GDB's
/// `dump memory` does, into `image`; returns how long the read took.
fn dump_memory(firmware: &Path, address: &str, image: &Path) -> Duration {
    let table = Table::from_elf(firmware).unwrap();
    let (start, end) = table.ram.unwrap();
    let mut gdb = Gdb::connect(address).unwrap();
    let mut ram = vec![0u8; (end - start) as usize];
    let started = Instant::now();
    gdb.read(start, &mut ram).unwrap();
    let took = started.elapsed();
    gdb.release();
    std::fs::write(image, ram).unwrap();
    took
}

/// The number in a report line after `before`, e.g. the overwritten events.
fn number_before(line: &str, before: &str) -> u64 {
    let head = &line[..line.find(before).unwrap()];
    let digits = head.rsplit(' ').next().unwrap();
    digits.parse().unwrap()
}

#[test]
fn cortex_m3_crash_is_read_from_the_rings_through_the_gdbstub_and_from_a_ram_image() {
    let Some(kernel) = cortex_m3_tools() else {
        return;
    };
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (dir, firmware, mut qemu, address) = crash_cortex_m3(&kernel);
    let through_gdb = dir.join("crash.bin");
    let report = read_flight_recorder(&firmware, Memory::Gdb(address.clone()), &through_gdb);
    let image = dir.join("ram.bin");
    let dump_took = dump_memory(&firmware, &address, &image);
    qemu.kill().unwrap();
    qemu.wait().unwrap();
    let from_image = dir.join("crash-from-image.bin");
    let image_report = read_flight_recorder(
        &firmware,
        Memory::RamImage {
            path: image.clone(),
            base: None,
        },
        &from_image,
    );
    println!("{}\n{}", report.join("\n"), image_report.join("\n"));
    let ram_bytes = std::fs::metadata(&image).unwrap().len();
    println!(
        "read {ram_bytes} bytes of RAM through the gdbstub in {:.1} ms",
        dump_took.as_secs_f64() * 1e3
    );

    // The same trace both ways, from a ring that went round many times.
    let trace = std::fs::read(&through_gdb).unwrap();
    assert_eq!(trace, std::fs::read(&from_image).unwrap());
    let core = report.iter().find(|l| l.starts_with("core 0:")).unwrap();
    let overwritten = number_before(core, " event(s) overwritten");
    assert!(overwritten > 1000, "{core}");
    assert!(
        report[0].contains("the target was halted for") && report[0].contains("runs on"),
        "{}",
        report[0]
    );
    assert!(
        !report.iter().any(|l| l.starts_with("damage")),
        "{report:?}"
    );

    // The oldest kept event is whole and nothing after it is lost; the
    // last events are what the firmware recorded last.
    let (mut trace, last) = trace_with_event_lines(&through_gdb);
    let model = &mut trace.model;
    assert_eq!(model.info.invalid_frames, 0);
    let known_last = [
        "evtmarker evtmarker_id=0x9 msg=reading 0xf0000000".to_string(),
        // Precise data bus error, its address valid; escalated.
        "fault_status xpsr=0x1000000 cfsr=0x8200 hfsr=0x40000000".to_string(),
        "fault_address mmfar=0x0 bfar=0xf0000000".to_string(),
        format!(
            "fault kind=0x3 pc={:#x} lr={:#x}",
            model.faults[0].pc, model.faults[0].lr
        ),
    ];
    assert_eq!(last[last.len() - 4..], known_last);

    // The last anomaly is the fault, in the task `crasher`, at the line
    // of its bad dereference.
    let anomaly = model.anomalies.last().unwrap();
    assert_eq!(anomaly.kind, tband_model::AnomalyKind::Fault);
    Symbols::read(&firmware).unwrap().locate_faults(model);
    let fault = &model.faults[0];
    let task = &model.tasks[fault.task.unwrap() as usize];
    assert_eq!(task.name, "crasher");
    assert_eq!(
        fault.pc_location.as_deref(),
        Some(format!("crasher_task at postmortem.c:{}", faulting_line()).as_str())
    );
    check_missing_symbols(&firmware, &image, fault.pc);
    let health = query(&through_gdb, "trace_health", &dir.join("health.csv"));
    let fault_row = health.iter().find(|r| r["kind"] == "fault").unwrap();
    assert_eq!(fault_row["count"], "1");
    let crash = report.iter().find(|l| l.starts_with("crash: ")).unwrap();
    assert!(
        crash.contains(&format!(
            "task crasher crashed in crasher_task at postmortem.c:{}",
            faulting_line()
        )) && crash.ends_with("HardFault: escalated, precise data bus error at 0xf0000000"),
        "{crash}"
    );
}

/// The firmware without its line information still names the faulting
/// function; stripped of its symbols too, the flight recorder's table
/// cannot be found, and that is one sentence.
fn check_missing_symbols(firmware: &Path, image: &Path, pc: u32) {
    let no_lines = firmware.with_file_name("no-lines.elf");
    run(Command::new("arm-none-eabi-objcopy")
        .arg("--strip-debug")
        .arg(firmware)
        .arg(&no_lines));
    let symbols = Symbols::read(&no_lines).unwrap();
    assert!(!symbols.has_lines());
    assert_eq!(symbols.locate(pc.into()).as_deref(), Some("crasher_task"));

    let stripped = firmware.with_file_name("stripped.elf");
    run(Command::new("arm-none-eabi-strip")
        .arg(firmware)
        .arg("-o")
        .arg(&stripped));
    let options = tband_capture::flight_cli::Options {
        elf: stripped.clone(),
        memory: Memory::RamImage {
            path: image.to_path_buf(),
            base: None,
        },
        output: firmware.with_file_name("never-written.bin"),
    };
    let error = tband_capture::flight_cli::run(&options, &mut Vec::new()).unwrap_err();
    assert_eq!(
        error,
        format!(
            "{} has no tband_flight_recorder symbol: the firmware does not use tband's \
             post-mortem backend, or the file is stripped",
            stripped.display()
        )
    );
    assert!(Symbols::read(&stripped).is_err());
}
