//! Query sources: `.sql` files, directories of them, `-e` text, and the
//! canned reports of `queries/` (built into the binary, so `--list` and
//! report names work wherever it is installed). A query's header comment
//! says what it answers; its `Parameters:` section gives defaults.

use std::path::Path;

use crate::error::Error;

/// A query to run: where it came from and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    /// How errors and headings name it (a path, a report name, or `-e`).
    pub name: String,
    pub text: String,
}

/// The canned reports, by name (their path under `queries/`, without `.sql`).
pub const CANNED: &[(&str, &str)] = &[
    ("cpu_load", include_str!("../../queries/cpu_load.sql")),
    (
        "cpu_load_timeline",
        include_str!("../../queries/cpu_load_timeline.sql"),
    ),
    ("isr_latency", include_str!("../../queries/isr_latency.sql")),
    (
        "isr_to_task_latency",
        include_str!("../../queries/isr_to_task_latency.sql"),
    ),
    (
        "task_response",
        include_str!("../../queries/task_response.sql"),
    ),
    ("task_states", include_str!("../../queries/task_states.sql")),
    (
        "wait_reasons",
        include_str!("../../queries/wait_reasons.sql"),
    ),
    (
        "queue_high_water",
        include_str!("../../queries/queue_high_water.sql"),
    ),
    (
        "queue_levels",
        include_str!("../../queries/queue_levels.sql"),
    ),
    ("markers", include_str!("../../queries/markers.sql")),
    (
        "trace_health",
        include_str!("../../queries/trace_health.sql"),
    ),
    (
        "object_lifetimes",
        include_str!("../../queries/object_lifetimes.sql"),
    ),
    (
        "object_leaks",
        include_str!("../../queries/object_leaks.sql"),
    ),
    (
        "pool_low_water",
        include_str!("../../queries/pool_low_water.sql"),
    ),
    ("heap_usage", include_str!("../../queries/heap_usage.sql")),
    ("heap_leaks", include_str!("../../queries/heap_leaks.sql")),
    (
        "stack_margin",
        include_str!("../../queries/stack_margin.sql"),
    ),
    (
        "ci/isr_budget",
        include_str!("../../queries/ci/isr_budget.sql"),
    ),
    (
        "ci/task_budget",
        include_str!("../../queries/ci/task_budget.sql"),
    ),
    (
        "ci/stack_budget",
        include_str!("../../queries/ci/stack_budget.sql"),
    ),
    (
        "ci/heap_budget",
        include_str!("../../queries/ci/heap_budget.sql"),
    ),
];

/// The fleet forms of canned reports (`queries/fleet/`), by report name:
/// the report over tables that hold every trace of a fleet, told apart by
/// their `trace` column, grouped by trace; its rows are each trace's rows
/// of the report with the trace in front.
pub const FLEET: &[(&str, &str)] = &[
    ("cpu_load", include_str!("../../queries/fleet/cpu_load.sql")),
    (
        "cpu_load_timeline",
        include_str!("../../queries/fleet/cpu_load_timeline.sql"),
    ),
    (
        "isr_latency",
        include_str!("../../queries/fleet/isr_latency.sql"),
    ),
    (
        "isr_to_task_latency",
        include_str!("../../queries/fleet/isr_to_task_latency.sql"),
    ),
    (
        "task_response",
        include_str!("../../queries/fleet/task_response.sql"),
    ),
    (
        "task_states",
        include_str!("../../queries/fleet/task_states.sql"),
    ),
    (
        "queue_high_water",
        include_str!("../../queries/fleet/queue_high_water.sql"),
    ),
    (
        "queue_levels",
        include_str!("../../queries/fleet/queue_levels.sql"),
    ),
    ("markers", include_str!("../../queries/fleet/markers.sql")),
    (
        "wait_reasons",
        include_str!("../../queries/fleet/wait_reasons.sql"),
    ),
    (
        "trace_health",
        include_str!("../../queries/fleet/trace_health.sql"),
    ),
    (
        "object_lifetimes",
        include_str!("../../queries/fleet/object_lifetimes.sql"),
    ),
    (
        "object_leaks",
        include_str!("../../queries/fleet/object_leaks.sql"),
    ),
    (
        "pool_low_water",
        include_str!("../../queries/fleet/pool_low_water.sql"),
    ),
    (
        "heap_usage",
        include_str!("../../queries/fleet/heap_usage.sql"),
    ),
    (
        "heap_leaks",
        include_str!("../../queries/fleet/heap_leaks.sql"),
    ),
    (
        "stack_margin",
        include_str!("../../queries/fleet/stack_margin.sql"),
    ),
    (
        "ci/isr_budget",
        include_str!("../../queries/fleet/ci/isr_budget.sql"),
    ),
    (
        "ci/task_budget",
        include_str!("../../queries/fleet/ci/task_budget.sql"),
    ),
    (
        "ci/stack_budget",
        include_str!("../../queries/fleet/ci/stack_budget.sql"),
    ),
    (
        "ci/heap_budget",
        include_str!("../../queries/fleet/ci/heap_budget.sql"),
    ),
];

/// The views the fleet forms read besides the tables (`queries/fleet/views/`),
/// each a `CREATE TEMPORARY VIEW` statement.
pub const FLEET_VIEWS: &[&str] = &[include_str!("../../queries/fleet/views/ready_latency.sql")];

/// The name of the canned report `query` is, as [`resolve`] gives it;
/// `None` for SQL of one's own.
pub fn canned_name(query: &Query) -> Option<&'static str> {
    CANNED
        .iter()
        .find(|(name, text)| query.name.strip_suffix(".sql") == Some(name) && *text == query.text)
        .map(|(name, _)| *name)
}

