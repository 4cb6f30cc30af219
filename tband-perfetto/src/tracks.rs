//! The named tracks beside Perfetto's own CPU and thread tracks: one process
//! track for the firmware, a track per task with its wait reasons and
//! priorities, the timeline's tracks (see [`tband_model::timeline`]) and
//! trace health. Tracks exist only where the model has data for them, but
//! for trace health, which always holds the end of the trace.

use tband_model::timeline::{Parent, Timeline, TrackKind, Unit as TimelineUnit};
use tband_model::Model;

use crate::protos::counter_descriptor::Unit;
use crate::protos::track_descriptor::ChildTracksOrdering;
use crate::protos::{CounterDescriptor, ProcessDescriptor, ThreadDescriptor, TrackDescriptor};
use crate::threads::{Threads, PID};

/// Track uuids, by the index of the model row or timeline track they
/// belong to.
pub struct TrackUuids {
    /// Why a task waits (blocked / suspended slices), by task index.
    pub wait: Vec<Option<u64>>,
    /// RTOS priority counter, by task index.
    pub priority: Vec<Option<u64>>,
    /// By timeline track (none for a track under an idle task, which
    /// Perfetto shows as the idle thread of every core).
    pub timeline: Vec<Option<u64>>,
    /// Every anomaly (by index in `model.anomalies`) and its track, in the
    /// order to write them: see [`health_lanes`].
    pub health: Vec<(usize, u64)>,
    /// The instant at the end of the trace (the first health lane): slices
    /// cut by the end are open, and Perfetto knows where the trace ends
    /// only from the last event it reads.
    pub trace_end: u64,
}

/// By task index: whether `tasks` (indices) holds the task (a generic
/// iterator, so that reading the rows it comes from is inlined into the
/// loop, which reads a run of rows at a time).
fn tasks_having(model: &Model, tasks: impl Iterator<Item = u32>) -> Vec<bool> {
    let mut has = vec![false; model.tasks.len()];
    tasks.for_each(|task| {
        if let Some(slot) = has.get_mut(task as usize) {
            *slot = true;
        }
    });
    has
}

/// Perfetto's ranks of top-level groups follow the process and the tasks.
const FIRST_GROUP_RANK: i32 = 2;

impl TrackUuids {
    /// Assigns uuids and describes every track, parents before children.
    pub fn new(
        model: &Model,
        threads: &Threads<'_>,
        timeline: &Timeline,
    ) -> (TrackUuids, Vec<TrackDescriptor>) {
        let mut d = Describer::default();
        let has_priority = tasks_having(model, model.task_priorities.iter().map(|p| p.task));

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
        let mut uuids: Vec<Option<u64>> = Vec::with_capacity(timeline.tracks.len());
        for track in &timeline.tracks {
            let parent = match track.parent {
                Parent::Top => None,
                Parent::Task(i) => match thread.get(i as usize) {
                    Some(&Some(t)) => Some(t),
                    _ => {
                        uuids.push(None);
                        continue;
                    }
                },
                Parent::Track(p) => match uuids[p as usize] {
                    Some(t) => Some(t),
                    None => {
                        uuids.push(None);
                        continue;
                    }
                },
            };
            let uuid = match (track.kind, parent) {
                (TrackKind::Task(i), _) => {
                    let i = i as usize;
                    let task = &model.tasks[i];
                    let t = d.add(TrackDescriptor {
                        thread: Some(ThreadDescriptor {
                            pid: Some(PID),
                            tid: Some(threads.tid_at(Some(i)).into()),
                            thread_name: Some(task.name.clone()),
                        }),
                        child_ordering: Some(ChildTracksOrdering::Explicit as i32),
                        sibling_order_rank: Some(track.rank),
                        ..Default::default()
                    });
                    thread[i] = Some(t);
                    // A task that waits has a track of its wait states.
                    if task.ever_waited {
                        wait[i] = Some(d.child(
                            t,
                            0,
                            "Wait reason",
                            "Why the task is blocked or suspended",
                        ));
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
                    t
                }
                (TrackKind::Group, None) => d.group(&track.name, track.rank + FIRST_GROUP_RANK),
                (TrackKind::Group, Some(parent)) => d.add(TrackDescriptor {
                    parent_uuid: Some(parent),
                    name: Some(track.name.clone()),
                    child_ordering: Some(ChildTracksOrdering::Explicit as i32),
                    sibling_order_rank: Some(track.rank),
                    ..Default::default()
                }),
                (TrackKind::Events(_), parent) => {
                    d.child_of(parent, track.rank, &track.name, &track.description)
                }
                (TrackKind::Counter(_, unit), parent) => {
                    let uuid = d.child_of(parent, track.rank, &track.name, &track.description);
                    d.descriptors[uuid as usize - 1].counter = Some(CounterDescriptor {
                        unit: Some(unit_of(unit) as i32),
                    });
                    uuid
                }
            };
            uuids.push(Some(uuid));
        }

        let (order, lanes) = health_lanes(model);
        let description =
            "Lost events and other damage found while decoding, and the end of the trace";
        let health_rank = FIRST_GROUP_RANK + timeline.top_groups() as i32;
        let trace_end = d.group("Trace health", health_rank);
        d.descriptors[trace_end as usize - 1].description = Some(description.into());
        let mut lane_uuids = vec![trace_end];
        for _ in 1..lanes {
            let lane = d.add(TrackDescriptor {
                name: Some("Trace health".into()),
                description: Some(description.into()),
                sibling_order_rank: Some(health_rank),
                ..Default::default()
            });
            lane_uuids.push(lane);
        }
        let health = order
            .into_iter()
            .map(|(i, lane)| (i, lane_uuids[lane]))
            .collect();

        let tracks = TrackUuids {
            wait,
            priority,
            timeline: uuids,
            health,
            trace_end,
        };
        (tracks, d.descriptors)
    }
}

fn unit_of(unit: TimelineUnit) -> Unit {
    match unit {
        TimelineUnit::Count => Unit::Count,
        TimelineUnit::Bytes => Unit::SizeBytes,
        TimelineUnit::Unspecified => Unit::Unspecified,
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

    /// A top-level group.
    fn group(&mut self, name: &str, rank: i32) -> u64 {
        self.add(TrackDescriptor {
            name: Some(name.to_owned()),
            child_ordering: Some(ChildTracksOrdering::Explicit as i32),
            sibling_order_rank: Some(rank),
            ..Default::default()
        })
    }

    fn child(&mut self, parent: u64, rank: i32, name: &str, description: &str) -> u64 {
        self.child_of(Some(parent), rank, name, description)
    }

    fn child_of(&mut self, parent: Option<u64>, rank: i32, name: &str, description: &str) -> u64 {
        self.add(TrackDescriptor {
            parent_uuid: parent,
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
        let (tracks, descriptors) = TrackUuids::new(&m, &threads, &Timeline::new(&m));
        let health: Vec<_> = descriptors
            .iter()
            .filter(|d| d.name.as_deref() == Some("Trace health"))
            .map(|d| d.uuid.unwrap())
            .collect();
        assert_eq!(health.len(), 2);
        assert!(tracks.health.iter().all(|(_, t)| health.contains(t)));
    }
}
