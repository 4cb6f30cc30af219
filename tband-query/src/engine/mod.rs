//! The SQL engines behind one interface: create the schema, load a trace,
//! run a statement.

#[cfg(feature = "duckdb-engine")]
mod duckdb;
#[cfg(feature = "sqlite")]
mod sqlite;

use std::fmt;
use std::path::Path;

use tband_trace::Trace;

use crate::rows::RowSource;
use crate::schema::{self, Table, View, ON_DEMAND, VIEWS};

/// An embedded SQL engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Duckdb,
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Sqlite => "sqlite",
            Engine::Duckdb => "duckdb",
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

/// A value coming out of (or bound into) a query.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

/// The result of one statement.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueryResult {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

/// What every engine does. Errors are the engine's own message.
pub trait Database {
    fn engine(&self) -> Engine;
    /// Runs a statement that returns nothing.
    fn execute(&mut self, sql: &str) -> Result<(), String>;
    /// Fills an existing table with the trace's rows, as fast as the engine
    /// allows (through [`crate::rows::write_table`]).
    fn load_table(&mut self, source: &mut RowSource<'_>, table: &Table) -> Result<(), String>;
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

/// Creates `tables`, loads the trace into them and creates the views that
/// are missing, in one transaction. A view over an on-demand table is
/// created with that table (DuckDB checks a view's tables when it is
/// created); the other tables are loaded by the first call.
pub fn load(db: &mut dyn Database, trace: &Trace, tables: &[&Table]) -> Result<(), String> {
    load_from(db, &mut RowSource::Kept(trace), tables)
}

/// [`load`] for a trace not needed afterwards, given up as it is loaded
/// (see [`RowSource::Consumed`]): the database grows into the memory the
/// model frees instead of next to it.
pub fn load_consuming(
    db: &mut dyn Database,
    trace: Trace,
    tables: &[&Table],
) -> Result<(), String> {
    load_from(db, &mut RowSource::consumed(trace, tables), tables)
}

fn load_from(
    db: &mut dyn Database,
    source: &mut RowSource<'_>,
    tables: &[&Table],
) -> Result<(), String> {
    db.begin_load()?;
    for table in tables {
        db.execute(&table.create_sql())?;
        db.load_table(source, table)?;
    }
    let available = |view: &View| {
        ON_DEMAND
            .iter()
            .all(|t| !schema::reads(view.sql, t) || tables.iter().any(|l| l.name == t.name))
    };
    for view in VIEWS.iter().filter(|v| available(v)) {
        db.execute(&view.create_sql())?;
    }
    db.end_load()
}
