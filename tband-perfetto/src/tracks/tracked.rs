//! The tracks of objects tracked by id: under the group `Objects`, a group
//! per pool (`<kind> <pool name>`; per kind for lifetimes without a pool)
//! holding the pool's counters and one track per lane of live objects
//! (`<kind> <lane>`), so that each object alive at an instant has a track
//! of its own (see `ObjectLifetime::slot`).

use tband_model::{Model, ObjectLifetime};

use super::{rank, Describer};
use crate::protos::counter_descriptor::Unit;
use crate::protos::track_descriptor::ChildTracksOrdering;
use crate::protos::TrackDescriptor;

/// Track uuids of the objects' lanes and counters.
#[derive(Default)]
pub struct TrackedTracks {
    /// By pool, then by slot.
    pool_lanes: Vec<Vec<u64>>,
    /// By kind (lifetimes without a pool), then by slot.
    kind_lanes: Vec<Vec<u64>>,
    /// By index in the model's object counters.
    pub counters: Vec<u64>,
}

impl TrackedTracks {
    /// Describes the tracks; `group` adds a top-level group.
    pub(super) fn new(
        model: &Model,
        d: &mut Describer,
        group: impl FnOnce(&mut Describer, &str) -> u64,
    ) -> TrackedTracks {
        let o = &model.tracked;
        let mut tracks = TrackedTracks::default();
        if o.is_empty() {
            return tracks;
        }
        let objects = group(d, "Objects");
        let mut subgroups = 0;
        let mut subgroup = |d: &mut Describer, name: String| {
            subgroups += 1;
            d.add(TrackDescriptor {
                parent_uuid: Some(objects),
                name: Some(name),
                child_ordering: Some(ChildTracksOrdering::Explicit as i32),
                sibling_order_rank: Some(subgroups),
                ..Default::default()
            })
        };
        let mut pool_groups = Vec::with_capacity(o.pools.len());
        for pool in &o.pools {
            pool_groups.push(subgroup(d, format!("{} {}", o.kind(pool.kind), pool.name)));
        }
        for counter in &o.counters {
            let pool = &o.pools[counter.pool as usize];
            let description = format!(
                "The {} of {} {}",
                counter.name,
                o.kind(pool.kind),
                pool.name
            );
            let uuid = d.counter(
                pool_groups[counter.pool as usize],
                0,
                &counter.name,
                &description,
                Unit::Count,
            );
            tracks.counters.push(uuid);
        }
        for (pool, g) in o.pools.iter().zip(&pool_groups) {
            tracks
                .pool_lanes
                .push(lanes(d, *g, o.kind(pool.kind), pool.slots));
        }
        let mut kind_slots = vec![0u32; o.kinds.len()];
        for l in o.lifetimes.iter().filter(|l| l.pool.is_none()) {
            let slots = &mut kind_slots[l.kind as usize];
            *slots = (*slots).max(l.slot + 1);
        }
        for (kind, &slots) in o.kinds.iter().zip(&kind_slots) {
            let lanes = if slots == 0 {
                Vec::new()
            } else {
                let g = subgroup(d, kind.clone());
                lanes(d, g, kind, slots)
            };
            tracks.kind_lanes.push(lanes);
        }
        tracks
    }

    /// The track of a lifetime: its slot's lane in its pool or kind.
    pub fn lifetime(&self, l: &ObjectLifetime) -> Option<u64> {
        let lanes = match l.pool {
            Some(pool) => self.pool_lanes.get(pool as usize)?,
            None => self.kind_lanes.get(l.kind as usize)?,
        };
        lanes.get(l.slot as usize).copied()
    }
}

/// A track per slot under `group`, after its counters.
fn lanes(d: &mut Describer, group: u64, kind: &str, slots: u32) -> Vec<u64> {
    (0..slots)
        .map(|slot| {
            let name = format!("{kind} {slot}");
            let r = rank(slot as usize).saturating_add(1);
            d.child(
                group,
                r,
                &name,
                "Objects alive, one at a time: from begin to end",
            )
        })
        .collect()
}
