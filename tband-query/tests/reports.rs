//! The canned reports against answers computed here, in Rust, from the
//! model or from the simulator's record of what it scheduled; and the two
//! engines against each other.

use std::collections::BTreeMap;

use tband_model::{Model, StateReason, TaskKind, TaskState, TaskStateKind};
use tband_query::engine::{self, Engine, QueryResult, Value};
use tband_query::run::{self, Param};
use tband_query::{reports, tables};
use tband_trace::input::Input;
use tband_trace::{OpenOptions, Trace};

const CONFORMANCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus");

/// The conformance recordings, one trace per recording (both cores' streams together).
fn conformance_traces() -> Vec<(String, Trace)> {
    let sets: &[&[&str]] = &[
        &["tband/freertos_small.bin"],
        &["tband/freertos_lossy.bin"],
        &["tband/baremetal_basic.bin"],
        &["tband/baremetal_longstr.bin"],
        &[
            "tband/baremetal_2core_c0.bin@0",
            "tband/baremetal_2core_c1.bin@1",
        ],
        &[
            "tband/baremetal_2core_snap_c0.bin@0",
            "tband/baremetal_2core_snap_c1.bin@1",
        ],
        &["zephyr_ctf/hello_sem"],
        &["zephyr_ctf/workload"],
        &["threadx/threadx_demo_small.trx"],
        &["threadx/threadx_demo_startup.trx"],
    ];
    sets.iter()
        .map(|files| {
            let args: Vec<String> = files.iter().map(|f| format!("{CONFORMANCE}/{f}")).collect();
            let trace = Trace::open(&args, &OpenOptions::default()).unwrap();
            (files.join(" + "), trace)
        })
        .collect()
}

fn simulated(cores: u32, seed: u64) -> (Trace, tband_sim::GroundTruth) {
    let config = tband_sim::Config {
        seed,
        cores,
        size: 128 << 10,
        record_truth: true,
        // Values of every size, down to i64::MIN, into the database.
        wide_values: true,
        ..tband_sim::Config::default()
    };
    let (streams, truth) = tband_sim::generate(&config).unwrap();
    let inputs = Input::per_core("sim", streams);
    let trace = Trace::from_inputs(inputs, &OpenOptions::default()).unwrap();
    (trace, truth.unwrap())
}

struct Loaded(Box<dyn engine::Database>);

impl Loaded {
    fn new(engine: Engine, trace: &Trace) -> Loaded {
        let mut db = engine.open(None).unwrap();
        engine::load(db.as_mut(), &trace.model, &tables::model_tables()).unwrap();
        Loaded(db)
    }

    fn report(&mut self, name: &str, params: &[&str]) -> Table {
        let queries = reports::resolve(name).unwrap();
        let params: Vec<Param> = params.iter().map(|p| p.parse().unwrap()).collect();
        let mut results = run::run(self.0.as_mut(), &queries, &params)
            .unwrap_or_else(|e| panic!("{name} on {}: {e}", self.0.engine()));
        Table(results.remove(0))
    }
}

/// A result with access by column name.
struct Table(QueryResult);

impl Table {
    fn col(&self, name: &str) -> usize {
        self.0
            .columns
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", self.0.columns))
    }

    fn ints(&self, names: &[&str]) -> Vec<Vec<Option<i64>>> {
        let cols: Vec<usize> = names.iter().map(|n| self.col(n)).collect();
        self.0
            .rows
            .iter()
            .map(|r| {
                cols.iter()
                    .map(|&c| match &r[c] {
                        Value::Int(i) => Some(*i),
                        Value::Null => None,
                        other => panic!("{} is {other:?}, not an integer", names[0]),
                    })
                    .collect()
            })
            .collect()
    }

    fn reals(&self, name: &str) -> Vec<Option<f64>> {
        let c = self.col(name);
        self.0
            .rows
            .iter()
            .map(|r| match &r[c] {
                Value::Real(v) => Some(*v),
                Value::Int(i) => Some(*i as f64),
                Value::Null => None,
                other => panic!("{name} is {other:?}"),
            })
            .collect()
    }
}

// ---- answers computed in Rust ----

#[derive(Clone, Copy)]
struct Span {
    core: u32,
    id: u32,
    start: u64,
    end: u64,
    depth: u32,
    truncated: bool,
}

fn overlap(a: (u64, u64), b: (u64, u64)) -> u64 {
    a.1.min(b.1).saturating_sub(a.0.max(b.0))
}

