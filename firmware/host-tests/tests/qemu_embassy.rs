//! Builds the embassy example firmware (`firmware/embassy-cortex-m3`: a
//! thread-mode and an interrupt executor traced through embassy's own
//! trace hooks), runs it on QEMU's lm3s6965evb and checks the model of the
//! trace it writes: the polls of each task equal the counts the firmware
//! printed, every task and executor has its name, the task that waits on
//! a `Signal` waits and the one that yields never does, the interrupt
//! executor's task runs inside the thread-mode tasks' polls, no anomalies;
//! and the defmt lines its tasks and SysTick log, decoded with its ELF, in
//! the model, `tband-decode`'s listing, the `logs` SQL table and the
//! Perfetto export, each with its exact text and level, on its task, in
//! time order. Without qemu-system-arm or the rustup target the test says why and
//! passes, unless TBAND_REQUIRE_QEMU=1.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tband_host_tests::embassy::{polls_per_task, waited};
use tband_host_tests::qemu::{self, build_embassy_firmware};
use tband_host_tests::run;
use tband_model::timeline::{Section, Timeline};
use tband_model::{Actor, AnomalyKind, LogLevel, Model, TaskStateKind};
use tband_trace::{OpenOptions, Trace};

#[path = "../../../tests/trace_processor/shell.rs"]
mod shell;

/// The lines the firmware logs, in time order: who logs it (a task, or
/// the ISR SysTick), its level and its text as defmt formats it.
const LOG_LINES: [(&str, LogLevel, &str); 7] = [
    ("ticker", LogLevel::Info, "ticker: tick 10 of 30"),
    ("SysTick", LogLevel::Trace, "SysTick: tick 15"),
    ("ticker", LogLevel::Info, "ticker: tick 20 of 30"),
    ("ticker", LogLevel::Info, "ticker: tick 30 of 30"),
    ("fast", LogLevel::Warn, "fast: done at 0xcafe"),
    ("worker", LogLevel::Debug, "worker: stopped, offset is -7"),
    ("report", LogLevel::Error, "report: 3 tasks done, true"),
];

/// Builds the application and runs it in QEMU in the folder `run`
/// beside its ELF: the ELF, the trace it wrote and what it printed.
fn run_application(run_dir: &str) -> (PathBuf, PathBuf, String) {
    let elf = build_embassy_firmware("tband-embassy-cortex-m3", &["trace"]);
    let work = elf.with_file_name(run_dir);
    std::fs::create_dir_all(&work).unwrap();
    let trace = work.join("trace.bin");
    let _ = std::fs::remove_file(&trace);
    let out = run(qemu::qemu().current_dir(&work).arg("-kernel").arg(&elf));
    (elf, trace, String::from_utf8(out.stdout).unwrap())
}

fn with_elf(elf: &Path) -> OpenOptions {
    OpenOptions {
        elf: Some(elf.to_path_buf()),
        ..OpenOptions::default()
    }
}

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
    let (elf, trace, printed) = run_application("run");
    let model = Trace::open(&[trace.display().to_string()], &with_elf(&elf))
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

/// The name of the task or ISR that logged `actor`'s line.
fn logged_by(model: &Model, actor: Option<Actor>) -> String {
    match actor {
        Some(Actor::Task(id)) => model.task_by_id(id).unwrap().name.clone(),
        Some(Actor::Isr(key)) => model.isr(key).unwrap().name.clone(),
        None => panic!("a line logged where nothing was running"),
    }
}

/// Whether the task or ISR `actor` was running at `ts`: a scheduling
/// slice of the task, or a run of the ISR, holds it.
fn running_at(model: &Model, actor: Actor, ts: u64) -> bool {
    match actor {
        Actor::Task(id) => {
            let task = model.tasks.iter().position(|t| t.task_id == id).unwrap() as u32;
            (model.sched_slices.iter())
                .any(|s| s.task == task && s.start_ns <= ts && ts <= s.end_ns)
        }
        Actor::Isr(key) => {
            let isr = model
                .isrs
                .iter()
                .position(|i| i.isr_id == key.isr_id)
                .unwrap() as u32;
            (model.isr_slices.iter()).any(|s| s.isr == isr && s.start_ns <= ts && ts <= s.end_ns)
        }
    }
}

