//! The timeline's rows, built once from the model: one per core (who ran),
//! per ISR, per task (its states), per event marker (nested spans and
//! instants), per value marker and per queue (fill level).

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

use tband_model::{MarkerKind, Model, Row as TableRow, Table, TaskKind};

use crate::indices::{Indices, IndicesBuilder};
use crate::track::{IntervalSource, IntervalTrack, SampleSource, SampleTrack};

/// Nested spans deeper than this share the last line.
const MAX_SPAN_LINES: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Group {
    Cores,
    Isrs,
    Tasks,
    Markers,
    Values,
    Queues,
}

impl Group {
    pub const ALL: [Group; 6] = [
        Group::Cores,
        Group::Isrs,
        Group::Tasks,
        Group::Markers,
        Group::Values,
        Group::Queues,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Group::Cores => "cores",
            Group::Isrs => "ISRs",
            Group::Tasks => "task states",
            Group::Markers => "markers",
            Group::Values => "values",
            Group::Queues => "queue levels",
        }
    }
}

/// What a row draws.
#[derive(Clone, Debug)]
pub enum Body {
    /// One interval track per line; `ticks` are instants drawn on line 0.
    Intervals {
        lines: Vec<IntervalTrack>,
        ticks: Option<IntervalTrack>,
    },
    Samples(SampleTrack),
}

#[derive(Clone, Debug)]
pub struct Row {
    pub group: Group,
    pub label: String,
    pub body: Body,
    /// For core rows: from when on uncovered time is idle time (before the
    /// first switch nothing is known).
    pub idle_from: Option<u64>,
}

impl Row {
    /// Builds all of the row's summaries now rather than on first use.
    pub fn prepare(&self, m: &Model) {
        match &self.body {
            Body::Intervals { lines, ticks } => {
                for track in lines.iter().chain(ticks) {
                    track.prepare(m);
                }
            }
            Body::Samples(track) => track.prepare(m),
        }
    }

    /// Bytes held on the heap: (row indices, summaries built so far).
    pub fn heap_bytes(&self) -> (usize, usize) {
        let add = |(a, b): (usize, usize), (c, d): (usize, usize)| (a + c, b + d);
        match &self.body {
            Body::Intervals { .. } => self
                .interval_tracks()
                .map(IntervalTrack::heap_bytes)
                .fold((0, 0), add),
            Body::Samples(track) => track.heap_bytes(),
        }
    }

    /// The row's interval tracks (span lines, then ticks).
    pub fn interval_tracks(&self) -> impl Iterator<Item = &IntervalTrack> {
        let (lines, ticks) = match &self.body {
            Body::Intervals { lines, ticks } => (&lines[..], ticks.as_ref()),
            Body::Samples(_) => (&[][..], None),
        };
        lines.iter().chain(ticks)
    }

    pub fn height(&self) -> usize {
        match &self.body {
            Body::Intervals { lines, .. } => lines.len().max(1),
            Body::Samples(_) => 1,
        }
    }

    fn intervals(group: Group, label: String, track: IntervalTrack) -> Row {
        Row {
            group,
            label,
            body: Body::Intervals {
                lines: vec![track],
                ticks: None,
            },
            idle_from: None,
        }
    }
}

/// All rows, in group order, plus the anomalies drawn on the time axis.
#[derive(Clone, Debug)]
pub struct Timeline {
    pub rows: Vec<Row>,
    pub anomalies: IntervalTrack,
    /// Characters in the longest row label.
    pub longest_label: usize,
}

/// Indices of the rows of `table` that `key` gives a key, grouped by it,
/// each group in table order.
fn group_by<K: Eq + Hash, T: TableRow>(
    table: &Table<T>,
    mut key: impl FnMut(&T) -> Option<K>,
) -> HashMap<K, Indices> {
    let mut groups: HashMap<K, IndicesBuilder> = HashMap::new();
    for (i, r) in table.iter().enumerate() {
        if let Some(k) = key(&r) {
            groups.entry(k).or_default().push(i as u32);
        }
    }
    groups.into_iter().map(|(k, b)| (k, b.finish())).collect()
}

