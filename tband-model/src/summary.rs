//! The summary (`tband-decode --summary`, the web page): a one-screen
//! readable overview of a model: cores, tasks, ISRs, markers,
//! queues, the rest of the model's timeline (RTOS objects, tracked
//! objects) and anomalies; a crash, when there was one, last.

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::analysis::{load_percent, Analysis};
use crate::{AnomalyKind, MarkerKind, Model, TaskKind};

mod fault;
mod memory;
mod timeline;

pub use fault::crash_line;

/// Formats nanoseconds with a unit that keeps 3–4 significant digits.
pub fn format_ns(ns: u64) -> String {
    let ns_f = ns as f64;
    if ns < 1_000 {
        format!("{ns} ns")
    } else if ns < 1_000_000 {
        format!("{:.2} µs", ns_f / 1e3)
    } else if ns < 1_000_000_000 {
        format!("{:.2} ms", ns_f / 1e6)
    } else {
        format!("{:.3} s", ns_f / 1e9)
    }
}

/// Reads a time as [`format_ns`] writes it (`89.84 ms`, `1.50 µs`,
/// `3.000 s`, `999 ns`; the space may be left out, `us` stands for `µs`)
/// or as plain nanoseconds (`89840000`).
pub fn parse_ns(text: &str) -> Result<u64, String> {
    let bad = || format!("`{text}` is not a time like 89.84 ms, 1.50 µs, 3.000 s or 120000 (ns)");
    let t = text.trim();
    let number_len = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(number_len);
    let ns_per_unit: u128 = match unit.trim_start() {
        "" | "ns" => 1,
        "µs" | "μs" | "us" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        _ => return Err(bad()),
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() {
        return Err(bad());
    }
    let digits = |d: &str| -> Result<u128, String> {
        if d.is_empty() {
            return Ok(0);
        }
        d.parse::<u128>().map_err(|_| bad())
    };
    // Digits below a nanosecond are dropped.
    let fraction = &fraction[..fraction.len().min(9)];
    let scale = 10u128.pow(fraction.len() as u32);
    let fraction_ns = digits(fraction)? * ns_per_unit / scale;
    let ns = digits(whole)?
        .checked_mul(ns_per_unit)
        .and_then(|w| w.checked_add(fraction_ns))
        .ok_or_else(bad)?;
    u64::try_from(ns).map_err(|_| bad())
}

pub fn write_summary(out: &mut impl Write, m: &Model) -> io::Result<()> {
    let info = &m.info;
    let duration = info.duration_ns;
    writeln!(
        out,
        "{} ({}): {} core(s), {}, {} events, {} invalid frames, {}",
        info.sources.join(", "),
        info.format,
        m.cores.len(),
        format_ns(duration),
        info.events,
        info.invalid_frames,
        if info.ns_per_tick_known {
            format!("{} ns per tick", info.ns_per_tick)
        } else {
            "timer resolution unknown (1 ns per tick assumed)".to_string()
        }
    )?;

    let a = Analysis::of(m);
    writeln!(out, "\ncores")?;
    for core in &m.cores {
        let idle = core
            .idle_task
            .and_then(|t| m.tasks.get(t as usize))
            .map_or("unknown", |t| t.name.as_str());
        writeln!(
            out,
            "  core {:<3} idle task {:<16} load {:>6.2}%",
            core.core_id,
            idle,
            a.core_load(core.core_id)
        )?;
    }

    writeln!(
        out,
        "\ntasks{:>24}{:>8}{:>13}{:>9}",
        "kind", "cpu %", "run time", "slices"
    )?;
    for (task, time) in m.tasks.iter().zip(&a.tasks) {
        let kind = match task.kind {
            TaskKind::Normal => "",
            k => k.as_str(),
        };
        writeln!(
            out,
            "  {:>3} {:<18}{:>6}{:>8.2}{:>13}{:>9}",
            task.task_id,
            truncate(&task.name, 18),
            kind,
            load_percent(time.run_ns, duration),
            format_ns(time.run_ns),
            time.slices
        )?;
    }

    if !m.isrs.is_empty() {
        writeln!(out, "\nisrs{:>28}{:>12}{:>12}", "count", "max", "total")?;
        for (isr, s) in m.isrs.iter().zip(&a.isrs) {
            let (count, max, total) = (s.count, s.max_ns, s.total_ns);
            writeln!(
                out,
                "  c{} {:<10} {:<12}{count:>6}{:>12}{:>12}",
                isr.core_id,
                isr.isr_id,
                truncate(&isr.name, 12),
                format_ns(max),
                format_ns(total)
            )?;
        }
    }

    if !m.markers.is_empty() {
        writeln!(out, "\nmarkers")?;
        let rows = MarkerRows::of(m);
        for (marker, of) in m.markers.iter().zip(rows) {
            let scope = marker
                .task_id
                .and_then(|t| m.task_by_id(t))
                .map_or("global".to_string(), |t| format!("task {}", t.name));
            let detail = match marker.kind {
                MarkerKind::Event => format!(
                    "{} spans (max {}), {} instants",
                    of.spans,
                    format_ns(of.longest_span_ns),
                    of.instants
                ),
                MarkerKind::Value => match of.values {
                    Some(v) => format!(
                        "{} values, min {}, max {}, last {}",
                        v.count, v.min, v.max, v.last
                    ),
                    None => "no values".to_string(),
                },
            };
            writeln!(
                out,
                "  {:<5} {:<3} {:<16} {:<20} {detail}",
                marker.kind.as_str(),
                marker.marker_id,
                truncate(&marker.name, 16),
                truncate(&scope, 20)
            )?;
        }
    }

    if !m.queues.is_empty() {
        writeln!(
            out,
            "\nqueues{:>38}{:>8}{:>12}",
            "kind", "ops", "high-water"
        )?;
        for (q, stats) in m.queues.iter().zip(&a.queues) {
            writeln!(
                out,
                "  {:>3} {:<18}{:>20}{:>8}{:>12}",
                q.queue_id,
                truncate(&q.name, 18),
                q.kind.as_str(),
                stats.ops,
                stats.high_water
            )?;
        }
    }

    timeline::write(out, m)?;
    memory::write(out, m)?;

    writeln!(out, "\nanomalies")?;
    let mut by_kind: BTreeMap<AnomalyKind, (u64, u64)> = BTreeMap::new();
    for a in &m.anomalies {
        let e = by_kind.entry(a.kind).or_default();
        e.0 += 1;
        e.1 += a.count;
    }
    if by_kind.is_empty() {
        writeln!(out, "  none")?;
    }
    for (kind, (rows, count)) in by_kind {
        let example = m
            .anomalies
            .iter()
            .find(|a| a.kind == kind)
            .map_or("", |a| a.detail.as_str());
        writeln!(
            out,
            "  {:<20} {count:>8} in {rows:>5} place(s), first at {}: {}",
            kind.as_str(),
            m.anomalies
                .iter()
                .find(|a| a.kind == kind)
                .map_or(String::new(), |a| format_ns(a.end_ns)),
            truncate(example, 70)
        )?;
    }
    fault::write(out, m)
}

/// What the marker tables hold of one marker.
#[derive(Clone, Default)]
struct MarkerRows {
    spans: u64,
    longest_span_ns: u64,
    instants: u64,
    values: Option<ValueRange>,
}

#[derive(Clone, Copy)]
struct ValueRange {
    count: u64,
    min: i64,
    max: i64,
    last: i64,
}

impl MarkerRows {
    /// Every marker's rows, in the order of the model's markers, in one
    /// pass over each marker table.
    fn of(m: &Model) -> Vec<MarkerRows> {
        let mut rows = vec![MarkerRows::default(); m.markers.len()];
        for s in m.marker_spans.iter() {
            let Some(r) = rows.get_mut(s.marker as usize) else {
                continue;
            };
            r.spans += 1;
            r.longest_span_ns = r.longest_span_ns.max(s.end_ns - s.start_ns);
        }
        for i in m.marker_instants.iter() {
            if let Some(r) = rows.get_mut(i.marker as usize) {
                r.instants += 1;
            }
        }
        for v in m.marker_values.iter() {
            let Some(r) = rows.get_mut(v.marker as usize) else {
                continue;
            };
            r.values = Some(match r.values {
                None => ValueRange {
                    count: 1,
                    min: v.value,
                    max: v.value,
                    last: v.value,
                },
                Some(range) => ValueRange {
                    count: range.count + 1,
                    min: range.min.min(v.value),
                    max: range.max.max(v.value),
                    last: v.value,
                },
            });
        }
        rows
    }
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(format_ns(999), "999 ns");
        assert_eq!(format_ns(1_500), "1.50 µs");
        assert_eq!(format_ns(2_345_678), "2.35 ms");
        assert_eq!(format_ns(3_000_000_000), "3.000 s");
        assert_eq!(truncate("abcdef", 4), "abc…");
    }

    #[test]
    fn times_are_read_as_they_are_written() {
        for ns in [0, 999, 1_500, 2_350_000, 3_000_000_000] {
            assert_eq!(parse_ns(&format_ns(ns)), Ok(ns));
        }
        assert_eq!(parse_ns("89.84ms"), Ok(89_840_000));
        assert_eq!(parse_ns(" 12 us "), Ok(12_000));
        assert_eq!(parse_ns("1.5 s"), Ok(1_500_000_000));
        assert_eq!(parse_ns(".5 µs"), Ok(500));
        assert_eq!(parse_ns("1.0000000009 s"), Ok(1_000_000_000));
        assert_eq!(parse_ns("120000"), Ok(120_000));
        for bad in [
            "",
            "ms",
            ".",
            "1.2.3 ms",
            "5 min",
            "-3 ms",
            "1e3",
            "99999999999 s",
        ] {
            let message = parse_ns(bad).unwrap_err();
            assert!(message.contains("is not a time like"), "{bad}: {message}");
        }
    }
}
