//! The SQL schema: one table per model table, one per analysis of the
//! model that reports read (`task_run_time`, `cpu_timeline`), `events` for
//! the raw events, `trace_info`, and views for the joins reports keep
//! needing (`crate::views`). The same statements create it in every
//! engine, so names, columns and types agree.
//!
//! Types are kept to two: `BIGINT` (every integer, times in ns, ids, and
//! flags as 0/1, because the engines disagree on how booleans print) and
//! `TEXT` (names, enums as their text, messages).
//!
//! A table with a row per interval or operation keeps its enums as integer
//! codes and `dur_ns` only where SQL cannot compute it, in `<name>_stored`;
//! users query `<name>`, a view that gives the columns back as the table
//! describes them. An enum's text (up to 13 bytes) and a duration (up to 8)
//! are the bulk of such a row otherwise; a code takes at most one byte, and
//! 0, 1 and NULL take none in an SQLite row.

use std::borrow::Cow;

use crate::rows::{RowSink, RowSource};

/// A column's SQL type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    BigInt,
    Text,
}

impl ColumnType {
    pub fn sql(self) -> &'static str {
        match self {
            ColumnType::BigInt => "BIGINT",
            ColumnType::Text => "TEXT",
        }
    }
}

/// How a column's values are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// As they are shown.
    AsShown,
    /// A TEXT enum stored as a BIGINT code: the index of its text here.
    Code(&'static [&'static str]),
    /// `dur_ns`, stored as NULL wherever `end_ns - start_ns` gives it.
    Duration,
}

/// A column as SQL sees it.
#[derive(Debug)]
pub struct Column {
    pub name: &'static str,
    /// The type users see.
    pub ty: ColumnType,
    pub stored: Stored,
    /// What the column holds (for the docs and `--list`).
    pub doc: &'static str,
}

impl Column {
    /// The type of the stored values.
    pub fn stored_type(&self) -> ColumnType {
        match self.stored {
            Stored::Code(_) => ColumnType::BigInt,
            Stored::AsShown | Stored::Duration => self.ty,
        }
    }

    /// The column as users see it, from the stored columns of the table
    /// named by `from` (`""` or an alias and a dot). The casts give the
    /// view's column the affinity SQLite gives a table's column of its
    /// type, so that comparisons convert values as they did on the table.
    pub fn shown_sql(&self, from: &str) -> String {
        let name = self.name;
        match self.stored {
            Stored::AsShown => format!("{from}{name}"),
            Stored::Code(texts) => {
                let whens: String = texts
                    .iter()
                    .enumerate()
                    .map(|(code, text)| format!(" WHEN {code} THEN '{text}'"))
                    .collect();
                format!("CAST(CASE {from}{name}{whens} END AS TEXT)")
            }
            Stored::Duration => {
                format!("CAST(COALESCE({from}{name}, {from}end_ns - {from}start_ns) AS BIGINT)")
            }
        }
    }
}

/// A table of the schema: its name and columns, and how its rows are
/// written. The tables themselves are defined in [`crate::tables`].
pub trait Table: Sync {
    fn name(&self) -> &'static str;
    /// What a row holds (for the docs and `--list`).
    fn doc(&self) -> &'static str;
    fn columns(&self) -> Vec<&'static Column>;
    /// Writes every row of the table from `source` into `sink`.
    fn write(&self, source: &mut RowSource<'_>, sink: &mut dyn RowSink) -> Result<(), String>;

    /// Whether users see the table as a view of `<name>_stored`.
    fn is_view(&self) -> bool {
        self.columns().iter().any(|c| c.stored != Stored::AsShown)
    }

    /// The table that holds the rows.
    fn stored_name(&self) -> Cow<'static, str> {
        if self.is_view() {
            Cow::Owned(format!("{}_stored", self.name()))
        } else {
            Cow::Borrowed(self.name())
        }
    }

    /// The statements that create the stored table and the view of it.
    fn create_sql(&self) -> String {
        let columns = self.columns();
        let stored: Vec<String> = columns
            .iter()
            .map(|c| format!("{} {}", c.name, c.stored_type().sql()))
            .collect();
        let stored_name = self.stored_name();
        let table = format!("CREATE TABLE {stored_name} ({})", stored.join(", "));
        if !self.is_view() {
            return table;
        }
        let shown: Vec<String> = columns
            .iter()
            .map(|c| match c.stored {
                Stored::AsShown => c.shown_sql(""),
                _ => format!("{} AS {}", c.shown_sql(""), c.name),
            })
            .collect();
        format!(
            "{table}; CREATE VIEW {} AS SELECT {} FROM {stored_name}",
            self.name(),
            shown.join(", ")
        )
    }

    /// The statements that drop the view and the stored table.
    fn drop_sql(&self) -> String {
        let table = format!("DROP TABLE {}", self.stored_name());
        if self.is_view() {
            format!("DROP VIEW {}; {table}", self.name())
        } else {
            table
        }
    }