/// `tband-decode --pretty --elf ELF TRACE`: the listing's lines.
fn decode_listing(trace: &Path, elf: &Path) -> Vec<String> {
    let out = trace.with_file_name("listing.txt");
    let options = tband_cli::decode::Options {
        inputs: vec![trace.display().to_string()],
        input: with_elf(elf),
        pretty: true,
        output: Some(out.clone()),
        ..Default::default()
    };
    assert_eq!(tband_cli::decode::run(&options), Ok(ExitCode::SUCCESS));
    let text = std::fs::read_to_string(out).unwrap();
    text.lines().map(str::to_string).collect()
}

/// `tband-query --elf ELF TRACE -e SQL --format csv`: the lines of its output.
fn query_logs(trace: &Path, elf: &Path, sql: &str) -> Vec<String> {
    let out = trace.with_file_name("logs.csv");
    let options = tband_query::cli::Options {
        args: vec![trace.display().to_string()],
        execute: Some(sql.to_string()),
        format: Some(tband_query::output::Format::Csv),
        output: Some(out.clone()),
        input: with_elf(elf),
        ..Default::default()
    };
    let code = tband_query::cli::run(options).unwrap_or_else(|e| panic!("{sql}: {e}"));
    assert_eq!(code, ExitCode::SUCCESS);
    let text = std::fs::read_to_string(out).unwrap();
    text.lines().map(str::to_string).collect()
}

/// `tband-perfetto --elf ELF TRACE -o OUT`.
fn perfetto_export(trace: &Path, elf: &Path) -> PathBuf {
    let out = trace.with_file_name("trace.pftrace");
    let options = tband_perfetto::cli::Options {
        inputs: vec![trace.display().to_string()],
        input: with_elf(elf),
        output: Some(out.clone()),
        gzip: false,
        format: tband_perfetto::cli::OutputFormat::Perfetto,
        export: tband_perfetto::ExportOptions::default(),
        serve: None,
        window: Default::default(),
    };
    tband_perfetto::cli::run(&options).unwrap();
    out
}

