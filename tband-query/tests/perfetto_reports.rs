//! Runs every canned report in SQLite (the `tband-query` binary) and in
//! Perfetto's own trace processor (its PerfettoSQL form, `queries/perfetto/`,
//! on the `.pftrace` export) on each recording of `tests/corpus/` and
//! `samples/`, on the Zephyr network-buffer trace the lifetime tests write
//! and on the trace of the memory stream (`tests/memory/stream.rs`, with
//! an idle task's stack and an ISR's allocation besides), and
//! compares them row by row: the same columns, in the same order, and the
//! same rows (sorted; numbers compared as numbers, so that `4.02` and
//! `4.020000` are one value).
//!
//! Where a column cannot come from the export, the PerfettoSQL file says so
//! in its header, and the SQLite rows are made what the export can say
//! before they are compared ([`perfetto_view`]):
//! - a task is a Perfetto thread: `task_id` becomes the thread id (`tid`),
//!   an idle task is Perfetto's idle thread (tid 0, named `swapper`), and a
//!   timer task's kind is `normal`; `task_states`, `task_response` and the
//!   reports of a task's waits and wake-ups leave idle tasks out;
//! - `isr_latency` has no `isr_id` (Perfetto keeps no IRQ number), and an
//!   ISR's name is cut as Perfetto cuts its slice name, to 254 bytes;
//! - `object_lifetimes` and `pool_low_water` have no `pool_key`,
//!   `object_leaks` no `name`;
//! - `heap_usage` has no `total_size`, `stack_margin` no `stack_size` and
//!   `used_pct` (the export does not say how big a heap or a stack is);
//! - `trace_health` has no `events` and no `coverage` row.
//!
//! Not compared, and why:
//! - the canned reports without a PerfettoSQL form ([`NO_PERFETTO_FORM`]);
//! - `markers` row by row: Perfetto tells an instant from a span of 0 ns
//!   only by how it was written, and knows no marker ids or value markers
//!   (counters); its rows are compared with SQLite's span and instant rows
//!   summed per track name and message ([`marker_sums`]);
//! - an ISR (`isr_latency`) or a count of open ISRs (`trace_health`) on a
//!   recording with an execution whose exit was lost before the end of the
//!   trace (not at its end, which is open in Perfetto): the export ends it
//!   where the model does, so Perfetto counts it as done and SQLite does
//!   not (their number is printed);
//! - the ISRs and markers with an event Perfetto drops, more than 2^63 ns
//!   after the first ([`LAST_TIME`]), and on a recording that lasts that
//!   long, the core totals of `cpu_load` (the trace's duration is beyond
//!   Perfetto's times) and the open counts of `trace_health` (a span whose
//!   end Perfetto drops stays open there).
//!
//! `samples/demo.bin`'s `isr_latency`, whose recording ends inside a DMA0
//! interrupt, must moreover be the same on both and have that DMA0 row.
//!
//! `tband-query --engine perfetto` is run on two samples and must give,
//! report for report, the rows the shell gives; without a shell it must say
//! where to get one.
//!
//! The shell is found as [`shell::trace_processor`] says.

#[path = "../../tests/golden/harness.rs"]
mod harness;
#[path = "../../tests/lifetimes/net_buf_trace.rs"]
mod net_buf_trace;
#[path = "../../tests/trace_processor/shell.rs"]
mod shell;
#[path = "../../tests/memory/stream.rs"]
mod stream;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::time::Instant;

use tband::Event;
use tband_decode::encode::encode_stream;
use tband_model::{IsrKey, Model, TaskKind};
use tband_perfetto::threads::Threads;
use tband_perfetto::ExportOptions;
use tband_trace::{OpenOptions, Trace};

/// The reports with a PerfettoSQL form, run in one go in this order.
const REPORTS: [&str; 15] = [
    "cpu_load",
    "isr_latency",
    "isr_to_task_latency",
    "task_states",
    "task_response",
    "wait_reasons",
    "queue_levels",
    "markers",
    "trace_health",
    "object_lifetimes",
    "object_leaks",
    "pool_low_water",
    "heap_usage",
    "heap_leaks",
    "stack_margin",
];

