//! The named tracks beside Perfetto's own CPU and thread tracks: one process
//! track for the firmware, a track per task, and under them (or under a group)
//! wait reasons, priorities, markers, queue fill levels, mutex holders and
//! trace health. Tracks exist only where the model has data for them, but
//! for trace health, which always holds the end of the trace.

use tband_model::{IdIndex, MarkerKind, Model, TaskKind};

mod tracked;

pub use tracked::TrackedTracks;
mod objects;

use crate::protos::counter_descriptor::Unit;
use crate::protos::track_descriptor::ChildTracksOrdering;
use crate::protos::{CounterDescriptor, ProcessDescriptor, ThreadDescriptor, TrackDescriptor};
use crate::threads::{rows_by_id, Threads, DENSE_IDS, PID};

/// Track uuids, by the index of the model row they belong to.
pub struct Tracks {
    /// Why a task waits (blocked / suspended slices), by task index.
    pub wait: Vec<Option<u64>>,
    /// RTOS priority counter, by task index.
    pub priority: Vec<Option<u64>>,
    /// By index in `model.markers`.
    marker: Vec<u64>,
    /// The index in `model.markers` of each marker: by owning task (none:
    /// global), then id and kind.
    marker_index: IdIndex<Option<u32>, IdIndex<(u32, MarkerKind), usize>>,
    /// Queue index by queue id.
    queues: IdIndex<u32, usize>,
    /// Fill-level counter, by queue index.
    pub queue_level: Vec<Option<u64>>,
    /// Holder slices, by queue index (mutexes only).
    pub mutex: Vec<Option<u64>>,
    /// Every anomaly (by index in `model.anomalies`) and its track, in the
    /// order to write them: see [`health_lanes`].
    pub health: Vec<(usize, u64)>,
    /// The instant at the end of the trace (the first health lane): slices
    /// cut by the end are open, and Perfetto knows where the trace ends
    /// only from the last event it reads.
    pub trace_end: u64,
    pub tracked: TrackedTracks,
    pub objects: objects::ObjectTracks,
}

/// By task index: whether `task_ids` holds the task (a generic iterator,
/// so that reading the rows it comes from is inlined into the loop, which
/// reads a run of rows at a time).
fn tasks_having(
    model: &Model,
    threads: &Threads<'_>,
    task_ids: impl Iterator<Item = u32>,
) -> Vec<bool> {
    let mut has = vec![false; model.tasks.len()];
    task_ids.for_each(|task_id| {
        if let Some(slot) = threads.task_index(task_id).and_then(|i| has.get_mut(i)) {
            *slot = true;
        }
    });
    has
}

