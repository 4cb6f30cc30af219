//! A fleet trace by trace: each trace is loaded from its Parquet files into
//! an in-memory database of the schema, the queries run on it, and it is
//! dropped before the next; memory is that of one trace.

use std::path::Path;

use super::{front, front_columns, tag_names, traces};
use crate::engine::{self, Engine, QueryResult, Value};
use crate::error::Error;
use crate::export;
use crate::reports::Query;
use crate::run::{self, Param};
use crate::schema::Table;
use crate::tables::{Events, TraceInfo};

/// Runs `queries` on every trace of `dir`, loaded into SQLite, and puts
/// the trace and its tags in front of each row of every result.
pub fn run(dir: &Path, queries: &[Query], params: &[Param]) -> Result<Vec<QueryResult>, Error> {
    let ids = traces(dir)?;
    let tables = engine::tables_for(queries);
    if tables.iter().any(|t| t.name() == Events.name()) {
        return Err(Error::Input(
            "a fleet folder has no events table (tband-query export writes the model's tables)"
                .into(),
        ));
    }
    let tagged = ids
        .iter()
        .map(|id| export::read_tags(&export::file(dir, TraceInfo.name(), id)).map_err(Error::Input))
        .collect::<Result<Vec<_>, _>>()?;
    let names = tag_names(&tagged);
    let mut merged: Vec<QueryResult> = Vec::new();
    for (id, tags) in ids.iter().zip(&tagged) {
        let engine = Engine::Sqlite;
        let mut db = engine
            .open(None)
            .map_err(|e| Error::Database(format!("cannot start {engine}: {e}")))?;
        engine::load_rows(db.as_mut(), &tables, |table, sink| {
            export::read_table(&export::file(dir, table.name(), id), table, sink)
        })
        .map_err(|e| Error::Database(format!("loading trace={id} into {engine} failed: {e}")))?;
        let results = run::run(db.as_mut(), queries, params)?;
        let front = front(Value::Text(id.clone()), tags, &names);
        for (i, result) in results.into_iter().enumerate() {
            if merged.len() == i {
                merged.push(QueryResult {
                    columns: front_columns(&names, &result.columns),
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
