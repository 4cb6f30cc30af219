//! Finding and running Perfetto's `trace_processor_shell` in tests.
//!
//! The shell is found through `TBAND_TRACE_PROCESSOR`; without it a test
//! says so and passes, unless `TBAND_REQUIRE_TRACE_PROCESSOR=1` (as in CI),
//! where it fails.

#![allow(dead_code)] // each crate's test uses a part of it

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The shell to run, if there is one; says why not otherwise.
pub fn trace_processor() -> Option<PathBuf> {
    let why = match std::env::var_os("TBAND_TRACE_PROCESSOR") {
        None => "TBAND_TRACE_PROCESSOR is not set (point it at a trace_processor_shell, from \
                 `curl -LO https://get.perfetto.dev/trace_processor`)"
            .to_string(),
        Some(path) => match Command::new(&path).arg("--version").output() {
            Ok(o) if o.status.success() => return Some(PathBuf::from(path)),
            Ok(o) => format!(
                "{} --version failed: {}",
                Path::new(&path).display(),
                String::from_utf8_lossy(&o.stderr).trim()
            ),
            Err(e) => format!("cannot run {}: {e}", Path::new(&path).display()),
        },
    };
    assert!(
        std::env::var("TBAND_REQUIRE_TRACE_PROCESSOR").as_deref() != Ok("1"),
        "TBAND_REQUIRE_TRACE_PROCESSOR=1 but {why}"
    );
    eprintln!("skipping the trace_processor checks: {why}");
    None
}

/// Runs the queries `sql` on `pftrace`: the shell's output, one CSV result
/// set per query (a header line, then a line per row), separated by blank
/// lines.
pub fn run_queries(shell: &Path, sql: &str, pftrace: &Path) -> String {
    let mut child = Command::new(shell)
        .args(["query", "-f", "-"])
        .arg(pftrace)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", shell.display()));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(sql.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).expect("CSV in UTF-8");
    assert!(
        output.status.success(),
        "trace_processor failed on {}:\n{}{stdout}",
        pftrace.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The rows of each report of `reports` (files of PerfettoSQL statements,
/// the last one giving the rows) on `pftrace`, every field as text (NULL
/// as empty). The shell prints strings between quotes without escaping
/// any, so each report's rows are kept in a table and read back in hex:
/// a first run learns the tables' columns, a second reads them.
pub fn report_rows(shell: &Path, reports: &[String], pftrace: &Path) -> Vec<Vec<Vec<String>>> {
    let tables: Vec<String> = reports
        .iter()
        .enumerate()
        .map(|(i, report)| {
            let code: String = report
                .lines()
                .filter(|l| !l.trim_start().starts_with("--"))
                .collect::<Vec<_>>()
                .join("\n");
            let mut statements: Vec<&str> = code
                .split(';')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect();
            let last = statements.pop().expect("a report has a statement");
            statements.push("");
            format!(
                "{}CREATE PERFETTO TABLE tband_report_{i} AS {last};\n",
                statements.join(";\n")
            )
        })
        .collect();
    let headers = tables
        .iter()
        .enumerate()
        .map(|(i, table)| format!("{table}SELECT * FROM tband_report_{i} LIMIT 0;\n"))
        .collect::<String>();
    let output = run_queries(shell, &headers, pftrace);
    let columns: Vec<Vec<String>> = output
        .lines()
        .filter(|l| !l.is_empty())
        .map(|header| {
            header
                .split(',')
                .map(|c| c.trim_matches('"').to_string())
                .collect()
        })
        .collect();
    assert_eq!(
        columns.len(),
        reports.len(),
        "a header per report:\n{output}"
    );
    let hex = tables
        .iter()
        .zip(&columns)
        .enumerate()
        .map(|(i, (table, columns))| {
            let fields: Vec<String> = columns.iter().map(|c| format!("hex({c})")).collect();
            format!(
                "{table}SELECT {} FROM tband_report_{i};\n",
                fields.join(", ")
            )
        })
        .collect::<String>();
    let output = run_queries(shell, &hex, pftrace);
    let sets: Vec<Vec<Vec<String>>> = output
        .trim_end()
        .split("\n\n")
        .map(|set| {
            set.lines()
                .skip(1)
                .map(|line| {
                    line.split(',')
                        .map(|f| unhex(f.trim_matches('"')))
                        .collect()
                })
                .collect()
        })
        .collect();
    assert_eq!(
        sets.len(),
        reports.len(),
        "a result set per report:\n{output}"
    );
    sets
}

/// Text from SQLite's `hex()`.
pub fn unhex(hex: &str) -> String {
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex from SQLite"))
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