/// cpu_load rows: (core, task or None for the total, run_ns, isr_ns).
fn cpu_load(
    cores: &[u32],
    slices: &[Span],
    isrs: &[Span],
    is_idle: impl Fn(u32) -> bool,
) -> Vec<(u32, Option<u32>, u64, u64)> {
    let mut out = Vec::new();
    for &core in cores {
        let mut top: Vec<&Span> = isrs
            .iter()
            .filter(|i| i.core == core && i.depth == 0)
            .collect();
        top.sort_by_key(|i| i.start);
        let mut per_task: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
        for s in slices.iter().filter(|s| s.core == core) {
            let first = top.partition_point(|i| i.end <= s.start);
            let isr: u64 = top[first..]
                .iter()
                .take_while(|i| i.start < s.end)
                .map(|i| overlap((i.start, i.end), (s.start, s.end)))
                .sum();
            let e = per_task.entry(s.id).or_default();
            e.0 += s.end - s.start;
            e.1 += isr;
        }
        let mut busy = 0;
        for (&task, &(slice_ns, isr_ns)) in &per_task {
            out.push((core, Some(task), slice_ns - isr_ns, isr_ns));
            if !is_idle(task) {
                busy += slice_ns - isr_ns;
            }
        }
        let all_isr: u64 = top.iter().map(|i| i.end - i.start).sum();
        out.push((core, None, busy, all_isr));
    }
    out
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[u64], p: u64) -> u64 {
    let rank = (sorted.len() as u64 * p).div_ceil(100).max(1);
    sorted[rank as usize - 1]
}

fn rounded_avg(values: &[u64]) -> u64 {
    let n = values.len() as u64;
    (values.iter().sum::<u64>() * 2 + n) / (2 * n)
}

/// isr_latency rows: core, isr, count, total, min, avg, p50, p95, p99, max, max_depth.
fn isr_latency(isrs: &[Span]) -> Vec<Vec<Option<i64>>> {
    let mut per: BTreeMap<(u32, u32), (Vec<u64>, u32)> = BTreeMap::new();
    for i in isrs.iter().filter(|i| !i.truncated) {
        let e = per.entry((i.core, i.id)).or_default();
        e.0.push(i.end - i.start);
        e.1 = e.1.max(i.depth);
    }
    per.into_iter()
        .map(|((core, isr), (mut d, depth))| {
            d.sort_unstable();
            [
                core.into(),
                isr.into(),
                d.len() as u64,
                d.iter().sum(),
                d[0],
                rounded_avg(&d),
                percentile(&d, 50),
                percentile(&d, 95),
                percentile(&d, 99),
                d[d.len() - 1],
                depth.into(),
            ]
            .iter()
            .map(|&v: &u64| Some(v as i64))
            .collect()
        })
        .collect()
}

fn model_spans(m: &Model) -> (Vec<Span>, Vec<Span>) {
    let slices = m
        .sched_slices
        .iter()
        .map(|s| Span {
            core: s.core_id,
            id: m.tasks[s.task as usize].task_id,
            start: s.start_ns,
            end: s.end_ns,
            depth: 0,
            truncated: s.truncated,
        })
        .collect();
    let isrs = m
        .isr_slices
        .iter()
        .map(|s| Span {
            core: s.core_id,
            id: m.isrs[s.isr as usize].isr_id,
            start: s.start_ns,
            end: s.end_ns,
            depth: s.depth,
            truncated: s.truncated,
        })
        .collect();
    (slices, isrs)
}

/// Ready-to-running latencies per task: (latency, woken by an ISR).
fn ready_latencies(m: &Model) -> BTreeMap<u32, Vec<(u64, bool)>> {
    let mut per_task: BTreeMap<u32, Vec<_>> = BTreeMap::new();
    for (i, s) in m.task_states.iter().enumerate() {
        per_task
            .entry(m.tasks[s.task as usize].task_id)
            .or_default()
            .push((s.start_ns, s.end_ns, i, s));
    }
    let mut out: BTreeMap<u32, Vec<(u64, bool)>> = BTreeMap::new();
    for (task, mut states) in per_task {
        states.sort_by_key(|&(start, end, i, _)| (start, end, i));
        for pair in states.windows(2) {
            let (a, b) = (pair[0].3, pair[1].3);
            if a.state == TaskStateKind::Ready && !a.truncated && b.state == TaskStateKind::Running
            {
                out.entry(task)
                    .or_default()
                    .push((b.start_ns - a.start_ns, a.woken_by_isr.is_some()));
            }
        }
    }
    out
}

