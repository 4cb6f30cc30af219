//! What the side panel says about an object's lifetime, a mark on it and
//! a pool counter's value.

use tband_model::{Actor, CounterValue, Model, ObjectLifetime, ObjectMark};

use super::{task_name, times};
use crate::time::exact;

pub fn lifetime(m: &Model, l: &ObjectLifetime, out: &mut Vec<(&'static str, String)>) {
    let o = &m.tracked;
    out.push(("kind", o.kind(l.kind).to_string()));
    out.push(("key", o.key(l).to_string()));
    let name = o.names.get(l.name);
    if !name.is_empty() {
        out.push(("name", name.to_string()));
    }
    if let Some(pool) = o.pool(l.pool) {
        out.push(("pool", pool.name.clone()));
    }
    if let Some(actor) = l.begun_by {
        out.push(("begun by", actor_name(m, actor)));
    }
    if let Some(actor) = l.ended_by {
        out.push(("ended by", actor_name(m, actor)));
    }
    times(l.start_ns, l.end_ns, l.truncated, out);
}

pub fn mark(m: &Model, k: &ObjectMark, out: &mut Vec<(&'static str, String)>) {
    let o = &m.tracked;
    out.push(("event", o.names.get(k.event).to_string()));
    if let Some(l) = o.lifetimes.get(k.lifetime as usize) {
        out.push(("key", o.key(&l).to_string()));
    }
    if let Some(value) = k.value {
        out.push(("value", value.to_string()));
    }
    out.push(("time", exact(k.ts_ns)));
}

pub fn counter_value(m: &Model, v: &CounterValue, out: &mut Vec<(&'static str, String)>) {
    let o = &m.tracked;
    if let Some(c) = o.counters.get(v.counter as usize) {
        if let Some(pool) = o.pools.get(c.pool as usize) {
            out.push(("pool", pool.name.clone()));
        }
        out.push(("counter", c.name.clone()));
    }
    out.push(("value", v.value.to_string()));
    out.push(("time", exact(v.ts_ns)));
}

fn actor_name(m: &Model, actor: Actor) -> String {
    match actor {
        Actor::Task(task) => task_name(m, Some(task)),
        Actor::Isr(key) => m
            .isr(key)
            .map_or(format!("isr {}", key.isr_id), |i| i.name.clone()),
    }
}
