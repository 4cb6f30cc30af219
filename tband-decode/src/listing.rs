//! Text forms of decoded events: the canonical JSON listing of docs/src/format.md
//! (one object per frame) and a readable one-line-per-event form.

use std::io::{self, Write};

use tband::{Event, FieldValue, Record};
use tband_model::json::write_json_str;
use tband_model::LogMessage;

use crate::frames::FrameError;

/// The defmt frame a record carries, if it is a log frame.
pub fn defmt_frame<'a>(rec: &Record<'a>) -> Option<&'a [u8]> {
    match rec.event {
        Event::DefmtFrame { frame } => Some(frame),
        _ => None,
    }
}

/// One line of the canonical JSON listing for a decoded frame.
pub fn write_json_record(out: &mut impl Write, rec: &Record<'_>) -> io::Result<()> {
    write_json_fields(out, rec)?;
    out.write_all(b"}\n")
}

/// The JSON listing's line for a log frame, with the line it decodes to
/// after the frame's fields: `level` (null without one), `text`, `file`
/// and `line` (null when the build does not say).
pub fn write_json_log(out: &mut impl Write, rec: &Record<'_>, log: &LogMessage) -> io::Result<()> {
    write_json_fields(out, rec)?;
    out.write_all(b",\"level\":")?;
    match log.level {
        Some(level) => write!(out, "\"{}\"", level.as_str())?,
        None => out.write_all(b"null")?,
    }
    out.write_all(b",\"text\":")?;
    write_json_str(out, log.text.as_bytes())?;
    out.write_all(b",\"file\":")?;
    match &log.file {
        Some(file) => write_json_str(out, file.as_bytes())?,
        None => out.write_all(b"null")?,
    }
    match log.line {
        Some(line) => writeln!(out, ",\"line\":{line}}}"),
        None => out.write_all(b",\"line\":null}\n"),
    }
}

/// The line's opening and the record's fields, without the closing brace.
fn write_json_fields(out: &mut impl Write, rec: &Record<'_>) -> io::Result<()> {
    write!(out, "{{\"evt\":\"{}\"", rec.event.kind().name())?;
    if let Some(ts) = rec.ts {
        write!(out, ",\"ts\":{ts}")?;
    }
    let mut result = Ok(());
    rec.event.for_each_field(|name, value| {
        if result.is_ok() {
            result = write!(out, ",\"{name}\":").and_then(|()| write_json_value(out, value));
        }
    });
    result
}

fn write_json_value(out: &mut impl Write, value: FieldValue<'_>) -> io::Result<()> {
    match value {
        FieldValue::U8(v) => write!(out, "{v}"),
        FieldValue::U32(v) => write!(out, "{v}"),
        FieldValue::U64(v) => write!(out, "{v}"),
        FieldValue::S64(v) => write!(out, "{v}"),
        FieldValue::Str(s) => write_json_str(out, s),
    }
}

/// The listing line for a frame that did not decode.
pub fn write_json_invalid(out: &mut impl Write, err: &FrameError) -> io::Result<()> {
    out.write_all(b"{\"evt\":\"invalid\",\"reason\":")?;
    write_json_str(out, err.to_string().as_bytes())?;
    out.write_all(b"}\n")
}

/// How the readable form shows time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    /// Raw ticks (no resolution known).
    Ticks,
    /// Microseconds, given the nanoseconds per tick.
    Micros { ns_per_tick: u64 },
}

/// One readable line: time, core, event name, `field=value` pairs.
pub fn write_pretty_record(
    out: &mut impl Write,
    rec: &Record<'_>,
    core: u32,
    unit: TimeUnit,
) -> io::Result<()> {
    write_pretty_head(out, rec, core, unit)?;
    let mut result = Ok(());
    rec.event.for_each_field(|name, value| {
        if result.is_ok() {
            result = match value {
                FieldValue::Str(s) => write!(out, " {name}=").and_then(|()| write_json_str(out, s)),
                FieldValue::U8(v) => write!(out, " {name}={v}"),
                FieldValue::U32(v) => write!(out, " {name}={v}"),
                FieldValue::U64(v) => write!(out, " {name}={v}"),
                FieldValue::S64(v) => write!(out, " {name}={v}"),
            };
        }
    });
    result?;
    out.write_all(b"\n")
}

