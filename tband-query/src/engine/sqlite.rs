//! SQLite through `rusqlite`: prepared inserts inside the load transaction,
//! with journaling and syncing off (the database is a cache of the trace).

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::Connection;

use super::{Database, Engine, Fill, QueryResult, Value};
use crate::rows::{Cell, RowSink};
use crate::schema::Table;
use crate::tables::TABLES;
use crate::views;

pub struct Sqlite {
    conn: Connection,
    /// Whether the database is a file (`--db`), not in memory.
    in_file: bool,
}

/// The page cache queries run with, in KiB; a sort also keeps up to as
/// much in memory.
const QUERY_CACHE_KIB: i64 = 262_144;

/// The page cache of a load into a file, in KiB (SQLite's default size):
/// the pages written go to the file as it fills, so that the database
/// does not build up in memory next to the model being loaded. Queries
/// get [`QUERY_CACHE_KIB`] back once the load is committed.
const LOAD_CACHE_KIB: i64 = 2_000;

/// The page size of a database in memory. Each page in memory costs a
/// header of about 300 bytes besides its size: 7 % of the database with
/// SQLite's usual 4 KiB pages, 0.5 % with 64 KiB.
const MEMORY_PAGE_SIZE: u32 = 65_536;

impl Sqlite {
    pub fn open(path: Option<&Path>) -> Result<Sqlite, String> {
        let conn = match path {
            Some(p) => Connection::open(p),
            None => Connection::open_in_memory(),
        }
        .map_err(|e| e.to_string())?;
        let page_size = match path {
            Some(_) => String::new(),
            None => format!("PRAGMA page_size = {MEMORY_PAGE_SIZE};"),
        };
        conn.execute_batch(&format!(
            "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; \
             PRAGMA temp_store = MEMORY; PRAGMA cache_size = -{QUERY_CACHE_KIB}; {page_size}"
        ))
        .map_err(|e| e.to_string())?;
        Ok(Sqlite {
            conn,
            in_file: path.is_some(),
        })
    }
}

/// A parameter as SQLite binds it.
fn param(value: &Value) -> ToSqlOutput<'_> {
    ToSqlOutput::Borrowed(match value {
        Value::Null => ValueRef::Null,
        Value::Int(v) => ValueRef::Integer(*v),
        Value::Real(v) => ValueRef::Real(*v),
        Value::Text(s) => ValueRef::Text(s.as_bytes()),
    })
}

/// Rows per INSERT: with one row per statement, statement overhead is most
/// of the cost.
const BATCH_ROWS: usize = 64;

/// A cell of a row waiting for its batch; text lives in the batch's arena
/// so that filling a batch allocates nothing.
#[derive(Clone, Copy)]
enum Pending {
    Null,
    Int(i64),
    Text(usize, usize),
}

/// Inserts rows in batches of [`BATCH_ROWS`], holding the rows of the
/// batch being filled.
struct Inserter<'c> {
    batch: rusqlite::Statement<'c>,
    single: rusqlite::Statement<'c>,
    columns: usize,
    pending: Vec<Pending>,
    text: String,
}

impl Inserter<'_> {
    fn write(
        stmt: &mut rusqlite::Statement<'_>,
        cells: &[Pending],
        text: &str,
    ) -> rusqlite::Result<()> {
        for (i, cell) in cells.iter().enumerate() {
            match *cell {
                Pending::Null => stmt.raw_bind_parameter(i + 1, rusqlite::types::Null)?,
                Pending::Int(v) => stmt.raw_bind_parameter(i + 1, v)?,
                Pending::Text(start, end) => stmt.raw_bind_parameter(i + 1, &text[start..end])?,
            }
        }
        stmt.raw_execute().map(drop)
    }

    /// Writes the rows of an incomplete last batch one by one.
    fn finish(mut self) -> rusqlite::Result<()> {
        for row in self.pending.chunks(self.columns) {
            Self::write(&mut self.single, row, &self.text)?;
        }
        Ok(())
    }
}

