//! Runs every PerfettoSQL report of `queries/perfetto/` in Perfetto's own
//! trace processor on the `.pftrace` export of each recording of
//! `tests/corpus/` and `samples/`, and compares its rows with those of the
//! SQLite report that says the same, run by the `tband-query` binary on the
//! same recording.
//!
//! Tasks are matched by thread id (a task's id through the export's
//! [`Threads`]), ISRs by core and name, queues and markers by name. Every
//! column is compared exactly but the percentages (`load_pct`, `pct`,
//! `avg_level`), which each side rounds to 2 decimals: they may differ by
//! 0.01, and a task's ready `pct` by 0.015 (Perfetto splits it into R and
//! R+, each rounded). Where the two reports do not count the same thing:
//! - `cpu_load`: the idle tasks and the per-core totals are SQLite's only
//!   (Perfetto leaves idle time out); `sched_ns` is Perfetto's only.
//! - `isr_latency`: the inter-arrival columns are SQLite's only. The export
//!   ends an ISR execution that was still running when the recording ended
//!   where the model does, so Perfetto counts it and SQLite does not: the
//!   ISRs with such an execution are not compared (their number is printed).
//! - `task_states`: Perfetto's R and R+ are both SQLite's `ready`; idle
//!   tasks are SQLite's only.
//! - `markers`: Perfetto has a row per marker track name and message, with
//!   instants as spans of 0 ns; SQLite's span and instant rows are summed
//!   the same way, and value markers (counters in Perfetto) left out.
//! - `trace_health`: only the kinds of damage are on Perfetto's health
//!   track: SQLite's rows of them (`invalid_frames` as `invalid_frame`)
//!   with a count, not its event count, open intervals or coverage.
//! - `queue_levels` has no SQLite report of its name: `high_water` and
//!   `high_water_ns` are compared with `queue_high_water`, `operations` and
//!   `avg_level` with the SQL of [`QUEUE_LEVELS`].
//! - `wait_reasons` has none either: it is compared with the SQL of
//!   [`WAIT_REASONS`] on the blocked and suspended task states.
//! - `object_lifetimes`, `object_leaks`, `pool_low_water`: pools are
//!   matched by kind and name (Perfetto has no pool keys); the objects'
//!   names are SQLite's only. The recordings hold no tracked objects, so
//!   these reports are also compared on the Zephyr network-buffer trace the
//!   lifetime tests write.
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

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::time::Instant;

use tband_model::{IsrKey, Model};
use tband_perfetto::threads::{Threads, IDLE_TID};
use tband_perfetto::ExportOptions;
use tband_trace::{OpenOptions, Trace};

/// The PerfettoSQL reports, run in one go in this order.
const REPORTS: [&str; 11] = [
    "cpu_load",
    "isr_latency",
    "isr_to_task_latency",
    "task_states",
    "markers",
    "trace_health",
    "queue_levels",
    "wait_reasons",
    "object_lifetimes",
    "object_leaks",
    "pool_low_water",
];

/// Each queue's level-stating operations and time-weighted average level,
/// as `queue_high_water` times its levels.
const QUEUE_LEVELS: &str = "
WITH levels AS (
  SELECT queue_id, len_after,
    COALESCE(LEAD(ts_ns) OVER (PARTITION BY queue_id ORDER BY ts_ns, rowid),
             (SELECT duration_ns FROM trace_info)) - ts_ns AS held_ns
  FROM queue_ops_stored WHERE len_after IS NOT NULL
)
SELECT queue_id, COUNT(*) AS operations,
  ROUND(CAST(SUM(len_after * held_ns) AS DOUBLE) / NULLIF(SUM(held_ns), 0), 2) AS avg_level
FROM levels GROUP BY queue_id";

/// Why tasks waited, as `wait_reasons` counts it.
const WAIT_REASONS: &str = "
SELECT task_id, reason, queue_name, COUNT(*) AS count, SUM(dur_ns) AS total_ns, MAX(dur_ns) AS max_ns
FROM task_states_named WHERE state IN ('blocked', 'suspended')
GROUP BY task_id, reason, queue_name";

type Rows = Vec<Vec<String>>;