impl Timeline {
    pub fn new(m: &Model) -> Timeline {
        let mut rows = Vec::new();

        // Idle time is left uncovered in core rows, so a column's covered
        // share is its busy share and its dominant task a real one.
        // Without any scheduling (bare metal) core rows would say nothing.
        let idle_tasks: Vec<u32> = m
            .tasks
            .iter()
            .filter(|t| t.kind == TaskKind::Idle)
            .map(|t| t.task_id)
            .collect();
        // Per core with slices: the start of its first one.
        let mut first_slice: BTreeMap<u32, Option<u64>> = BTreeMap::new();
        let mut busy = group_by(&m.sched_slices, |s| {
            first_slice.entry(s.core_id).or_insert(Some(s.start_ns));
            (!idle_tasks.contains(&s.task_id)).then_some(s.core_id)
        });
        if !m.sched_slices.is_empty() {
            for core in &m.cores {
                first_slice.entry(core.core_id).or_insert(None);
            }
        }
        for (core_id, idle_from) in first_slice {
            let items = busy.remove(&core_id).unwrap_or_default();
            let track = IntervalTrack::new(IntervalSource::SchedSlices, items);
            let mut row = Row::intervals(Group::Cores, format!("core {core_id}"), track);
            row.idle_from = idle_from;
            rows.push(row);
        }

        let mut isr_slices = group_by(&m.isr_slices, |s| Some((s.core_id, s.isr_id)));
        for isr in &m.isrs {
            let items = isr_slices
                .remove(&(isr.core_id, isr.isr_id))
                .unwrap_or_default();
            let track = IntervalTrack::new(IntervalSource::IsrSlices, items);
            let label = format!("c{} {}", isr.core_id, isr.name);
            rows.push(Row::intervals(Group::Isrs, label, track));
        }

        let mut states = group_by(&m.task_states, |s| Some(s.task_id));
        for task in &m.tasks {
            let items = states.remove(&task.task_id).unwrap_or_default();
            let track = IntervalTrack::new(IntervalSource::TaskStates, items);
            rows.push(Row::intervals(Group::Tasks, task.name.clone(), track));
        }

        let mut spans = group_by(&m.marker_spans, |s| {
            Some((
                s.marker_id,
                s.task_id,
                (s.depth as usize).min(MAX_SPAN_LINES - 1),
            ))
        });
        let mut instants = group_by(&m.marker_instants, |i| Some((i.marker_id, i.task_id)));
        let mut values = group_by(&m.marker_values, |v| Some((v.marker_id, v.task_id)));
        for marker in &m.markers {
            let key = (marker.marker_id, marker.task_id);
            let label = match marker.task_id.and_then(|t| m.task(t)) {
                Some(task) => format!("{}/{}", task.name, marker.name),
                None => marker.name.clone(),
            };
            match marker.kind {
                MarkerKind::Event => {
                    let lines: Vec<IntervalTrack> = (0..MAX_SPAN_LINES)
                        .map_while(|depth| spans.remove(&(key.0, key.1, depth)))
                        .map(|items| IntervalTrack::new(IntervalSource::MarkerSpans, items))
                        .collect();
                    let ticks = instants
                        .remove(&key)
                        .map(|items| IntervalTrack::new(IntervalSource::MarkerInstants, items));
                    if lines.is_empty() && ticks.is_none() {
                        continue;
                    }
                    rows.push(Row {
                        group: Group::Markers,
                        label,
                        body: Body::Intervals { lines, ticks },
                        idle_from: None,
                    });
                }
                MarkerKind::Value => {
                    let Some(items) = values.remove(&key) else {
                        continue;
                    };
                    let track = SampleTrack::new(SampleSource::MarkerValues, items);
                    rows.push(Row {
                        group: Group::Values,
                        label,
                        body: Body::Samples(track),
                        idle_from: None,
                    });
                }
            }
        }

        // Only operations that know the fill level.
        let mut levels = group_by(&m.queue_ops, |op| op.len_after.map(|_| op.queue_id));
        for queue in &m.queues {
            let Some(items) = levels.remove(&queue.queue_id) else {
                continue;
            };
            let track = SampleTrack::new(SampleSource::QueueLevels, items);
            if track.is_empty() {
                continue;
            }
            rows.push(Row {
                group: Group::Queues,
                label: queue.name.clone(),
                body: Body::Samples(track),
                idle_from: None,
            });
        }

        // Anomalies are kept by end; tracks are in start order.
        let mut by_start: Vec<u32> = (0..m.anomalies.len() as u32).collect();
        by_start.sort_by_key(|&i| m.anomalies[i as usize].start_ns);
        let anomalies =
            IntervalTrack::new(IntervalSource::Anomalies, by_start.into_iter().collect());
        let longest_label = rows
            .iter()
            .map(|r| r.label.chars().count())
            .max()
            .unwrap_or(0);
        Timeline {
            rows,
            anomalies,
            longest_label,
        }
    }
}

impl Timeline {
    /// Builds the summaries of every row now, one pass per model table.
    pub fn prepare_all(&self, m: &Model) {
        IntervalTrack::prepare_by_table(m, self.rows.iter().flat_map(Row::interval_tracks));
        for row in &self.rows {
            if let Body::Samples(track) = &row.body {
                track.prepare(m);
            }
        }
        self.anomalies.prepare(m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(name: &str) -> Model {
        let path = format!(
            "{}/../tests/corpus/tband/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        tband_trace::Trace::open(&[path], &Default::default())
            .unwrap()
            .model
    }

    #[test]
    fn freertos_rows() {
        let m = open("freertos_small.bin");
        let t = Timeline::new(&m);
        let labels = |g: Group| -> Vec<&str> {
            t.rows
                .iter()
                .filter(|r| r.group == g)
                .map(|r| r.label.as_str())
                .collect()
        };
        assert_eq!(labels(Group::Cores), ["core 0"]);
        assert_eq!(labels(Group::Isrs), ["c0 SimIRQ"]);
        assert_eq!(labels(Group::Tasks).len(), m.tasks.len());
        assert!(labels(Group::Markers).contains(&"MyEvts"));
        assert!(labels(Group::Markers).contains(&"mytask1/marker 0"));
        assert!(
            !labels(Group::Markers).contains(&"T1Evts"),
            "unused markers are left out"
        );
        assert_eq!(
            labels(Group::Values),
            ["MyVals", "ProdNeg", "mytask1/marker 0", "consumer/marker 1"]
        );
        assert!(labels(Group::Queues).contains(&"my_q1"));
        // Nested spans get their own lines.
        let task_marker = t
            .rows
            .iter()
            .find(|r| r.label == "mytask1/marker 0")
            .unwrap();
        assert!(task_marker.height() > 1);
        assert!(!t.anomalies.is_empty());
    }
}
