//! The same application traced two ways tells the same story: the FreeRTOS
//! example on Cortex-M3 (QEMU's mps2-an385, `-icount shift=4`) built once
//! traced by tband (the default `make`, its snapshot written out through
//! semihosting) and once by SEGGER SystemView (`make TRACER=systemview`,
//! its RTT channel recorded through QEMU's gdbstub by `tband-capture`),
//! each run for 0.5 s and read into the model. Against the first tracer,
//! every other has the same tasks (names, priorities) and ISRs (names),
//! each task's context switches within 1 %, its CPU load within 0.5
//! percentage points, each ISR's count, the operations on each queue and
//! every user message's text.
//!
//! What a tracer costs shifts the application's timing, and the test says
//! where it lets that show:
//! - The runs last as long as the application's own window (`window_ns` in
//!   its record), which differs between the builds (by 4 ms of 522, the
//!   tasks' first round taking longer under one tracer): counts are
//!   compared scaled to the first tracer's window, within 1 % or one event.
//! - An interrupt not tied to the tick (TIMER0) lands in whichever task runs
//!   then, which depends on that shifted schedule; the task it wakes
//!   (through a semaphore) preempts that task, whose resumption is one more
//!   context switch. Those resumptions are counted apart (the model's ready
//!   states say which ISR woke a task) and left out of the comparison.
//! - SystemView does not record a counting semaphore's initial count, and
//!   its FreeRTOS integration records a failed take as it records a
//!   successful one, so no level rules failed takes out: for a counting
//!   semaphore, the receives of a tracer without levels may exceed the
//!   first's by its failed takes; its sends are equal.
//!
//! Across tracers, `tband-query diff` compares builds: the corpus's
//! SystemView recording of this example against a tband trace of the next
//! build, in which the busy task spins 25 ms of every 50 instead of 20,
//! matches every task by its id and name, and a budget of CPU load
//! catches the busy task's change (and its core's total) and nothing else.
//!
//! A tracer is one entry of [`TRACERS`]. Needs what `tests/freertos.rs`'s
//! Cortex-M3 test and `tests/systemview.rs` need; skips with a message
//! without them, and fails instead under `TBAND_REQUIRE_VENDOR_TRACERS=1`.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tband_model::{Model, QueueOpKind, TaskKind, TaskStateKind};
use tband_trace::{OpenOptions, Trace};

mod example;
use example::{
    build_systemview, build_tracerecorder, record_cortex_m3, record_systemview,
    record_tracerecorder, repo, systemview_sources, thumbv7m_target, tracerecorder_sources,
};

const CPPFLAGS: &str = "-DRUN_NS=500000000ull";

/// The build inputs: the vendors' target sources and the kernel.
struct Inputs {
    systemview: PathBuf,
    tracerecorder: PathBuf,
    kernel: PathBuf,
}

/// A tracer of the example: its name and how its trace is made (returns
/// the trace's path and the folder the application wrote its record in).
struct Tracer {
    name: &'static str,
    /// The tasks the tracer itself adds, which the application does not
    /// have: left out of its story.
    own_tasks: &'static [&'static str],
    record: fn(&Inputs) -> (PathBuf, PathBuf),
}

const TRACERS: &[Tracer] = &[
    Tracer {
        name: "tband",
        own_tasks: &[],
        record: |inputs| {
            let dir = record_cortex_m3(&inputs.kernel, "agree-tband", CPPFLAGS);
            (dir.join("trace.bin"), dir)
        },
    },
    Tracer {
        name: "systemview",
        own_tasks: &[],
        record: |inputs| {
            let (dir, firmware) = build_systemview(
                &inputs.systemview,
                &inputs.kernel,
                "agree-systemview",
                CPPFLAGS,
            );
            (record_systemview(&dir, &firmware, None), dir)
        },
    },
    Tracer {
        name: "tracerecorder",
        // The recorder's name for the code before the scheduler, and its
        // control task.
        own_tasks: &["(startup)", "TzCtrl"],
        record: |inputs| {
            let (dir, firmware) = build_tracerecorder(
                &inputs.tracerecorder,
                &inputs.kernel,
                "Jlink_RTT",
                "agree-tracerecorder",
                CPPFLAGS,
            );
            (record_tracerecorder(&dir, &firmware), dir)
        },
    },
];

