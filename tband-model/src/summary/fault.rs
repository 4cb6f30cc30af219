//! The summary's crash lines, last of all: for each fault, which task or
//! ISR crashed, where and why.

use std::io::{self, Write};

use super::format_ns;
use crate::{Fault, Model};

pub(super) fn write(out: &mut impl Write, m: &Model) -> io::Result<()> {
    if m.faults.is_empty() {
        return Ok(());
    }
    writeln!(out, "\ncrash")?;
    for f in &m.faults {
        writeln!(out, "  {}", crash_line(m, f))?;
    }
    Ok(())
}

/// `<when> core <n>: <who> crashed <place>, <lr>: <cause>`.
pub fn crash_line(m: &Model, f: &Fault) -> String {
    let who = match (f.isr, f.task) {
        (Some(isr), _) => m
            .isrs
            .get(isr as usize)
            .map_or(format!("ISR {isr}"), |i| format!("ISR {}", i.name)),
        (None, Some(task)) => m
            .tasks
            .get(task as usize)
            .map_or(format!("task {task}"), |t| format!("task {}", t.name)),
        (None, None) => "no task known".to_string(),
    };
    format!(
        "{} core {}: {who} crashed {}, {}: {}",
        format_ns(f.ts_ns),
        f.core_id,
        f.place(),
        f.lr_place(),
        f.cause()
    )
}
