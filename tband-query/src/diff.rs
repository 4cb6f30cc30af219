//! Comparing a report's results on two traces: rows matched by their key,
//! each value column's change, absolute and relative, and budgets of change
//! (`--fail-if 'cpu_load.load_pct > +2'`).

use std::collections::HashMap;
use std::fmt;

use crate::engine::{QueryResult, Value};
use crate::reports;

/// The columns of a diff's result after the key columns.
pub const DIFF_COLUMNS: [&str; 6] = ["column", "old", "new", "change", "change_pct", "status"];

/// Which of a result's columns identify a row (a task, an ISR, a queue, a
/// core, a window): those the query's header names after `Key:`, or else
/// those named `*_id` or `*_name` and those holding text (a kind, a state).
pub fn key_columns(query_text: &str, old: &QueryResult, new: &QueryResult) -> Vec<usize> {
    if let Some(named) = reports::key(query_text) {
        return old
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| named.iter().any(|n| n == *c))
            .map(|(i, _)| i)
            .collect();
    }
    let holds_text = |i: usize| {
        [old, new]
            .iter()
            .flat_map(|r| &r.rows)
            .any(|row| matches!(row.get(i), Some(Value::Text(_))))
    };
    old.columns
        .iter()
        .enumerate()
        .filter(|(i, c)| c.ends_with("_id") || c.ends_with("_name") || holds_text(*i))
        .map(|(i, _)| i)
        .collect()
}

/// One report's comparison: one row per key and value column, with the key
/// columns, then [`DIFF_COLUMNS`]. Rows of the old result come first in
/// their order (a key found only there is `vanished`), then keys found only
/// in the new one (`new`). A key that several rows share is matched in
/// order of appearance.
pub fn compare(old: &QueryResult, new: &QueryResult, key: &[usize]) -> QueryResult {
    let values: Vec<usize> = (0..old.columns.len())
        .filter(|i| !key.contains(i))
        .collect();
    let key_of = |row: &[Value]| -> Vec<String> {
        key.iter()
            .map(|&i| format!("{:?}", row.get(i).unwrap_or(&Value::Null)))
            .collect()
    };
    let mut unmatched: HashMap<Vec<String>, Vec<usize>> = HashMap::new();
    for (i, row) in new.rows.iter().enumerate().rev() {
        unmatched.entry(key_of(row)).or_default().push(i);
    }
    let mut matched_new = vec![false; new.rows.len()];
    let mut rows = Vec::new();
    let mut emit = |old_row: Option<&Vec<Value>>, new_row: Option<&Vec<Value>>| {
        let keyed = old_row.or(new_row).expect("one side has the row");
        for &c in &values {
            let mut row: Vec<Value> = key.iter().map(|&i| keyed[i].clone()).collect();
            let a = old_row.map_or(Value::Null, |r| r[c].clone());
            let b = new_row.map_or(Value::Null, |r| r[c].clone());
            let status = match (old_row, new_row) {
                (None, _) => "new",
                (_, None) => "vanished",
                _ if a == b => "same",
                _ => "changed",
            };
            let (change, pct) = match (old_row, new_row) {
                (Some(_), Some(_)) => change(&a, &b),
                _ => (Value::Null, Value::Null),
            };
            row.extend([
                Value::Text(old.columns[c].clone()),
                a,
                b,
                change,
                pct,
                Value::Text(status.to_string()),
            ]);
            rows.push(row);
        }
    };
    for old_row in &old.rows {
        let partner = unmatched.get_mut(&key_of(old_row)).and_then(Vec::pop);
        if let Some(j) = partner {
            matched_new[j] = true;
        }
        emit(Some(old_row), partner.map(|j| &new.rows[j]));
    }
    for (j, new_row) in new.rows.iter().enumerate() {
        if !matched_new[j] {
            emit(None, Some(new_row));
        }
    }
    let columns = key
        .iter()
        .map(|&i| old.columns[i].clone())
        .chain(DIFF_COLUMNS.iter().map(|c| c.to_string()))
        .collect();
    QueryResult { columns, rows }
}

/// A comparison without its rows of status `same`.
pub fn changed(diff: &QueryResult) -> QueryResult {
    let same = Value::Text("same".to_string());
    QueryResult {
        columns: diff.columns.clone(),
        rows: diff
            .rows
            .iter()
            .filter(|row| row.last() != Some(&same))
            .cloned()
            .collect(),
    }
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Real(r) => Some(*r),
        Value::Null | Value::Text(_) => None,
    }
}