/// The canned reports with no PerfettoSQL form, and why.
const NO_PERFETTO_FORM: [(&str, &str); 2] = [
    (
        "queue_high_water",
        "sends, receives, capacity, kind and mutex holds are not exported per queue",
    ),
    (
        "cpu_load_timeline",
        "it takes a parameter (:window_ms), which a PerfettoSQL file run by the \
         shell or the UI extension cannot be given",
    ),
];

/// Columns of a SQLite report that its PerfettoSQL form has not, as its
/// header says.
const SQLITE_ONLY: [(&str, &str); 7] = [
    ("isr_latency", "isr_id"),
    ("object_lifetimes", "pool_key"),
    ("object_leaks", "name"),
    ("pool_low_water", "pool_key"),
    ("heap_usage", "total_size"),
    ("stack_margin", "stack_size"),
    ("stack_margin", "used_pct"),
];

/// A report's columns and rows, every field as text (NULL as empty).
struct Table {
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

/// A field as both sides print it: numbers in one form.
fn normal(field: &str) -> String {
    match field.parse::<f64>() {
        Ok(x) if x.fract() == 0.0 && x.abs() < 9e15 => format!("{}", x as i64),
        Ok(x) => format!("{x}"),
        Err(_) => field.to_string(),
    }
}

/// The rows of `tband-query`'s CSV: quoted fields may hold commas and `""`.
fn parse_csv(set: &str) -> Table {
    let mut lines = set.lines().map(|line| {
        let mut fields = Vec::new();
        let mut field = String::new();
        let mut quoted = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '"' if quoted && chars.peek() == Some(&'"') => {
                    field.push('"');
                    chars.next();
                }
                '"' => quoted = !quoted,
                ',' if !quoted => fields.push(std::mem::take(&mut field)),
                c => field.push(c),
            }
        }
        fields.push(field);
        fields
    });
    Table {
        columns: lines.next().unwrap_or_default(),
        rows: lines.collect(),
    }
}

