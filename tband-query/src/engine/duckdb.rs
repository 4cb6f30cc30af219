//! DuckDB through `duckdb`. A table is loaded by `INSERT ... SELECT` from a
//! table function that hands DuckDB the rows in chunks of its vector size;
//! another thread produces those chunks meanwhile (from the model, or while
//! the trace is decoded).

use std::path::Path;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};

use duckdb::core::{DataChunkHandle, LogicalTypeHandle, LogicalTypeId};
use duckdb::types::{ToSqlOutput, ValueRef};
use duckdb::vtab::{BindInfo, InitInfo, TableFunctionInfo, VTab};
use duckdb::{ffi, Connection};

use super::{Database, Engine, Fill, QueryResult, Value};
use crate::rows::{Cell, RowSink};
use crate::schema::{Column, ColumnType, Table};

/// The table function `load_table` inserts from.
const ROWS_FUNCTION: &str = "tband_rows";

/// Chunks produced ahead of DuckDB: enough to keep both threads busy.
const CHUNKS_AHEAD: usize = 4;

pub struct DuckDb {
    conn: Connection,
    feed: FeedSlot,
}

impl DuckDb {
    pub fn open(path: Option<&Path>) -> Result<DuckDb, String> {
        let conn = match path {
            Some(p) => Connection::open(p),
            None => Connection::open_in_memory(),
        }
        .map_err(|e| e.to_string())?;
        let feed = FeedSlot::default();
        conn.register_table_function_with_extra_info::<RowsFunction, FeedSlot>(
            ROWS_FUNCTION,
            &feed,
        )
        .map_err(|e| e.to_string())?;
        Ok(DuckDb { conn, feed })
    }
}

/// A parameter as DuckDB binds it.
fn param(value: &Value) -> ToSqlOutput<'_> {
    ToSqlOutput::Borrowed(match value {
        Value::Null => ValueRef::Null,
        Value::Int(v) => ValueRef::BigInt(*v),
        Value::Real(v) => ValueRef::Double(*v),
        Value::Text(s) => ValueRef::Text(s.as_bytes()),
    })
}

/// One column of a chunk. NULLs take a placeholder value and are listed by
/// row.
enum ChunkColumn {
    Int {
        values: Vec<i64>,
        nulls: Vec<usize>,
    },
    Text {
        bytes: Vec<u8>,
        ends: Vec<usize>,
        nulls: Vec<usize>,
    },
}

impl ChunkColumn {
    fn new(ty: ColumnType, rows: usize) -> ChunkColumn {
        match ty {
            ColumnType::BigInt => ChunkColumn::Int {
                values: Vec::with_capacity(rows),
                nulls: Vec::new(),
            },
            ColumnType::Text => ChunkColumn::Text {
                bytes: Vec::new(),
                ends: Vec::with_capacity(rows),
                nulls: Vec::new(),
            },
        }
    }

    /// Appends the cell of row `row`; a cell of the other type than the
    /// column's is an error, never a silent NULL.
    fn push(&mut self, row: usize, cell: Cell<'_>) -> Result<(), String> {
        match (self, cell) {
            (ChunkColumn::Int { values, .. }, Cell::Int(v)) => values.push(v),
            (ChunkColumn::Int { values, nulls }, Cell::Null) => {
                values.push(0);
                nulls.push(row);
            }
            (ChunkColumn::Text { bytes, ends, .. }, Cell::Text(s)) => {
                bytes.extend_from_slice(s.as_bytes());
                ends.push(bytes.len());
            }
            (ChunkColumn::Text { bytes, ends, nulls }, Cell::Null) => {
                ends.push(bytes.len());
                nulls.push(row);
            }
            (_, cell) => return Err(format!("{cell:?} does not fit its column's type")),
        }
        Ok(())
    }

