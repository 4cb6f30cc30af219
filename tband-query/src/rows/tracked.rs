//! The rows of the object tables, from the model's [`tband_model::TrackedObjects`].

use tband_model::{Actor, Model, TrackedPool};

use super::{dur, Cell, RowSink};
use crate::schema::Table;

pub fn write<S: RowSink + ?Sized>(m: &Model, table: &Table, sink: &mut S) -> Result<(), String> {
    let o = &m.tracked;
    let pool_keys: Vec<String> = o.pools.iter().map(|p| p.key.to_string()).collect();
    let pool = |index: u32| (&o.pools[index as usize], pool_keys[index as usize].as_str());
    let keys = o.key_texts();
    match table.name {
        "object_lifetimes" => o.lifetimes.iter().enumerate().try_for_each(|(id, l)| {
            let [pool_key, pool_name] = pool_cells(l.pool.map(pool));
            let (begin_task, begin_isr) = actor_cells(l.begun_by);
            let (end_task, end_isr) = actor_cells(l.ended_by);
            sink.row(&[
                (id as u64).into(),
                o.kind(l.kind).into(),
                pool_key,
                pool_name,
                keys[l.key as usize].as_str().into(),
                o.names.get(l.name).into(),
                l.slot.into(),
                l.start_ns.into(),
                l.end_ns.into(),
                dur(l.start_ns, l.end_ns),
                l.truncated.into(),
                l.begin_core.into(),
                begin_task,
                begin_isr,
                l.end_core.into(),
                end_task,
                end_isr,
            ])
        }),
        "object_marks" => o.marks.iter().try_for_each(|k| {
            sink.row(&[
                k.lifetime.into(),
                k.ts_ns.into(),
                o.names.get(k.event).into(),
                k.value.into(),
            ])
        }),
        "object_counters" => o.counter_values.iter().try_for_each(|v| {
            let counter = &o.counters[v.counter as usize];
            let (p, key) = pool(counter.pool);
            sink.row(&[
                o.kind(p.kind).into(),
                key.into(),
                p.name.as_str().into(),
                counter.name.as_str().into(),
                v.ts_ns.into(),
                v.value.into(),
            ])
        }),
        other => unreachable!("{other} is not an object table"),
    }
}

/// The key and name columns of a pool.
fn pool_cells<'a>(pool: Option<(&'a TrackedPool, &'a str)>) -> [Cell<'a>; 2] {
    match pool {
        Some((p, key)) => [key.into(), p.name.as_str().into()],
        None => [Cell::Null, Cell::Null],
    }
}

/// The task and ISR columns of who began or ended a lifetime.
fn actor_cells<'a>(actor: Option<Actor>) -> (Cell<'a>, Cell<'a>) {
    match actor {
        Some(Actor::Task(task)) => (task.into(), Cell::Null),
        Some(Actor::Isr(isr)) => (Cell::Null, isr.isr_id.into()),
        None => (Cell::Null, Cell::Null),
    }
}
