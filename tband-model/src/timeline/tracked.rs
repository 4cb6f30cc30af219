//! Objects tracked by id on the timeline: under the group "Objects", a
//! group per pool (`<kind> <pool name>`; per kind for lifetimes without a
//! pool) holding the pool's counters and one track per lane of live
//! objects (`<kind> <lane>`), so that each object alive at an instant has a
//! track of its own (see `TrackedLifetime::slot`). Each lifetime is a slice
//! named by the object's key (the core that began it as the argument
//! `core`; `truncated` when its end was not seen), each mark an instant on
//! it (its value as the argument `count`).

use std::ops::Range;
use std::sync::Arc;

use super::{
    rank, rows_in, task_name_by_id, ArgName, ArgValue, Args, Details, Item, Layer, Name, Parent,
    Section, TrackBuilder, TrackId, TrackKey, TrackKind, Unit,
};
use crate::{Actor, Model, StrId, TrackedLifetime};

/// The tracks of the lanes and counters.
#[derive(Default)]
struct Lanes {
    /// By pool, then by slot.
    pools: Vec<Vec<TrackId>>,
    /// By kind (lifetimes without a pool), then by slot.
    kinds: Vec<Vec<TrackId>>,
    /// By index in the model's object counters.
    counters: Vec<TrackId>,
    /// Each key as text, by index.
    keys: Vec<String>,
}

impl Lanes {
    /// The track of a lifetime: its slot's lane in its pool or kind.
    fn lifetime(&self, l: &TrackedLifetime) -> Option<TrackId> {
        let lanes = match l.pool {
            Some(pool) => self.pools.get(pool as usize)?,
            None => self.kinds.get(l.kind as usize)?,
        };
        lanes.get(l.slot as usize).copied()
    }
}

pub(super) fn declare(m: &Model, tracks: &mut TrackBuilder) -> [Arc<dyn Layer>; 3] {
    let lanes = Arc::new(lanes(m, tracks));
    [
        Arc::new(Tracked {
            lanes: lanes.clone(),
            table: Table::Lifetimes,
        }),
        Arc::new(Tracked {
            lanes: lanes.clone(),
            table: Table::Marks,
        }),
        Arc::new(Tracked {
            lanes,
            table: Table::CounterValues,
        }),
    ]
}

fn lanes(m: &Model, tracks: &mut TrackBuilder) -> Lanes {
    let o = &m.tracked;
    if o.is_empty() {
        return Lanes::default();
    }
    let objects = tracks.group("Objects");
    let mut subgroups = 0;
    let mut subgroup = |tracks: &mut TrackBuilder, key, name: String| {
        subgroups += 1;
        tracks.subgroup(key, objects, subgroups, name)
    };
    let pool_groups: Vec<_> = (o.pools.iter().enumerate())
        .map(|(i, pool)| {
            let key = TrackKey::new("pool", i as u64, 0);
            subgroup(tracks, key, format!("{} {}", o.kind(pool.kind), pool.name))
        })
        .collect();
    let mut lanes = Lanes {
        keys: o.key_texts(),
        ..Lanes::default()
    };
    for (i, counter) in o.counters.iter().enumerate() {
        let pool = &o.pools[counter.pool as usize];
        let description = format!(
            "The {} of {} {}",
            counter.name,
            o.kind(pool.kind),
            pool.name
        );
        let parent = Parent::Track(pool_groups[counter.pool as usize]);
        let kind = TrackKind::Counter(Section::TrackedObjects, Unit::Count);
        let key = TrackKey::new("pool counter", i as u64, 0);
        let track = tracks.child(key, parent, 0, &counter.name, &description, kind);
        lanes.counters.push(track);
    }
    for (i, (pool, &g)) in o.pools.iter().zip(&pool_groups).enumerate() {
        let lane_key = |slot| TrackKey::new("pool lane", i as u64, slot);
        let kind = o.kind(pool.kind);
        (lanes.pools).push(lane_tracks(tracks, g, kind, pool.slots, lane_key));
    }
    let mut kind_slots = vec![0u32; o.kinds.len()];
    for l in o.lifetimes.iter().filter(|l| l.pool.is_none()) {
        let slots = &mut kind_slots[l.kind as usize];
        *slots = (*slots).max(l.slot + 1);
    }
    for (i, (kind, &slots)) in o.kinds.iter().zip(&kind_slots).enumerate() {
        let kind_lanes = if slots == 0 {
            Vec::new()
        } else {
            let g = subgroup(tracks, TrackKey::new("kind", i as u64, 0), kind.clone());
            let lane_key = |slot| TrackKey::new("kind lane", i as u64, slot);
            lane_tracks(tracks, g, kind, slots, lane_key)
        };
        lanes.kinds.push(kind_lanes);
    }
    lanes
}

