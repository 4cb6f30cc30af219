//! Objects tracked by id in Chrome's format: a process per pool (and per
//! kind for lifetimes without a pool), pid 5 and up in that order, with a
//! thread per lane of live objects (tid = the lane), an `X` per lifetime
//! named by the object's key, an `i` per mark and a `C` per counter value.

use std::io::{self, Write};

use tband_model::json::write_json_str;
use tband_model::{Model, ObjectLifetime};

use super::EventWriter;

const PID_FIRST: u32 = 5;

pub(super) fn write<W: Write>(w: &mut EventWriter<'_, W>, model: &Model) -> io::Result<()> {
    let o = &model.tracked;
    let pool_pids = o.pools.len() as u32;
    // Kinds with lifetimes outside pools, each with its process and lanes.
    let mut kind_lanes = vec![0u32; o.kinds.len()];
    for l in o.lifetimes.iter().filter(|l| l.pool.is_none()) {
        let lanes = &mut kind_lanes[l.kind as usize];
        *lanes = (*lanes).max(l.slot + 1);
    }
    let mut kind_pids = vec![0u32; o.kinds.len()];
    let mut next = PID_FIRST + pool_pids;
    for (kind, lanes) in kind_lanes.iter().enumerate() {
        if *lanes > 0 {
            kind_pids[kind] = next;
            next += 1;
        }
    }
    let pid_of = |l: &ObjectLifetime| match l.pool {
        Some(pool) => PID_FIRST + pool,
        None => kind_pids[l.kind as usize],
    };

    for (i, pool) in o.pools.iter().enumerate() {
        let pid = PID_FIRST + i as u32;
        let kind = o.kind(pool.kind);
        w.name_meta("process_name", pid, None, &format!("{kind} {}", pool.name))?;
        for slot in 0..pool.slots {
            w.name_meta(
                "thread_name",
                pid,
                Some(slot.into()),
                &format!("{kind} {slot}"),
            )?;
        }
    }
    for (kind, &lanes) in kind_lanes.iter().enumerate() {
        if lanes > 0 {
            let name = o.kind(kind as u32);
            w.name_meta("process_name", kind_pids[kind], None, name)?;
            for slot in 0..lanes {
                w.name_meta(
                    "thread_name",
                    kind_pids[kind],
                    Some(slot.into()),
                    &format!("{name} {slot}"),
                )?;
            }
        }
    }
    let keys = o.key_texts();
    // Each lifetime's process and thread, for its marks.
    let mut lanes = Vec::with_capacity(o.lifetimes.len());
    for l in &o.lifetimes {
        let pid = pid_of(&l);
        lanes.push((pid, l.slot));
        w.begin(
            b'X',
            pid,
            Some(l.slot.into()),
            &keys[l.key as usize],
            "object",
            l.start_ns,
        )?;
        w.out.write_all(b",\"dur\":")?;
        super::write_micros(w.out, l.end_ns.saturating_sub(l.start_ns))?;
        w.out.write_all(b",\"args\":{\"name\":")?;
        write_json_str(w.out, o.names.get(l.name).as_bytes())?;
        write!(w.out, ",\"truncated\":{}}}}}", l.truncated)?;
    }
    for mark in &o.marks {
        let Some(&(pid, slot)) = lanes.get(mark.lifetime as usize) else {
            continue;
        };
        w.begin(
            b'i',
            pid,
            Some(slot.into()),
            o.names.get(mark.event),
            "object",
            mark.ts_ns,
        )?;
        w.out.write_all(b",\"s\":\"t\"")?;
        if let Some(value) = mark.value {
            write!(w.out, ",\"args\":{{\"value\":{value}}}")?;
        }
        w.out.write_all(b"}")?;
    }
    for v in &o.counter_values {
        let counter = &o.counters[v.counter as usize];
        w.begin(
            b'C',
            PID_FIRST + counter.pool,
            None,
            &counter.name,
            "object",
            v.ts_ns,
        )?;
        w.out.write_all(b",\"args\":{")?;
        write_json_str(w.out, counter.name.as_bytes())?;
        write!(w.out, ":{}}}}}", v.value)?;
    }
    Ok(())
}
