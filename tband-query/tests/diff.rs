//! `tband-query diff` end to end: simulated traces that differ in one
//! task's work, compared by the real binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tband_query(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tband-query"))
        .args(args)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A simulated trace in `dir`; `work` makes one task do that share of its work.
fn simulate(dir: &Path, name: &str, work: Option<(&str, u32)>) -> PathBuf {
    let config = tband_sim::Config {
        size: 256 << 10,
        work_scale: work.map(|(task, percent)| tband_sim::WorkScale {
            task: task.to_string(),
            percent,
        }),
        ..tband_sim::Config::default()
    };
    let (streams, _) = tband_sim::generate(&config).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, &streams[0]).unwrap();
    path
}

fn csv_rows(o: &Output) -> Vec<Vec<String>> {
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn a_trace_against_itself_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let trace = simulate(dir.path(), "a.bin", None);
    let trace = trace.to_str().unwrap();
    let o = tband_query(&[
        "diff",
        trace,
        trace,
        "--format",
        "json",
        "--fail-if",
        "cpu_load.load_pct > 0",
        "--fail-if",
        "isr_latency.max_ns > 0%",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let reports: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let reports = reports.as_object().unwrap();
    let canned = tband_query::reports::CANNED;
    let outside_ci = canned.iter().filter(|(name, _)| !name.starts_with("ci/"));
    assert_eq!(
        reports.len(),
        outside_ci.count(),
        "every canned report outside ci/"
    );
    let mut values = 0;
    for (name, rows) in reports {
        for row in rows.as_array().unwrap() {
            assert_eq!(row["status"], "same", "{name}: {row}");
            if !row["old"].is_null() {
                assert_eq!(row["old"], row["new"], "{name}: {row}");
                assert_eq!(row["change"].as_f64(), Some(0.0), "{name}: {row}");
                assert_eq!(row["change_pct"].as_f64(), Some(0.0), "{name}: {row}");
                values += 1;
            }
        }
    }
    assert!(values > 100, "only {values} values compared");
    let o = tband_query(&["diff", trace, trace, "--changed", "--format", "csv"]);
    assert!(csv_rows(&o)
        .iter()
        .all(|r| r.len() < 2 || r.last().unwrap() == "status"));
}

#[test]
fn a_task_doing_more_work_is_the_change_a_budget_catches() {
    let dir = tempfile::tempdir().unwrap();
    let old = simulate(dir.path(), "old.bin", None);
    let new = simulate(dir.path(), "new.bin", Some(("mtxlo0", 200)));
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());

    let o = tband_query(&["diff", old, new, "cpu_load", "--format", "csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows = csv_rows(&o);
    assert_eq!(
        rows[0],
        [
            "core_id",
            "task_id",
            "task_name",
            "kind",
            "column",
            "old",
            "new",
            "change",
            "change_pct",
            "status"
        ]
    );
    let load = |task: &str| -> f64 {
        let row = rows
            .iter()
            .find(|r| r[2] == task && r[4] == "load_pct")
            .unwrap_or_else(|| panic!("no load_pct row of {task}"));
        assert_eq!(row[9], "changed");
        row[7].parse().unwrap()
    };
    assert!(load("mtxlo0") > 5.0, "{}", load("mtxlo0"));
    assert!(load("prod0").abs() < 1.0, "{}", load("prod0"));

    let o = tband_query(&[
        "diff",
        old,
        new,
        "--format",
        "markdown",
        "--fail-if",
        "cpu_load.load_pct > +2",
        "--fail-if",
        "cpu_load.load_pct < -20",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let markdown = String::from_utf8(o.stdout.clone()).unwrap();
    assert!(
        markdown.contains("### cpu_load.sql\n\n| core_id | task_id | task_name | kind | column |")
    );
    // The task's row, and its core's total that its work raised.
    let err = stderr(&o);
    let broken: Vec<&str> = err.lines().collect();
    assert_eq!(broken.len(), 3, "{err}");
    assert_eq!(
        broken[0],
        "tband-query: budget `cpu_load.load_pct > +2` broken by 2 row(s):"
    );
    assert!(
        broken[1].starts_with("  core_id=0 task_id=3 task_name=mtxlo0 kind=normal: load_pct "),
        "{err}"
    );
    assert!(
        broken[2].starts_with("  core_id=0 task_id= task_name=(core total) kind=total: load_pct "),
        "{err}"
    );
}

#[test]
fn budgets_that_name_nothing_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let trace = simulate(dir.path(), "a.bin", None);
    let trace = trace.to_str().unwrap();
    let fails = |budget: &str| {
        let o = tband_query(&["diff", trace, trace, "--fail-if", budget]);
        assert!(o.stdout.is_empty());
        (o.status.code(), stderr(&o))
    };
    let (code, err) = fails("cpu_load.load > +2");
    assert_eq!(code, Some(1));
    assert_eq!(err, "tband-query: the budget `cpu_load.load > +2` names `load`, not a column of cpu_load; its value columns are run_ns, isr_ns, load_pct\n");
    let (code, err) = fails("cpu_load.task_name > 0");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("names `task_name`, a key column of cpu_load"),
        "{err}"
    );
    let (code, err) = fails("cpuload.load_pct > 2");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("names the report `cpuload`, which is not among those compared (cpu_load, "),
        "{err}"
    );
    let (code, err) = fails("cpu_load.load_pct > lots");
    assert_eq!(code, Some(2));
    assert!(
        err.contains("`cpu_load.load_pct > lots` is not a budget (`lots` is not a number)"),
        "{err}"
    );
}