/// A compared value.
#[derive(Clone, Debug)]
enum Value {
    Exact(String),
    /// A rounded number and how far the other side's may be from it.
    Near(f64, f64),
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Exact(a), Value::Exact(b)) => a == b,
            (Value::Near(a, tolerance), Value::Near(b, _)) => (a - b).abs() <= tolerance + 1e-9,
            _ => false,
        }
    }
}

/// A report's rows by key.
type Keyed = BTreeMap<Vec<String>, Vec<Value>>;

fn exact(s: &str) -> Value {
    Value::Exact(s.to_string())
}

fn near(s: &str, tolerance: f64) -> Value {
    Value::Near(s.parse().unwrap_or(f64::NAN), tolerance)
}

fn number(s: &str) -> i64 {
    s.parse()
        .unwrap_or_else(|_| s.parse::<f64>().map_or(0, |f| f as i64))
}

/// The rows of `tband-query`'s CSV: quoted fields may hold commas and `""`.
fn parse_csv(set: &str) -> Rows {
    set.lines()
        .skip(1)
        .map(|line| {
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
        })
        .collect()
}

/// Runs `query` (a file, or SQL after `-e`) with `tband-query` on `inputs`.
fn tband_query(inputs: &[String], query: &[&str]) -> Rows {
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

/// Perfetto's times are signed: it drops events after this one.
const LAST_TIME: u64 = i64::MAX as u64;

/// What the rows of both sides are matched by, and which are left out.
struct Names<'m> {
    model: &'m Model,
    threads: Threads<'m>,
    /// Core and name of the ISRs with an execution still running at the
    /// end, or one that Perfetto drops (after [`LAST_TIME`]).
    isrs_left_out: BTreeSet<(String, String)>,
    /// Marker id and task id (empty: global) of the markers with a span or
    /// instant that Perfetto drops.
    markers_left_out: BTreeSet<(String, String)>,
}

impl<'m> Names<'m> {
    fn new(model: &'m Model) -> Self {
        let isrs_left_out = model
            .isr_slices
            .iter()
            .filter(|s| s.truncated || s.end_ns > LAST_TIME)
            .map(|s| (s.core_id.to_string(), Self::isr(model, s.core_id, s.isr_id)))
            .collect();
        let marker = |marker_id: u32, task_id: Option<u32>| {
            (
                marker_id.to_string(),
                task_id.map_or(String::new(), |t| t.to_string()),
            )
        };
        let markers_left_out = model
            .marker_spans
            .iter()
            .filter(|s| s.end_ns > LAST_TIME)
            .map(|s| marker(s.marker_id, s.task_id))
            .chain(
                model
                    .marker_instants
                    .iter()
                    .filter(|i| i.ts_ns > LAST_TIME)
                    .map(|i| marker(i.marker_id, i.task_id)),
            )
            .collect();
        Names {
            model,
            threads: Threads::new(model),
            isrs_left_out,
            markers_left_out,
        }
    }

    /// The ISR's name as `isr_latency` shows it: Perfetto cuts its slice
    /// name `IRQ (<name>)` to 254 bytes.
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

    /// The task's thread id, or `None` for an idle task.
    fn tid(&self, task_id: &str) -> Option<String> {
        let tid = self.threads.tid(task_id.parse().expect("a task id"));
        (tid != IDLE_TID).then(|| tid.to_string())
    }

    /// The name of the track of a marker (`task_id` empty: global) named
    /// `name`: a task-local marker of a task without a thread (an idle
    /// task) is on a global track named after both.
    fn marker_track(&self, name: &str, task_id: &str) -> String {
        if task_id.is_empty() || self.tid(task_id).is_some() {
            return name.to_string();
        }
        let task = self
            .model
            .task(task_id.parse().expect("a task id"))
            .map_or("", |t| t.name.as_str());
        format!("{task}: {name}")
    }
}

/// Rows keyed by the columns `key`, compared on the columns `values`
/// (`pct` ones within `tolerance`).
fn keyed(
    rows: &Rows,
    key: impl Fn(&[String]) -> Option<Vec<String>>,
    values: &[(usize, f64)],
) -> Keyed {
    rows.iter()
        .filter_map(|r| {
            let k = key(r)?;
            let v = values
                .iter()
                .map(|&(i, tolerance)| {
                    if tolerance > 0.0 {
                        near(&r[i], tolerance)
                    } else {
                        exact(&r[i])
                    }
                })
                .collect();
            Some((k, v))
        })
        .collect()
}