/// The fleet form of the canned report `name`, if it has one.
pub fn fleet_form(name: &str) -> Option<&'static str> {
    FLEET
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

/// A parameter a query declares in its header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamDecl {
    pub name: String,
    /// The value used when none is given (`None`: it must be given).
    pub default: Option<String>,
}

/// The leading `--` comment lines of a query, without the dashes.
fn header(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim)
        .take_while(|l| l.starts_with("--"))
        .map(|l| l.trim_start_matches('-').trim())
}

/// The first line of the header: what the query answers.
pub fn description(text: &str) -> &str {
    header(text).next().unwrap_or("")
}

/// The `Parameters:` section of the header: one `name = default  what` (or
/// `name  what` for a required one) per line, up to a blank line.
pub fn parameters(text: &str) -> Vec<ParamDecl> {
    header(text)
        .skip_while(|l| !l.eq_ignore_ascii_case("parameters:"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| {
            let (name, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            let rest = rest.trim_start();
            let default = rest
                .strip_prefix('=')
                .and_then(|r| r.split_whitespace().next())
                .map(str::to_string);
            ParamDecl {
                name: name.trim_start_matches([':', '$']).to_string(),
                default,
            }
        })
        .collect()
}

/// The `Key:` line of the header, if any: the columns that identify a row
/// when two results are compared (`tband-query diff`).
pub fn key(text: &str) -> Option<Vec<String>> {
    header(text).find_map(|l| {
        l.strip_prefix("Key:").map(|names| {
            names
                .split(',')
                .map(|n| n.trim().to_string())
                .filter(|n| !n.is_empty())
                .collect()
        })
    })
}

/// Resolves the QUERY argument: a `.sql` file, a directory (every `.sql`
/// file in it, in name order; subdirectories such as `queries/ci` are run
/// by naming them), or the name of a canned report.
pub fn resolve(arg: &str) -> Result<Vec<Query>, Error> {
    let path = Path::new(arg);
    if path.is_dir() {
        let mut files = sql_files(path)?;
        files.sort();
        if files.is_empty() {
            return Err(Error::Input(format!("{arg} holds no .sql file")));
        }
        return files.iter().map(|f| read(f)).collect();
    }
    if path.exists() {
        if path.extension().is_none_or(|e| e != "sql") {
            return Err(Error::Input(format!(
                "{arg} is not a .sql file; the last argument is the query (a .sql file, a directory, a canned report, or -e SQL)"
            )));
        }
        return Ok(vec![read(path)?]);
    }
    let name = arg.strip_prefix("queries/").unwrap_or(arg);
    let name = name.strip_suffix(".sql").unwrap_or(name);
    match CANNED.iter().find(|(n, _)| *n == name) {
        Some((n, text)) => Ok(vec![Query {
            name: format!("{n}.sql"),
            text: text.to_string(),
        }]),
        None => Err(Error::Input(format!(
            "{arg} is neither a .sql file, a directory nor a canned report (see --list)"
        ))),
    }
}

fn sql_files(dir: &Path) -> Result<Vec<std::path::PathBuf>, Error> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::Input(format!("cannot read the directory {}: {e}", dir.display())))?;
    Ok(entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_file() && path.extension().is_some_and(|e| e == "sql"))
        .collect())
}

fn read(path: &Path) -> Result<Query, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Input(format!("cannot read {}: {e}", path.display())))?;
    Ok(Query {
        name: path.display().to_string(),
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_gives_description_and_parameters() {
        let text = "-- Late ISRs.\n--\n-- Parameters:\n--   max_ns = 5000  budget\n--   :isr   which one\n--\n-- More.\nSELECT 1";
        assert_eq!(description(text), "Late ISRs.");
        assert_eq!(
            parameters(text),
            [
                ParamDecl {
                    name: "max_ns".into(),
                    default: Some("5000".into())
                },
                ParamDecl {
                    name: "isr".into(),
                    default: None
                }
            ]
        );
    }

    #[test]
    fn every_canned_report_describes_itself() {
        for (name, text) in CANNED {
            assert!(!description(text).is_empty(), "{name} has no description");
            assert!(text.contains("Columns:"), "{name} lists no columns");
        }
    }

    #[test]
    fn canned_reports_match_the_queries_folder() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../queries");
        let files = sql_files(Path::new(dir)).unwrap().len()
            + sql_files(Path::new(&format!("{dir}/ci"))).unwrap().len();
        assert_eq!(files, CANNED.len());
        for (name, text) in CANNED {
            let on_disk = std::fs::read_to_string(format!("{dir}/{name}.sql")).unwrap();
            assert_eq!(&on_disk, text);
        }
    }

    #[test]
    fn fleet_forms_match_their_folder_and_name_canned_reports() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../queries/fleet");
        let files = sql_files(Path::new(dir)).unwrap().len()
            + sql_files(Path::new(&format!("{dir}/ci"))).unwrap().len();
        assert_eq!(files, FLEET.len());
        for (name, text) in FLEET {
            let on_disk = std::fs::read_to_string(format!("{dir}/{name}.sql")).unwrap();
            assert_eq!(&on_disk, text);
            let canned = resolve(name).unwrap().remove(0);
            assert_eq!(canned_name(&canned), Some(*name));
            assert!(!description(text).is_empty(), "{name} has no description");
        }
        let own = Query {
            name: "isr_latency.sql".into(),
            text: "SELECT 1".into(),
        };
        assert_eq!(canned_name(&own), None);
    }

    #[test]
    fn unknown_names_are_one_sentence() {
        let e = resolve("no_such_report").unwrap_err().to_string();
        assert!(e.contains("no_such_report is neither"), "{e}");
    }
}