/// The marker every tracer's build puts the application's messages on
/// (TraceRecorder's build also prints TIMER0's ticks, on a channel of their
/// own).
const MESSAGES: &str = "log";

/// The application's tick interrupt: the tasks' delays count its ticks.
const TICK_ISR: &str = "SysTick";

/// What a trace says of a task.
struct TaskStory {
    /// Its first priority.
    priority: Option<u32>,
    /// Its context switches (slices).
    switches: usize,
    /// Its resumptions after a task an interrupt other than the tick woke
    /// preempted it.
    resumed_after_interrupt: usize,
    /// Its share of the trace's time, in percent.
    load: f64,
}

/// What a trace says of the application, by name.
struct Story {
    /// The application's window, by its own clock.
    window_ns: u64,
    tasks: BTreeMap<String, TaskStory>,
    isr_counts: BTreeMap<String, usize>,
    /// Per queue, its sends (with overwrites), its receives, and whether
    /// the trace knows its levels.
    queue_ops: BTreeMap<String, (usize, usize, bool)>,
    messages: Vec<String>,
}

/// The application's window from its record (`truth.txt` in `dir`).
fn window_ns(dir: &Path) -> u64 {
    let truth = std::fs::read_to_string(dir.join("truth.txt")).unwrap();
    let line = truth
        .lines()
        .find_map(|l| l.strip_prefix("count window_ns "));
    line.expect("the application's window").parse().unwrap()
}

/// For each task, how often it was resumed after a task woken by an
/// interrupt other than the tick preempted it.
fn resumptions_after_interrupts(m: &Model) -> Vec<usize> {
    let woken_by_interrupt: HashSet<(u32, u64)> = m
        .task_states
        .iter()
        .filter(|s| s.state == TaskStateKind::Ready)
        .filter(|s| {
            s.woken_by_isr
                .is_some_and(|i| m.isrs[i as usize].name != TICK_ISR)
        })
        .map(|s| (s.task, s.end_ns))
        .collect();
    let mut resumed = vec![0; m.tasks.len()];
    let slices: Vec<_> = m.sched_slices.iter().collect();
    for pair in slices.windows(2) {
        let (preempted, next) = (pair[0], pair[1]);
        if preempted.end_state == Some(TaskStateKind::Ready)
            && woken_by_interrupt.contains(&(next.task, next.start_ns))
        {
            resumed[preempted.task as usize] += 1;
        }
    }
    resumed
}

fn story(trace: &Path, dir: &Path, own_tasks: &[&str]) -> Story {
    let trace = Trace::open(
        &[trace.to_str().unwrap().to_string()],
        &OpenOptions::default(),
    )
    .unwrap();
    let m: &Model = &trace.model;
    assert!(m.anomalies.is_empty(), "{:?}", m.anomalies);
    let span = m.info.duration_ns as f64;
    let resumed = resumptions_after_interrupts(m);
    let mut tasks = BTreeMap::new();
    for (index, task) in m.tasks.iter().enumerate() {
        if task.kind == TaskKind::Idle || own_tasks.contains(&task.name.as_str()) {
            continue;
        }
        let index = index as u32;
        let slices: Vec<_> = m.sched_slices.iter().filter(|s| s.task == index).collect();
        let run_ns: u64 = slices.iter().map(|s| s.end_ns - s.start_ns).sum();
        let priority = m
            .task_priorities
            .iter()
            .find(|p| p.task == index)
            .map(|p| p.priority);
        tasks.insert(
            task.name.clone(),
            TaskStory {
                priority,
                switches: slices.len(),
                resumed_after_interrupt: resumed[index as usize],
                load: 100.0 * run_ns as f64 / span,
            },
        );
    }
    let mut isr_counts = BTreeMap::new();
    for slice in m.isr_slices.iter() {
        *isr_counts
            .entry(m.isrs[slice.isr as usize].name.clone())
            .or_insert(0) += 1;
    }
    let mut queue_ops = BTreeMap::new();
    for op in m.queue_ops.iter() {
        let counts = queue_ops
            .entry(m.queues[op.queue as usize].name.clone())
            .or_insert((0, 0, true));
        counts.2 &= op.len_after.is_some();
        match op.op {
            QueueOpKind::Send | QueueOpKind::Overwrite => counts.0 += 1,
            QueueOpKind::Receive => counts.1 += 1,
            QueueOpKind::Reset | QueueOpKind::Level => {}
        }
    }
    let messages = m
        .marker_instants
        .iter()
        .filter(|i| m.markers[i.marker as usize].name == MESSAGES)
        .map(|i| m.strings.get(i.msg).to_string())
        .collect();
    Story {
        window_ns: window_ns(dir),
        tasks,
        isr_counts,
        queue_ops,
        messages,
    }
}