/// Rows summed by key: counts and totals added up, minima and maxima taken,
/// `pct` ones added up.
#[derive(Clone, Copy)]
enum Fold {
    Sum,
    Min,
    Max,
    SumNear(f64),
}

fn folded(rows: impl Iterator<Item = (Vec<String>, Vec<i64>, Vec<f64>)>, folds: &[Fold]) -> Keyed {
    let mut sums: BTreeMap<Vec<String>, (Vec<i64>, Vec<f64>)> = BTreeMap::new();
    for (key, ints, floats) in rows {
        match sums.get_mut(&key) {
            None => {
                sums.insert(key, (ints, floats));
            }
            Some((is, fs)) => {
                let mut float = 0;
                for (i, fold) in folds.iter().enumerate() {
                    match fold {
                        Fold::Sum => is[i] += ints[i],
                        Fold::Min => is[i] = is[i].min(ints[i]),
                        Fold::Max => is[i] = is[i].max(ints[i]),
                        Fold::SumNear(_) => {
                            fs[float] += floats[float];
                            float += 1;
                        }
                    }
                }
            }
        }
    }
    sums.into_iter()
        .map(|(key, (ints, floats))| {
            let mut float = 0;
            let values = folds
                .iter()
                .enumerate()
                .map(|(i, fold)| match fold {
                    Fold::SumNear(tolerance) => {
                        float += 1;
                        Value::Near(floats[float - 1], *tolerance)
                    }
                    _ => Value::Exact(ints[i].to_string()),
                })
                .collect();
            (key, values)
        })
        .collect()
}

/// The state of `task_states` a Perfetto thread state is.
fn sqlite_state(perfetto: &str) -> &str {
    match perfetto {
        "Running" => "running",
        "R" | "R+" => "ready",
        "S" | "D" => "blocked",
        "T" => "suspended",
        "Z" | "X" => "deleted",
        other => other,
    }
}