fn assert_cpu_load(db: &mut Loaded, expected: &[(u32, Option<u32>, u64, u64)], duration: u64) {
    let t = db.report("cpu_load", &[]);
    let got: Vec<_> = t
        .ints(&["core_id", "task_id", "run_ns", "isr_ns"])
        .into_iter()
        .map(|r| {
            (
                r[0].unwrap() as u32,
                r[1].map(|v| v as u32),
                r[2].unwrap() as u64,
                r[3].unwrap() as u64,
            )
        })
        .collect();
    assert_eq!(got, expected, "cpu_load on {}", db.0.engine());
    for ((_, task, run, isr), pct) in expected.iter().zip(t.reals("load_pct")) {
        let load = if task.is_some() { *run } else { run + isr };
        // A duration SQL cannot hold (beyond i64) is NULL, and so is the load.
        let want = (duration > 0 && i64::try_from(duration).is_ok())
            .then(|| load as f64 * 100.0 / duration as f64);
        match (pct, want) {
            (Some(pct), Some(want)) => assert!(
                (pct - want).abs() <= 0.005 + 1e-9,
                "load_pct {pct} vs {want}"
            ),
            (pct, want) => assert_eq!(pct, want),
        }
    }
}

/// Checks the `isr_latency` report against the ISR executions `isrs`.
fn assert_isr_latency(db: &mut Loaded, isrs: &[Span]) {
    let got = db.report("isr_latency", &[]).ints(&[
        "core_id",
        "isr_id",
        "count",
        "total_ns",
        "min_ns",
        "avg_ns",
        "p50_ns",
        "p95_ns",
        "p99_ns",
        "max_ns",
        "max_depth",
    ]);
    assert_eq!(got, isr_latency(isrs), "isr_latency on {}", db.0.engine());
}

