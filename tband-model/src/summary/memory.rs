//! The summary's memory lines: each heap's peak (when, and whose
//! allocation reached it), its blocks still live at the end and its failed
//! allocations; then the tightest stacks.

use std::io::{self, Write};

use crate::timeline::actor_name;
use crate::Model;

use super::{format_ns, truncate};

/// How many of the tightest stacks the summary names.
const TIGHTEST_STACKS: usize = 5;

pub(super) fn write(out: &mut impl Write, m: &Model) -> io::Result<()> {
    let memory = &m.memory;
    if memory.is_empty() {
        return Ok(());
    }
    writeln!(out, "\nmemory")?;
    for heap in &memory.heaps {
        let blocks = || memory.blocks.iter().filter(|b| b.heap_id == heap.heap_id);
        let of_total = heap
            .total_size
            .map_or(String::new(), |t| format!(" of {t} B"));
        let by = blocks()
            .find(|b| b.start_ns == heap.peak_ns)
            .and_then(|b| b.allocated_by)
            .map_or(String::new(), |actor| {
                format!(" by {}", actor_name(m, actor))
            });
        let live = blocks().filter(|b| b.truncated);
        let (live_blocks, live_bytes) = live.fold((0, 0u64), |(n, bytes), b| {
            (n + 1, bytes + u64::from(b.size))
        });
        let failed = (memory.failed_allocations.iter())
            .filter(|f| f.heap_id == heap.heap_id)
            .count();
        let peak = match heap.peak_bytes {
            0 => format!("nothing allocated{of_total}"),
            bytes => format!(
                "peak {bytes} B{of_total} at {}{by}",
                format_ns(heap.peak_ns)
            ),
        };
        let count = blocks().count();
        let plural = if count == 1 { "" } else { "s" };
        writeln!(
            out,
            "  {:<28} {peak}; {count} block{plural}, {live_blocks} live at the end ({live_bytes} B); {failed} failed",
            truncate(&heap.name, 28),
        )?;
    }
    let mut fewest: Vec<(u32, u32, u64)> = Vec::new();
    for s in &memory.stack_margins {
        match fewest.iter_mut().find(|(task, ..)| *task == s.task_id) {
            Some(f) if s.free_bytes < f.1 => *f = (s.task_id, s.free_bytes, s.ts_ns),
            Some(_) => {}
            None => fewest.push((s.task_id, s.free_bytes, s.ts_ns)),
        }
    }
    fewest.sort_by_key(|&(task, free, _)| (free, task));
    for &(task_id, free, ts) in fewest.iter().take(TIGHTEST_STACKS) {
        let task = m.task_by_id(task_id);
        let name = task.map_or(format!("task {task_id}"), |t| t.name.clone());
        let of_size =
            (task.and_then(|t| t.stack_size)).map_or(String::new(), |s| format!(" of {s} B"));
        writeln!(
            out,
            "  stack {:<22} fewest free {free} B{of_size}, at {}",
            truncate(&name, 22),
            format_ns(ts)
        )?;
    }
    Ok(())
}