/// Runs `query` (a file, or SQL after `-e`) with `tband-query` on `inputs`.
fn tband_query(inputs: &[String], query: &[&str]) -> Table {
    let output = Command::new(env!("CARGO_BIN_EXE_tband-query"))
        .current_dir(harness::root())
        .args(inputs)
        .args(query)
        .args(["--format", "csv"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).expect("CSV in UTF-8");
    assert!(
        output.status.success(),
        "tband-query {inputs:?} {query:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    parse_csv(&stdout)
}

/// The reports' PerfettoSQL forms run by the shell on `pftrace`.
fn perfetto_tables(shell: &std::path::Path, pftrace: &std::path::Path) -> Vec<Table> {
    let texts: Vec<String> = REPORTS
        .iter()
        .map(|r| {
            std::fs::read_to_string(harness::root().join(format!("queries/perfetto/{r}.sql")))
                .unwrap()
        })
        .collect();
    shell::report_tables(shell, &texts, pftrace)
        .into_iter()
        .map(|(columns, rows)| Table { columns, rows })
        .collect()
}

/// The memory stream with an idle task's stack besides (the export draws
/// it apart from the other tasks' stacks, as an idle task has no thread)
/// and, at its end, an ISR's allocation never freed that makes a new peak:
/// who allocated is found from the ISR's slice then.
fn memory_events() -> Vec<(u64, Event<'static>)> {
    let mut events = stream::events();
    let first_timed = events.iter().position(|(ts, _)| *ts > 0).unwrap();
    let idle = [
        (
            0,
            Event::TaskName {
                task_id: 3,
                name: b"IDLE",
            },
        ),
        (
            0,
            Event::TaskIsIdleTask {
                task_id: 3,
                core_id: 0,
            },
        ),
        (
            0,
            Event::TaskStackSize {
                task_id: 3,
                size: 256,
            },
        ),
    ];
    events.splice(first_timed..first_timed, idle);
    events.extend([
        (
            21,
            Event::TaskStackFree {
                task_id: 3,
                free: 180,
            },
        ),
        (22, Event::IsrEnter { isr_id: 1 }),
        (
            23,
            Event::HeapAlloc {
                heap_id: 0,
                addr: 0x2000_0400,
                size: 512,
            },
        ),
        (24, Event::IsrExit { isr_id: 1 }),
    ]);
    events
}

/// Perfetto's times are signed: it drops events after this one.
const LAST_TIME: u64 = i64::MAX as u64;

/// What the export can say of the model's tasks, ISRs and markers.
struct Names<'m> {
    model: &'m Model,
    threads: Threads<'m>,
    /// Core and name of the ISRs with an execution whose exit was lost
    /// before the end of the trace, or one that Perfetto drops.
    isrs_left_out: BTreeSet<(String, String)>,
    /// Marker id and task id (empty: global) of the markers with a span or
    /// instant that Perfetto drops.
    markers_left_out: BTreeSet<(String, String)>,
    /// Whether the trace lasts beyond [`LAST_TIME`], so that Perfetto drops
    /// some of its events.
    drops_events: bool,
}

impl<'m> Names<'m> {
    fn new(model: &'m Model) -> Self {
        let end = model.info.duration_ns;
        let isrs_left_out = model
            .isr_slices
            .iter()
            .filter(|s| (s.truncated && s.end_ns < end) || s.end_ns > LAST_TIME)
            .map(|s| {
                (
                    s.core_id.to_string(),
                    Self::isr(model, s.core_id, model.isrs[s.isr as usize].isr_id),
                )
            })
            .collect();
        let marker = |marker: u32| {
            let marker = &model.markers[marker as usize];
            (
                marker.marker_id.to_string(),
                marker.task_id.map_or(String::new(), |t| t.to_string()),
            )
        };
        let markers_left_out = model
            .marker_spans
            .iter()
            .filter(|s| s.end_ns > LAST_TIME)
            .map(|s| marker(s.marker))
            .chain(
                model
                    .marker_instants
                    .iter()
                    .filter(|i| i.ts_ns > LAST_TIME)
                    .map(|i| marker(i.marker)),
            )
            .collect();
        Names {
            model,
            threads: Threads::new(model),
            isrs_left_out,
            markers_left_out,
            drops_events: end > LAST_TIME,
        }
    }

    /// The ISR's name as Perfetto shows it: it cuts its slice name
    /// `IRQ (<name>)` to 254 bytes.
    fn isr(model: &Model, core_id: u32, isr_id: u32) -> String {
        let name = model
            .isr(IsrKey { core_id, isr_id })
            .map_or("", |i| i.name.as_str());
        let slice = format!("IRQ ({name})");
        if slice.len() <= 254 {
            return name.to_string();
        }
        String::from_utf8_lossy(&slice.as_bytes()[5..254]).into_owned()
    }

    /// Whether a row of `report` (as Perfetto's form gives it) is left out
    /// of the comparison, as the module comment says.
    fn left_out(&self, report: &str, row: &[String]) -> bool {
        match report {
            "isr_latency" => self
                .isrs_left_out
                .contains(&(row[0].clone(), row[1].clone())),
            "trace_health" if row[0] == "open_isr_slices" => !self.isrs_left_out.is_empty(),
            "trace_health" if row[0].starts_with("open_") => self.drops_events,
            "cpu_load" if row[3] == "total" => self.drops_events,
            _ => false,
        }
    }

    /// The index in the model's tasks of the task with id `task_id` (as
    /// SQL gives it).
    fn task_index(&self, task_id: &str) -> Option<usize> {
        let id: u32 = task_id.parse().ok()?;
        self.model.tasks.iter().position(|t| t.task_id == id)
    }

    fn task(&self, task_id: &str) -> Option<&tband_model::Task> {
        Some(&self.model.tasks[self.task_index(task_id)?])
    }

    fn is_idle(&self, task_id: &str) -> bool {
        self.task(task_id).is_some_and(|t| t.kind == TaskKind::Idle)
    }

    /// The task's thread id (0 for an idle task).
    fn tid(&self, task_id: &str) -> String {
        self.threads.tid_at(self.task_index(task_id)).to_string()
    }

    /// The name of the track of a marker (`task_id` empty: global) named
    /// `name`: a task-local marker of an idle task is on a global track
    /// named after both.
    fn marker_track(&self, name: &str, task_id: &str) -> String {
        match self.task(task_id) {
            Some(task) if task.kind == TaskKind::Idle => format!("{}: {name}", task.name),
            _ => name.to_string(),
        }
    }
}

/// The SQLite rows of `report` as its PerfettoSQL form gives them (see the
/// module comment), or `None` for a report not compared row by row.
fn perfetto_view(report: &str, sqlite: Table, names: &Names) -> Table {
    let dropped: Vec<usize> = sqlite
        .columns
        .iter()
        .enumerate()
        .filter(|(_, c)| SQLITE_ONLY.contains(&(report, c.as_str())))
        .map(|(i, _)| i)
        .collect();
    let at = |name: &str| sqlite.columns.iter().position(|c| c == name);
    let (task, isr, kind) = (at("task_id"), at("isr_id"), at("kind"));
    let mut rows = Vec::new();
    for mut row in sqlite.rows {
        if let Some(t) = task.filter(|&t| !row[t].is_empty()) {
            let idle = names.is_idle(&row[t]);
            if idle && report != "cpu_load" {
                continue;
            }
            if idle {
                row[t + 1] = "swapper".into();
            }
            row[t] = names.tid(&row[t]);
        }
        if let Some(k) = kind.filter(|_| report == "cpu_load") {
            if row[k] == "timer" {
                row[k] = "normal".into();
            }
        }
        if let Some(i) = isr {
            let (core, id) = (row[0].parse().unwrap(), row[i].parse().unwrap());
            row[i + 1] = Names::isr(names.model, core, id);
        }
        if report == "trace_health" && (row[0] == "events" || row[0] == "coverage") {
            continue;
        }
        rows.push(
            row.into_iter()
                .enumerate()
                .filter(|(i, _)| !dropped.contains(i))
                .map(|(_, f)| f)
                .collect(),
        );
    }
    let columns = sqlite
        .columns
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !dropped.contains(i))
        .map(|(_, c)| if c == "task_id" { "tid".to_string() } else { c })
        .collect();
    Table { columns, rows }
}

