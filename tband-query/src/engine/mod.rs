//! The SQL engines behind one interface: create the schema, load a trace,
//! run a statement.

#[cfg(feature = "duckdb-engine")]
mod duckdb;
mod perfetto;
#[cfg(feature = "sqlite")]
mod sqlite;

use std::fmt;
use std::path::Path;

use tband_model::{EventSink, Model};

use crate::reports::Query;
use crate::rows::{RowSink, RowSource};
use crate::schema::Table;
use crate::sql;
use crate::tables::{EventRows, Events, ON_DEMAND, TABLES};
use crate::views;

pub use perfetto::Perfetto;

/// A SQL engine: an embedded one, or Perfetto's trace processor (a
/// program of its own, on the trace's Perfetto export).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Duckdb,
    Perfetto,
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Sqlite => "sqlite",
            Engine::Duckdb => "duckdb",
            Engine::Perfetto => "perfetto",
        }
    }

    /// SQLite when it is built in: it is the engine measured on large traces
    /// (docs/performance.md, "SQL queries"), and it builds in a minute where
    /// the bundled DuckDB takes half an hour.
    pub fn default_engine() -> Engine {
        if cfg!(feature = "sqlite") {
            Engine::Sqlite
        } else {
            Engine::Duckdb
        }
    }

    /// The SQL engines this build has (trace_processor is found at run time).
    pub fn built_in() -> Vec<Engine> {
        let mut engines = Vec::new();
        if cfg!(feature = "sqlite") {
            engines.push(Engine::Sqlite);
        }
        if cfg!(feature = "duckdb-engine") {
            engines.push(Engine::Duckdb);
        }
        engines
    }

    /// Recognises a database file by its header; `None` if it is neither.
    pub fn of_file(path: &Path) -> std::io::Result<Option<Engine>> {
        use std::io::Read;
        let mut head = [0u8; 16];
        let mut file = std::fs::File::open(path)?;
        let n = file.read(&mut head)?;
        let head = &head[..n];
        Ok(if head.starts_with(b"SQLite format 3\0") {
            Some(Engine::Sqlite)
        } else if head.get(8..12) == Some(b"DUCK") {
            Some(Engine::Duckdb)
        } else {
            None
        })
    }

    /// Opens a database in memory, or in the file `path` (created if missing).
    pub fn open(self, path: Option<&Path>) -> Result<Box<dyn Database>, String> {
        match self {
            #[cfg(feature = "sqlite")]
            Engine::Sqlite => Ok(Box::new(sqlite::Sqlite::open(path)?)),
            #[cfg(feature = "duckdb-engine")]
            Engine::Duckdb => Ok(Box::new(duckdb::DuckDb::open(path)?)),
            Engine::Perfetto => Err(
                "the perfetto engine queries a trace, not a database: give the traces, not --db"
                    .to_string(),
            ),
            #[allow(unreachable_patterns)]
            other => {
                let _ = path;
                Err(format!(
                    "this build of tband-query has no {} engine; rebuild it with `--features {}`",
                    other.name(),
                    other.name()
                ))
            }
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A value coming out of (or bound into) a query, and the result of one
/// statement: the four storage classes every engine reads back, defined
/// once with trace_processor's reader.
pub use tband_perfetto::trace_processor::{Rows as QueryResult, Value};

/// What fills a table: writes every row of it into the sink it is given.
/// An engine may run it on a thread of its own.
pub type Fill<'a> = Box<dyn FnOnce(&mut dyn RowSink) -> Result<(), String> + Send + 'a>;

/// What every engine does. Errors are the engine's own message.
pub trait Database {
    fn engine(&self) -> Engine;
    /// Runs a statement that returns nothing.
    fn execute(&mut self, sql: &str) -> Result<(), String>;
    /// Fills an existing table with the rows `fill` writes, as fast as the
    /// engine allows.
    fn load_table(&mut self, table: &dyn Table, fill: Fill<'_>) -> Result<(), String>;
    /// Starts the transaction a load runs in.
    fn begin_load(&mut self) -> Result<(), String> {
        self.execute("BEGIN TRANSACTION")
    }
    /// Commits it.
    fn end_load(&mut self) -> Result<(), String> {
        self.execute("COMMIT")
    }
    /// Runs one statement with positional (`?`) parameters.
    fn query(&mut self, sql: &str, params: &[Value]) -> Result<QueryResult, String>;
}

/// Why a load failed.
#[derive(Debug)]
pub enum LoadError<E> {
    /// The model could not be built: why.
    Model(E),
    /// The engine failed: its message.
    Database(String),
}

impl<E> From<String> for LoadError<E> {
    fn from(e: String) -> Self {
        LoadError::Database(e)
    }
}

/// Loads the model that `build` builds into `tables` (created here), then
/// creates the views, in one transaction. When `events` is among the
/// tables, `build` gets a sink for the raw events and fills it during the
/// pass that builds the model. The model's tables are then loaded from the
/// model, which is given up as they are (see [`RowSource::Consumed`]): the
/// database grows into the memory the model frees instead of next to it.
pub fn load_while_building<E: Send>(
    db: &mut dyn Database,
    tables: &[&dyn Table],
    build: impl FnOnce(Option<EventSink<'_>>) -> Result<Model, E> + Send,
) -> Result<(), LoadError<E>> {
    db.begin_load()?;
    for table in tables {
        db.execute(&table.create_sql())?;
    }
    let model = if tables.iter().any(|t| t.name() == Events.name()) {
        let mut built = None;
        db.load_table(
            &Events,
            Box::new(|sink| {
                let mut rows = EventRows::new(sink);
                built = Some(build(Some(&mut |e| rows.event(e))));
                rows.finish()
            }),
        )?;
        built.ok_or("the engine never asked for the events".to_string())?
    } else {
        build(None)
    }
    .map_err(LoadError::Model)?;
    let model_tables: Vec<&dyn Table> = tables
        .iter()
        .copied()
        .filter(|t| t.name() != Events.name())
        .collect();
    fill_from_model(
        db,
        &mut RowSource::consumed(model, model_tables.iter().map(|t| t.name())),
        &model_tables,
    )?;
    Ok(())
}

/// Creates `tables`, fills them from a model that stays as it is, and
/// creates the views that are missing, in one transaction. The `events`
/// table cannot be among them: its rows are there only while a trace is
/// decoded ([`load_while_building`]).
pub fn load(db: &mut dyn Database, model: &Model, tables: &[&dyn Table]) -> Result<(), String> {
    let mut source = RowSource::Kept(model);
    load_rows(db, tables, |table, sink| table.write(&mut source, sink))
}

/// Fills `tables`, created already, from `source`, creates the views and
/// commits the load.
fn fill_from_model(
    db: &mut dyn Database,
    source: &mut RowSource<'_>,
    tables: &[&dyn Table],
) -> Result<(), String> {
    fill_tables(db, tables, |table, sink| table.write(&mut *source, sink))
}

/// Creates `tables`, fills each with the rows that `fill` writes for it
/// (as the tables store them), and creates the views, in one transaction.
pub fn load_rows(
    db: &mut dyn Database,
    tables: &[&dyn Table],
    fill: impl FnMut(&dyn Table, &mut dyn RowSink) -> Result<(), String> + Send,
) -> Result<(), String> {
    db.begin_load()?;
    for table in tables {
        db.execute(&table.create_sql())?;
    }
    fill_tables(db, tables, fill)
}

/// Fills `tables`, created already, with what `fill` writes for each,
/// creates the views and commits the load.
fn fill_tables(
    db: &mut dyn Database,
    tables: &[&dyn Table],
    mut fill: impl FnMut(&dyn Table, &mut dyn RowSink) -> Result<(), String> + Send,
) -> Result<(), String> {
    for &table in tables {
        let fill = &mut fill;
        db.load_table(table, Box::new(move |sink| fill(table, sink)))?;
    }
    for view in views::views() {
        db.execute(&view.create_sql())?;
    }
    db.end_load()
}

/// The tables a run of `queries` needs: every table but the [`ON_DEMAND`]
/// ones that no statement reads. SQLite tells which tables a statement
/// reads, as it prepares it against the empty schema; a statement it cannot
/// prepare (DuckDB's own syntax, a table an earlier statement creates)
/// might read any, and gets every table.
pub fn tables_for(queries: &[Query]) -> Vec<&'static dyn Table> {
    let statements: Vec<String> = queries
        .iter()
        .flat_map(|q| sql::statements(&q.text))
        .map(|s| s.sql)
        .collect();
    let read = tables_read(&statements);
    TABLES
        .iter()
        .copied()
        .filter(|t| {
            let on_demand = ON_DEMAND.iter().any(|o| o.name() == t.name());
            !on_demand || read.as_ref().is_none_or(|read| read.contains(&t.name()))
        })
        .collect()
}

/// The schema's tables that `statements` read, or `None` if that cannot be told.
#[cfg(feature = "sqlite")]
fn tables_read(statements: &[String]) -> Option<Vec<&'static str>> {
    sqlite::tables_read(statements)
}

#[cfg(not(feature = "sqlite"))]
fn tables_read(_: &[String]) -> Option<Vec<&'static str>> {
    None
}

#[cfg(all(test, feature = "sqlite"))]
mod tests {
    use super::*;

    fn names(sql: &[&str]) -> Vec<&'static str> {
        let queries: Vec<Query> = sql
            .iter()
            .map(|text| Query {
                name: "-e".into(),
                text: text.to_string(),
            })
            .collect();
        tables_for(&queries).iter().map(|t| t.name()).collect()
    }

    #[test]
    fn on_demand_tables_are_loaded_only_for_queries_that_read_them() {
        let model_only = names(&[
            "SELECT * FROM task_states",
            "SELECT count(*) FROM isr_slices",
        ]);
        assert!(!model_only.contains(&"events"));
        assert!(!model_only.contains(&"cpu_timeline"));
        assert_eq!(model_only.len(), TABLES.len() - ON_DEMAND.len());
        let with_events = names(&["SELECT 1", "select name from Events"]);
        assert!(with_events.contains(&"events") && !with_events.contains(&"cpu_timeline"));
        assert!(names(&["SELECT * FROM main.events;"]).contains(&"events"));
        assert!(names(&["SELECT count(*) FROM events"]).contains(&"events"));
        assert!(names(&["SELECT * FROM cpu_timeline"]).contains(&"cpu_timeline"));
        // The table that holds a view's rows is the view's table.
        assert!(names(&["SELECT rowid FROM cpu_timeline_stored"]).contains(&"cpu_timeline"));
        assert!(names(&["SELECT 1 FROM tasks t, events e"]).contains(&"events"));
        assert!(names(&["SELECT * FROM (SELECT ts_ns FROM events) x"]).contains(&"events"));
        assert!(names(&["SELECT 1 FROM tasks LEFT JOIN \"events\" ON 1"]).contains(&"events"));
        assert!(names(&["SELECT 1 WHERE EXISTS (SELECT 1 FROM events)"]).contains(&"events"));
        assert!(names(&["SELECT seq FROM events WHERE ts_ns > :from_ns"]).contains(&"events"));
        // A column, a string, a comment or a query's own table of that name
        // is not the table.
        let mentions = names(&[
            "-- counts events\nSELECT 'events' AS kind, events, /* events */ 1 FROM trace_info",
            "SELECT events FROM trace_info WHERE events IN (SELECT events FROM trace_info)",
            "SELECT 'it''s events' FROM tasks",
            "WITH events AS (SELECT 1 AS x) SELECT x FROM events",
            "WITH events_by_task AS (SELECT 1 AS x) SELECT * FROM events_by_task",
        ]);
        assert!(!mentions.contains(&"events"));
    }

    #[test]
    fn a_query_sqlite_cannot_prepare_gets_every_table() {
        let all = TABLES.len();
        // DuckDB's own syntax.
        assert_eq!(
            names(&["SELECT ts_ns::BIGINT FROM sched_slices"]).len(),
            all
        );
        assert_eq!(names(&["FROM tasks SELECT name"]).len(), all);
        // A table that an earlier statement makes.
        let made = "CREATE TEMP TABLE x AS SELECT 1 AS a; SELECT a FROM x";
        assert_eq!(names(&[made]).len(), all);
    }

    #[test]
    fn no_view_reads_an_on_demand_table() {
        // The views are created with the tables every load has.
        for view in views::views() {
            let read = names(&[&format!("SELECT * FROM {}", view.name)]);
            assert_eq!(read.len(), TABLES.len() - ON_DEMAND.len(), "{}", view.name);
        }
    }
}