/// Checks every report whose answer is computed here from the model.
fn check_against_model(db: &mut Loaded, m: &Model) {
    let engine = db.0.engine();
    let (slices, isrs) = model_spans(m);
    let cores: Vec<u32> = m.cores.iter().map(|c| c.core_id).collect();
    let idle = |id| (m.tasks.iter()).any(|t| t.task_id == id && t.kind == TaskKind::Idle);
    let load = cpu_load(&cores, &slices, &isrs, idle);
    assert_cpu_load(db, &load, m.info.duration_ns);

    // The timeline's windows add up to each core's busy time.
    let timeline = db.report("cpu_load_timeline", &["window_ms=1"]);
    let mut busy: BTreeMap<u32, u64> = BTreeMap::new();
    for r in timeline.ints(&["core_id", "window_start_ns", "window_end_ns", "busy_ns"]) {
        let (start, end, b) = (r[1].unwrap(), r[2].unwrap(), r[3].unwrap());
        assert!(b >= 0 && b <= end - start, "window {r:?}");
        *busy.entry(r[0].unwrap() as u32).or_default() += b as u64;
    }
    let windows = m.info.duration_ns > 0 && i64::try_from(m.info.duration_ns).is_ok();
    for (core, task, run, isr) in &load {
        if task.is_none() && windows {
            assert_eq!(
                busy.get(core).copied().unwrap_or(0),
                run + isr,
                "timeline of core {core} on {engine}"
            );
        }
    }

    assert_isr_latency(db, &isrs);

    let mut states: BTreeMap<(u32, &str), (i64, i64)> = BTreeMap::new();
    for s in &m.task_states {
        let task_id = m.tasks[s.task as usize].task_id;
        let e = states.entry((task_id, s.state.as_str())).or_default();
        e.0 += 1;
        e.1 += (s.end_ns - s.start_ns) as i64;
    }
    let t = db.report("task_states", &[]);
    let state_col = t.col("state");
    let got: BTreeMap<(u32, &str), (i64, i64)> =
        t.0.rows
            .iter()
            .zip(t.ints(&["task_id", "count", "total_ns"]))
            .map(|(row, r)| {
                let Value::Text(state) = &row[state_col] else {
                    panic!("state {row:?}")
                };
                (
                    (r[0].unwrap() as u32, state.as_str()),
                    (r[1].unwrap(), r[2].unwrap()),
                )
            })
            .collect();
    assert_eq!(got, states, "task_states on {engine}");

    let latencies = ready_latencies(m);
    let mut to_task = Vec::new();
    let mut response = Vec::new();
    for task in &m.tasks {
        let all: Vec<u64> = {
            let mut v: Vec<u64> = latencies
                .get(&task.task_id)
                .into_iter()
                .flatten()
                .map(|l| l.0)
                .collect();
            v.sort_unstable();
            v
        };
        let p = |p| (!all.is_empty()).then(|| percentile(&all, p) as i64);
        response.push(vec![
            Some(task.task_id.into()),
            Some(all.len() as i64),
            p(50),
            p(95),
            p(99),
            all.last().map(|&v| v as i64),
        ]);
        let mut isr: Vec<u64> = latencies
            .get(&task.task_id)
            .into_iter()
            .flatten()
            .filter(|l| l.1)
            .map(|l| l.0)
            .collect();
        isr.sort_unstable();
        if !isr.is_empty() {
            to_task.push(vec![
                Some(task.task_id.into()),
                Some(isr.len() as i64),
                Some(percentile(&isr, 50) as i64),
                Some(percentile(&isr, 99) as i64),
                Some(isr[isr.len() - 1] as i64),
            ]);
        }
    }
    assert_eq!(
        db.report("task_response", &[]).ints(&[
            "task_id",
            "ready_count",
            "ready_p50_ns",
            "ready_p95_ns",
            "ready_p99_ns",
            "ready_max_ns"
        ]),
        response,
        "task_response on {engine}"
    );
    assert_eq!(
        db.report("isr_to_task_latency", &[])
            .ints(&["task_id", "count", "p50_ns", "p99_ns", "max_ns"]),
        to_task,
        "isr_to_task_latency on {engine}"
    );

    let queues: Vec<Vec<Option<i64>>> = m
        .queues
        .iter()
        .zip(0..)
        .map(|(q, i)| {
            let ops = m.queue_ops.iter().filter(move |o| o.queue == i);
            let sends = ops
                .clone()
                .filter(|o| matches!(o.op.as_str(), "send" | "overwrite"))
                .count();
            let receives = ops.filter(|o| o.op.as_str() == "receive").count();
            vec![
                Some(q.queue_id.into()),
                Some(q.high_water.into()),
                Some(sends as i64),
                Some(receives as i64),
            ]
        })
        .collect();
    assert_eq!(
        db.report("queue_high_water", &[])
            .ints(&["queue_id", "high_water", "sends", "receives"]),
        queues,
        "queue_high_water on {engine}"
    );

    let health = db.report("trace_health", &[]);
    let kind = health.col("kind");
    let count = |name: &str| {
        health
            .0
            .rows
            .iter()
            .find(|r| r[kind] == Value::Text(name.into()))
            .map(|r| r[health.col("count")].clone())
    };
    let dropped: u64 = m.anomaly_count(tband_model::AnomalyKind::DroppedEvents);
    assert_eq!(count("events"), Some(Value::Int(m.info.events as i64)));
    assert_eq!(
        count("invalid_frames"),
        Some(Value::Int(m.info.invalid_frames as i64))
    );
    assert_eq!(count("dropped_events"), Some(Value::Int(dropped as i64)));

    let mut spans: BTreeMap<(u32, Option<u32>, &str), i64> = BTreeMap::new();
    for s in m.marker_spans.iter().filter(|s| !s.truncated) {
        let marker = &m.markers[s.marker as usize];
        *spans
            .entry((marker.marker_id, marker.task_id, m.strings.get(s.msg)))
            .or_default() += 1;
    }
    let t = db.report("markers", &[]);
    let (what, msg) = (t.col("what"), t.col("msg"));
    let got: BTreeMap<(u32, Option<u32>, &str), i64> =
        t.0.rows
            .iter()
            .zip(t.ints(&["marker_id", "task_id", "count"]))
            .filter(|(row, _)| row[what] == Value::Text("span".into()))
            .map(|(row, r)| {
                let Value::Text(text) = &row[msg] else {
                    panic!("msg {row:?}")
                };
                (
                    (r[0].unwrap() as u32, r[1].map(|v| v as u32), text.as_str()),
                    r[2].unwrap(),
                )
            })
            .collect();
    assert_eq!(got, spans, "markers on {engine}");
}

