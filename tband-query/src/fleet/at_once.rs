//! A fleet on DuckDB: each table of the folder is a view over its Parquet
//! files (`read_parquet` with Hive partitioning, which gives every row the
//! column `trace`), and each query runs once over all traces. A canned
//! report runs as its fleet form; SQL of one's own runs as written.

use std::path::Path;

use super::{front, front_columns, tag_names, traces, Tags};
use crate::engine::{Database, Engine, QueryResult, Value};
use crate::error::Error;
use crate::export;
use crate::reports::{self, Query};
use crate::run::{self, Param};
use crate::schema::Table;
use crate::tables::TraceInfo;

/// Runs `queries` over every trace of `dir` at once; a canned report's
/// rows get the trace's tags after its id.
pub fn run(dir: &Path, queries: &[Query], params: &[Param]) -> Result<Vec<QueryResult>, Error> {
    traces(dir)?;
    let mut db = Engine::Duckdb
        .open(None)
        .map_err(|e| Error::Database(format!("cannot start duckdb: {e}")))?;
    for table in export::tables() {
        let folder = dir.join(format!("table={}", table.name()));
        if folder.is_dir() {
            db.execute(&view_sql(table.name(), &folder))
                .map_err(|e| Error::Database(format!("cannot read {}: {e}", folder.display())))?;
        }
    }
    for view in reports::FLEET_VIEWS {
        db.execute(view)
            .map_err(|e| Error::Database(format!("cannot make the fleet's views: {e}")))?;
    }
    let forms = queries
        .iter()
        .map(fleet_form)
        .collect::<Result<Vec<_>, _>>()?;
    let mut results = run::run(db.as_mut(), &forms, params)?;
    let tagged = tags(db.as_mut())?;
    let names = tag_names(&tagged.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>());
    for (query, result) in queries.iter().zip(&mut results) {
        if reports::canned_name(query).is_none() {
            continue;
        }
        result.columns = front_columns(&names, &result.columns[1..]);
        for row in &mut result.rows {
            let own = row.split_off(1);
            let id = row.pop().unwrap_or(Value::Null);
            let tags = tagged
                .iter()
                .find(|(t, _)| *t == id)
                .map_or(&[][..], |(_, tags)| tags.as_slice());
            *row = front(id, tags, &names).into_iter().chain(own).collect();
        }
    }
    Ok(results)
}

/// The view `table` over the Parquet files under `folder`: every trace's
/// rows, with `trace` (the folder name's, as text) and `file_row_number`
/// (the row's place in its trace's file, the order the model wrote: what
/// `rowid` is in a database of one trace). The partition `table` of the
/// path is left out: it is the view's name. Only `trace_info` differs in
/// its columns from trace to trace (the tags), so only it is read by name.
fn view_sql(table: &str, folder: &Path) -> String {
    let files = folder.join("*").join("*.parquet");
    let files = files.to_string_lossy().replace('\'', "''");
    let by_name = if table == TraceInfo.name() {
        ", union_by_name = true"
    } else {
        ""
    };
    format!(
        "CREATE VIEW {table} AS SELECT * EXCLUDE (\"table\") FROM read_parquet('{files}', hive_partitioning = true, \
         hive_types = {{'trace': VARCHAR}}, file_row_number = true{by_name})"
    )
}

/// The query to run for `query`: the fleet form of a canned report, or the
/// query itself.
fn fleet_form(query: &Query) -> Result<Query, Error> {
    let Some(name) = reports::canned_name(query) else {
        return Ok(query.clone());
    };
    reports::fleet_form(name)
        .map(|text| Query {
            name: format!("fleet/{name}.sql"),
            text: text.to_string(),
        })
        .ok_or_else(|| {
            Error::Input(format!(
                "the report {name} has no fleet form for DuckDB; run it trace by trace with --engine sqlite"
            ))
        })
}

/// Each trace's tags, by id, from the rows of `trace_info`.
fn tags(db: &mut dyn Database) -> Result<Vec<(Value, Tags)>, Error> {
    let info = db
        .query(
            &format!("SELECT * FROM {} ORDER BY trace", TraceInfo.name()),
            &[],
        )
        .map_err(Error::Database)?;
    let trace = info.columns.iter().position(|c| c == "trace");
    Ok(info
        .rows
        .iter()
        .map(|row| {
            let id = trace.map_or(Value::Null, |i| row[i].clone());
            let tags = info
                .columns
                .iter()
                .zip(row)
                .filter(|(column, value)| is_tag(column) && !matches!(value, Value::Null))
                .map(|(column, value)| (column.clone(), value.clone()))
                .collect();
            (id, tags)
        })
        .collect())
}

/// Whether a column of the `trace_info` view is a tag: not one of the
/// table's own, nor one the view adds.
fn is_tag(column: &str) -> bool {
    !matches!(column, "trace" | "file_row_number")
        && !TraceInfo.columns().iter().any(|c| c.name == column)
}
