//! The summary's lines about objects tracked by id: one per kind.

use std::io::{self, Write};

use crate::Model;

use super::{format_ns, truncate};

/// Per kind: lifetimes, those still live at the end, the longest of the
/// others, marks, pools, and the fewest any pool counter reached.
pub(super) fn write(out: &mut impl Write, m: &Model) -> io::Result<()> {
    let o = &m.tracked;
    if o.is_empty() {
        return Ok(());
    }
    writeln!(out, "\nobjects")?;
    for (kind, name) in o.kinds.iter().enumerate() {
        let kind = kind as u32;
        let lifetimes = o.lifetimes.iter().filter(|l| l.kind == kind);
        let (count, live, longest) = lifetimes.fold((0u64, 0u64, 0u64), |(n, live, max), l| {
            let ended = if l.truncated {
                0
            } else {
                l.end_ns - l.start_ns
            };
            (n + 1, live + u64::from(l.truncated), max.max(ended))
        });
        let marks = o
            .marks
            .iter()
            .filter(|k| {
                o.lifetimes
                    .get(k.lifetime as usize)
                    .is_some_and(|l| l.kind == kind)
            })
            .count();
        let pools = o.pools.iter().filter(|p| p.kind == kind).count();
        let lowest = o
            .counter_values
            .iter()
            .filter(|v| o.pools[o.counters[v.counter as usize].pool as usize].kind == kind)
            .map(|v| v.value)
            .min();
        if count == 0 && lowest.is_none() {
            continue;
        }
        let counters = lowest.map_or(String::new(), |v| format!(", fewest in a pool counter {v}"));
        writeln!(
            out,
            "  {:<16} {count} lifetimes ({live} live at the end, longest ended {}), {marks} marks, {pools} pools{counters}",
            truncate(name, 16),
            format_ns(longest),
        )?;
    }
    Ok(())
}