#[test]
fn reports_match_the_model_on_the_conformance_recordings() {
    for (name, trace) in conformance_traces() {
        for engine in Engine::built_in() {
            eprintln!("{name} on {engine}");
            check_against_model(&mut Loaded::new(engine, &trace), &trace.model);
        }
    }
}

/// `dur_ns` is `end_ns - start_ns` on every row, also where a time is past
/// BIGINT's range and so NULL, as on this recording: it is NULL only where
/// the duration itself is past that range.
#[test]
fn durations_are_known_past_the_range_of_times() {
    let path = format!("{CONFORMANCE}/tband/baremetal_basic.bin");
    let trace = Trace::open(&[path], &OpenOptions::default()).unwrap();
    let m = &trace.model;
    macro_rules! times {
        ($table:ident) => {
            (
                stringify!($table),
                m.$table
                    .iter()
                    .map(|r| (r.start_ns, r.end_ns))
                    .collect::<Vec<_>>(),
            )
        };
    }
    let tables = [
        times!(sched_slices),
        times!(task_states),
        times!(isr_slices),
        times!(marker_spans),
        times!(mutex_holds),
    ];
    let int = |ns: u64| i64::try_from(ns).ok();
    // An ISR and a marker span end past the range and last less than it.
    for table in ["isr_slices", "marker_spans"] {
        let (_, rows) = tables.iter().find(|(t, _)| *t == table).unwrap();
        let past = rows
            .iter()
            .any(|&(start, end)| int(end).is_none() && int(end - start).is_some());
        assert!(past, "{table}");
    }
    for engine in Engine::built_in() {
        let mut db = Loaded::new(engine, &trace);
        for (table, rows) in &tables {
            let mut expected: Vec<Vec<Option<i64>>> = rows
                .iter()
                .map(|&(start, end)| vec![int(start), int(end), int(end - start)])
                .collect();
            expected.sort_unstable();
            let sql = format!("SELECT start_ns, end_ns, dur_ns FROM {table}");
            let mut got =
                Table(db.0.query(&sql, &[]).unwrap()).ints(&["start_ns", "end_ns", "dur_ns"]);
            got.sort_unstable();
            assert_eq!(got, expected, "{table} on {engine}");
        }
    }
}

#[test]
fn cpu_load_and_isr_times_match_what_the_simulator_scheduled() {
    for (cores, seed) in [(1, 7), (2, 11)] {
        let (trace, truth) = simulated(cores, seed);
        let first = trace.model.info.first_ts_raw;
        let ns = |ts: u64| (ts - first) * truth.ns_per_tick;
        let slices: Vec<Span> = truth
            .run_slices
            .iter()
            .map(|s| Span {
                core: s.core,
                id: s.task_id,
                start: ns(s.start),
                end: ns(s.end),
                depth: 0,
                truncated: s.truncated,
            })
            .collect();
        let isrs: Vec<Span> = truth
            .isr_runs
            .iter()
            .map(|s| Span {
                core: s.core,
                id: s.isr_id,
                start: ns(s.start),
                end: ns(s.end),
                depth: s.depth,
                truncated: s.truncated,
            })
            .collect();
        let idle = |t: u32| {
            truth
                .task(t)
                .is_some_and(|t| t.kind == tband_sim::TaskKind::Idle)
        };
        let cores: Vec<u32> = (0..truth.cores).collect();
        let expected = cpu_load(&cores, &slices, &isrs, idle);
        assert!(
            expected.iter().any(|r| r.3 > 0),
            "the simulation has ISR time inside task slices"
        );
        for engine in Engine::built_in() {
            let mut db = Loaded::new(engine, &trace);
            assert_cpu_load(&mut db, &expected, trace.model.info.duration_ns);
            assert_isr_latency(&mut db, &isrs);
            let high_water: Vec<Vec<Option<i64>>> = truth
                .queues
                .iter()
                .map(|q| {
                    let top = truth
                        .queue_levels
                        .iter()
                        .filter(|l| l.queue_id == q.queue_id)
                        .map(|l| l.len)
                        .max();
                    vec![Some(q.queue_id.into()), Some(top.unwrap_or(0).into())]
                })
                .collect();
            assert_eq!(
                db.report("queue_high_water", &[])
                    .ints(&["queue_id", "high_water"]),
                high_water
            );
            check_against_model(&mut db, &trace.model);
        }
    }
}