/// Reals are rounded to 6 decimals, so that the change of two values
/// rounded to 2 decimals reads as such (10.18, not 10.180000000000001).
fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// `new - old` (an integer when both are), and that change in percent of
/// `|old|`, 2 decimals (NULL when old is 0 and new is not, or either is not
/// a number).
fn change(old: &Value, new: &Value) -> (Value, Value) {
    let absolute = match (old, new) {
        (Value::Int(a), Value::Int(b)) => b.checked_sub(*a).map(Value::Int),
        _ => None,
    };
    let (Some(a), Some(b)) = (number(old), number(new)) else {
        return (Value::Null, Value::Null);
    };
    let absolute = absolute.unwrap_or(Value::Real(round6(b - a)));
    let pct = if a == b {
        Value::Real(0.0)
    } else if a == 0.0 {
        Value::Null
    } else {
        Value::Real(((b - a) * 100.0 / a.abs() * 100.0).round() / 100.0)
    };
    (absolute, pct)
}

/// How a budget compares a change with its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    Greater,
    GreaterOrEqual,
    Less,
    LessOrEqual,
}

impl Comparison {
    const ALL: [(&'static str, Comparison); 4] = [
        (">=", Comparison::GreaterOrEqual),
        ("<=", Comparison::LessOrEqual),
        (">", Comparison::Greater),
        ("<", Comparison::Less),
    ];

    fn holds(self, value: f64, limit: f64) -> bool {
        match self {
            Comparison::Greater => value > limit,
            Comparison::GreaterOrEqual => value >= limit,
            Comparison::Less => value < limit,
            Comparison::LessOrEqual => value <= limit,
        }
    }
}

/// A budget of change, `REPORT.COLUMN OP LIMIT`: the diff fails when a
/// key's change in COLUMN of REPORT compares so with LIMIT (a number, or a
/// percent of the old value with `%`).
#[derive(Clone, Debug, PartialEq)]
pub struct Budget {
    /// The expression as given, for messages.
    pub text: String,
    /// The report, as `--list` names it (`cpu_load`, `ci/isr_budget`).
    pub report: String,
    pub column: String,
    pub comparison: Comparison,
    pub limit: f64,
    /// The limit is in percent of the old value.
    pub relative: bool,
}

impl std::str::FromStr for Budget {
    type Err = String;

    fn from_str(s: &str) -> Result<Budget, String> {
        let bad = |why: &str| {
            format!(
                "`{s}` is not a budget ({why}); write REPORT.COLUMN OP CHANGE, e.g. 'cpu_load.load_pct > +2' or 'isr_latency.max_ns > +10%', with OP one of > >= < <="
            )
        };
        let (at, op, comparison) = Comparison::ALL
            .iter()
            .filter_map(|&(op, c)| s.find(op).map(|at| (at, op, c)))
            .min_by_key(|&(at, op, _)| (at, std::cmp::Reverse(op.len())))
            .ok_or_else(|| bad("no comparison"))?;
        let target = s[..at].trim();
        let limit = s[at + op.len()..].trim();
        let (report, column) = target
            .rsplit_once('.')
            .filter(|(r, c)| !r.is_empty() && !c.is_empty())
            .ok_or_else(|| bad("no REPORT.COLUMN before the comparison"))?;
        let (number, relative) = match limit.strip_suffix('%') {
            Some(n) => (n.trim(), true),
            None => (limit, false),
        };
        let limit: f64 = number
            .strip_prefix('+')
            .unwrap_or(number)
            .parse()
            .ok()
            .filter(|n: &f64| n.is_finite())
            .ok_or_else(|| bad(&format!("`{limit}` is not a number")))?;
        let report = report.strip_suffix(".sql").unwrap_or(report);
        Ok(Budget {
            text: s.trim().to_string(),
            report: report.to_string(),
            column: column.to_string(),
            comparison,
            limit,
            relative,
        })
    }
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Budget {
    /// The rows of a report's comparison ([`compare`]) that break this
    /// budget. Keys found on one side only have no change and break none.
    pub fn broken_by<'a>(&self, diff: &'a QueryResult) -> Vec<&'a [Value]> {
        let at = |name: &str| diff.columns.iter().position(|c| c == name);
        let (Some(column), Some(change), Some(pct)) =
            (at("column"), at("change"), at("change_pct"))
        else {
            return Vec::new();
        };
        let measured = if self.relative { pct } else { change };
        diff.rows
            .iter()
            .filter(|row| row[column] == Value::Text(self.column.clone()))
            .filter(|row| {
                number(&row[measured]).is_some_and(|v| self.comparison.holds(v, self.limit))
            })
            .map(Vec::as_slice)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(columns: &[&str], rows: Vec<Vec<Value>>) -> QueryResult {
        QueryResult {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows,
        }
    }

