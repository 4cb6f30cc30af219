//! Parquet export: the tables of the SQL schema, a trace at a time, as
//! Parquet files laid out Hive-style by table and trace
//! (`DIR/table=sched_slices/trace=ID/data.parquet`), with the columns and
//! types users see in SQL (BIGINT as INT64, TEXT as UTF-8 strings; enums
//! stored as codes in SQL are written as their text) and the user's tags
//! as extra TEXT columns of `trace_info`.
//!
//! This module names things (the folders, the trace ids, the tags); the
//! Parquet writer, built with the `parquet` feature, is `writer.rs`.

use std::path::{Path, PathBuf};

use crate::schema::Table;
use crate::tables::{self, TraceInfo};

#[cfg(feature = "parquet")]
mod reader;
#[cfg(feature = "parquet")]
mod writer;
#[cfg(feature = "parquet")]
pub use reader::{read_table, read_tags};
#[cfg(feature = "parquet")]
pub use writer::{arrow_schema, export};

/// A `--tag NAME=VALUE`: a TEXT column of the trace's `trace_info` row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag {
    pub name: String,
    pub value: String,
}

impl std::str::FromStr for Tag {
    type Err = String;

    fn from_str(s: &str) -> Result<Tag, String> {
        let (name, value) = s
            .split_once('=')
            .ok_or_else(|| format!("`{s}` is not a tag: write NAME=VALUE, e.g. firmware=1.4.2"))?;
        let name = name.trim();
        let word = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !word {
            return Err(format!(
                "`{name}` is not a tag name: letters, digits and _, not starting with a digit"
            ));
        }
        if name == "trace" || TraceInfo.columns().iter().any(|c| c.name == name) {
            return Err(format!(
                "the tag `{name}` would hide the column {name} of trace_info; name it otherwise"
            ));
        }
        Ok(Tag {
            name: name.to_string(),
            value: value.to_string(),
        })
    }
}

/// What the export of one trace wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Rows over all tables.
    pub rows: u64,
    /// Bytes of the Parquet files.
    pub bytes: u64,
}

/// The tables an export writes: every table filled from a model.
pub fn tables() -> Vec<&'static dyn Table> {
    tables::model_tables()
}

/// The id of a trace in the folder: the file name of its first stream
/// without `@CORE`, its extension and a `.c<N>` core suffix (`tband-sim`'s
/// `trace.c0.bin` is `trace`), with characters other than letters, digits,
/// `.`, `-` and `_` made `_` (they would need escaping in a Hive path).
pub fn trace_id(first_stream: &str) -> String {
    let path = first_stream
        .rsplit_once('@')
        .filter(|(_, core)| !core.is_empty() && core.chars().all(|c| c.is_ascii_digit()))
        .map_or(first_stream, |(path, _)| path);
    let path = Path::new(path);
    let stem = path
        .file_stem()
        .map_or(String::new(), |s| s.to_string_lossy().into_owned());
    let stem = match stem.rsplit_once(".c") {
        Some((name, core)) if !core.is_empty() && core.chars().all(|c| c.is_ascii_digit()) => {
            name.to_string()
        }
        _ => stem,
    };
    let id: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if id.is_empty() || id == "-" {
        "stdin".to_string()
    } else {
        id
    }
}

/// The file of `table` for the trace `id` under `dir`.
pub fn file(dir: &Path, table: &str, id: &str) -> PathBuf {
    dir.join(format!("table={table}"))
        .join(format!("trace={id}"))
        .join("data.parquet")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_ids_come_from_the_first_file_name() {
        assert_eq!(trace_id("builds/fw-1.4.2.bin"), "fw-1.4.2");
        assert_eq!(trace_id("out/trace.c0.bin@0"), "trace");
        assert_eq!(trace_id("run 7/cap.trx"), "cap");
        assert_eq!(trace_id("a b+c.bin"), "a_b_c");
        assert_eq!(trace_id("zephyr/ctf"), "ctf");
        assert_eq!(trace_id("-"), "stdin");
    }

    #[test]
    fn tags_are_names_and_values() {
        let t: Tag = "firmware=1.4.2".parse().unwrap();
        assert_eq!((t.name.as_str(), t.value.as_str()), ("firmware", "1.4.2"));
        assert!("firmware".parse::<Tag>().unwrap_err().contains("not a tag"));
        assert!("1x=a"
            .parse::<Tag>()
            .unwrap_err()
            .contains("not a tag name"));
        assert!("cores=2".parse::<Tag>().unwrap_err().contains("would hide"));
    }
}
