//! The Parquet writer: rows go from the model into Arrow column builders
//! and out as record batches of [`BATCH_ROWS`], the model freed table by
//! table as it is written (a consumed [`RowSource`]): an export holds one
//! trace at a time, whatever the number of traces.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;
use tband_model::Model;

use super::{file, tables, Tag, Written};
use crate::rows::{Cell, RowSink, RowSource};
use crate::schema::{Column, ColumnType, Stored, Table};
use crate::tables::TraceInfo;

/// Rows per record batch handed to the Parquet writer.
const BATCH_ROWS: usize = 64 * 1024;
/// Rows per Parquet row group: what the writer holds before it writes.
const ROW_GROUP_ROWS: usize = 256 * 1024;

/// Writes every table of `model` as the trace `id` under `dir`, giving the
/// model up as it goes. A table's file is written beside its place and
/// renamed into it when complete, so that readers never see half a file.
pub fn export(dir: &Path, id: &str, model: Model, tags: &[Tag]) -> Result<Written, String> {
    let tables = tables();
    let mut source = RowSource::consumed(model, tables.iter().map(|t| t.name()));
    let mut written = Written::default();
    for table in tables {
        let path = file(dir, table.name(), id);
        let parent = path
            .parent()
            .expect("a table's file is in its trace's folder");
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        let partial = path.with_extension("parquet.partial");
        let tags = if table.name() == TraceInfo.name() {
            tags
        } else {
            &[]
        };
        let result = write_file(&partial, &mut source, table, tags).and_then(|rows| {
            std::fs::rename(&partial, &path)
                .map_err(|e| format!("cannot rename {}: {e}", partial.display()))?;
            let bytes = std::fs::metadata(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?
                .len();
            Ok((rows, bytes))
        });
        match result {
            Ok((rows, bytes)) => {
                written.rows += rows;
                written.bytes += bytes;
            }
            Err(e) => {
                let _ = std::fs::remove_file(&partial);
                return Err(e);
            }
        }
    }
    Ok(written)
}

/// Writes `table` (with `tags` as constant columns) into a new file at
/// `path`; returns its rows.
fn write_file(
    path: &Path,
    source: &mut RowSource<'_>,
    table: &dyn Table,
    tags: &[Tag],
) -> Result<u64, String> {
    let file = File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    let mut sink = ParquetSink::new(file, table, tags)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    table.write(source, &mut sink)?;
    sink.close()
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The Arrow schema of a table's Parquet file: its columns as users see
/// them, then the tags.
pub fn arrow_schema(table: &dyn Table, tags: &[Tag]) -> SchemaRef {
    let columns = table.columns().into_iter().map(|c| {
        let ty = match c.ty {
            ColumnType::BigInt => DataType::Int64,
            ColumnType::Text => DataType::Utf8,
        };
        Field::new(c.name, ty, true)
    });
    let tags = tags
        .iter()
        .map(|t| Field::new(&t.name, DataType::Utf8, true));
    Arc::new(Schema::new(columns.chain(tags).collect::<Vec<_>>()))
}

/// A column being filled.
enum Builder {
    Int(Int64Builder),
    Text(StringBuilder),
}

/// Where one table's rows go: column builders, emptied into the Parquet
/// writer every [`BATCH_ROWS`] rows.
struct ParquetSink<'t> {
    table: &'t dyn Table,
    columns: Vec<&'static Column>,
    tags: &'t [Tag],
    schema: SchemaRef,
    builders: Vec<Builder>,
    /// Where `start_ns` and `end_ns` are, for the durations stored as NULL.
    span: Option<(usize, usize)>,
    rows_in_batch: usize,
    rows: u64,
    writer: ArrowWriter<File>,
}

impl<'t> ParquetSink<'t> {
    fn new(file: File, table: &'t dyn Table, tags: &'t [Tag]) -> parquet::errors::Result<Self> {
        let schema = arrow_schema(table, tags);
        // Times (`*_ns`) rarely repeat but grow row by row: delta-coded
        // they take a few bits a row, where a dictionary fails and falls
        // back to 8 bytes a value.
        let columns = table.columns();
        let properties = columns
            .iter()
            .filter(|c| c.ty == ColumnType::BigInt && c.name.ends_with("_ns"))
            .fold(WriterProperties::builder(), |p, c| {
                let path = ColumnPath::from(c.name);
                p.set_column_dictionary_enabled(path.clone(), false)
                    .set_column_encoding(path, Encoding::DELTA_BINARY_PACKED)
            })
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .build();
        let writer = ArrowWriter::try_new(file, schema.clone(), Some(properties))?;
        let builders = schema
            .fields()
            .iter()
            .map(|f| match f.data_type() {
                DataType::Int64 => Builder::Int(Int64Builder::new()),
                _ => Builder::Text(StringBuilder::new()),
            })
            .collect();
        let at = |name: &str| columns.iter().position(|c| c.name == name);
        Ok(ParquetSink {
            table,
            span: at("start_ns").zip(at("end_ns")),
            columns,
            tags,
            schema,
            builders,
            rows_in_batch: 0,
            rows: 0,
            writer,
        })
    }

    fn flush(&mut self) -> Result<(), String> {
        if self.rows_in_batch == 0 {
            return Ok(());
        }
        let columns: Vec<ArrayRef> = self
            .builders
            .iter_mut()
            .map(|b| match b {
                Builder::Int(b) => Arc::new(b.finish()) as ArrayRef,
                Builder::Text(b) => Arc::new(b.finish()) as ArrayRef,
            })
            .collect();
        let batch =
            RecordBatch::try_new(self.schema.clone(), columns).map_err(|e| e.to_string())?;
        self.writer.write(&batch).map_err(|e| e.to_string())?;
        self.rows_in_batch = 0;
        Ok(())
    }

    fn close(mut self) -> Result<u64, String> {
        self.flush()?;
        self.writer.close().map_err(|e| e.to_string())?;
        Ok(self.rows)
    }
}

impl RowSink for ParquetSink<'_> {
    fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), String> {
        let int = |i: usize| match cells.get(i) {
            Some(Cell::Int(v)) => Some(*v),
            _ => None,
        };
        for ((column, cell), builder) in self.columns.iter().zip(cells).zip(&mut self.builders) {
            match (builder, column.stored, cell) {
                (Builder::Int(b), Stored::Duration, Cell::Null) => b.append_option(
                    self.span
                        .and_then(|(start, end)| int(end)?.checked_sub(int(start)?)),
                ),
                (Builder::Int(b), _, Cell::Int(v)) => b.append_value(*v),
                (Builder::Int(b), _, Cell::Null) => b.append_null(),
                (Builder::Text(b), Stored::Code(texts), Cell::Int(code)) => {
                    b.append_option(usize::try_from(*code).ok().and_then(|c| texts.get(c)))
                }
                (Builder::Text(b), _, Cell::Text(s)) => b.append_value(s),
                (Builder::Text(b), _, Cell::Null) => b.append_null(),
                (_, _, cell) => {
                    return Err(format!(
                        "{}.{} cannot hold {cell:?}",
                        self.table.name(),
                        column.name
                    ))
                }
            }
        }
        for (tag, builder) in self
            .tags
            .iter()
            .zip(&mut self.builders[self.columns.len()..])
        {
            if let Builder::Text(b) = builder {
                b.append_value(&tag.value);
            }
        }
        self.rows += 1;
        self.rows_in_batch += 1;
        if self.rows_in_batch == BATCH_ROWS {
            self.flush()?;
        }
        Ok(())
    }
}