/// A story as a table, for the test's output.
fn print_story(tracer: &str, story: &Story) {
    println!("{tracer}: window {:.2} ms", story.window_ns as f64 / 1e6);
    for (name, t) in &story.tasks {
        println!(
            "  task {name:<11} priority {:?} switches {:>4} ({} after interrupts) load {:>6.2} %",
            t.priority, t.switches, t.resumed_after_interrupt, t.load
        );
    }
    for (name, count) in &story.isr_counts {
        println!("  isr  {name:<11} {count}");
    }
    for (name, (sends, receives, levels)) in &story.queue_ops {
        let levels = if *levels { "" } else { ", no levels" };
        println!("  queue {name:<10} {sends} sends, {receives} receives{levels}");
    }
    println!("  {} messages", story.messages.len());
}

/// Whether `count` of a run of `window_ns` is `reference` of one of
/// `reference_window_ns`, within 1 % or one event.
fn same_count(count: usize, window_ns: u64, reference: usize, reference_window_ns: u64) -> bool {
    let scaled = count as f64 * reference_window_ns as f64 / window_ns as f64;
    (scaled - reference as f64).abs() <= (reference as f64 * 0.01).max(1.0)
}

/// The differences of `other` from `reference`, one line each.
fn differences(reference: &Story, other: &Story) -> Vec<String> {
    let mut out = Vec::new();
    let same = |count: usize, reference_count: usize| {
        same_count(count, other.window_ns, reference_count, reference.window_ns)
    };
    let names = |s: &Story| s.tasks.keys().cloned().collect::<Vec<_>>();
    if names(reference) != names(other) {
        out.push(format!(
            "tasks {:?} against {:?}",
            names(other),
            names(reference)
        ));
    }
    for (name, r) in &reference.tasks {
        let Some(o) = other.tasks.get(name) else {
            continue;
        };
        if o.priority != r.priority {
            out.push(format!(
                "{name}: priority {:?} against {:?}",
                o.priority, r.priority
            ));
        }
        let switches = |t: &TaskStory| t.switches - t.resumed_after_interrupt;
        if !same(switches(o), switches(r)) {
            out.push(format!(
                "{name}: {} context switches against {} (less resumptions after interrupts)",
                switches(o),
                switches(r)
            ));
        }
        if (o.load - r.load).abs() > 0.5 {
            out.push(format!(
                "{name}: CPU load {:.2} % against {:.2} %",
                o.load, r.load
            ));
        }
    }
    let isr_names = |s: &Story| s.isr_counts.keys().cloned().collect::<Vec<_>>();
    if isr_names(reference) != isr_names(other) {
        out.push(format!(
            "ISRs {:?} against {:?}",
            isr_names(other),
            isr_names(reference)
        ));
    }
    for (name, &count) in &reference.isr_counts {
        let o = other.isr_counts.get(name).copied().unwrap_or(0);
        if !same(o, count) {
            out.push(format!("{name}: {o} interrupts against {count}"));
        }
    }
    if reference.queue_ops.keys().ne(other.queue_ops.keys()) {
        out.push(format!(
            "queues {:?} against {:?}",
            other.queue_ops.keys(),
            reference.queue_ops.keys()
        ));
    }
    for (name, &(sends, receives, _)) in &reference.queue_ops {
        let Some(&(o_sends, o_receives, o_levels)) = other.queue_ops.get(name) else {
            continue;
        };
        let receives_agree = if o_levels {
            o_receives == receives
        } else {
            o_receives >= receives
        };
        if o_sends != sends || !receives_agree {
            out.push(format!(
                "{name}: {o_sends} sends, {o_receives} receives against {sends}, {receives}"
            ));
        }
    }
    if reference.messages != other.messages {
        out.push(format!(
            "messages {:?} against {:?}",
            other.messages, reference.messages
        ));
    }
    out
}