#[test]
fn defmt_lines_in_qemu() {
    if !qemu::tools_present() {
        return;
    }
    let (elf, trace, _) = run_application("run-defmt");
    let inputs = [trace.display().to_string()];

    // Without the ELF the frames are counted, not lost.
    let blind = Trace::open(&inputs, &OpenOptions::default()).unwrap().model;
    assert_eq!(
        blind.anomaly_count(AnomalyKind::UndecodedLogs),
        LOG_LINES.len() as u64
    );
    assert!(blind.logs.iter().all(|l| l.message.is_none()));

    // The model: each line's text and level, on the task or ISR that was
    // running then, in time order.
    let model = Trace::open(&inputs, &with_elf(&elf)).unwrap().model;
    assert!(model.anomalies.is_empty(), "{:?}", model.anomalies);
    let lines: Vec<(String, LogLevel, &str)> = (model.logs.iter())
        .map(|l| {
            let message = l.message.as_ref().expect("every line decodes");
            let level = message.level.expect("every line has a level");
            (logged_by(&model, l.by), level, message.text.as_str())
        })
        .collect();
    let expected: Vec<(String, LogLevel, &str)> = (LOG_LINES.iter())
        .map(|&(by, level, text)| (by.to_string(), level, text))
        .collect();
    assert_eq!(lines, expected);
    assert!(model.logs.windows(2).all(|w| w[0].ts_ns <= w[1].ts_ns));
    for line in &model.logs {
        assert!(running_at(&model, line.by.unwrap(), line.ts_ns), "{line:?}");
        let message = line.message.as_ref().unwrap();
        assert!(message.file.as_deref().unwrap().ends_with("src/main.rs"));
        assert!(message.line.unwrap() > 0);
    }

    // The timeline every view draws (the terminal viewer's rows and
    // detail pane among them): an instant per line on its task's `Logs`
    // track (SysTick's in the group "Logs"), described with its level,
    // text and who logged it.
    let timeline = Timeline::new(&model);
    let mut drawn = Vec::new();
    for layer in &timeline.layers {
        layer.visit(&model, 0..layer.len(&model), &mut |row, item| {
            let track = &timeline.tracks[item.track as usize];
            if track.section() == Some(Section::Logs) {
                let mut details = Vec::new();
                layer.describe(&model, row, &mut details);
                drawn.push((timeline.full_name(&model, track), item.name.text, details));
            }
        });
    }
    assert_eq!(drawn.len(), LOG_LINES.len());
    for ((track, name, details), (by, level, text)) in drawn.iter().zip(LOG_LINES) {
        let expected_track = match by {
            "SysTick" => "SysTick".to_string(),
            task => format!("{task}/Logs"),
        };
        assert_eq!((track.as_str(), *name), (expected_track.as_str(), text));
        let detail = |label: &str| details.iter().find(|(l, _)| *l == label).unwrap().1.clone();
        assert_eq!(detail("level"), level.as_str());
        assert_eq!(detail("text"), text);
        assert_eq!(detail("by"), by);
        assert!(detail("at").contains("src/main.rs:"), "{details:?}");
    }

    // tband-decode: the lines among the trace's events, in time order.
    let listing = decode_listing(&trace, &elf);
    let logged: Vec<&String> = listing
        .iter()
        .filter(|l| l.contains("defmt_frame"))
        .collect();
    assert_eq!(logged.len(), LOG_LINES.len());
    for (line, (_, level, text)) in logged.iter().zip(LOG_LINES) {
        let shown = format!(" {:<5} \"{text}\" (", level.as_str());
        assert!(line.contains(&shown), "{line} lacks {shown}");
    }
    let times: Vec<f64> = (listing.iter())
        .filter_map(|l| l.trim_start().split_once("µs"))
        .map(|(t, _)| t.parse().unwrap())
        .collect();
    assert!(times.len() > 1000 && times.windows(2).all(|w| w[0] <= w[1]));

    // tband-query: the logs table, with the task and ISR by name.
    let rows = query_logs(
        &trace,
        &elf,
        "select coalesce(t.name, i.name) as who, l.level, l.text from logs l \
         left join tasks t using (task_id) \
         left join isrs i on i.isr_id = l.isr_id and i.core_id = l.core_id \
         order by l.ts_ns",
    );
    let expected_rows: Vec<String> = (LOG_LINES.iter())
        .map(|(by, level, text)| match text.contains(',') {
            true => format!("{by},{},\"{text}\"", level.as_str()),
            false => format!("{by},{},{text}", level.as_str()),
        })
        .collect();
    assert_eq!(rows[0], "who,level,text");
    assert_eq!(rows[1..], expected_rows);

    // The Perfetto export: instants with the text, the level as an
    // argument, on the task's own track (the ISR's under "Logs").
    let pftrace = perfetto_export(&trace, &elf);
    let Some(shell) = shell::trace_processor() else {
        return;
    };
    let sql = "select coalesce(th.name, t.name) as who, \
               extract_arg(s.arg_set_id, 'debug.level') as level, s.name \
               from slice s join track t on s.track_id = t.id \
               left join thread_track tt on tt.id = t.id left join thread th using (utid) \
               where t.name = 'Logs' or t.parent_id in (select id from track where name = 'Logs') \
               order by s.ts"
        .to_string();
    let rows = shell::report_rows(&shell, &[sql], &pftrace).remove(0);
    let expected_rows: Vec<Vec<String>> = (LOG_LINES.iter())
        .map(|(by, level, text)| vec![by.to_string(), level.as_str().into(), text.to_string()])
        .collect();
    assert_eq!(rows, expected_rows);
}

/// Runs the cost program (`poll_cost`) in QEMU at one instruction per
/// nanosecond; returns the instructions per poll it printed.
fn instructions_per_poll(features: &[&str]) -> u64 {
    printed_instructions("poll_cost", features, "embassy poll: ")
}

/// Runs the cost program `bin`, built with `features`, in QEMU at one
/// instruction per nanosecond; returns the count it printed after `label`.
fn printed_instructions(bin: &str, features: &[&str], label: &str) -> u64 {
    let elf = build_embassy_firmware(bin, features);
    let out = run(qemu::qemu_counting_instructions().arg("-kernel").arg(&elf));
    let printed = String::from_utf8(out.stdout).unwrap();
    let line = printed.lines().find_map(|l| l.strip_prefix(label));
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

/// Runs the cost program (`defmt_cost`) with one logger in QEMU at one
/// instruction per nanosecond; returns the instructions per line it
/// printed (it fails, and so does this, if tband's snapshot lost a line).
fn instructions_per_line(logger: &str) -> u64 {
    printed_instructions("defmt_cost", &[logger], "defmt line: ")
}

/// A defmt line through tband's logger and through defmt-rtt: both cost
/// instructions, tband's keeps every line. The figures are in
/// docs/performance.md.
#[test]
fn defmt_cost_in_qemu() {
    if !qemu::tools_present() {
        return;
    }
    let tband = instructions_per_line("trace");
    let rtt = instructions_per_line("defmt-rtt");
    println!("instructions per defmt line: {tband} through tband, {rtt} through defmt-rtt");
    assert!(tband > 0 && rtt > 0, "{tband}, {rtt}");
}
