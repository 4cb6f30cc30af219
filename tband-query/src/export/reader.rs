//! Reading an exported table back as the rows the SQL engines store: enums
//! as their codes again, `dur_ns` NULL where `end_ns - start_ns` gives it.

use std::fs::File;
use std::path::Path;

use arrow_array::{Array, Int64Array, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::engine::Value;
use crate::rows::{Cell, RowSink};
use crate::schema::{ColumnType, Stored, Table};
use crate::tables::TraceInfo;

/// One column of a batch, as the table's column reads it.
enum Source<'b> {
    Int(&'b Int64Array),
    Text(&'b StringArray),
}

/// Writes the rows of the Parquet file at `path`, which holds `table`'s
/// columns (and maybe more), into `sink`.
pub fn read_table(path: &Path, table: &dyn Table, sink: &mut dyn RowSink) -> Result<(), String> {
    let bad = |e: &dyn std::fmt::Display| format!("cannot read {}: {e}", path.display());
    let file = File::open(path).map_err(|e| bad(&e))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.build())
        .map_err(|e| bad(&e))?;
    let table_columns = table.columns();
    let at = |name: &str| table_columns.iter().position(|c| c.name == name);
    let span = at("start_ns").zip(at("end_ns"));
    for batch in reader {
        let batch = batch.map_err(|e| bad(&e))?;
        let mut cells = Vec::with_capacity(table_columns.len());
        let columns: Vec<Source<'_>> = table_columns
            .iter()
            .map(|c| {
                let array = batch
                    .column_by_name(c.name)
                    .ok_or_else(|| bad(&format!("it has no column {}", c.name)))?;
                let any = array.as_any();
                match c.ty {
                    ColumnType::BigInt => any.downcast_ref().map(Source::Int),
                    ColumnType::Text => any.downcast_ref().map(Source::Text),
                }
                .ok_or_else(|| bad(&format!("its column {} is not {}", c.name, c.ty.sql())))
            })
            .collect::<Result<_, _>>()?;
        for row in 0..batch.num_rows() {
            cells.clear();
            for (column, source) in table_columns.iter().zip(&columns) {
                let cell = match source {
                    _ if is_null(source, row) => Cell::Null,
                    Source::Int(a) => Cell::Int(a.value(row)),
                    Source::Text(a) => Cell::Text(a.value(row)),
                };
                cells.push(match (column.stored, cell) {
                    (Stored::Code(texts), Cell::Text(text)) => {
                        let code = texts.iter().position(|t| *t == text).ok_or_else(|| {
                            bad(&format!("`{text}` is not a value of {}", column.name))
                        })?;
                        Cell::Int(code as i64)
                    }
                    (Stored::Duration, Cell::Int(dur)) => {
                        let derived =
                            span.and_then(|(start, end)| match (&columns[start], &columns[end]) {
                                (Source::Int(s), Source::Int(e))
                                    if !s.is_null(row) && !e.is_null(row) =>
                                {
                                    e.value(row).checked_sub(s.value(row))
                                }
                                _ => None,
                            });
                        if derived == Some(dur) && dur >= 0 {
                            Cell::Null
                        } else {
                            Cell::Int(dur)
                        }
                    }
                    (_, cell) => cell,
                });
            }
            sink.row(&cells)?;
        }
    }
    Ok(())
}

/// The tags of a trace: the columns of its `trace_info` file after the
/// table's own, with their values.
pub fn read_tags(path: &Path) -> Result<Vec<(String, Value)>, String> {
    let bad = |e: &dyn std::fmt::Display| format!("cannot read {}: {e}", path.display());
    let file = File::open(path).map_err(|e| bad(&e))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.build())
        .map_err(|e| bad(&e))?;
    let mut tags = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| bad(&e))?;
        if batch.num_rows() == 0 {
            continue;
        }
        for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
            if TraceInfo.columns().iter().any(|c| c.name == field.name()) {
                continue;
            }
            let value = match column.as_any().downcast_ref::<StringArray>() {
                Some(texts) if !texts.is_null(0) => Value::Text(texts.value(0).to_string()),
                _ => Value::Null,
            };
            tags.push((field.name().clone(), value));
        }
    }
    Ok(tags)
}

fn is_null(source: &Source<'_>, row: usize) -> bool {
    match source {
        Source::Int(a) => a.is_null(row),
        Source::Text(a) => a.is_null(row),
    }
}