    /// An INSERT of `rows` rows at once into the stored table.
    fn insert_sql(&self, rows: usize) -> String {
        let columns = self.columns();
        let names: Vec<&str> = columns.iter().map(|c| c.name).collect();
        let row = format!("({})", vec!["?"; columns.len()].join(", "));
        format!(
            "INSERT INTO {} ({}) VALUES {}",
            self.stored_name(),
            names.join(", "),
            vec![row; rows].join(", ")
        )
    }

    /// The column `name`.
    fn column(&self, name: &str) -> &'static Column {
        self.columns()
            .into_iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("{} has no column {name}", self.name()))
    }
}

/// The texts of the enums stored as codes, by code. A code is the
/// variant's position in the model's enum (`tband_model`), which the
/// loader writes; a test checks every text against the model's.
pub const TASK_STATE_KINDS: &[&str] = &["running", "ready", "blocked", "suspended", "deleted"];
pub const STATE_REASONS: &[&str] = &[
    "",
    "preempted",
    "woken",
    "created",
    "delay",
    "delay_until",
    "queue_send",
    "queue_receive",
    "queue_peek",
    "semaphore",
    "mutex",
    "event_flags",
    "sleep",
    "suspended",
    "deleted",
];
pub const PRIORITY_CAUSES: &[&str] = &["set", "inherit", "disinherit"];
pub const QUEUE_OP_KINDS: &[&str] = &["send", "overwrite", "receive", "reset", "level"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::{Cores, MutexHolds, QueueOps, Tasks, TABLES};
    use crate::views::views;

    #[test]
    fn statements_name_every_column_once() {
        let create = Tasks.create_sql();
        assert_eq!(
            create,
            "CREATE TABLE tasks (task_id BIGINT, name TEXT, kind TEXT, created_ns BIGINT, deleted_ns BIGINT, stack_size BIGINT, ever_waited BIGINT)"
        );
        assert_eq!(
            Cores.insert_sql(2),
            "INSERT INTO cores (core_id, idle_task_id) VALUES (?, ?), (?, ?)"
        );
    }

    #[test]
    fn tables_with_codes_or_durations_are_views_of_stored_tables() {
        assert!(!Tasks.is_view());
        assert_eq!(Tasks.stored_name(), "tasks");
        assert_eq!(
            QueueOps.create_sql(),
            "CREATE TABLE queue_ops_stored (queue_id BIGINT, ts_ns BIGINT, op BIGINT, from_isr BIGINT, \
             task_id BIGINT, core_id BIGINT, len_after BIGINT); \
             CREATE VIEW queue_ops AS SELECT queue_id, ts_ns, CAST(CASE op WHEN 0 THEN 'send' \
             WHEN 1 THEN 'overwrite' WHEN 2 THEN 'receive' WHEN 3 THEN 'reset' WHEN 4 THEN 'level' END AS TEXT) AS op, \
             from_isr, task_id, core_id, len_after FROM queue_ops_stored"
        );
        assert_eq!(
            MutexHolds.insert_sql(1),
            "INSERT INTO mutex_holds_stored (queue_id, task_id, start_ns, end_ns, dur_ns, truncated) \
             VALUES (?, ?, ?, ?, ?, ?)"
        );
        assert_eq!(
            MutexHolds.column("dur_ns").shown_sql("m."),
            "CAST(COALESCE(m.dur_ns, m.end_ns - m.start_ns) AS BIGINT)"
        );
        assert_eq!(
            MutexHolds.drop_sql(),
            "DROP VIEW mutex_holds; DROP TABLE mutex_holds_stored"
        );
        let views: Vec<&str> = TABLES
            .iter()
            .filter(|t| t.is_view())
            .map(|t| t.name())
            .collect();
        assert_eq!(
            views,
            [
                "sched_slices",
                "task_states",
                "task_priorities",
                "isr_slices",
                "marker_spans",
                "queue_ops",
                "mutex_holds",
                "object_lifetimes",
                "heap_blocks",
                "cpu_timeline"
            ]
        );
    }

    #[test]
    fn the_user_docs_list_every_table_column_and_view() {
        let doc = include_str!("../../docs/src/query.md");
        for table in TABLES {
            let heading = format!("### `{}`\n", table.name());
            let section = doc
                .split_once(&heading)
                .unwrap_or_else(|| panic!("docs/src/query.md has no section {heading}"))
                .1;
            let section = section.split("\n### ").next().unwrap_or("");
            for c in table.columns() {
                let row = format!("| `{}` | {} | {} |", c.name, c.ty.sql(), c.doc);
                assert!(section.contains(&row), "docs/src/query.md lacks {row}");
            }
        }
        for view in views() {
            let row = format!("| `{}` | {} |", view.name, view.doc);
            assert!(doc.contains(&row), "docs/src/query.md lacks {row}");
        }
    }

    #[test]
    fn table_and_view_names_are_unique() {
        let mut names: Vec<&str> = TABLES.iter().map(|t| t.name()).collect();
        let stored: Vec<String> = TABLES
            .iter()
            .filter(|t| t.is_view())
            .map(|t| t.stored_name().into_owned())
            .collect();
        names.extend(stored.iter().map(String::as_str));
        names.extend(views().iter().map(|v| v.name));
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count);
    }
}