/// A track per slot under `group`, after its counters.
fn lane_tracks(
    tracks: &mut TrackBuilder,
    group: TrackId,
    kind: &str,
    slots: u32,
    key: impl Fn(u64) -> TrackKey,
) -> Vec<TrackId> {
    (0..slots)
        .map(|slot| {
            let name = format!("{kind} {slot}");
            let r = rank(slot as usize).saturating_add(1);
            tracks.child(
                key(slot.into()),
                Parent::Track(group),
                r,
                &name,
                "Objects alive, one at a time: from begin to end",
                TrackKind::Events(Section::TrackedObjects),
            )
        })
        .collect()
}

#[derive(Clone, Copy)]
enum Table {
    Lifetimes,
    Marks,
    CounterValues,
}

struct Tracked {
    lanes: Arc<Lanes>,
    table: Table,
}

impl Layer for Tracked {
    fn len(&self, m: &Model) -> usize {
        let o = &m.tracked;
        match self.table {
            Table::Lifetimes => o.lifetimes.len(),
            Table::Marks => o.marks.len(),
            Table::CounterValues => o.counter_values.len(),
        }
    }

    fn visit<'a>(
        &'a self,
        m: &'a Model,
        rows: Range<usize>,
        visit: &mut dyn FnMut(usize, Item<'a>),
    ) {
        let o = &m.tracked;
        match self.table {
            Table::Lifetimes => rows_in(o.lifetimes.iter(), rows).for_each(|(i, l)| {
                let Some(track) = self.lanes.lifetime(&l) else {
                    return;
                };
                let key = l.key as usize;
                let name = Name::keyed(&self.lanes.keys[key], key);
                let core = (ArgName::Core, ArgValue::Uint(l.begin_core.into()));
                // Truncated also where the object was begun again before
                // its end was seen, which the argument alone tells.
                let (open, args) = if l.truncated {
                    let truncated = (ArgName::Truncated, ArgValue::Bool(true));
                    let cut = l.end_ns >= m.info.duration_ns;
                    (cut, Args::of(&[core, truncated]))
                } else {
                    (false, Args::of(&[core]))
                };
                let item = Item::slice(track, l.start_ns, l.end_ns, open, name);
                visit(i, item.with_args(args));
            }),
            Table::Marks => rows_in(o.marks.iter(), rows).for_each(|(i, mark)| {
                let lifetime = o.lifetimes.get(mark.lifetime as usize);
                let Some(track) = lifetime.and_then(|l| self.lanes.lifetime(&l)) else {
                    return;
                };
                let name = Name::keyed(o.names.get(mark.event), mark.event.0 as usize);
                let args = match mark.value {
                    Some(value) => Args::of(&[(ArgName::Count, ArgValue::Int(value))]),
                    None => Args::NONE,
                };
                visit(i, Item::instant(track, mark.ts_ns, name).with_args(args));
            }),
            Table::CounterValues => rows_in(o.counter_values.iter(), rows).for_each(|(i, v)| {
                if let Some(&track) = self.lanes.counters.get(v.counter as usize) {
                    visit(i, Item::counter(track, v.ts_ns, v.value));
                }
            }),
        }
    }

    fn name_keys(&self, m: &Model) -> usize {
        match self.table {
            Table::Lifetimes => m.tracked.keys.len(),
            Table::Marks => m.tracked.names.all().len(),
            Table::CounterValues => 0,
        }
    }

    fn name_of<'a>(&'a self, m: &'a Model, key: u32) -> &'a str {
        match self.table {
            Table::Lifetimes => self.lanes.keys.get(key as usize).map_or("", String::as_str),
            Table::Marks => m.tracked.names.get(StrId(key)),
            Table::CounterValues => "",
        }
    }

    fn describe(&self, m: &Model, row: usize, out: &mut Details) {
        let o = &m.tracked;
        match self.table {
            Table::Lifetimes => {
                let Some(l) = o.lifetimes.get(row) else {
                    return;
                };
                out.push(("kind", o.kind(l.kind).to_string()));
                out.push(("key", o.key(&l).to_string()));
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
            }
            Table::Marks => {
                let Some(mark) = o.marks.get(row) else {
                    return;
                };
                out.push(("event", o.names.get(mark.event).to_string()));
                if let Some(l) = o.lifetimes.get(mark.lifetime as usize) {
                    out.push(("key", o.key(&l).to_string()));
                }
                if let Some(value) = mark.value {
                    out.push(("value", value.to_string()));
                }
            }
            Table::CounterValues => {
                let Some(v) = o.counter_values.get(row) else {
                    return;
                };
                if let Some(c) = o.counters.get(v.counter as usize) {
                    if let Some(pool) = o.pools.get(c.pool as usize) {
                        out.push(("pool", pool.name.clone()));
                    }
                    out.push(("counter", c.name.clone()));
                }
                out.push(("value", v.value.to_string()));
            }
        }
    }
}

/// The name of the task or ISR that did something.
pub fn actor_name(m: &Model, actor: Actor) -> String {
    match actor {
        Actor::Task(task) => task_name_by_id(m, Some(task)),
        Actor::Isr(key) => m
            .isr(key)
            .map_or(format!("isr {}", key.isr_id), |i| i.name.clone()),
    }
}
