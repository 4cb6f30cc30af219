//! Text forms of a CTF trace's events, for `tband-decode`: lines like babeltrace2's `pretty`
//! output, and JSON lines.

use std::io::{self, Write};

use tband_model::json::write_json_str;
use tband_model::{ArgValue, EventRow};

/// `[HH:MM:SS.nnnnnnnnn] (+S.nnnnnnnnn) name: { field = value, ... }`: the row's time, then the
/// delta to the previous event (`+?.?????????` for the first).
pub fn write_pretty_row(
    out: &mut impl Write,
    row: &EventRow<'_>,
    previous_ns: Option<u64>,
) -> io::Result<()> {
    let ns = row.ts_ns.unwrap_or(0);
    let secs = ns / 1_000_000_000;
    write!(
        out,
        "[{:02}:{:02}:{:02}.{:09}] ",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        ns % 1_000_000_000
    )?;
    match previous_ns {
        Some(previous) => {
            let delta = ns.saturating_sub(previous);
            write!(
                out,
                "(+{}.{:09}) ",
                delta / 1_000_000_000,
                delta % 1_000_000_000
            )?
        }
        None => out.write_all(b"(+?.?????????) ")?,
    }
    write!(out, "{}: ", row.name)?;
    for (i, (name, value)) in row.args.iter().enumerate() {
        out.write_all(if i == 0 { b"{ " } else { b", " })?;
        write!(out, "{name} = ")?;
        match value {
            ArgValue::Int(v) => write!(out, "{v}")?,
            ArgValue::UInt(v) => write!(out, "{v}")?,
            ArgValue::Str(text) => {
                out.write_all(b"\"")?;
                out.write_all(text)?;
                out.write_all(b"\"")?;
            }
        }
    }
    if !row.args.is_empty() {
        out.write_all(b" }")?;
    }
    out.write_all(b"\n")
}

/// `{"ts_ns":0,"core":0,"event":"name","fields":{"field":value,...}}`
pub fn write_json_row(out: &mut impl Write, row: &EventRow<'_>) -> io::Result<()> {
    match row.ts_ns {
        Some(ns) => write!(out, "{{\"ts_ns\":{ns},")?,
        None => out.write_all(b"{\"ts_ns\":null,")?,
    }
    write!(out, "\"core\":{},\"event\":", row.core_id)?;
    write_json_str(out, row.name.as_bytes())?;
    out.write_all(b",\"fields\":{")?;
    for (i, (name, value)) in row.args.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        write_json_str(out, name.as_bytes())?;
        out.write_all(b":")?;
        match value {
            ArgValue::Int(v) => write!(out, "{v}")?,
            ArgValue::UInt(v) => write!(out, "{v}")?,
            ArgValue::Str(text) => write_json_str(out, text)?,
        }
    }
    out.write_all(b"}}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row<'a>(ts_ns: u64, args: &'a [(&'a str, ArgValue<'a>)]) -> EventRow<'a> {
        EventRow {
            ts_ns: Some(ts_ns),
            core_id: 0,
            class: 0,
            name: "thread_info",
            args,
            actor: None,
        }
    }

    #[test]
    fn pretty_rows_look_like_babeltrace() {
        let args = [
            ("id", ArgValue::UInt(7)),
            ("name", ArgValue::Str(b"main")),
            ("ret", ArgValue::Int(-11)),
        ];
        let mut out = Vec::new();
        write_pretty_row(&mut out, &row(3_723_000_000_001, &args), None).unwrap();
        write_pretty_row(
            &mut out,
            &row(4_000_000_000_000, &[]),
            Some(3_723_000_000_001),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "[01:02:03.000000001] (+?.?????????) thread_info: { id = 7, name = \"main\", ret = -11 }\n\
             [01:06:40.000000000] (+276.999999999) thread_info: \n"
        );
    }

    #[test]
    fn json_rows_are_json() {
        let args = [("name", ArgValue::Str(b"a\"b")), ("ret", ArgValue::Int(-1))];
        let mut out = Vec::new();
        write_json_row(&mut out, &row(5, &args)).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "{\"ts_ns\":5,\"core\":0,\"event\":\"thread_info\",\"fields\":{\"name\":\"a\\\"b\",\"ret\":-1}}\n"
        );
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["fields"]["ret"], -1);
    }
}
