//! DuckDB through `duckdb`: the Appender for bulk loading.

use std::path::Path;

use duckdb::types::{ToSqlOutput, ValueRef};
use duckdb::{Connection, ToSql};
use tband_decode::Trace;

use super::{Database, Engine, QueryResult, Value};
use crate::rows::{self, Cell, RowSink};
use crate::schema::Table;

pub struct DuckDb {
    conn: Connection,
}

impl DuckDb {
    pub fn open(path: Option<&Path>) -> Result<DuckDb, String> {
        let conn = match path {
            Some(p) => Connection::open(p),
            None => Connection::open_in_memory(),
        }
        .map_err(|e| e.to_string())?;
        Ok(DuckDb { conn })
    }
}

impl ToSql for Cell<'_> {
    fn to_sql(&self) -> duckdb::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match *self {
            Cell::Null => ValueRef::Null,
            Cell::Int(v) => ValueRef::BigInt(v),
            Cell::Text(s) => ValueRef::Text(s.as_bytes()),
        }))
    }
}

impl ToSql for Value {
    fn to_sql(&self) -> duckdb::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            Value::Null => ValueRef::Null,
            Value::Int(v) => ValueRef::BigInt(*v),
            Value::Real(v) => ValueRef::Double(*v),
            Value::Text(s) => ValueRef::Text(s.as_bytes()),
        }))
    }
}

struct Appender<'c>(duckdb::Appender<'c>);

impl RowSink for Appender<'_> {
    type Error = duckdb::Error;

    fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), Self::Error> {
        self.0.append_row(duckdb::appender_params_from_iter(cells))
    }
}

/// A result value as one of ours. Aggregates widen integers (SUM gives
/// HUGEINT) and literals can be DECIMAL; both come back as plain numbers.
fn value(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Boolean(b) => Value::Int(b.into()),
        ValueRef::TinyInt(v) => Value::Int(v.into()),
        ValueRef::SmallInt(v) => Value::Int(v.into()),
        ValueRef::Int(v) => Value::Int(v.into()),
        ValueRef::BigInt(v) => Value::Int(v),
        ValueRef::HugeInt(v) => i64::try_from(v).map_or(Value::Real(v as f64), Value::Int),
        ValueRef::UHugeInt(v) => i64::try_from(v).map_or(Value::Real(v as f64), Value::Int),
        ValueRef::UTinyInt(v) => Value::Int(v.into()),
        ValueRef::USmallInt(v) => Value::Int(v.into()),
        ValueRef::UInt(v) => Value::Int(v.into()),
        ValueRef::UBigInt(v) => i64::try_from(v).map_or(Value::Real(v as f64), Value::Int),
        ValueRef::Float(v) => Value::Real(v.into()),
        ValueRef::Double(v) => Value::Real(v),
        ValueRef::Decimal(d) => {
            let text = d.to_string();
            text.parse().map_or(Value::Text(text), Value::Real)
        }
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            Value::Text(String::from_utf8_lossy(t).into_owned())
        }
        other => Value::Text(format!("{other:?}")),
    }
}

impl Database for DuckDb {
    fn engine(&self) -> Engine {
        Engine::Duckdb
    }

    fn execute(&mut self, sql: &str) -> Result<(), String> {
        self.conn.execute_batch(sql).map_err(|e| e.to_string())
    }

    fn load_table(&mut self, trace: &Trace, table: &Table) -> Result<(), String> {
        let appender = self.conn.appender(table.name).map_err(|e| e.to_string())?;
        let mut sink = Appender(appender);
        rows::write_table(trace, table, &mut sink).map_err(|e| e.to_string())?;
        sink.0.flush().map_err(|e| e.to_string())
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<QueryResult, String> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| e.to_string())?;
        let mut rows = stmt
            .query(duckdb::params_from_iter(params))
            .map_err(|e| e.to_string())?;
        let columns = rows.as_ref().map(|s| s.column_names()).unwrap_or_default();
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| e.to_string())? {
            let values = (0..columns.len())
                .map(|i| row.get_ref(i).map(value))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())?;
            out.push(values);
        }
        Ok(QueryResult { columns, rows: out })
    }
}
