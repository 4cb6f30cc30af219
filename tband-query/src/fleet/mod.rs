//! Reports over a fleet of traces: a folder that `tband-query export`
//! wrote (`DIR/table=T/trace=ID/data.parquet`). A canned report gives the
//! same rows on either route — each trace's own rows, with the trace's id
//! and tags in front:
//! - on DuckDB ([`at_once`]) the whole folder is read as one set of tables
//!   with a `trace` column, and the report runs once, as its fleet form
//!   (`queries/fleet/`), which groups by trace;
//! - on SQLite ([`trace_by_trace`]) each trace is loaded in turn into an
//!   in-memory database and the report runs on it.

#[cfg(feature = "duckdb-engine")]
mod at_once;
#[cfg(all(feature = "sqlite", feature = "parquet"))]
mod trace_by_trace;

use std::path::Path;

use crate::engine::{Engine, QueryResult, Value};
use crate::error::Error;
use crate::reports::Query;
use crate::run::Param;
use crate::schema::Table;
use crate::tables::TraceInfo;

/// The ids of the traces in `dir`, in name order.
pub fn traces(dir: &Path) -> Result<Vec<String>, Error> {
    let info = dir.join(format!("table={}", TraceInfo.name()));
    let entries = std::fs::read_dir(&info).map_err(|e| {
        Error::Input(format!(
            "{} is not a folder that tband-query export wrote ({}: {e})",
            dir.display(),
            info.display()
        ))
    })?;
    let mut ids: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_prefix("trace=")
                .map(str::to_string)
        })
        .collect();
    ids.sort();
    if ids.is_empty() {
        return Err(Error::Input(format!("{} holds no trace", dir.display())));
    }
    Ok(ids)
}

/// The engine a fleet runs on when none is named: DuckDB when it is built
/// in (it reads the folder itself, in seconds where loading a thousand
/// traces one by one takes minutes), else SQLite.
pub fn default_engine() -> Engine {
    if cfg!(feature = "duckdb-engine") {
        Engine::Duckdb
    } else {
        Engine::Sqlite
    }
}

/// Runs `queries` over the traces of `dir` on `engine` (see the module's
/// documentation); a canned report's result has the columns `trace`, the
/// tags of any trace (NULL where a trace lacks one), then the report's own.
pub fn run(
    dir: &Path,
    engine: Option<Engine>,
    queries: &[Query],
    params: &[Param],
) -> Result<Vec<QueryResult>, Error> {
    match engine.unwrap_or_else(default_engine) {
        #[cfg(feature = "duckdb-engine")]
        Engine::Duckdb => at_once::run(dir, queries, params),
        #[cfg(all(feature = "sqlite", feature = "parquet"))]
        Engine::Sqlite => trace_by_trace::run(dir, queries, params),
        Engine::Perfetto => Err(Error::Input(
            "the perfetto engine queries one trace's export; a fleet runs on duckdb or sqlite"
                .into(),
        )),
        #[allow(unreachable_patterns)]
        other => Err(Error::Input(format!(
            "this build of tband-query cannot run a fleet on {other}: rebuild it with `--features {}`",
            if other == Engine::Duckdb { "duckdb" } else { "parquet" }
        ))),
    }
}

/// A trace's tags: name and value of each.
type Tags = Vec<(String, Value)>;

/// The tag names of the traces whose tags are `tagged`, each once, in the
/// order they first appear.
fn tag_names(tagged: &[Tags]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (name, _) in tagged.iter().flatten() {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    names
}

/// What goes in front of a trace's rows: its id, then its value of each
/// tag of `names`.
fn front(id: Value, tags: &[(String, Value)], names: &[String]) -> Vec<Value> {
    std::iter::once(id)
        .chain(names.iter().map(|name| {
            tags.iter()
                .find(|(n, _)| n == name)
                .map_or(Value::Null, |(_, v)| v.clone())
        }))
        .collect()
}

/// The columns of a result with the trace and `names` in front.
fn front_columns(names: &[String], own: &[String]) -> Vec<String> {
    std::iter::once("trace".to_string())
        .chain(names.iter().cloned())
        .chain(own.iter().cloned())
        .collect()
}
