//! End-to-end tests of the `tband-query` binary on real recordings.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const CONFORMANCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/tband");
const QUERIES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../queries");

fn small() -> String {
    format!("{CONFORMANCE}/freertos_small.bin")
}

fn tband_query(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tband-query"))
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A failure: the exit code and the one line the user sees.
fn fails(args: &[&str]) -> (i32, String) {
    let o = tband_query(args);
    let err = stderr(&o);
    assert!(o.stdout.is_empty(), "output on failure: {}", stdout(&o));
    (o.status.code().unwrap(), err)
}

fn sqlite(args: &[&str]) -> Vec<String> {
    let mut v = vec!["--engine".to_string(), "sqlite".to_string()];
    v.extend(args.iter().map(|s| s.to_string()));
    v
}

fn run(args: &[String]) -> Output {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    tband_query(&refs)
}

#[test]
fn json_rows_are_objects_with_the_contract_columns_and_integer_numbers() {
    let trace = small();
    let o = run(&sqlite(&[&trace, "cpu_load", "--format", "json"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert!(!rows.is_empty());
    for key in [
        "core_id",
        "task_id",
        "task_name",
        "run_ns",
        "isr_ns",
        "load_pct",
    ] {
        assert!(rows[0].get(key).is_some(), "no {key} in {}", rows[0]);
    }
    assert!(rows[0]["run_ns"].is_i64());
    assert!(rows[0]["load_pct"].is_number());

    let contracts: &[(&str, &[&str])] = &[
        (
            "isr_latency",
            &[
                "core_id", "isr_id", "isr_name", "count", "min_ns", "avg_ns", "p50_ns", "p95_ns",
                "p99_ns", "max_ns",
            ],
        ),
        (
            "queue_high_water",
            &[
                "queue_id",
                "queue_name",
                "kind",
                "high_water",
                "sends",
                "receives",
            ],
        ),
        (
            "task_states",
            &["task_id", "task_name", "state", "total_ns"],
        ),
        ("trace_health", &["kind", "count"]),
    ];
    for (report, columns) in contracts {
        let o = run(&sqlite(&[&trace, report, "--format", "json"]));
        let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        for c in *columns {
            assert!(rows[0].get(*c).is_some(), "{report}: no {c}");
        }
    }
}

#[test]
fn csv_is_the_default_off_a_terminal_and_markdown_makes_tables() {
    let trace = small();
    let csv = stdout(&run(&sqlite(&[&trace, "task_states"])));
    assert!(
        csv.starts_with("task_id,task_name,state,count,total_ns,pct\n"),
        "{csv}"
    );
    assert!(csv
        .lines()
        .nth(1)
        .unwrap()
        .starts_with("1,mytask1,blocked,"));

    let md = stdout(&run(&sqlite(&[
        &trace,
        "task_states",
        "--format",
        "markdown",
    ])));
    assert!(md.starts_with("| task_id | task_name | state | count | total_ns | pct |\n|---:|---|---|---:|---:|---:|\n"), "{md}");

    let table = stdout(&run(&sqlite(&[
        &trace,
        "-e",
        "SELECT 1 AS one, 'x' AS two",
        "--format",
        "table",
    ])));
    assert_eq!(table, "one  two\n---  ---\n  1  x\n");
}

#[test]
fn a_directory_runs_its_reports_in_name_order() {
    let trace = small();
    let o = run(&sqlite(&[&trace, QUERIES, "--format", "markdown"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let headings: Vec<&str> = out.lines().filter(|l| l.starts_with("### ")).collect();
    assert_eq!(headings.len(), 17, "{headings:?}");
    assert!(
        headings[0].ends_with("queries/cpu_load.sql"),
        "{headings:?}"
    );
    assert!(
        headings[16].ends_with("queries/wait_reasons.sql"),
        "{headings:?}"
    );

    let budgets = run(&sqlite(&[
        &trace,
        &format!("{QUERIES}/ci"),
        "--format",
        "json",
    ]));
    let json: serde_json::Value = serde_json::from_slice(&budgets.stdout).unwrap();
    assert_eq!(json.as_object().unwrap().len(), 4, "{json}");
}

#[test]
fn parameters_are_bound_by_name_and_checked() {
    let trace = small();
    let lines = |window: &str| {
        let o = run(&sqlite(&[&trace, "cpu_load_timeline", "--param", window]));
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o).lines().count() - 1
    };
    // The trace lasts 89.8 ms.
    assert_eq!(lines("window_ms=10"), 9);
    assert_eq!(lines("window_ms=30"), 3);
    assert_eq!(lines(":window_ms=0.5"), 180);

    let o = run(&sqlite(&[
        &trace,
        "-e",
        "SELECT :a + 1 AS b, $c AS c",
        "--param",
        "a=41",
        "--param",
        "c=text",
    ]));
    assert_eq!(stdout(&o), "b,c\n42,text\n");

    let (code, err) = fails(
        &sqlite(&[&trace, "cpu_load", "--param", "window_ms=5"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "tband-query: no query here takes the parameter `window_ms`\n"
    );

    let (code, err) = fails(
        &sqlite(&[&trace, "-e", "SELECT :missing"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "tband-query: -e needs a value for `missing`: add --param missing=VALUE\n"
    );

    let (code, err) = fails(&[&trace, "cpu_load", "--param", "novalue"]);
    assert_eq!(code, 2);
    assert!(err.contains("is not NAME=VALUE"), "{err}");

    // A budget given as text would compare as 0 in SQLite and pass as a
    // wrong budget; a number is what the report's default says it takes.
    let (code, err) = fails(
        &sqlite(&[&trace, "ci/task_budget", "--param", "max_load_pct=9O"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert_eq!(code, 1);
    assert!(
        err.starts_with("tband-query: ci/task_budget")
            && err.ends_with(" takes a number for `max_load_pct` (default 90), not `9O`\n"),
        "{err}"
    );
}

#[test]
fn fail_if_rows_exits_3_on_budget_violations_only() {
    let trace = small();
    let ok = run(&sqlite(&[&trace, "ci/isr_budget", "--fail-if-rows"]));
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
    let broken = run(&sqlite(&[
        &trace,
        "ci/isr_budget",
        "--param",
        "max_ns=5000",
        "--fail-if-rows",
    ]));
    assert_eq!(broken.status.code(), Some(3));
    let out = stdout(&broken);
    assert!(
        out.lines()
            .nth(1)
            .unwrap()
            .starts_with("0,7,SimIRQ,3,5961,"),
        "{out}"
    );
    let tasks = run(&sqlite(&[
        &trace,
        "ci/task_budget",
        "--param",
        "max_ready_ns=20000000",
        "--fail-if-rows",
    ]));
    assert_eq!(tasks.status.code(), Some(0), "{}", stdout(&tasks));
}

#[test]
fn sql_errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.sql");
    std::fs::write(
        &bad,
        "-- A broken report.\nSELECT 1;\n\nSELECT *\n  FROM no_such_table;\n",
    )
    .unwrap();
    let trace = small();
    let (code, err) = fails(&["--engine", "sqlite", &trace, bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!(
            "tband-query: {}:4: no such table: no_such_table\n",
            bad.display()
        )
    );

    let (_, err) = fails(&["--engine", "sqlite", &trace, "-e", "SELEC 1"]);
    assert!(
        err.starts_with("tband-query: -e:1: near \"SELEC\": syntax error"),
        "{err}"
    );
}

#[test]
fn bad_inputs_are_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.bin");
    std::fs::write(&junk, [0xffu8; 64]).unwrap();
    let missing = dir.path().join("missing.bin");
    let trace = small();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec![missing.to_str().unwrap(), "cpu_load"],
            format!("cannot read {}", missing.display()),
        ),
        (
            vec![junk.to_str().unwrap(), "cpu_load"],
            "holds no decodable event".to_string(),
        ),
        (
            vec![&trace, "no_such_report"],
            "no_such_report is neither a .sql file, a directory nor a canned report (see --list)"
                .to_string(),
        ),
        (
            vec![&trace],
            "is not a .sql file; the last argument is the query".to_string(),
        ),
        (vec!["cpu_load"], "no trace given".to_string()),
        (
            vec!["--db", missing.to_str().unwrap(), "cpu_load"],
            "does not exist; give the traces to load into it".to_string(),
        ),
        (
            vec!["--db", junk.to_str().unwrap(), &trace, "cpu_load"],
            "exists and is not a SQLite or DuckDB database; not overwriting it".to_string(),
        ),
    ];
    for (args, want) in cases {
        let (code, err) = fails(&args);
        assert_eq!(code, 1, "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("tband-query: ") && err.contains(&want),
            "{args:?}: {err}"
        );
    }
}

fn modified(p: &Path) -> std::time::SystemTime {
    std::fs::metadata(p).unwrap().modified().unwrap()
}

fn db_reuse(engine: &str) {
    let dir = tempfile::tempdir().unwrap();
    let trace: PathBuf = dir.path().join("trace.bin");
    std::fs::copy(small(), &trace).unwrap();
    let db = dir.path().join("trace.db");
    let (t, d) = (trace.to_str().unwrap(), db.to_str().unwrap());
    let first = tband_query(&["--engine", engine, "--db", d, t, "task_states"]);
    assert!(first.status.success(), "{}", stderr(&first));
    let built = modified(&db);

    // Newer than the trace: queried as it is, with or without the trace.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let again = tband_query(&["--db", d, t, "task_states"]);
    assert_eq!(stdout(&again), stdout(&first));
    assert_eq!(modified(&db), built, "the database was rebuilt");
    let alone = tband_query(&["--db", d, "-e", "SELECT events FROM trace_info"]);
    assert_eq!(stdout(&alone), "events\n884\n");

    // The trace changed: decoded and loaded again.
    std::fs::copy(format!("{CONFORMANCE}/baremetal_basic.bin"), &trace).unwrap();
    let fresh = tband_query(&["--db", d, t, "-e", "SELECT events FROM trace_info"]);
    assert_eq!(stdout(&fresh), "events\n103\n", "{}", stderr(&fresh));

    // Tables stored otherwise, as by another version: loaded again.
    let changed = tband_query(&[
        "--db",
        d,
        "-e",
        "DROP VIEW queue_ops_named; DROP VIEW fill_levels; DROP VIEW queue_ops; \
         ALTER TABLE queue_ops_stored RENAME TO queue_ops",
    ]);
    assert!(changed.status.success(), "{}", stderr(&changed));
    let reloaded = tband_query(&["--db", d, t, "queue_high_water"]);
    assert!(reloaded.status.success(), "{}", stderr(&reloaded));

    let other = if engine == "sqlite" {
        "duckdb"
    } else {
        "sqlite"
    };
    let (code, err) = fails(&["--engine", other, "--db", d, "cpu_load"]);
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!("is a {engine} database, not {other}")),
        "{err}"
    );
}

#[test]
fn db_file_is_reused_while_newer_than_the_trace_sqlite() {
    db_reuse("sqlite");
}

#[cfg(feature = "duckdb-engine")]
#[test]
fn db_file_is_reused_while_newer_than_the_trace_duckdb() {
    db_reuse("duckdb");
}

#[test]
fn list_and_completion() {
    let list = stdout(&tband_query(&["--list"]));
    assert_eq!(list.lines().count(), 21);
    assert!(list.contains("cpu_load "), "{list}");
    assert!(
        list.lines()
            .any(|l| l.starts_with("ci/isr_budget ") && l.ends_with("(no rows = within budget).")),
        "{list}"
    );
    let bash = tband_query(&["completion", "bash"]);
    assert!(bash.status.success());
    assert!(stdout(&bash).contains("tband-query"));
}

#[test]
fn the_events_table_is_there_when_a_query_names_it() {
    let trace = small();
    let o = run(&sqlite(&[
        &trace,
        "-e",
        "SELECT (SELECT count(*) FROM events) = events AS all_there FROM trace_info",
    ]));
    assert_eq!(stdout(&o), "all_there\n1\n", "{}", stderr(&o));
    let o = run(&sqlite(&[
        &trace,
        "-e",
        "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'event' || 's'",
    ]));
    assert_eq!(stdout(&o), "n\n0\n", "loaded although no query names it");
}

/// The README's first command is this tool on the shipped sample; the rows
/// it quotes are the rows the command prints (cut after the same column).
#[test]
fn the_readme_quotes_what_its_first_command_prints() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    assert!(readme.contains(
        "cargo run --release -p tband-query -- samples/demo.bin queries/isr_latency.sql"
    ));
    let o = tband_query(&[
        &format!("{root}/samples/demo.bin"),
        &format!("{QUERIES}/isr_latency.sql"),
        "--format",
        "table",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let printed = stdout(&o);
    let quoted: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("core_id  isr_id"))
        .take_while(|l| !l.starts_with("```"))
        .collect();
    assert!(quoted.len() >= 2, "the README quotes no rows");
    for line in quoted {
        let kept = line.trim_end_matches("...").trim_end();
        assert!(
            printed.lines().any(|p| p.starts_with(kept)),
            "README.md quotes {kept:?}, which the command does not print:\n{printed}"
        );
    }
}

#[cfg(not(feature = "parquet"))]
#[test]
fn export_says_which_feature_it_needs() {
    let (code, err) = fails(&["export", "out", &small()]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "tband-query: this build of tband-query has no Parquet export; rebuild it with `--features parquet`\n"
    );
    assert!(!Path::new("out").exists());
}
