//! Text forms of a buffer's entries: one JSON object per entry (the columns
//! of the reference listings, plus the time), a readable one-line form, and
//! counts by event.

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::entries::Entry;
use super::event_names::event_info;
use super::problems::Problem;
use super::Buffer;
use tband_model::json::write_json_str;

fn display_name(entry: &Entry) -> &'static str {
    entry.event_name().unwrap_or("unknown")
}

/// Walks the entries, then reports the problems found in the buffer and in them.
fn walk(
    buffer: &Buffer<'_>,
    mut each: impl FnMut(&Entry) -> io::Result<()>,
) -> io::Result<Vec<Problem>> {
    let mut entries = buffer.entries();
    for entry in entries.by_ref() {
        each(&entry)?;
    }
    let mut problems = buffer.problems().to_vec();
    problems.extend(entries.finish());
    Ok(problems)
}

pub fn write_json(out: &mut impl Write, buffer: &Buffer<'_>) -> io::Result<()> {
    let problems = walk(buffer, |entry| {
        write!(
            out,
            "{{\"seq\":{},\"slot\":{},\"ts_ns\":{},\"timestamp\":{},\"context\":",
            entry.seq, entry.slot, entry.time_ns, entry.timestamp
        )?;
        write_json_str(out, buffer.context_label(entry).as_bytes())?;
        let [i1, i2, i3, i4] = entry.info;
        writeln!(
            out,
            ",\"thread_word\":{},\"priority_word\":{},\"event_id\":{},\"event\":\"{}\",\"info\":[{i1},{i2},{i3},{i4}]}}",
            entry.thread_word,
            entry.priority_word,
            entry.event_id,
            display_name(entry)
        )
    })?;
    for problem in problems {
        write!(
            out,
            "{{\"problem\":\"{}\",\"position\":{},\"count\":{},\"detail\":",
            problem.kind, problem.position, problem.count
        )?;
        write_json_str(out, problem.detail.as_bytes())?;
        out.write_all(b"}\n")?;
    }
    Ok(())
}

pub fn write_pretty(out: &mut impl Write, buffer: &Buffer<'_>) -> io::Result<()> {
    let problems = walk(buffer, |entry| {
        write!(
            out,
            "{:>14.3} µs  {:<20} {:<40}",
            entry.time_ns as f64 / 1000.0,
            buffer.context_label(entry),
            display_name(entry)
        )?;
        let labels = event_info(entry.event_id).map(|info| info.fields);
        for (index, value) in entry.info.into_iter().enumerate() {
            match labels.map(|fields| fields[index]) {
                Some("") => {}
                Some(label) => write!(out, "  {label}=0x{value:X}")?,
                None => write!(out, "  info{}=0x{value:X}", index + 1)?,
            }
        }
        out.write_all(b"\n")
    })?;
    for problem in problems {
        writeln!(out, "problem: {problem}")?;
    }
    Ok(())
}

pub fn write_stats(out: &mut impl Write, name: &str, buffer: &Buffer<'_>) -> io::Result<()> {
    let mut by_event: BTreeMap<(u32, &'static str), u64> = BTreeMap::new();
    let problems = walk(buffer, |entry| {
        *by_event
            .entry((entry.event_id, display_name(entry)))
            .or_default() += 1;
        Ok(())
    })?;
    let total: u64 = by_event.values().sum();
    let layout = &buffer.layout;
    writeln!(
        out,
        "{name}: ThreadX buffer, {} slots ({} written), {} registry entries ({} used), \
         timer mask 0x{:08X} counting {}{}",
        layout.slots,
        total,
        layout.registry_capacity,
        buffer.registry.entries.len(),
        buffer.timer.mask,
        buffer.timer.direction.as_str(),
        if buffer.timer.direction_detected {
            " (detected)"
        } else {
            ""
        }
    )?;
    writeln!(out, "\nevents by kind:")?;
    for ((id, event), count) in by_event {
        writeln!(out, "  {id:>5} {event:<48}{count:>10}")?;
    }
    if !problems.is_empty() {
        writeln!(out, "\nproblems:")?;
        for problem in problems {
            writeln!(out, "  {problem}")?;
        }
    }
    Ok(())
}
