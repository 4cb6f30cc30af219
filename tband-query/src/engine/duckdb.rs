//! DuckDB through `duckdb`: rows gathered into Arrow columns and handed to
//! the Appender a batch at a time.

use std::path::Path;
use std::sync::Arc;

use duckdb::arrow::array::{ArrayRef, Int64Builder, StringBuilder};
use duckdb::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use duckdb::arrow::record_batch::RecordBatch;
use duckdb::types::{ToSqlOutput, ValueRef};
use duckdb::{Connection, ToSql};
use tband_decode::Trace;

use super::{Database, Engine, QueryResult, Value};
use crate::rows::{self, Cell, RowSink};
use crate::schema::{ColumnType, Table};

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

/// Rows per record batch: large enough that the per-batch work vanishes,
/// small enough that a batch of the widest table stays a few MB.
const BATCH_ROWS: usize = 1 << 16;

enum ColumnBuilder {
    Int(Int64Builder),
    Text(StringBuilder),
}

impl ColumnBuilder {
    /// Appends a cell; a cell of the other type than the column's is an
    /// error, never a silent NULL.
    fn push(&mut self, cell: Cell<'_>) -> Result<(), String> {
        match (self, cell) {
            (ColumnBuilder::Int(b), Cell::Int(v)) => b.append_value(v),
            (ColumnBuilder::Text(b), Cell::Text(s)) => b.append_value(s),
            (ColumnBuilder::Int(b), Cell::Null) => b.append_null(),
            (ColumnBuilder::Text(b), Cell::Null) => b.append_null(),
            (_, cell) => return Err(format!("{cell:?} does not fit its column's type")),
        }
        Ok(())
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            ColumnBuilder::Int(b) => Arc::new(b.finish()),
            ColumnBuilder::Text(b) => Arc::new(b.finish()),
        }
    }
}

/// Gathers rows column by column and appends them [`BATCH_ROWS`] at a time.
struct BatchAppender<'c> {
    appender: duckdb::Appender<'c>,
    schema: SchemaRef,
    columns: Vec<ColumnBuilder>,
    rows: usize,
}

impl<'c> BatchAppender<'c> {
    fn new(appender: duckdb::Appender<'c>, table: &Table) -> BatchAppender<'c> {
        let fields: Vec<Field> = table
            .columns
            .iter()
            .map(|c| {
                let ty = match c.ty {
                    ColumnType::BigInt => DataType::Int64,
                    ColumnType::Text => DataType::Utf8,
                };
                Field::new(c.name, ty, true)
            })
            .collect();
        let columns = table
            .columns
            .iter()
            .map(|c| match c.ty {
                ColumnType::BigInt => ColumnBuilder::Int(Int64Builder::with_capacity(BATCH_ROWS)),
                ColumnType::Text => ColumnBuilder::Text(StringBuilder::new()),
            })
            .collect();
        BatchAppender {
            appender,
            schema: Arc::new(Schema::new(fields)),
            columns,
            rows: 0,
        }
    }

    fn append_batch(&mut self) -> Result<(), String> {
        if self.rows == 0 {
            return Ok(());
        }
        let arrays = self.columns.iter_mut().map(ColumnBuilder::finish).collect();
        let batch = RecordBatch::try_new(self.schema.clone(), arrays).map_err(|e| e.to_string())?;
        self.rows = 0;
        self.appender
            .append_record_batch(batch)
            .map_err(|e| e.to_string())
    }

    fn finish(mut self) -> Result<(), String> {
        self.append_batch()?;
        self.appender.flush().map_err(|e| e.to_string())
    }
}

impl RowSink for BatchAppender<'_> {
    type Error = String;

    fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), Self::Error> {
        for (column, cell) in self.columns.iter_mut().zip(cells) {
            column.push(*cell)?;
        }
        self.rows += 1;
        if self.rows == BATCH_ROWS {
            self.append_batch()?;
        }
        Ok(())
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
        let mut sink = BatchAppender::new(appender, table);
        rows::write_table(trace, table, &mut sink)?;
        sink.finish()
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