    /// Copies the column into DuckDB's vector `index` of `out`, which has
    /// room for the chunk's rows (at most the vector size).
    fn write(&self, out: &mut DataChunkHandle, index: usize) {
        // SAFETY: `out` is the table function's output chunk, whose column
        // `index` has this column's type; every row written is below the
        // vector size.
        unsafe {
            let vector = ffi::duckdb_data_chunk_get_vector(out.get_ptr(), index as u64);
            let nulls = match self {
                ChunkColumn::Int { values, nulls } => {
                    let data = ffi::duckdb_vector_get_data(vector).cast::<i64>();
                    std::ptr::copy_nonoverlapping(values.as_ptr(), data, values.len());
                    nulls
                }
                ChunkColumn::Text { bytes, ends, nulls } => {
                    let data = ffi::duckdb_vector_get_data(vector).cast::<ffi::duckdb_string_t>();
                    let mut start = 0;
                    for (row, &end) in ends.iter().enumerate() {
                        write_text(vector, data, row, &bytes[start..end]);
                        start = end;
                    }
                    nulls
                }
            };
            if !nulls.is_empty() {
                ffi::duckdb_vector_ensure_validity_writable(vector);
                let validity = ffi::duckdb_vector_get_validity(vector);
                for &row in nulls {
                    ffi::duckdb_validity_set_row_invalid(validity, row as u64);
                }
            }
        }
    }
}

/// The longest string DuckDB keeps inside its 16-byte string value.
const INLINE_TEXT: usize = 12;

/// Writes `text` (UTF-8, from a `&str`) as row `row` of the VARCHAR
/// `vector` whose data is `data`. Short strings are written in place as the
/// C API's inlined `duckdb_string_t`, sparing a call per string; longer ones
/// go to the vector's string heap through DuckDB.
///
/// # Safety
/// `data` must be `vector`'s data and `row` below its size.
unsafe fn write_text(
    vector: ffi::duckdb_vector,
    data: *mut ffi::duckdb_string_t,
    row: usize,
    text: &[u8],
) {
    if text.len() <= INLINE_TEXT {
        // Unused inline bytes must be zero: DuckDB compares them.
        let mut inlined = [0 as std::os::raw::c_char; INLINE_TEXT];
        for (to, &from) in inlined.iter_mut().zip(text) {
            *to = from as std::os::raw::c_char;
        }
        let value = ffi::duckdb_string_t {
            value: ffi::duckdb_string_t__bindgen_ty_1 {
                inlined: ffi::duckdb_string_t__bindgen_ty_1__bindgen_ty_2 {
                    length: text.len() as u32,
                    inlined,
                },
            },
        };
        unsafe { data.add(row).write(value) };
    } else {
        unsafe {
            ffi::duckdb_unsafe_vector_assign_string_element_len(
                vector,
                row as u64,
                text.as_ptr().cast(),
                text.len() as u64,
            );
        }
    }
}

/// Rows of one table, at most DuckDB's vector size of them.
struct Chunk {
    rows: usize,
    columns: Vec<ChunkColumn>,
}

impl Chunk {
    fn new(columns: &[&Column], rows: usize) -> Chunk {
        Chunk {
            rows: 0,
            columns: columns
                .iter()
                .map(|c| ChunkColumn::new(c.stored_type(), rows))
                .collect(),
        }
    }
}

/// Gathers rows into chunks and sends each full one to the table function.
struct ChunkSender {
    columns: Vec<&'static Column>,
    chunk_rows: usize,
    chunk: Chunk,
    to_duckdb: SyncSender<Chunk>,
}

impl ChunkSender {
    fn send(&mut self) -> Result<(), String> {
        let next = Chunk::new(&self.columns, self.chunk_rows);
        let full = std::mem::replace(&mut self.chunk, next);
        self.to_duckdb
            .send(full)
            .map_err(|_| "DuckDB stopped reading the rows".to_string())
    }

    fn finish(mut self) -> Result<(), String> {
        if self.chunk.rows > 0 {
            self.send()?;
        }
        Ok(())
    }
}

impl RowSink for ChunkSender {
    fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), String> {
        let row = self.chunk.rows;
        for (column, cell) in self.chunk.columns.iter_mut().zip(cells) {
            column.push(row, *cell)?;
        }
        self.chunk.rows += 1;
        if self.chunk.rows == self.chunk_rows {
            self.send()?;
        }
        Ok(())
    }
}