/// `task_run_time` holds, per core and task, the slices and the run and ISR
/// time computed here from the model's slices.
#[test]
fn the_task_run_time_table_holds_each_tasks_run_and_isr_time() {
    let mut traces = conformance_traces();
    traces.push(("simulated, 2 cores".into(), simulated(2, 3).0));
    let mut interrupted = false;
    for (name, trace) in &traces {
        let (slices, isrs) = model_spans(&trace.model);
        let cores: Vec<u32> = slices
            .iter()
            .map(|s| s.core)
            .collect::<std::collections::BTreeSet<u32>>()
            .into_iter()
            .collect();
        let expected: Vec<Vec<Option<i64>>> = cpu_load(&cores, &slices, &isrs, |_| false)
            .into_iter()
            .filter_map(|(core, task, run_ns, isr_ns)| {
                let task = task?;
                let count = slices.iter().filter(|s| s.core == core && s.id == task);
                Some(vec![
                    Some(core.into()),
                    Some(task.into()),
                    Some(count.count() as i64),
                    Some(run_ns as i64),
                    Some(isr_ns as i64),
                ])
            })
            .collect();
        interrupted |= expected.iter().any(|r| r[4] > Some(0));
        for engine in Engine::built_in() {
            let mut db = Loaded::new(engine, trace);
            let table =
                db.0.query(
                    "SELECT core_id, task_id, slices, run_ns, isr_ns FROM task_run_time \
                     ORDER BY core_id, task_id",
                    &[],
                )
                .unwrap();
            let got = Table(table).ints(&["core_id", "task_id", "slices", "run_ns", "isr_ns"]);
            assert_eq!(got, expected, "{name} on {engine}");
        }
    }
    assert!(interrupted, "ISRs interrupt tasks in some trace");
}

/// Every canned report gives the same rows on both engines (reals within
/// the rounding the reports apply).
#[cfg(all(feature = "sqlite", feature = "duckdb-engine"))]
#[test]
fn both_engines_give_the_same_rows() {
    let mut traces = conformance_traces();
    traces.push(("simulated".into(), simulated(2, 3).0));
    for (name, trace) in &traces {
        let mut sqlite = Loaded::new(Engine::Sqlite, trace);
        let mut duckdb = Loaded::new(Engine::Duckdb, trace);
        for (report, _) in reports::CANNED {
            let (a, b) = (sqlite.report(report, &[]).0, duckdb.report(report, &[]).0);
            assert_eq!(a.columns, b.columns, "{report} on {name}");
            assert_eq!(a.rows.len(), b.rows.len(), "{report} on {name}");
            for (ra, rb) in a.rows.iter().zip(&b.rows) {
                for (va, vb) in ra.iter().zip(rb) {
                    let same = match (va, vb) {
                        (Value::Real(x), Value::Real(y)) => (x - y).abs() <= 0.01 + 1e-9,
                        _ => va == vb,
                    };
                    assert!(same, "{report} on {name}: sqlite {ra:?} vs duckdb {rb:?}");
                }
            }
        }
    }
}

#[test]
fn idle_tasks_are_listed_as_idle_not_load() {
    let (_, trace) = conformance_traces().into_iter().next().unwrap();
    let idle = trace
        .model
        .tasks
        .iter()
        .find(|t| t.kind == TaskKind::Idle)
        .unwrap();
    for engine in Engine::built_in() {
        let t = Loaded::new(engine, &trace).report("cpu_load", &[]);
        let (id, kind) = (t.col("task_id"), t.col("kind"));
        let row =
            t.0.rows
                .iter()
                .find(|r| r[id] == Value::Int(idle.task_id.into()))
                .unwrap();
        assert_eq!(row[kind], Value::Text("idle".into()));
    }
}

