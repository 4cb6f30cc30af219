//! Reports over a fleet of traces: a folder that `tband-query export`
//! wrote. Each trace is loaded from its Parquet files into an in-memory
//! database of the default engine and the queries run on it; each result
//! row gets the trace's id and tags in front, and the rows of all traces
//! make one result per query. One trace is in memory at a time.

use std::path::Path;

use crate::engine::{self, Engine, QueryResult, Value};
use crate::error::Error;
use crate::export;
use crate::reports::Query;
use crate::run::{self, Param};
use crate::schema::{EVENTS, TRACE_INFO};

/// The ids of the traces in `dir`, in name order.
pub fn traces(dir: &Path) -> Result<Vec<String>, Error> {
    let info = dir.join(format!("table={}", TRACE_INFO.name));
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

/// A trace's tags: the columns of its `trace_info` file after the table's.
fn tags(dir: &Path, id: &str) -> Result<Vec<(String, Value)>, Error> {
    export::read_tags(&export::file(dir, TRACE_INFO.name, id)).map_err(Error::Input)
}

/// Runs `queries` on every trace of `dir`; each result has the columns
/// `trace`, the tags of any trace (NULL where a trace lacks one), then the
/// query's own.
pub fn run(dir: &Path, queries: &[Query], params: &[Param]) -> Result<Vec<QueryResult>, Error> {
    let ids = traces(dir)?;
    let tables = engine::tables_for(queries);
    if tables.iter().any(|t| t.name == EVENTS.name) {
        return Err(Error::Input(
            "a fleet folder has no events table (tband-query export writes the model's tables)"
                .into(),
        ));
    }
    let tagged: Vec<Vec<(String, Value)>> = ids
        .iter()
        .map(|id| tags(dir, id))
        .collect::<Result<_, _>>()?;
    let mut tag_names: Vec<&str> = Vec::new();
    for (name, _) in tagged.iter().flatten() {
        if !tag_names.contains(&name.as_str()) {
            tag_names.push(name);
        }
    }
    let mut merged: Vec<QueryResult> = Vec::new();
    for (id, tags) in ids.iter().zip(&tagged) {
        let engine = Engine::default_engine();
        let mut db = engine
            .open(None)
            .map_err(|e| Error::Database(format!("cannot start {engine}: {e}")))?;
        engine::load_rows(db.as_mut(), &tables, |table, sink| {
            export::read_table(&export::file(dir, table.name, id), table, sink)
        })
        .map_err(|e| Error::Database(format!("loading trace={id} into {engine} failed: {e}")))?;
        let results = run::run(db.as_mut(), queries, params)?;
        let front: Vec<Value> = std::iter::once(Value::Text(id.clone()))
            .chain(tag_names.iter().map(|name| {
                tags.iter()
                    .find(|(n, _)| n == name)
                    .map_or(Value::Null, |(_, v)| v.clone())
            }))
            .collect();
        for (i, result) in results.into_iter().enumerate() {
            if merged.len() == i {
                let columns = std::iter::once("trace")
                    .chain(tag_names.iter().copied())
                    .map(str::to_string)
                    .chain(result.columns.iter().cloned())
                    .collect();
                merged.push(QueryResult {
                    columns,
                    rows: Vec::new(),
                });
            }
            merged[i].rows.extend(
                result
                    .rows
                    .into_iter()
                    .map(|row| front.iter().cloned().chain(row).collect()),
            );
        }
    }
    Ok(merged)
}
