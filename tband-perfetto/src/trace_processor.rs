//! Running SQL on an exported trace in Perfetto's `trace_processor_shell`
//! (the engine behind ui.perfetto.dev), found through the environment
//! variable `TBAND_TRACE_PROCESSOR` or on `PATH`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The environment variable naming the shell to run.
pub const ENV: &str = "TBAND_TRACE_PROCESSOR";

/// Where a user gets the shell.
pub const DOWNLOAD: &str = "curl -LO https://get.perfetto.dev/trace_processor";

/// The shell: `TBAND_TRACE_PROCESSOR`, else `trace_processor_shell` or
/// `trace_processor` on `PATH`; says where to get one if there is none.
pub fn find() -> Result<PathBuf, String> {
    locate(None).ok_or_else(|| {
        format!(
            "no trace_processor_shell found on PATH or in {ENV}: get one with `{DOWNLOAD}` \
             (then chmod +x it and put it on PATH)"
        )
    })
}

/// The shell `given`, else as [`find`] looks for it; `None` if there is
/// none.
pub fn locate(given: Option<&Path>) -> Option<PathBuf> {
    if let Some(path) = given {
        return Some(path.to_path_buf());
    }
    if let Some(path) = std::env::var_os(ENV).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let dirs = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&dirs)
        .flat_map(|dir| {
            ["trace_processor_shell", "trace_processor"]
                .into_iter()
                .map(move |name| dir.join(name))
        })
        .find(|path| path.is_file())
}

/// A value of a statement's result, one of SQLite's storage classes (the
/// SQL engines of tband-query read theirs into it too).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

/// The rows of a statement: its column names, then the values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rows {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

/// Runs `sql` (statements separated by `;`) on `trace`: the shell's
/// output, one CSV result set per statement, separated by blank lines.
pub fn run(shell: &Path, sql: &str, trace: &Path) -> Result<String, String> {
    let mut child = Command::new(shell)
        .args(["query", "-f", "-"])
        .arg(trace)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", shell.display()))?;
    let written = child
        .stdin
        .take()
        .expect("a piped stdin")
        .write_all(sql.as_bytes());
    let output = child
        .wait_with_output()
        .map_err(|e| format!("cannot run {}: {e}", shell.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        // The shell's own message is its last line.
        let message = stderr.lines().rev().find(|l| !l.trim().is_empty());
        return Err(message
            .unwrap_or("trace_processor failed")
            .trim()
            .to_string());
    }
    written.map_err(|e| format!("cannot write to {}: {e}", shell.display()))?;
    String::from_utf8(output.stdout)
        .map_err(|_| format!("{} printed something that is not UTF-8", shell.display()))
}

/// Runs `prelude` (statements whose results are not wanted, e.g.
/// `INCLUDE PERFETTO MODULE`) and then `query`, a statement that returns
/// rows, on `trace`, and reads the rows back with their types.
pub fn query(shell: &Path, prelude: &str, query: &str, trace: &Path) -> Result<Rows, String> {
    let mut rows = queries(shell, &[(prelude, query)], trace)?;
    Ok(rows.pop().unwrap_or_default())
}

/// [`query`] for several pairs of prelude and query, all in two runs of the
/// shell. The shell prints strings between quotes without escaping any, so
/// the rows of each query are kept in a table and read back as each
/// value's type and hex: a first run learns the tables' columns, a second
/// reads them.
pub fn queries(shell: &Path, queries: &[(&str, &str)], trace: &Path) -> Result<Vec<Rows>, String> {
    let tables: String = queries
        .iter()
        .enumerate()
        .map(|(i, (prelude, query))| {
            format!(
                "{prelude}\nCREATE TEMP TABLE tband_result_{i} AS {};\n",
                query.trim().trim_end_matches(';')
            )
        })
        .collect();
    let headers: String = (0..queries.len())
        .map(|i| format!("SELECT * FROM tband_result_{i} LIMIT 0;\n"))
        .collect();
    let output = run(shell, &format!("{tables}{headers}"), trace)?;
    let columns: Vec<Vec<String>> = last_sets(&output, queries.len())
        .iter()
        .map(|set| {
            set.lines()
                .next()
                .unwrap_or("")
                .split(',')
                .map(|c| c.trim_matches('"').to_string())
                .collect()
        })
        .collect();
    let selects: String = columns
        .iter()
        .enumerate()
        .map(|(i, columns)| {
            let fields: Vec<String> = columns
                .iter()
                .map(|c| {
                    let c = c.replace('"', "\"\"");
                    format!("typeof(\"{c}\"), hex(\"{c}\")")
                })
                .collect();
            format!("SELECT {} FROM tband_result_{i};\n", fields.join(", "))
        })
        .collect();
    let output = run(shell, &format!("{tables}{selects}"), trace)?;
    Ok(last_sets(&output, queries.len())
        .into_iter()
        .zip(columns)
        .map(|(set, columns)| Rows {
            columns,
            rows: set.lines().skip(1).map(row).collect(),
        })
        .collect())
}

/// The last `n` result sets of the shell's output (a prelude may print
/// some before them).
fn last_sets(output: &str, n: usize) -> Vec<&str> {
    let sets: Vec<&str> = output.trim_end().split("\n\n").collect();
    sets[sets.len().saturating_sub(n)..].to_vec()
}

/// A line of type and hex pairs.
fn row(line: &str) -> Vec<Value> {
    let fields: Vec<&str> = line.split(',').map(|f| f.trim_matches('"')).collect();
    fields
        .chunks(2)
        .map(|f| value(f[0], &unhex(f.get(1).copied().unwrap_or(""))))
        .collect()
}

fn value(kind: &str, text: &str) -> Value {
    match kind {
        "integer" => text.parse().map_or(Value::Text(text.into()), Value::Int),
        "real" => text.parse().map_or(Value::Text(text.into()), Value::Real),
        "null" => Value::Null,
        _ => Value::Text(text.to_string()),
    }
}

/// Text from SQLite's `hex()`.
pub fn unhex(hex: &str) -> String {
    let bytes: Vec<u8> = (0..hex.len() / 2)
        .filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