/// SQLite's `markers` span and instant rows summed per track name and
/// message, as Perfetto's: count, total, min and max, without the markers
/// Perfetto drops events of.
fn marker_sums(sqlite: &Table, names: &Names) -> Vec<Vec<String>> {
    let mut sums: BTreeMap<(String, String), [i64; 4]> = BTreeMap::new();
    for r in sqlite.rows.iter().filter(|r| r[3] != "value") {
        if names
            .markers_left_out
            .contains(&(r[0].clone(), r[1].clone()))
        {
            continue;
        }
        let message = if r[4].is_empty() { &r[2] } else { &r[4] };
        let ns = |i: usize| r[i].parse::<i64>().unwrap_or(0);
        let (count, total, min, max) = (ns(5), ns(6), ns(7), ns(10));
        let key = (names.marker_track(&r[2], &r[1]), message.clone());
        let sum = sums.entry(key).or_insert([0, 0, i64::MAX, i64::MIN]);
        sum[0] += count;
        sum[1] += total;
        sum[2] = sum[2].min(min);
        sum[3] = sum[3].max(max);
    }
    sums.into_iter()
        .map(|((track, message), s)| {
            let mut row = vec![track, message];
            row.extend(s.iter().map(|v| v.to_string()));
            row
        })
        .collect()
}

/// The rows each side has and the other lacks, one line each, at most a
/// few of each; both sorted first, every field in [`normal`] form.
fn differences(perfetto: Vec<Vec<String>>, sqlite: Vec<Vec<String>>) -> Vec<String> {
    let counted = |rows: Vec<Vec<String>>| {
        let mut counts = BTreeMap::<Vec<String>, i64>::new();
        for row in rows {
            *counts
                .entry(row.iter().map(|f| normal(f)).collect())
                .or_default() += 1;
        }
        counts
    };
    let (mut p, s) = (counted(perfetto), counted(sqlite));
    for (row, n) in s {
        *p.entry(row).or_default() -= n;
    }
    p.into_iter()
        .filter(|(_, n)| *n != 0)
        .take(12)
        .map(|(row, n)| {
            let side = if n > 0 {
                "only Perfetto"
            } else {
                "only SQLite"
            };
            format!("{side}: {row:?}")
        })
        .collect()
}