/// Both sides of one report, keyed alike.
fn sides(report: &str, perfetto: &Rows, inputs: &[String], names: &Names) -> (Keyed, Keyed) {
    let sqlite = |name: &str| tband_query(inputs, &[&format!("queries/{name}.sql")]);
    match report {
        "cpu_load" => (
            keyed(
                perfetto,
                |r| Some(vec![r[0].clone(), r[1].clone()]),
                &[(5, 0.0), (4, 0.0), (6, 0.01)],
            ),
            keyed(
                &sqlite("cpu_load"),
                |r| match r[3].as_str() {
                    "idle" | "total" => None,
                    _ => Some(vec![r[0].clone(), names.tid(&r[1])?]),
                },
                &[(4, 0.0), (5, 0.0), (6, 0.01)],
            ),
        ),
        "isr_latency" => {
            let compared = |core: &str, name: &str| {
                !names
                    .isrs_left_out
                    .contains(&(core.to_string(), name.to_string()))
            };
            let values: Vec<(usize, f64)> = (2..=10).map(|i| (i, 0.0)).collect();
            let sqlite_values: Vec<(usize, f64)> = (3..=11).map(|i| (i, 0.0)).collect();
            (
                keyed(
                    perfetto,
                    |r| compared(&r[0], &r[1]).then(|| vec![r[0].clone(), r[1].clone()]),
                    &values,
                ),
                keyed(
                    &sqlite("isr_latency"),
                    |r| {
                        let name = Names::isr(names.model, r[0].parse().ok()?, r[1].parse().ok()?);
                        compared(&r[0], &name).then(|| vec![r[0].clone(), name])
                    },
                    &sqlite_values,
                ),
            )
        }
        "isr_to_task_latency" => {
            let values: Vec<(usize, f64)> = (2..=6).map(|i| (i, 0.0)).collect();
            (
                keyed(perfetto, |r| Some(vec![r[0].clone()]), &values),
                keyed(
                    &sqlite("isr_to_task_latency"),
                    |r| Some(vec![names.tid(&r[0])?]),
                    &values,
                ),
            )
        }
        "task_states" => {
            let folds = [Fold::Sum, Fold::Sum, Fold::SumNear(0.015)];
            let row = |key: Vec<String>, r: &[String]| {
                (
                    key,
                    vec![number(&r[3]), number(&r[4])],
                    vec![r[5].parse().unwrap_or(f64::NAN)],
                )
            };
            (
                folded(
                    perfetto
                        .iter()
                        .map(|r| row(vec![r[0].clone(), sqlite_state(&r[2]).to_string()], r)),
                    &folds,
                ),
                folded(
                    sqlite("task_states")
                        .iter()
                        .filter_map(|r| Some(row(vec![names.tid(&r[0])?, r[2].clone()], r))),
                    &folds,
                ),
            )
        }
        "markers" => {
            let folds = [Fold::Sum, Fold::Sum, Fold::Min, Fold::Max];
            // Track name, message, (count, total, min, max) of each SQLite
            // row, and whether Perfetto dropped some of its marker.
            let rows: Vec<(Vec<String>, Vec<i64>, bool)> = sqlite("markers")
                .iter()
                .filter(|r| r[3] != "value")
                .map(|r| {
                    let message = if r[4].is_empty() { &r[2] } else { &r[4] };
                    let ns = |i: usize| number(&r[i]);
                    let dropped = names
                        .markers_left_out
                        .contains(&(r[0].clone(), r[1].clone()));
                    (
                        vec![names.marker_track(&r[2], &r[1]), message.clone()],
                        vec![ns(5), ns(6), ns(7), ns(10)],
                        dropped,
                    )
                })
                .collect();
            let left_out: BTreeSet<Vec<String>> =
                rows.iter().filter(|r| r.2).map(|r| r.0.clone()).collect();
            let mut perfetto = folded(
                perfetto.iter().map(|r| {
                    (
                        vec![r[0].clone(), r[1].clone()],
                        r[2..6].iter().map(|v| number(v)).collect(),
                        vec![],
                    )
                }),
                &folds,
            );
            let mut sqlite = folded(
                rows.into_iter().map(|(key, ns, _)| (key, ns, vec![])),
                &folds,
            );
            for key in &left_out {
                perfetto.remove(key);
                sqlite.remove(key);
            }
            (perfetto, sqlite)
        }
        "trace_health" => (
            keyed(perfetto, |r| Some(vec![r[0].clone()]), &[(2, 0.0)]),
            keyed(
                &sqlite("trace_health"),
                |r| match r[0].as_str() {
                    "events" | "coverage" => None,
                    kind if kind.starts_with("open_") || number(&r[1]) == 0 => None,
                    "invalid_frames" => Some(vec!["invalid_frame".to_string()]),
                    kind => Some(vec![kind.to_string()]),
                },
                &[(1, 0.0)],
            ),
        ),
        "queue_levels" => {
            let levels: BTreeMap<String, (String, String)> =
                tband_query(inputs, &["-e", QUEUE_LEVELS])
                    .into_iter()
                    .map(|r| (r[0].clone(), (r[1].clone(), r[2].clone())))
                    .collect();
            let sqlite_rows: Rows = sqlite("queue_high_water")
                .into_iter()
                .filter_map(|r| {
                    let (operations, avg_level) = levels.get(&r[0])?;
                    Some(vec![
                        r[1].clone(),
                        operations.clone(),
                        r[4].clone(),
                        r[5].clone(),
                        avg_level.clone(),
                    ])
                })
                .collect();
            let values = [(1, 0.0), (2, 0.0), (3, 0.0), (4, 0.01)];
            (
                keyed(perfetto, |r| Some(vec![r[0].clone()]), &values),
                keyed(&sqlite_rows, |r| Some(vec![r[0].clone()]), &values),
            )
        }
        "wait_reasons" => (
            keyed(
                perfetto,
                |r| Some(vec![r[0].clone(), r[2].clone(), r[3].clone()]),
                &[(4, 0.0), (5, 0.0), (6, 0.0)],
            ),
            keyed(
                &tband_query(inputs, &["-e", WAIT_REASONS]),
                |r| Some(vec![names.tid(&r[0])?, r[1].clone(), r[2].clone()]),
                &[(3, 0.0), (4, 0.0), (5, 0.0)],
            ),
        ),
        "object_lifetimes" => {
            let values: Vec<(usize, f64)> = (2..=7).map(|i| (i, 0.0)).collect();
            let sqlite_values: Vec<(usize, f64)> = (3..=8).map(|i| (i, 0.0)).collect();
            (
                keyed(perfetto, |r| Some(r[0..2].to_vec()), &values),
                keyed(
                    &sqlite("object_lifetimes"),
                    |r| Some(r[0..2].to_vec()),
                    &sqlite_values,
                ),
            )
        }
        "object_leaks" => (
            keyed(
                perfetto,
                |r| Some(r[0..4].to_vec()),
                &[(4, 0.0), (5, 0.0), (6, 0.0)],
            ),
            keyed(
                &sqlite("object_leaks"),
                |r| Some(vec![r[0].clone(), r[1].clone(), r[2].clone(), r[4].clone()]),
                &[(5, 0.0), (6, 0.0), (7, 0.0)],
            ),
        ),
        "pool_low_water" => (
            keyed(
                perfetto,
                |r| Some(r[0..3].to_vec()),
                &[(3, 0.0), (4, 0.0), (5, 0.0)],
            ),
            keyed(
                &sqlite("pool_low_water"),
                |r| Some(vec![r[0].clone(), r[1].clone(), r[3].clone()]),
                &[(4, 0.0), (5, 0.0), (6, 0.0)],
            ),
        ),
        other => panic!("no SQLite counterpart is known for {other}"),
    }
}