/// A ready state counts in `ready_latency` only when the task's next state
/// is the running one, also when several of its states start at the same
/// time: a zero-length state between the two means the ready state did not
/// end with the task running.
#[test]
fn ready_latency_counts_a_ready_state_only_when_running_comes_next() {
    let (_, mut trace) = conformance_traces().into_iter().next().unwrap();
    // The recording's tasks 1, 2 and 3 are at indices 0, 1 and 2.
    let ids: Vec<u32> = trace.model.tasks[..3].iter().map(|t| t.task_id).collect();
    assert_eq!(ids, [1, 2, 3]);
    let state = |task_id: u32, state, start_ns, end_ns| TaskState {
        start_ns,
        end_ns,
        task: task_id - 1,
        state,
        reason: StateReason::None,
        queue: None,
        core_id: None,
        woken_by_isr: None,
        truncated: false,
    };
    use TaskStateKind::{Blocked, Ready, Running};
    trace.model.task_states = vec![
        // Task 1: ready, running at once (latency 10).
        state(1, Ready, 0, 10),
        // Task 2: ready, then blocked for 0 ns, then running: no latency.
        state(2, Ready, 0, 10),
        state(2, Blocked, 10, 10),
        state(1, Running, 10, 20),
        state(2, Running, 10, 30),
        // Task 3: ready, running for 0 ns, running again: only the first counts.
        state(3, Ready, 5, 30),
        state(3, Running, 30, 30),
        state(3, Running, 30, 40),
    ]
    .into();
    let query = reports::Query {
        name: "-e".into(),
        text: "SELECT task_id, latency_ns FROM ready_latency ORDER BY task_id, latency_ns".into(),
    };
    for engine in Engine::built_in() {
        let mut db = Loaded::new(engine, &trace);
        let rows = run::run(db.0.as_mut(), std::slice::from_ref(&query), &[]).unwrap();
        let t = Table(rows.into_iter().next().unwrap());
        assert_eq!(
            t.ints(&["task_id", "latency_ns"]),
            [[Some(1), Some(10)], [Some(3), Some(25)]],
            "{engine:?}"
        );
    }
}

/// How `cpu_timeline` was computed in SQL before it became a table filled
/// while loading: a running sum over every core's boundaries, of the task
/// (task_id + 1) and of the ISRs running (2^33 each).
const CPU_TIMELINE_SQL: &str = "WITH edges AS ( \
      SELECT core_id, start_ns AS t, task_id + 1 AS d FROM sched_slices \
      UNION ALL SELECT core_id, end_ns, -(task_id + 1) FROM sched_slices \
      UNION ALL SELECT core_id, start_ns, 8589934592 FROM isr_slices WHERE depth = 0 \
      UNION ALL SELECT core_id, end_ns, -8589934592 FROM isr_slices WHERE depth = 0 \
    ), pieces AS ( \
      SELECT core_id, t AS start_ns, LEAD(t) OVER w AS end_ns, LEAD(core_id) OVER w AS next_core, \
        CAST(SUM(d) OVER w AS BIGINT) AS state \
      FROM edges \
      WINDOW w AS (ORDER BY core_id, t ROWS UNBOUNDED PRECEDING) \
    ) \
    SELECT core_id, start_ns, end_ns, end_ns - start_ns AS dur_ns, \
      CASE WHEN state % 8589934592 > 0 THEN state % 8589934592 - 1 END AS task_id, \
      CASE WHEN state >= 8589934592 THEN 1 ELSE 0 END AS in_isr \
    FROM pieces WHERE end_ns > start_ns AND next_core = core_id \
    ORDER BY core_id, start_ns";

#[test]
fn the_cpu_timeline_table_holds_the_rows_of_the_sql_sweep() {
    let mut traces = conformance_traces();
    traces.push(("simulated, 2 cores".into(), simulated(2, 3).0));
    traces.push(("simulated, 1 core".into(), simulated(1, 7).0));
    let (mut cores, mut nested, mut gaps, mut interrupted) = (false, false, false, false);
    for (name, trace) in &traces {
        nested |= trace.model.isr_slices.iter().any(|s| s.depth > 0);
        for engine in Engine::built_in() {
            let mut db = Loaded::new(engine, trace);
            let swept = db.0.query(CPU_TIMELINE_SQL, &[]).unwrap();
            let table =
                db.0.query(
                    "SELECT core_id, start_ns, end_ns, dur_ns, task_id, in_isr FROM cpu_timeline \
                     ORDER BY core_id, start_ns",
                    &[],
                )
                .unwrap();
            assert_eq!(table, swept, "{name} on {engine}");
            let rows = Table(table).ints(&["core_id", "task_id", "in_isr"]);
            cores |= rows.iter().any(|r| r[0] != Some(0)) && rows.iter().any(|r| r[0] == Some(0));
            gaps |= rows.iter().any(|r| r[1].is_none() && r[2] == Some(0));
            interrupted |= rows.iter().any(|r| r[1].is_some() && r[2] == Some(1));
        }
    }
    assert!(
        cores && nested && gaps && interrupted,
        "the traces have several cores ({cores}), nested ISRs ({nested}), \
         gaps ({gaps}) and ISRs inside slices ({interrupted})"
    );
}