#[test]
fn every_report_gives_the_same_rows_on_sqlite_and_trace_processor() {
    let Some(shell) = shell::trace_processor() else {
        return;
    };
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let forms: BTreeSet<String> = std::fs::read_dir(harness::root().join("queries/perfetto"))
        .unwrap()
        .map(|e| {
            e.unwrap()
                .path()
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let compared: BTreeSet<String> = REPORTS.iter().map(|r| r.to_string()).collect();
    assert_eq!(forms, compared, "every PerfettoSQL form is compared");
    let canned: BTreeSet<String> = tband_query::reports::CANNED
        .iter()
        .map(|(name, _)| name.to_string())
        .filter(|name| !name.starts_with("ci/"))
        .collect();
    let accounted: BTreeSet<String> = REPORTS
        .iter()
        .chain(NO_PERFETTO_FORM.iter().map(|(r, _)| r))
        .map(|r| r.to_string())
        .collect();
    assert_eq!(
        canned, accounted,
        "every canned report is compared or said why not"
    );

    let net_buf = net_buf_trace::write(dir.path());
    let memory = dir.path().join("memory.bin");
    std::fs::write(&memory, encode_stream(&memory_events())).unwrap();
    let mut traces: Vec<Vec<String>> = harness::traces().into_iter().map(|t| t.args).collect();
    traces.push(vec![net_buf.display().to_string()]);
    traces.push(vec![memory.display().to_string()]);
    let mut problems = Vec::new();
    let mut rows_compared = BTreeMap::<&str, usize>::new();
    let (mut isrs_left_out, mut markers_left_out) = (0, 0);
    for (n, inputs) in traces.iter().enumerate() {
        let absolute = harness::absolute(inputs);
        let model = Trace::open(&absolute, &OpenOptions::default())
            .unwrap_or_else(|e| panic!("{inputs:?}: {e}"))
            .model;
        let pftrace = dir.path().join(format!("{n}.pftrace"));
        let mut out = std::fs::File::create(&pftrace).unwrap();
        tband_perfetto::export(&model, ExportOptions::default(), &mut out).unwrap();
        drop(out);
        let names = Names::new(&model);
        isrs_left_out += names.isrs_left_out.len();
        markers_left_out += names.markers_left_out.len();
        for (report, perfetto) in REPORTS.iter().zip(perfetto_tables(&shell, &pftrace)) {
            let sqlite = tband_query(inputs, &[&format!("queries/{report}.sql")]);
            let sqlite_rows = if *report == "markers" {
                marker_sums(&sqlite, &names)
            } else {
                let sqlite = perfetto_view(report, sqlite, &names);
                if sqlite.columns != perfetto.columns {
                    problems.push(format!(
                        "{} {report}: columns: Perfetto {:?}, SQLite {:?}",
                        inputs.join(" "),
                        perfetto.columns,
                        sqlite.columns
                    ));
                    continue;
                }
                sqlite.rows
            };
            let mut perfetto_rows = perfetto.rows;
            perfetto_rows.retain(|r| !names.left_out(report, r));
            let mut sqlite_rows = sqlite_rows;
            sqlite_rows.retain(|r| !names.left_out(report, r));
            if *report == "markers" {
                perfetto_rows.retain(|r| {
                    !names.markers_left_out.iter().any(|(id, task)| {
                        let (id, task_id) = (id.parse().ok(), task.parse().ok());
                        let marker = names.model.markers.iter().find(|m| {
                            Some(m.marker_id) == id
                                && m.task_id == task_id
                                && m.kind == tband_model::MarkerKind::Event
                        });
                        marker.is_some_and(|m| names.marker_track(&m.name, task) == r[0])
                    })
                });
            }
            *rows_compared.entry(report).or_default() += sqlite_rows.len();
            for d in differences(perfetto_rows, sqlite_rows) {
                problems.push(format!("{} {report}: {d}", inputs.join(" ")));
            }
        }
    }
    println!(
        "{} traces, {} reports each compared on SQLite and trace_processor in {:.1} s; rows compared: {rows_compared:?}; \
         left out: {isrs_left_out} ISRs, {markers_left_out} markers",
        traces.len(),
        REPORTS.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        rows_compared["object_leaks"] > 0 && rows_compared["pool_low_water"] > 0,
        "the network-buffer trace's objects are compared: {rows_compared:?}"
    );
    assert!(
        ["heap_usage", "heap_leaks", "stack_margin"]
            .iter()
            .all(|r| rows_compared[r] > 0),
        "the memory trace's heap and stacks are compared: {rows_compared:?}"
    );
    assert!(
        problems.is_empty(),
        "PerfettoSQL and SQLite reports differ:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_demo_isr_cut_by_the_end_is_left_out_alike() {
    let Some(shell) = shell::trace_processor() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let inputs = vec!["samples/demo.bin".to_string()];
    let model = Trace::open(
        &[harness::root().join(&inputs[0]).display().to_string()],
        &OpenOptions::default(),
    )
    .unwrap()
    .model;
    let pftrace = dir.path().join("demo.pftrace");
    let mut out = std::fs::File::create(&pftrace).unwrap();
    tband_perfetto::export(&model, ExportOptions::default(), &mut out).unwrap();
    drop(out);
    let perfetto = perfetto_tables(&shell, &pftrace).remove(1);
    let sqlite = perfetto_view(
        "isr_latency",
        tband_query(&inputs, &["isr_latency"]),
        &Names::new(&model),
    );
    assert_eq!(perfetto.columns, sqlite.columns);
    let normal_rows = |rows: &[Vec<String>]| -> Vec<Vec<String>> {
        let mut rows: Vec<Vec<String>> = rows
            .iter()
            .map(|r| r.iter().map(|f| normal(f)).collect())
            .collect();
        rows.sort();
        rows
    };
    let rows = normal_rows(&perfetto.rows);
    assert_eq!(rows, normal_rows(&sqlite.rows));
    // The recording ends inside a DMA0 interrupt: its 66 completed
    // executions are counted, the one cut by the end is not.
    let dma0 = rows.iter().find(|r| r[1] == "DMA0").expect("a DMA0 row");
    assert_eq!((dma0[2].as_str(), dma0[4].as_str()), ("66", "7330"));
}

/// Runs `tband-query` with `args` and the environment `env`: its exit code,
/// stdout and stderr.
fn tband_query_status(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_tband-query"))
        .current_dir(harness::root())
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn the_perfetto_engine_gives_the_rows_trace_processor_gives() {
    let Some(shell) = shell::trace_processor() else {
        return;
    };
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    for inputs in [
        vec!["samples/demo.bin".to_string()],
        vec![
            "samples/demo_2core.c0.bin@0".to_string(),
            "samples/demo_2core.c1.bin@1".to_string(),
        ],
    ] {
        let absolute = harness::absolute(&inputs);
        let model = Trace::open(&absolute, &OpenOptions::default())
            .unwrap()
            .model;
        let pftrace = dir.path().join("trace.pftrace");
        let mut out = std::fs::File::create(&pftrace).unwrap();
        tband_perfetto::export(&model, ExportOptions::default(), &mut out).unwrap();
        drop(out);
        for report in REPORTS {
            let path = format!("queries/perfetto/{report}.sql");
            let text = std::fs::read_to_string(harness::root().join(&path)).unwrap();
            let expected = shell::report_rows(&shell, &[text], &pftrace).remove(0);
            let rows = tband_query(&inputs, &[&path, "--engine", "perfetto"]);
            assert_eq!(rows.rows, expected, "{report} on {inputs:?}");
        }
    }
    println!(
        "--engine perfetto: {} reports on 2 traces in {:.1} s",
        REPORTS.len(),
        started.elapsed().as_secs_f64()
    );

    // Parameters are bound, and rows make --fail-if-rows fail.
    let (code, stdout, stderr) = tband_query_status(
        &[
            "samples/demo.bin",
            "-e",
            "SELECT name FROM thread WHERE tid = :tid",
            "--param",
            "tid=3",
            "--engine",
            "perfetto",
            "--format",
            "csv",
            "--fail-if-rows",
        ],
        &[],
    );
    assert_eq!((code, stdout.as_str()), (3, "name\ncons0\n"), "{stderr}");
    let (code, _, stderr) = tband_query_status(
        &[
            "samples/demo.bin",
            "-e",
            "SELECT no_such_column FROM sched",
            "--engine",
            "perfetto",
        ],
        &[],
    );
    assert_eq!(code, 1);
    assert!(
        stderr.contains("no such column: no_such_column"),
        "{stderr}"
    );
}

#[test]
fn the_perfetto_engine_without_trace_processor_says_where_to_get_it() {
    let empty = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = tband_query_status(
        &["samples/demo.bin", "-e", "SELECT 1", "--engine", "perfetto"],
        &[
            ("TBAND_TRACE_PROCESSOR", ""),
            ("PATH", empty.path().to_str().unwrap()),
        ],
    );
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert_eq!(
        stderr,
        "tband-query: no trace_processor_shell found on PATH or in TBAND_TRACE_PROCESSOR: get \
         one with `curl -LO https://get.perfetto.dev/trace_processor` (then chmod +x it and put \
         it on PATH)\n"
    );
}