/// The readable line of a log frame: the line it decodes to, in place of
/// the frame's bytes (level, text, then where it was logged).
pub fn write_pretty_log(
    out: &mut impl Write,
    rec: &Record<'_>,
    core: u32,
    unit: TimeUnit,
    log: &LogMessage,
) -> io::Result<()> {
    write_pretty_head(out, rec, core, unit)?;
    let level = log.level.map_or("-", |l| l.as_str());
    write!(out, " {level:<5} ")?;
    write_json_str(out, log.text.as_bytes())?;
    match (&log.file, log.line) {
        (Some(file), Some(line)) => writeln!(out, " ({file}:{line})"),
        (Some(file), None) => writeln!(out, " ({file})"),
        _ => out.write_all(b"\n"),
    }
}

/// A readable line's time, core and event name.
fn write_pretty_head(
    out: &mut impl Write,
    rec: &Record<'_>,
    core: u32,
    unit: TimeUnit,
) -> io::Result<()> {
    match (rec.ts, unit) {
        (None, _) => write!(out, "{:>16}", "meta")?,
        (Some(ts), TimeUnit::Ticks) => write!(out, "{ts:>16}")?,
        (Some(ts), TimeUnit::Micros { ns_per_tick }) => {
            let ns = u128::from(ts) * u128::from(ns_per_tick);
            write!(out, "{:>10}.{:03}µs", ns / 1000, ns % 1000)?
        }
    }
    write!(out, "  c{core:<2} {:<31}", rec.event.kind().name())
}

/// The readable line for a frame that did not decode.
pub fn write_pretty_invalid(
    out: &mut impl Write,
    offset: usize,
    err: &FrameError,
) -> io::Result<()> {
    writeln!(out, "{:>16}  invalid frame at byte {offset}: {err}", "!")
}

#[cfg(test)]
mod tests {
    use super::*;
    use tband::Event;

    fn json(rec: &Record<'_>) -> String {
        let mut out = Vec::new();
        write_json_record(&mut out, rec).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn canonical_json() {
        let rec = Record {
            ts: Some(7),
            event: Event::Evtmarker {
                evtmarker_id: 1,
                msg: b"a\"b\\\x01\xC3",
            },
        };
        assert_eq!(
            json(&rec),
            "{\"evt\":\"evtmarker\",\"ts\":7,\"evtmarker_id\":1,\"msg\":\"a\\\"b\\\\\\u0001\u{FFFD}\"}\n"
        );
        let meta = Record {
            ts: None,
            event: Event::QueueKind {
                queue_id: 2,
                kind: 4,
            },
        };
        assert_eq!(
            json(&meta),
            "{\"evt\":\"queue_kind\",\"queue_id\":2,\"kind\":4}\n"
        );
    }

    #[test]
    fn pretty_in_micros() {
        let rec = Record {
            ts: Some(1_234_567),
            event: Event::IsrEnter { isr_id: 3 },
        };
        let mut out = Vec::new();
        write_pretty_record(&mut out, &rec, 1, TimeUnit::Micros { ns_per_tick: 10 }).unwrap();
        let line = String::from_utf8(out).unwrap();
        assert!(line.contains("12345.670µs"), "{line}");
        assert!(
            line.contains("c1 ") && line.ends_with("isr_id=3\n"),
            "{line}"
        );
    }

    #[test]
    fn pretty_columns_line_up_for_every_time_unit() {
        let meta = Record {
            ts: None,
            event: Event::TsResolutionNs { ns_per_ts: 10 },
        };
        let timed = Record {
            ts: Some(5),
            event: Event::IsrEnter { isr_id: 3 },
        };
        for unit in [TimeUnit::Ticks, TimeUnit::Micros { ns_per_tick: 10 }] {
            let core_column = |rec: &Record<'_>| {
                let mut out = Vec::new();
                write_pretty_record(&mut out, rec, 0, unit).unwrap();
                let line = String::from_utf8(out).unwrap();
                line[..line.find(" c0 ").unwrap()].chars().count()
            };
            assert_eq!(core_column(&meta), core_column(&timed), "{unit:?}");
        }
    }
}