impl Tracks {
    /// Assigns uuids and describes every track, parents before children.
    pub fn new(model: &Model, threads: &Threads<'_>) -> (Tracks, Vec<TrackDescriptor>) {
        let mut d = Describer::default();
        let has_priority = tasks_having(
            model,
            threads,
            model.task_priorities.iter().map(|p| p.task_id),
        );

        let firmware = firmware_name(model);
        d.add(TrackDescriptor {
            process: Some(ProcessDescriptor {
                pid: Some(PID),
                process_name: Some(firmware),
            }),
            child_ordering: Some(ChildTracksOrdering::Explicit as i32),
            sibling_order_rank: Some(0),
            ..Default::default()
        });

        let n_tasks = model.tasks.len();
        let mut thread = vec![None; n_tasks];
        let mut wait = vec![None; n_tasks];
        let mut priority = vec![None; n_tasks];
        for (i, task) in model.tasks.iter().enumerate() {
            if task.kind == TaskKind::Idle {
                continue;
            }
            let t = d.add(TrackDescriptor {
                thread: Some(ThreadDescriptor {
                    pid: Some(PID),
                    tid: Some(threads.tid(task.task_id).into()),
                    thread_name: Some(task.name.clone()),
                }),
                child_ordering: Some(ChildTracksOrdering::Explicit as i32),
                sibling_order_rank: Some(rank(i)),
                ..Default::default()
            });
            thread[i] = Some(t);
            // A task that waits has a track of its wait states.
            if task.ever_waited {
                wait[i] =
                    Some(d.child(t, 0, "Wait reason", "Why the task is blocked or suspended"));
            }
            if has_priority[i] {
                priority[i] = Some(d.counter(
                    t,
                    1,
                    "Priority",
                    "RTOS priority (as the firmware numbers it)",
                    Unit::Unspecified,
                ));
            }
        }

        let mut group_rank = 1;
        let mut group = |d: &mut Describer, name: &str| {
            group_rank += 1;
            d.add(TrackDescriptor {
                name: Some(name.to_owned()),
                child_ordering: Some(ChildTracksOrdering::Explicit as i32),
                sibling_order_rank: Some(group_rank),
                ..Default::default()
            })
        };

        let queues = rows_by_id(model.queues.iter().map(|q| q.queue_id));
        let has_level: Vec<bool> = {
            let mut has = vec![false; model.queues.len()];
            model
                .queue_ops
                .iter()
                .filter(|o| o.len_after.is_some())
                .for_each(|op| {
                    if let Some(&i) = queues.get(op.queue_id) {
                        has[i] = true;
                    }
                });
            has
        };
        let mut queue_level = vec![None; model.queues.len()];
        if has_level.contains(&true) {
            let g = group(&mut d, "Queues");
            for (i, q) in model.queues.iter().enumerate() {
                if has_level[i] {
                    let desc = format!(
                        "Items in {} {} after each operation",
                        q.kind.as_str(),
                        q.name
                    );
                    queue_level[i] = Some(d.counter(g, rank(i), &q.name, &desc, Unit::Count));
                }
            }
        }

        let mut mutex = vec![None; model.queues.len()];
        let mut has_hold = vec![false; model.queues.len()];
        model.mutex_holds.iter().for_each(|h| {
            if let Some(&i) = queues.get(h.queue_id) {
                has_hold[i] = true;
            }
        });
        if has_hold.contains(&true) {
            let g = group(&mut d, "Mutex holders");
            for (i, q) in model.queues.iter().enumerate() {
                if has_hold[i] {
                    mutex[i] = Some(d.child(g, rank(i), &q.name, "Which task holds the mutex"));
                }
            }
        }

        let objects = objects::ObjectTracks::new(model, threads, &thread, &mut d, &mut group);

        let mut marker = Vec::with_capacity(model.markers.len());
        let mut marker_index: IdIndex<Option<u32>, IdIndex<_, _>> = IdIndex::with_limit(DENSE_IDS);
        let mut markers_group = None;
        for (i, m) in model.markers.iter().enumerate() {
            marker_index
                .entry(m.task_id)
                .get_or_insert_with((m.marker_id, m.kind), || i);
            let owner = m.task_id.and_then(|t| threads.task_index(t));
            let parent = match owner.and_then(|o| thread[o]) {
                Some(t) => t,
                // Global markers, and those of idle tasks (which have no thread track).
                None => *markers_group.get_or_insert_with(|| group(&mut d, "Markers")),
            };
            let name = match owner {
                Some(o) if thread[o].is_none() => format!("{}: {}", model.tasks[o].name, m.name),
                _ => m.name.clone(),
            };
            let r = rank(i).saturating_add(2);
            marker.push(match m.kind {
                MarkerKind::Event => d.child(parent, r, &name, "Marker spans and instants"),
                MarkerKind::Value => {
                    d.counter(parent, r, &name, "Marker values", Unit::Unspecified)
                }
            });
        }

        let tracked = TrackedTracks::new(model, &mut d, &mut group);

        let (order, lanes) = health_lanes(model);
        let description =
            "Lost events and other damage found while decoding, and the end of the trace";
        let trace_end = group(&mut d, "Trace health");
        d.descriptors[trace_end as usize - 1].description = Some(description.into());
        let mut uuids = vec![trace_end];
        for _ in 1..lanes {
            let lane = d.add(TrackDescriptor {
                name: Some("Trace health".into()),
                description: Some(description.into()),
                sibling_order_rank: Some(group_rank),
                ..Default::default()
            });
            uuids.push(lane);
        }
        let health = order
            .into_iter()
            .map(|(i, lane)| (i, uuids[lane]))
            .collect();

        let tracks = Tracks {
            wait,
            priority,
            marker,
            marker_index,
            queues,
            queue_level,
            mutex,
            health,
            trace_end,
            tracked,
            objects,
        };
        (tracks, d.descriptors)
    }

    /// The index of a queue in `model.queues`.
    #[inline]
    pub fn queue_index(&self, queue_id: u32) -> Option<usize> {
        self.queues.get(queue_id).copied()
    }

    /// The track of a marker, and the marker's index in `model.markers`.
    #[inline]
    pub fn marker(
        &self,
        marker_id: u32,
        task_id: Option<u32>,
        kind: MarkerKind,
    ) -> Option<(u64, usize)> {
        let &i = self.marker_index.get(task_id)?.get((marker_id, kind))?;
        Some((*self.marker.get(i)?, i))
    }
}

/// Lanes for the anomalies: a slice ends whichever slice began last on its
/// track, so regions that overlap go to lanes of their own (tracks of the
/// same name, which Perfetto shows as one), each lane holding regions one
/// after the other; instants go to the first lane. Returns every anomaly's
/// index and lane, in the order to write them (regions by start, which puts
/// each end before the next start on its lane), and the number of lanes.
fn health_lanes(model: &Model) -> (Vec<(usize, usize)>, usize) {
    let mut order: Vec<usize> = (0..model.anomalies.len()).collect();
    order.sort_by_key(|&i| {
        let a = &model.anomalies[i];
        (a.start_ns, a.end_ns)
    });
    // The end of the last region on each lane.
    let mut lane_ends: Vec<u64> = vec![0];
    let order = order
        .into_iter()
        .map(|i| {
            let a = &model.anomalies[i];
            if a.start_ns >= a.end_ns {
                return (i, 0);
            }
            let lane = match lane_ends.iter().position(|&end| end <= a.start_ns) {
                Some(lane) => lane,
                None => {
                    lane_ends.push(0);
                    lane_ends.len() - 1
                }
            };
            lane_ends[lane] = a.end_ns;
            (i, lane)
        })
        .collect();
    (order, lane_ends.len())
}