/// The differences between the two sides, one line each.
fn differences(perfetto: &Keyed, sqlite: &Keyed) -> Vec<String> {
    let keys: BTreeSet<&Vec<String>> = perfetto.keys().chain(sqlite.keys()).collect();
    keys.into_iter()
        .filter_map(|k| match (perfetto.get(k), sqlite.get(k)) {
            (Some(p), Some(s)) if p == s => None,
            (p, s) => Some(format!("{k:?}: Perfetto {p:?}, SQLite {s:?}")),
        })
        .collect()
}

#[test]
fn perfetto_reports_give_the_rows_of_their_sqlite_counterparts() {
    let Some(shell) = shell::trace_processor() else {
        return;
    };
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let reports: Vec<String> = REPORTS
        .iter()
        .map(|r| {
            std::fs::read_to_string(harness::root().join(format!("queries/perfetto/{r}.sql")))
                .unwrap()
        })
        .collect();
    let on_disk: BTreeSet<String> = std::fs::read_dir(harness::root().join("queries/perfetto"))
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
    assert_eq!(on_disk, compared, "every PerfettoSQL report is compared");

    let net_buf = net_buf_trace::write(dir.path());
    let mut traces: Vec<Vec<String>> = harness::traces().into_iter().map(|t| t.args).collect();
    traces.push(vec![net_buf.display().to_string()]);
    let mut problems = Vec::new();
    let mut rows_compared = BTreeMap::<&str, usize>::new();
    let (mut isrs_left_out, mut markers_left_out) = (0, 0);
    for (n, inputs) in traces.iter().enumerate() {
        let absolute: Vec<String> = inputs
            .iter()
            .map(|a| harness::root().join(a).display().to_string())
            .collect();
        let model = Trace::open(&absolute, &OpenOptions::default())
            .unwrap_or_else(|e| panic!("{inputs:?}: {e}"))
            .model;
        let pftrace = dir.path().join(format!("{n}.pftrace"));
        let mut out = std::fs::File::create(&pftrace).unwrap();
        tband_perfetto::export(&model, ExportOptions::default(), &mut out).unwrap();
        let sets = shell::report_rows(&shell, &reports, &pftrace);
        let names = Names::new(&model);
        isrs_left_out += names.isrs_left_out.len();
        markers_left_out += names.markers_left_out.len();
        for (report, perfetto) in REPORTS.iter().zip(&sets) {
            let (p, s) = sides(report, perfetto, inputs, &names);
            *rows_compared.entry(report).or_default() += p.len();
            for d in differences(&p, &s) {
                problems.push(format!("{} {report}: {d}", inputs.join(" ")));
            }
        }
    }
    println!(
        "{} traces, {} PerfettoSQL reports each compared with SQLite in {:.1} s; rows compared: {rows_compared:?}; \
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
        problems.is_empty(),
        "PerfettoSQL and SQLite reports differ:\n{}",
        problems.join("\n")
    );
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
        let absolute: Vec<String> = inputs
            .iter()
            .map(|a| harness::root().join(a).display().to_string())
            .collect();
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
            assert_eq!(rows, expected, "{report} on {inputs:?}");
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