impl RowSink for Inserter<'_> {
    fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), String> {
        for cell in cells {
            self.pending.push(match *cell {
                Cell::Null => Pending::Null,
                Cell::Int(v) => Pending::Int(v),
                Cell::Text(s) => {
                    let start = self.text.len();
                    self.text.push_str(s);
                    Pending::Text(start, self.text.len())
                }
            });
        }
        if self.pending.len() == BATCH_ROWS * self.columns {
            Self::write(&mut self.batch, &self.pending, &self.text).map_err(|e| e.to_string())?;
            self.pending.clear();
            self.text.clear();
        }
        Ok(())
    }
}

impl Database for Sqlite {
    fn engine(&self) -> Engine {
        Engine::Sqlite
    }

    fn execute(&mut self, sql: &str) -> Result<(), String> {
        self.conn.execute_batch(sql).map_err(|e| e.to_string())
    }

    fn load_table(&mut self, table: &dyn Table, fill: Fill<'_>) -> Result<(), String> {
        let prepare = |rows| self.conn.prepare(&table.insert_sql(rows));
        let columns = table.columns().len();
        let mut inserter = Inserter {
            batch: prepare(BATCH_ROWS).map_err(|e| e.to_string())?,
            single: prepare(1).map_err(|e| e.to_string())?,
            columns,
            pending: Vec::with_capacity(BATCH_ROWS * columns),
            text: String::new(),
        };
        fill(&mut inserter)?;
        inserter.finish().map_err(|e| e.to_string())
    }

    fn begin_load(&mut self) -> Result<(), String> {
        if self.in_file {
            self.execute(&format!("PRAGMA cache_size = -{LOAD_CACHE_KIB}"))?;
        }
        self.execute("BEGIN TRANSACTION")
    }

    fn end_load(&mut self) -> Result<(), String> {
        self.execute("COMMIT")?;
        if self.in_file {
            self.execute(&format!("PRAGMA cache_size = -{QUERY_CACHE_KIB}"))?;
        }
        Ok(())
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<QueryResult, String> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| e.to_string())?;
        let columns: Vec<String> = stmt.column_names().map(str::to_string).collect();
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params.iter().map(param)))
            .map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| e.to_string())? {
            let values = (0..columns.len())
                .map(|i| {
                    row.get_ref(i).map(|v| match v {
                        ValueRef::Null => Value::Null,
                        ValueRef::Integer(v) => Value::Int(v),
                        ValueRef::Real(v) => Value::Real(v),
                        ValueRef::Text(t) | ValueRef::Blob(t) => {
                            Value::Text(String::from_utf8_lossy(t).into_owned())
                        }
                    })
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())?;
            out.push(values);
        }
        Ok(QueryResult { columns, rows: out })
    }
}

/// The schema's tables that `statements` read, itself or through views, as
/// SQLite's authorizer reports them while it prepares each against the
/// empty schema; `None` if one does not prepare. The authorizer names the
/// tables that hold the rows, so a read of `<name>_stored` is one of the
/// schema's table `<name>`.
pub fn tables_read(statements: &[String]) -> Option<Vec<&'static str>> {
    let mut conn = Connection::open_in_memory().ok()?;
    for table in TABLES {
        conn.execute_batch(&table.create_sql()).ok()?;
    }
    for view in views::views() {
        conn.execute_batch(&view.create_sql()).ok()?;
    }
    let stored: Vec<(String, &'static str)> = TABLES
        .iter()
        .map(|t| (t.stored_name().into_owned(), t.name()))
        .collect();
    let read: Arc<Mutex<Vec<&'static str>>> = Arc::default();
    let reported = Arc::clone(&read);
    conn.authorizer(Some(move |ctx: AuthContext<'_>| {
        if let AuthAction::Read { table_name, .. } = ctx.action {
            let table = stored
                .iter()
                .find(|(stored, _)| stored.eq_ignore_ascii_case(table_name))
                .map(|&(_, name)| name);
            let mut reported = reported.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(table) = table.filter(|t| !reported.contains(t)) {
                reported.push(table);
            }
        }
        Authorization::Allow
    }))
    .ok()?;
    for statement in statements {
        conn.prepare(statement).ok()?;
    }
    let read = read.lock().unwrap_or_else(PoisonError::into_inner).clone();
    Some(read)
}