/// The rows the table function hands out next: its columns and where the
/// chunks arrive.
struct Feed {
    columns: Vec<&'static Column>,
    chunks: Receiver<Chunk>,
}

/// Where `load_table` puts the feed for the table function, which DuckDB
/// calls with this as its extra info.
#[derive(Clone, Default)]
struct FeedSlot(Arc<Mutex<Option<Feed>>>);

impl FeedSlot {
    fn with<T>(&self, f: impl FnOnce(Option<&Feed>) -> T) -> T {
        f(self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref())
    }

    fn set(&self, feed: Option<Feed>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = feed;
    }
}

/// `tband_rows()`: the rows of the table being loaded.
struct RowsFunction;

impl VTab for RowsFunction {
    type InitData = ();
    type BindData = ();

    fn bind(bind: &BindInfo) -> Result<(), Box<dyn std::error::Error>> {
        // SAFETY: the function is registered with a `FeedSlot` as its extra
        // info, which lives as long as the connection.
        let slot = unsafe { &*bind.get_extra_info::<FeedSlot>() };
        slot.with(|feed| {
            let feed = feed.ok_or("tband_rows() is only for loading a table")?;
            for column in &feed.columns {
                let ty = match column.stored_type() {
                    ColumnType::BigInt => LogicalTypeId::Bigint,
                    ColumnType::Text => LogicalTypeId::Varchar,
                };
                bind.add_result_column(column.name, LogicalTypeHandle::from(ty));
            }
            Ok(())
        })
    }

    fn init(_: &InitInfo) -> Result<(), Box<dyn std::error::Error>> {
        Ok(())
    }

    fn func(
        func: &TableFunctionInfo<Self>,
        output: &mut DataChunkHandle,
    ) -> Result<(), Box<dyn std::error::Error>> {
        // SAFETY: as in `bind`.
        let slot = unsafe { &*func.get_extra_info::<FeedSlot>() };
        // No chunk (the producer is done) ends the table.
        let chunk = slot.with(|feed| feed.and_then(|f| f.chunks.recv().ok()));
        match chunk {
            Some(chunk) => {
                for (index, column) in chunk.columns.iter().enumerate() {
                    column.write(output, index);
                }
                output.set_len(chunk.rows);
            }
            None => output.set_len(0),
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

    fn load_table(&mut self, table: &dyn Table, fill: Fill<'_>) -> Result<(), String> {
        // SAFETY: only reads DuckDB's compile-time vector size.
        let chunk_rows = unsafe { ffi::duckdb_vector_size() } as usize;
        let (to_duckdb, chunks) = mpsc::sync_channel(CHUNKS_AHEAD);
        let columns = table.columns();
        let mut sender = ChunkSender {
            chunk: Chunk::new(&columns, chunk_rows),
            columns: columns.clone(),
            chunk_rows,
            to_duckdb,
        };
        self.feed.set(Some(Feed { columns, chunks }));
        let sql = format!(
            "INSERT INTO {} SELECT * FROM {ROWS_FUNCTION}()",
            table.stored_name()
        );
        // One thread: with more, DuckDB runs the insert on a worker while
        // this thread polls for tasks, which costs as much CPU as the insert.
        self.execute("SET threads = 1")?;
        let (produced, inserted) = std::thread::scope(|scope| {
            let producer = scope.spawn(move || {
                fill(&mut sender)?;
                sender.finish()
            });
            let inserted = self.conn.execute_batch(&sql).map_err(|e| e.to_string());
            // Dropping the receiver stops a producer DuckDB no longer reads.
            self.feed.set(None);
            let produced = producer
                .join()
                .unwrap_or_else(|_| Err("producing the rows panicked".to_string()));
            (produced, inserted)
        });
        let reset = self.execute("RESET threads");
        inserted.and(produced).and(reset)
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<QueryResult, String> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| e.to_string())?;
        let mut rows = stmt
            .query(duckdb::params_from_iter(params.iter().map(param)))
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
