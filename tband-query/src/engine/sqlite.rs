//! SQLite through `rusqlite`: prepared inserts inside the load transaction,
//! with journaling and syncing off (the database is a cache of the trace).

use std::path::Path;

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, ToSql};
use tband_decode::Trace;

use super::{Database, Engine, QueryResult, Value};
use crate::rows::{self, Cell, RowSink};
use crate::schema::Table;

pub struct Sqlite {
    conn: Connection,
}

impl Sqlite {
    pub fn open(path: Option<&Path>) -> Result<Sqlite, String> {
        let conn = match path {
            Some(p) => Connection::open(p),
            None => Connection::open_in_memory(),
        }
        .map_err(|e| e.to_string())?;
        conn.execute_batch(
            "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; \
             PRAGMA temp_store = MEMORY; PRAGMA cache_size = -262144;",
        )
        .map_err(|e| e.to_string())?;
        Ok(Sqlite { conn })
    }
}

impl ToSql for Cell<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match *self {
            Cell::Null => ValueRef::Null,
            Cell::Int(v) => ValueRef::Integer(v),
            Cell::Text(s) => ValueRef::Text(s.as_bytes()),
        }))
    }
}

impl ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            Value::Null => ValueRef::Null,
            Value::Int(v) => ValueRef::Integer(*v),
            Value::Real(v) => ValueRef::Real(*v),
            Value::Text(s) => ValueRef::Text(s.as_bytes()),
        }))
    }
}

struct Inserter<'c>(rusqlite::Statement<'c>);

impl RowSink for Inserter<'_> {
    type Error = rusqlite::Error;

    fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), Self::Error> {
        for (i, cell) in cells.iter().enumerate() {
            self.0.raw_bind_parameter(i + 1, cell)?;
        }
        self.0.raw_execute().map(drop)
    }
}

impl Database for Sqlite {
    fn engine(&self) -> Engine {
        Engine::Sqlite
    }

    fn execute(&mut self, sql: &str) -> Result<(), String> {
        self.conn.execute_batch(sql).map_err(|e| e.to_string())
    }

    fn load_table(&mut self, trace: &Trace, table: &Table) -> Result<(), String> {
        let stmt = self
            .conn
            .prepare(&table.insert_sql())
            .map_err(|e| e.to_string())?;
        rows::write_table(trace, table, &mut Inserter(stmt)).map_err(|e| e.to_string())
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<QueryResult, String> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| e.to_string())?;
        let columns: Vec<String> = stmt.column_names().map(str::to_string).collect();
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params))
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