fn rank(i: usize) -> i32 {
    i32::try_from(i).unwrap_or(i32::MAX)
}

/// The process name: the first input's file name without its extension.
pub fn firmware_name(model: &Model) -> String {
    let source = model
        .info
        .sources
        .first()
        .map_or("firmware", |s| s.as_str());
    let file = std::path::Path::new(source.split('@').next().unwrap_or(source));
    file.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty() && s != "-")
        .unwrap_or_else(|| "firmware".to_owned())
}

/// Hands out uuids (small numbers, so that every track event stays short).
#[derive(Default)]
struct Describer {
    descriptors: Vec<TrackDescriptor>,
}

impl Describer {
    fn add(&mut self, mut desc: TrackDescriptor) -> u64 {
        let uuid = self.descriptors.len() as u64 + 1;
        desc.uuid = Some(uuid);
        self.descriptors.push(desc);
        uuid
    }

    fn child(&mut self, parent: u64, rank: i32, name: &str, description: &str) -> u64 {
        self.add(TrackDescriptor {
            parent_uuid: Some(parent),
            name: Some(name.to_owned()),
            description: Some(description.to_owned()),
            sibling_order_rank: Some(rank),
            ..Default::default()
        })
    }

    fn counter(
        &mut self,
        parent: u64,
        rank: i32,
        name: &str,
        description: &str,
        unit: Unit,
    ) -> u64 {
        let uuid = self.child(parent, rank, name, description);
        self.descriptors[uuid as usize - 1].counter = Some(CounterDescriptor {
            unit: Some(unit as i32),
        });
        uuid
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tband_model::Marker;

    fn model(extra_marker_id: Option<u32>) -> Model {
        let keys = [
            (1, None, MarkerKind::Event),
            (1, Some(4), MarkerKind::Event),
            (2, None, MarkerKind::Value),
            (7, Some(4), MarkerKind::Event),
            // Of a task the trace does not know.
            (3, Some(9), MarkerKind::Event),
        ];
        let extra = extra_marker_id.map(|id| (id, None, MarkerKind::Event));
        Model {
            tasks: vec![crate::test_fixtures::worker_task()],
            markers: keys
                .into_iter()
                .chain(extra)
                .map(|(marker_id, task_id, kind)| Marker {
                    marker_id,
                    task_id,
                    kind,
                    name: format!("m{marker_id}"),
                })
                .collect(),
            ..Model::default()
        }
    }

    #[test]
    fn overlapping_health_regions_are_laid_out_one_after_another_on_lanes() {
        use tband_model::{Anomaly, AnomalyKind};
        let region = |start_ns, end_ns| Anomaly {
            start_ns,
            end_ns,
            core_id: None,
            kind: AnomalyKind::NeverClosed,
            count: 1,
            detail: String::new(),
        };
        let m = Model {
            anomalies: vec![
                region(10, 100),
                region(0, 20),
                region(30, 40),
                region(5, 5),
                region(100, 110),
                region(0, 5),
            ],
            ..Model::default()
        };
        let (order, lanes) = health_lanes(&m);
        // By start: (0, 5) and (0, 20) overlap, so they take lanes 0 and 1;
        // (10, 100) follows (0, 5), (30, 40) follows (0, 20), and
        // (100, 110) follows (10, 100); the instant goes to lane 0.
        assert_eq!(order, [(5, 0), (1, 1), (3, 0), (0, 0), (2, 1), (4, 0)]);
        assert_eq!(lanes, 2);
        let threads = Threads::new(&m);
        let (tracks, descriptors) = Tracks::new(&m, &threads);
        let health: Vec<_> = descriptors
            .iter()
            .filter(|d| d.name.as_deref() == Some("Trace health"))
            .map(|d| d.uuid.unwrap())
            .collect();
        assert_eq!(health.len(), 2);
        assert!(tracks.health.iter().all(|(_, t)| health.contains(t)));
    }

    #[test]
    fn markers_are_found_by_id_task_and_kind_with_small_or_large_ids_and_unknown_tasks() {
        for extra in [None, Some(1 << 20)] {
            let m = model(extra);
            let threads = Threads::new(&m);
            let (tracks, _) = Tracks::new(&m, &threads);
            for (i, marker) in m.markers.iter().enumerate() {
                let found = tracks.marker(marker.marker_id, marker.task_id, marker.kind);
                assert_eq!(found.map(|(_, index)| index), Some(i), "{extra:?}");
            }
            for (id, task, kind) in [
                (1, Some(5), MarkerKind::Event),
                (2, None, MarkerKind::Event),
                (3, None, MarkerKind::Event),
                (3, Some(4), MarkerKind::Event),
                (3, Some(9), MarkerKind::Value),
                (100, None, MarkerKind::Event),
                (u32::MAX, None, MarkerKind::Event),
            ] {
                assert_eq!(tracks.marker(id, task, kind), None, "{id} {extra:?}");
            }
        }
    }
}
