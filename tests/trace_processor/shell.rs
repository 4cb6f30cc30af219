//! Finding and running Perfetto's `trace_processor_shell` in tests.
//!
//! The shell is found through `TBAND_TRACE_PROCESSOR`; without it a test
//! says so and passes, unless `TBAND_REQUIRE_TRACE_PROCESSOR=1` (as in CI),
//! where it fails.

#![allow(dead_code)] // each crate's test uses a part of it

use std::path::{Path, PathBuf};
use std::process::Command;

use tband_perfetto::sql_text;
use tband_perfetto::trace_processor::{self, Rows, Value};

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
    trace_processor::run(shell, sql, pftrace)
        .unwrap_or_else(|e| panic!("trace_processor failed on {}: {e}", pftrace.display()))
}

/// The result of each report of `reports` (files of PerfettoSQL
/// statements, the last one giving the rows) on `pftrace`: its columns and
/// its rows, each value with its type.
pub fn report_results(shell: &Path, reports: &[String], pftrace: &Path) -> Vec<Rows> {
    // Each report's last statement, found as the extension finds it.
    let pairs: Vec<(&str, &str)> = reports
        .iter()
        .map(|report| report.split_at(sql_text::last_statement_start(report)))
        .collect();
    trace_processor::queries(shell, &pairs, pftrace)
        .unwrap_or_else(|e| panic!("trace_processor failed on {}: {e}", pftrace.display()))
}

/// The rows of each report of `reports` on `pftrace`, every field as text
/// (NULL as empty).
pub fn report_rows(shell: &Path, reports: &[String], pftrace: &Path) -> Vec<Vec<Vec<String>>> {
    report_tables(shell, reports, pftrace)
        .into_iter()
        .map(|(_, rows)| rows)
        .collect()
}

/// The column names and rows of each report, as [`report_rows`] gives the rows.
pub fn report_tables(
    shell: &Path,
    reports: &[String],
    pftrace: &Path,
) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    report_results(shell, reports, pftrace)
        .into_iter()
        .map(|rows| {
            let values = rows
                .rows
                .into_iter()
                .map(|row| {
                    row.into_iter()
                        .map(|v| match v {
                            Value::Null => String::new(),
                            Value::Int(i) => i.to_string(),
                            Value::Real(r) => r.to_string(),
                            Value::Text(t) => t,
                        })
                        .collect()
                })
                .collect();
            (rows.columns, values)
        })
        .collect()
}
