//! Printing query results: aligned tables, CSV, JSON and Markdown.

use std::io::{self, Write};

use crate::engine::{QueryResult, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Aligned columns for reading.
    Table,
    /// RFC 4180 CSV with a header line.
    Csv,
    /// One array of row objects keyed by column name (an object of such
    /// arrays, keyed by query, when several queries ran).
    Json,
    /// GitHub-flavoured Markdown tables, e.g. for a CI job summary.
    Markdown,
}

/// The result of one query, named for headings.
pub struct Named<'a> {
    pub name: &'a str,
    pub result: &'a QueryResult,
}

pub fn write(out: &mut dyn Write, format: Format, results: &[Named<'_>]) -> io::Result<()> {
    match format {
        Format::Json => return write_json(out, results),
        Format::Table | Format::Csv | Format::Markdown => {}
    }
    let several = results.len() > 1;
    for (i, r) in results.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        match format {
            Format::Table => {
                if several {
                    writeln!(out, "== {} ==", r.name)?;
                }
                write_table(out, r.result)?;
            }
            Format::Csv => write_csv(out, r.result)?,
            Format::Markdown => {
                if several {
                    writeln!(out, "### {}\n", r.name)?;
                }
                write_markdown(out, r.result)?;
            }
            Format::Json => unreachable!("JSON is written as a whole"),
        }
    }
    Ok(())
}

/// A value as the table and CSV show it (NULL as nothing).
pub(crate) fn text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Int(i) => i.to_string(),
        Value::Real(r) => r.to_string(),
        Value::Text(s) => s.clone(),
    }
}

fn is_number(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::Real(_))
}

fn write_table(out: &mut dyn Write, r: &QueryResult) -> io::Result<()> {
    let cells: Vec<Vec<String>> = r
        .rows
        .iter()
        .map(|row| row.iter().map(text).collect())
        .collect();
    let widths: Vec<usize> = r
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            cells
                .iter()
                .filter_map(|row| row.get(i))
                .map(|s| s.chars().count())
                .chain([c.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |out: &mut dyn Write, fields: Vec<(String, bool)>| -> io::Result<()> {
        let mut s = String::new();
        for (i, ((f, right), w)) in fields.into_iter().zip(&widths).enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            let pad = w.saturating_sub(f.chars().count());
            if right {
                s.extend(std::iter::repeat_n(' ', pad));
                s.push_str(&f);
            } else {
                s.push_str(&f);
                s.extend(std::iter::repeat_n(' ', pad));
            }
        }
        writeln!(out, "{}", s.trim_end())
    };
    line(out, r.columns.iter().map(|c| (c.clone(), false)).collect())?;
    line(
        out,
        widths.iter().map(|w| ("-".repeat(*w), false)).collect(),
    )?;
    for (row, texts) in r.rows.iter().zip(cells) {
        line(
            out,
            texts.into_iter().zip(row.iter().map(is_number)).collect(),
        )?;
    }
    if r.rows.is_empty() {
        writeln!(out, "(no rows)")?;
    }
    Ok(())
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn write_csv(out: &mut dyn Write, r: &QueryResult) -> io::Result<()> {
    let header: Vec<String> = r.columns.iter().map(|c| csv_field(c)).collect();
    writeln!(out, "{}", header.join(","))?;
    for row in &r.rows {
        let fields: Vec<String> = row.iter().map(|v| csv_field(&text(v))).collect();
        writeln!(out, "{}", fields.join(","))?;
    }
    Ok(())
}

fn markdown_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn write_markdown(out: &mut dyn Write, r: &QueryResult) -> io::Result<()> {
    let header: Vec<String> = r.columns.iter().map(|c| markdown_cell(c)).collect();
    writeln!(out, "| {} |", header.join(" | "))?;
    let numeric: Vec<bool> = (0..r.columns.len())
        .map(|i| r.rows.iter().filter_map(|row| row.get(i)).any(is_number))
        .collect();
    let rule: Vec<&str> = numeric
        .iter()
        .map(|&n| if n { "---:" } else { "---" })
        .collect();
    writeln!(out, "|{}|", rule.join("|"))?;
    for row in &r.rows {
        let cells: Vec<String> = row.iter().map(|v| markdown_cell(&text(v))).collect();
        writeln!(out, "| {} |", cells.join(" | "))?;
    }
    Ok(())
}

fn json_value(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Int(i) => i.to_string(),
        Value::Real(r) if r.is_finite() => {
            serde_json::Number::from_f64(*r).map_or("null".to_string(), |n| n.to_string())
        }
        Value::Real(_) => "null".to_string(),
        Value::Text(s) => json_string(s),
    }
}

fn json_string(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

fn json_rows(r: &QueryResult) -> String {
    let keys: Vec<String> = r.columns.iter().map(|c| json_string(c)).collect();
    let rows: Vec<String> = r
        .rows
        .iter()
        .map(|row| {
            let fields: Vec<String> = keys
                .iter()
                .zip(row)
                .map(|(k, v)| format!("{k}:{}", json_value(v)))
                .collect();
            format!("{{{}}}", fields.join(","))
        })
        .collect();
    format!("[{}]", rows.join(",\n"))
}

fn write_json(out: &mut dyn Write, results: &[Named<'_>]) -> io::Result<()> {
    match results {
        [one] => writeln!(out, "{}", json_rows(one.result)),
        several => {
            let entries: Vec<String> = several
                .iter()
                .map(|r| format!("{}:{}", json_string(r.name), json_rows(r.result)))
                .collect();
            writeln!(out, "{{{}}}", entries.join(",\n"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> QueryResult {
        QueryResult {
            columns: vec!["name".into(), "n".into(), "pct".into()],
            rows: vec![
                vec![
                    Value::Text("a|b, \"c\"".into()),
                    Value::Int(12),
                    Value::Real(1.5),
                ],
                vec![Value::Text("idle".into()), Value::Int(3), Value::Null],
            ],
        }
    }

    fn render(format: Format, results: &[Named<'_>]) -> String {
        let mut out = Vec::new();
        write(&mut out, format, results).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn formats_one_result() {
        let r = sample();
        let one = [Named {
            name: "q.sql",
            result: &r,
        }];
        assert_eq!(
            render(Format::Table, &one),
            "name      n   pct\n--------  --  ---\na|b, \"c\"  12  1.5\nidle       3\n"
        );
        assert_eq!(
            render(Format::Csv, &one),
            "name,n,pct\n\"a|b, \"\"c\"\"\",12,1.5\nidle,3,\n"
        );
        assert_eq!(
            render(Format::Markdown, &one),
            "| name | n | pct |\n|---|---:|---:|\n| a\\|b, \"c\" | 12 | 1.5 |\n| idle | 3 |  |\n"
        );
        let json: serde_json::Value = serde_json::from_str(&render(Format::Json, &one)).unwrap();
        assert_eq!(json[0]["n"], serde_json::json!(12));
        assert!(json[0]["n"].is_i64());
        assert_eq!(json[1]["pct"], serde_json::Value::Null);
    }

    #[test]
    fn several_results_are_named() {
        let r = sample();
        let two = [
            Named {
                name: "a.sql",
                result: &r,
            },
            Named {
                name: "b.sql",
                result: &r,
            },
        ];
        let json: serde_json::Value = serde_json::from_str(&render(Format::Json, &two)).unwrap();
        assert_eq!(json["b.sql"][1]["name"], "idle");
        assert!(render(Format::Markdown, &two).contains("### b.sql\n"));
    }
}