    fn task(id: i64, name: &str, load: f64, ns: i64) -> Vec<Value> {
        vec![
            Value::Int(id),
            Value::Text(name.into()),
            Value::Real(load),
            Value::Int(ns),
        ]
    }

    const COLUMNS: [&str; 4] = ["task_id", "task_name", "load_pct", "run_ns"];

    #[test]
    fn rows_are_matched_by_key_with_new_and_vanished_keys() {
        let old = result(
            &COLUMNS,
            vec![task(1, "a", 12.58, 100), task(2, "b", 3.0, 0)],
        );
        let new = result(
            &COLUMNS,
            vec![task(3, "c", 1.0, 5), task(1, "a", 22.76, 150)],
        );
        let key = key_columns("SELECT 1", &old, &new);
        assert_eq!(key, [0, 1]);
        let d = compare(&old, &new, &key);
        assert_eq!(
            d.columns,
            [
                "task_id",
                "task_name",
                "column",
                "old",
                "new",
                "change",
                "change_pct",
                "status"
            ]
        );
        let row = |i: usize| d.rows[i][2..].to_vec();
        let text = |s: &str| Value::Text(s.into());
        assert_eq!(
            row(0),
            [
                text("load_pct"),
                Value::Real(12.58),
                Value::Real(22.76),
                Value::Real(10.18),
                Value::Real(80.92),
                text("changed")
            ]
        );
        assert_eq!(
            row(1)[3..],
            [Value::Int(50), Value::Real(50.0), text("changed")]
        );
        assert_eq!(
            row(3)[2..],
            [Value::Null, Value::Null, Value::Null, text("vanished")]
        );
        assert_eq!(d.rows[4][..2], [Value::Int(3), text("c")]);
        assert_eq!(row(4)[5], text("new"));
        assert_eq!(d.rows.len(), 6);
    }

    #[test]
    fn a_header_key_replaces_the_rule() {
        let r = result(&["core_id", "window_start_ns", "busy_ns"], vec![]);
        let text = "-- Load per window.\n--\n-- Key: core_id, window_start_ns\nSELECT 1";
        assert_eq!(key_columns(text, &r, &r), [0, 1]);
        assert_eq!(key_columns("SELECT 1", &r, &r), [0]);
    }

    #[test]
    fn changes_from_zero_and_to_the_same_value() {
        assert_eq!(
            change(&Value::Int(0), &Value::Int(0)),
            (Value::Int(0), Value::Real(0.0))
        );
        assert_eq!(
            change(&Value::Int(0), &Value::Int(4)),
            (Value::Int(4), Value::Null)
        );
        assert_eq!(
            change(&Value::Int(-4), &Value::Int(-2)),
            (Value::Int(2), Value::Real(50.0))
        );
        assert_eq!(
            change(&Value::Null, &Value::Int(1)),
            (Value::Null, Value::Null)
        );
    }

    #[test]
    fn budgets_parse_and_catch_only_their_column() {
        let b: Budget = "isr_latency.max_ns > +10%".parse().unwrap();
        assert_eq!(
            (
                b.report.as_str(),
                b.column.as_str(),
                b.comparison,
                b.limit,
                b.relative
            ),
            ("isr_latency", "max_ns", Comparison::Greater, 10.0, true)
        );
        let b: Budget = "ci/isr_budget.sql.worst_ns>=-5".parse().unwrap();
        assert_eq!(
            (b.report.as_str(), b.comparison, b.limit, b.relative),
            ("ci/isr_budget", Comparison::GreaterOrEqual, -5.0, false)
        );
        for bad in [
            "cpu_load > 2",
            "cpu_load.load_pct",
            "x.y > two",
            ".y < 1",
            "a.b < 1e999",
        ] {
            let e = bad.parse::<Budget>().unwrap_err();
            assert!(e.starts_with(&format!("`{bad}` is not a budget")), "{e}");
        }

        let old = result(
            &COLUMNS,
            vec![task(1, "a", 10.0, 100), task(2, "b", 5.0, 100)],
        );
        let new = result(
            &COLUMNS,
            vec![task(1, "a", 13.0, 100), task(2, "b", 6.0, 300)],
        );
        let d = compare(&old, &new, &[0, 1]);
        let broken = |s: &str| {
            let b: Budget = s.parse().unwrap();
            b.broken_by(&d)
                .iter()
                .map(|r| r[1].clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(broken("cpu_load.load_pct > +2"), [Value::Text("a".into())]);
        assert_eq!(broken("cpu_load.run_ns > 100%"), [Value::Text("b".into())]);
        assert!(broken("cpu_load.run_ns < 0").is_empty());
    }
}