/// The build inputs, or `None` after saying why the test skips (failing
/// under `TBAND_REQUIRE_VENDOR_TRACERS=1`).
fn inputs() -> Option<Inputs> {
    let (systemview, kernel) = systemview_sources()?;
    let (tracerecorder, _) = tracerecorder_sources()?;
    if let Err(why) = thumbv7m_target() {
        assert!(
            std::env::var("TBAND_REQUIRE_VENDOR_TRACERS").as_deref() != Ok("1"),
            "TBAND_REQUIRE_VENDOR_TRACERS=1 but {why}"
        );
        println!("skipped: {why}");
        return None;
    }
    Some(Inputs {
        systemview,
        tracerecorder,
        kernel,
    })
}

#[test]
fn every_tracer_tells_the_same_story_of_the_application() {
    let Some(inputs) = inputs() else {
        return;
    };
    let stories: Vec<(&str, Story)> = TRACERS
        .iter()
        .map(|tracer| {
            let (trace, dir) = (tracer.record)(&inputs);
            (tracer.name, story(&trace, &dir, tracer.own_tasks))
        })
        .collect();
    for (name, story) in &stories {
        print_story(name, story);
    }
    let (reference_name, reference) = &stories[0];
    let mut failures = Vec::new();
    for (name, other) in &stories[1..] {
        failures.extend(
            differences(reference, other)
                .into_iter()
                .map(|d| format!("{name} against {reference_name}: {d}")),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_systemview_recording_of_one_build_diffs_against_a_tband_trace_of_the_next() {
    let Some(inputs) = inputs() else {
        return;
    };
    let old = repo().join("tests/corpus/systemview/freertos_cm3.sysview");
    let next = record_cortex_m3(
        &inputs.kernel,
        "diff-tband",
        &format!("{CPPFLAGS} -DBUSY_SPIN_NS=25000000ull"),
    );
    let out = next.join("diff.csv");
    let budget = "cpu_load.load_pct > +5";
    let code = tband_query::cli::diff(tband_query::cli::DiffOptions {
        old: old.to_str().unwrap().to_string(),
        new: next.join("trace.bin").to_str().unwrap().to_string(),
        reports: vec!["cpu_load".into()],
        budgets: vec![budget.parse().unwrap()],
        changed_only: false,
        engine: None,
        format: Some(tband_query::output::Format::Csv),
        params: Vec::new(),
        output: Some(out.clone()),
        input: OpenOptions::default(),
    })
    .unwrap();
    assert_eq!(
        code,
        ExitCode::from(tband_query::cli::EXIT_ROWS),
        "{budget} holds"
    );
    let csv = std::fs::read_to_string(&out).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let (task, kind, value, change, status) = (
        column("task_name"),
        column("kind"),
        column("column"),
        column("change"),
        column("status"),
    );
    let mut tasks = 0;
    let mut over_budget = Vec::new();
    for line in lines {
        let row: Vec<&str> = line.split(',').collect();
        assert!(
            row[status] == "same" || row[status] == "changed",
            "matched on both sides: {line}"
        );
        if row[value] != "load_pct" {
            continue;
        }
        let load_change: f64 = row[change].parse().unwrap();
        if load_change > 5.0 {
            over_budget.push(row[task]);
        }
        if row[task] == "busy" {
            assert!((8.0..12.0).contains(&load_change), "{line}");
        }
        tasks += usize::from(row[kind] != "total");
    }
    assert_eq!(over_budget, ["busy", "(core total)"]);
    assert_eq!(
        tasks, 13,
        "every task, the idle and timer tasks too:\n{csv}"
    );
}
