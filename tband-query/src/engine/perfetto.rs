//! Perfetto's trace processor as an engine: the trace is exported in
//! memory's stead to a temporary `.pftrace` file and each statement runs in
//! `trace_processor_shell` on it (see [`tband_perfetto::trace_processor`]).
//! The tables are Perfetto's (`sched`, `thread_state`, `slice`, ...), not
//! tband's: the queries to run are those of `queries/perfetto/`.

use std::io::BufWriter;
use std::path::PathBuf;

use tband_model::Model;
use tband_perfetto::trace_processor;

use super::{Database, Engine, Fill, QueryResult, Value};
use crate::schema::Table;

pub struct Perfetto {
    shell: PathBuf,
    trace: PathBuf,
    /// The statements run so far that return no rows (each run of the
    /// shell starts afresh, so they run again before the next one).
    prelude: String,
}

impl Perfetto {
    /// Exports `model` for the shell, which is found first.
    pub fn open(model: &Model) -> Result<Perfetto, String> {
        let shell = trace_processor::find()?;
        let trace =
            std::env::temp_dir().join(format!("tband-query-{}.pftrace", std::process::id()));
        let file = std::fs::File::create(&trace)
            .map_err(|e| format!("cannot create {}: {e}", trace.display()))?;
        let db = Perfetto {
            shell,
            trace,
            prelude: String::new(),
        };
        tband_perfetto::export(
            model,
            tband_perfetto::ExportOptions::default(),
            &mut BufWriter::new(file),
        )
        .map_err(|e| format!("cannot write {}: {e}", db.trace.display()))?;
        Ok(db)
    }
}

impl Drop for Perfetto {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.trace);
    }
}

impl Database for Perfetto {
    fn engine(&self) -> Engine {
        Engine::Perfetto
    }

    fn execute(&mut self, sql: &str) -> Result<(), String> {
        let prelude = format!("{}{sql};\n", self.prelude);
        trace_processor::run(&self.shell, &prelude, &self.trace)?;
        self.prelude = prelude;
        Ok(())
    }

    fn load_table(&mut self, table: &dyn Table, _fill: Fill<'_>) -> Result<(), String> {
        Err(format!(
            "the perfetto engine has Perfetto's tables, not tband's `{}`",
            table.name()
        ))
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<QueryResult, String> {
        let sql = bind(sql, params);
        let first = first_word(&sql);
        if !["SELECT", "WITH", "VALUES"]
            .iter()
            .any(|k| first.eq_ignore_ascii_case(k))
        {
            self.execute(&sql)?;
            return Ok(QueryResult::default());
        }
        trace_processor::query(&self.shell, &self.prelude, &sql, &self.trace)
    }
}

/// The statement's first word, after the comments before it.
fn first_word(sql: &str) -> &str {
    let mut rest = sql.trim_start();
    loop {
        if let Some(comment) = rest.strip_prefix("--") {
            rest = comment.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(comment) = rest.strip_prefix("/*") {
            rest = comment.split_once("*/").map_or("", |(_, after)| after);
        } else {
            break;
        }
        rest = rest.trim_start();
    }
    rest.split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or("")
}

/// `sql` with each `?` outside quotes replaced by the next parameter, as a
/// literal: the shell binds none.
fn bind(sql: &str, params: &[Value]) -> String {
    let mut params = params.iter();
    let mut out = String::with_capacity(sql.len());
    let mut quote = None;
    for c in sql.chars() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '?') => {
                if let Some(p) = params.next() {
                    out.push_str(&literal(p));
                    continue;
                }
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

fn literal(value: &Value) -> String {
    match value {
        Value::Null => "NULL".to_string(),
        Value::Int(i) => i.to_string(),
        Value::Real(r) => format!("{r:?}"),
        Value::Text(t) => format!("'{}'", t.replace('\'', "''")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_word_comes_after_the_comments() {
        assert_eq!(first_word("-- a; b\n /* c */\n  with x AS (1)"), "with");
        assert_eq!(first_word("INCLUDE PERFETTO MODULE linux.irqs"), "INCLUDE");
        assert_eq!(first_word("-- only a comment"), "");
    }

    #[test]
    fn parameters_become_literals_outside_quotes() {
        let sql = bind(
            "SELECT '?', ? + ?, ? FROM t WHERE n = \"?\"",
            &[Value::Int(1), Value::Real(2.5), Value::Text("it's".into())],
        );
        assert_eq!(sql, "SELECT '?', 1 + 2.5, 'it''s' FROM t WHERE n = \"?\"");
    }
}
