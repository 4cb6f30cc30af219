//! The tables of objects tracked by id (see the model's lifetime rules):
//! their lifetimes, the instants marked on them and their pools' counters,
//! from the model's [`tband_model::TrackedObjects`].

use tband_model::{CounterValue, TrackedCounter, TrackedLifetime, TrackedMark, TrackedPool};

use super::{
    actor_isr, actor_task, dur, duration, int, text, Column, Context, Each, ModelTable, Value,
};
use crate::rows::RowSource;

/// A lifetime and its position in start order.
type NumberedLifetime = (u64, TrackedLifetime);

pub struct ObjectLifetimes;

impl ModelTable for ObjectLifetimes {
    type Row = NumberedLifetime;
    const NAME: &str = "object_lifetimes";
    const DOC: &str =
        "Objects tracked by id (buffers, blocks, requests), from the event that began each \
          to the one that ended it, as the lifetime rules say.";
    const COLUMNS: &[Column<Value<NumberedLifetime>>] = &[
        int(
            "lifetime_id",
            "position in start order, from 0 (object_marks refers to it)",
            |(id, _), _| (*id).into(),
        ),
        text(
            "kind",
            "the kind of object the rule names (net_buf, ...)",
            |(_, l), c| c.model.tracked.kind(l.kind).into(),
        ),
        text(
            "pool_key",
            "its pool's key (NULL when the rule gives no pool)",
            |(_, l), c| l.pool.map(|p| c.pool_key(p)).into(),
        ),
        text("pool_name", "its pool's name", |(_, l), c| {
            l.pool.map(|p| pool(p, c).name.as_str()).into()
        }),
        text(
            "key",
            "the object's key: an integer in hexadecimal (0x...) or the field's text",
            |(_, l), c| c.object_key(l.key).into(),
        ),
        text(
            "name",
            "the name an event gave it (empty when none)",
            |(_, l), c| c.model.tracked.names.get(l.name).into(),
        ),
        int(
            "slot",
            "a lane of its pool that no other lifetime uses at the same time",
            |(_, l), _| l.slot.into(),
        ),
        int("start_ns", "begun", |(_, l), _| l.start_ns.into()),
        int(
            "end_ns",
            "ended (the trace's end when truncated)",
            |(_, l), _| l.end_ns.into(),
        ),
        duration(|(_, l), _| dur(l.start_ns, l.end_ns)),
        int(
            "truncated",
            "1 if never ended before the trace did: a leak, or a trace cut short",
            |(_, l), _| l.truncated.into(),
        ),
        int(
            "begin_core_id",
            "the core of the event that began it",
            |(_, l), _| l.begin_core.into(),
        ),
        int(
            "begin_task_id",
            "the task that began it (NULL from an ISR or when unknown)",
            |(_, l), _| actor_task(l.begun_by),
        ),
        int(
            "begin_isr_id",
            "the ISR that began it, on begin_core_id",
            |(_, l), _| actor_isr(l.begun_by),
        ),
        int(
            "end_core_id",
            "the core of the event that ended it",
            |(_, l), _| l.end_core.into(),
        ),
        int("end_task_id", "the task that ended it", |(_, l), _| {
            actor_task(l.ended_by)
        }),
        int(
            "end_isr_id",
            "the ISR that ended it, on end_core_id",
            |(_, l), _| actor_isr(l.ended_by),
        ),
    ];

    fn rows(
        source: &mut RowSource<'_>,
        mut each: impl Each<NumberedLifetime>,
    ) -> Result<(), String> {
        let context = Context::new(source.model());
        let lifetimes = context.model.tracked.lifetimes.iter();
        (0..).zip(lifetimes).try_for_each(|l| each(&l, &context))
    }
}

pub struct ObjectMarks;

impl ModelTable for ObjectMarks {
    type Row = TrackedMark;
    const NAME: &str = "object_marks";
    const DOC: &str = "Instants on object lifetimes (a reference taken or dropped), with the value the rule reads.";
    const COLUMNS: &[Column<Value<TrackedMark>>] = &[
        int("lifetime_id", "the lifetime (object_lifetimes)", |k, _| {
            k.lifetime.into()
        }),
        int("ts_ns", "time", |k, _| k.ts_ns.into()),
        text("event", "the event's name", |k, c| {
            c.model.tracked.names.get(k.event).into()
        }),
        int(
            "value",
            "the value of the rule's field (NULL when it names none)",
            |k, _| k.value.into(),
        ),
    ];

    fn rows(source: &mut RowSource<'_>, mut each: impl Each<TrackedMark>) -> Result<(), String> {
        let context = Context::new(source.model());
        let marks = &context.model.tracked.marks;
        marks.iter().try_for_each(|k| each(&k, &context))
    }
}

pub struct ObjectCounters;

impl ModelTable for ObjectCounters {
    type Row = CounterValue;
    const NAME: &str = "object_counters";
    const DOC: &str =
        "Counters of object pools (e.g. free buffers), each value as an event stated it.";
    const COLUMNS: &[Column<Value<CounterValue>>] = &[
        text("kind", "the kind of object", |v, c| {
            c.model
                .tracked
                .kind(pool(counter(v, c).pool, c).kind)
                .into()
        }),
        text("pool_key", "the pool's key", |v, c| {
            c.pool_key(counter(v, c).pool).into()
        }),
        text("pool_name", "the pool's name", |v, c| {
            pool(counter(v, c).pool, c).name.as_str().into()
        }),
        text("counter", "the counter's name (free, ...)", |v, c| {
            counter(v, c).name.as_str().into()
        }),
        int("ts_ns", "time", |v, _| v.ts_ns.into()),
        int("value", "its value from then on", |v, _| v.value.into()),
    ];

    fn rows(source: &mut RowSource<'_>, mut each: impl Each<CounterValue>) -> Result<(), String> {
        let context = Context::new(source.model());
        let values = &context.model.tracked.counter_values;
        values.iter().try_for_each(|v| each(&v, &context))
    }
}

fn pool<'m>(pool: u32, c: &Context<'m>) -> &'m TrackedPool {
    &c.model.tracked.pools[pool as usize]
}

fn counter<'m>(value: &CounterValue, c: &Context<'m>) -> &'m TrackedCounter {
    &c.model.tracked.counters[value.counter as usize]
}
