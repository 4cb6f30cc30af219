//! Markers on the timeline: a track per marker, under its task (global
//! markers, and those of idle tasks, in the group "Markers"); event markers
//! hold nested spans and instants named by their message (the marker's
//! name when it has none), value markers a counter.

use std::ops::Range;
use std::sync::Arc;

use super::{
    rank, rows_in, task_name_by_id, Details, Item, Layer, Name, Parent, Section, TrackBuilder,
    TrackId, TrackKey, TrackKind, Unit,
};
use crate::{IdIndex, MarkerKind, Model, StrId};

/// Ids below this are looked up in a vector.
const DENSE_IDS: usize = 1 << 16;

/// Each marker's track, found by its ids.
struct MarkerTracks {
    /// By index in `model.markers`.
    tracks: Vec<TrackId>,
    /// The index in `model.markers`: by owning task (none: global), then
    /// id and kind.
    index: IdIndex<Option<u32>, IdIndex<(u32, MarkerKind), usize>>,
}

impl MarkerTracks {
    /// The marker's track and index in `model.markers`.
    #[inline]
    fn find(&self, marker_id: u32, task_id: Option<u32>, kind: MarkerKind) -> Option<(u32, usize)> {
        let &i = self.index.get(task_id)?.get((marker_id, kind))?;
        Some((*self.tracks.get(i)?, i))
    }
}

pub(super) fn declare(
    m: &Model,
    task_tracks: &[Option<TrackId>],
    tracks: &mut TrackBuilder,
) -> [Arc<dyn Layer>; 3] {
    let mut list = Vec::with_capacity(m.markers.len());
    let mut group = None;
    for (i, marker) in m.markers.iter().enumerate() {
        let owner = marker.task_id.and_then(|t| task_index(m, t));
        let parent = match owner.and_then(|o| task_tracks[o]) {
            Some(_) => Parent::Task(owner.unwrap_or_default() as u32),
            None => Parent::Track(*group.get_or_insert_with(|| tracks.group("Markers"))),
        };
        let name = match owner {
            Some(o) if task_tracks[o].is_none() => format!("{}: {}", m.tasks[o].name, marker.name),
            _ => marker.name.clone(),
        };
        let r = rank(i).saturating_add(2);
        let owner_id = marker.task_id.map_or(0, |t| u64::from(t) + 1);
        let key = TrackKey::new(
            "marker",
            owner_id,
            u64::from(marker.marker_id) << 1 | marker.kind as u64,
        );
        list.push(match marker.kind {
            MarkerKind::Event => tracks.child(
                key,
                parent,
                r,
                &name,
                "Marker spans and instants",
                TrackKind::Events(Section::Markers),
            ),
            MarkerKind::Value => tracks.child(
                key,
                parent,
                r,
                &name,
                "Marker values",
                TrackKind::Counter(Section::Values, Unit::Unspecified),
            ),
        });
    }
    let found = Arc::new(MarkerTracks {
        tracks: list,
        index: marker_index(m),
    });
    [
        Arc::new(Markers {
            tracks: found.clone(),
            table: Table::Spans,
        }),
        Arc::new(Markers {
            tracks: found.clone(),
            table: Table::Instants,
        }),
        Arc::new(Markers {
            tracks: found,
            table: Table::Values,
        }),
    ]
}

/// Each marker's index in `model.markers`, by its ids.
fn marker_index(m: &Model) -> IdIndex<Option<u32>, IdIndex<(u32, MarkerKind), usize>> {
    let mut index: IdIndex<Option<u32>, IdIndex<_, _>> = IdIndex::with_limit(DENSE_IDS);
    for (i, marker) in m.markers.iter().enumerate() {
        index
            .entry(marker.task_id)
            .get_or_insert_with((marker.marker_id, marker.kind), || i);
    }
    index
}

fn task_index(m: &Model, task_id: u32) -> Option<usize> {
    m.tasks.binary_search_by_key(&task_id, |t| t.task_id).ok()
}

#[derive(Clone, Copy)]
enum Table {
    Spans,
    Instants,
    Values,
}

struct Markers {
    tracks: Arc<MarkerTracks>,
    table: Table,
}

/// A marker event's name: its message, or the marker's name.
fn name(m: &Model, msg: StrId, marker: usize) -> Name<'_> {
    let text = m.strings.get(msg);
    if text.is_empty() {
        let marker_name = m.markers.get(marker).map_or("", |mk| mk.name.as_str());
        Name::borrowed(marker_name, m.strings.all().len() + marker)
    } else {
        Name::keyed(text, msg.0 as usize)
    }
}

impl Layer for Markers {
    fn len(&self, m: &Model) -> usize {
        match self.table {
            Table::Spans => m.marker_spans.len(),
            Table::Instants => m.marker_instants.len(),
            Table::Values => m.marker_values.len(),
        }
    }

    fn visit<'a>(
        &'a self,
        m: &'a Model,
        rows: Range<usize>,
        visit: &mut dyn FnMut(usize, Item<'a>),
    ) {
        let t = &self.tracks;
        match self.table {
            Table::Spans => rows_in(m.marker_spans.iter(), rows).for_each(|(i, s)| {
                if let Some((track, marker)) = t.find(s.marker_id, s.task_id, MarkerKind::Event) {
                    let name = name(m, s.msg, marker);
                    let item = Item::slice(track, s.start_ns, s.end_ns, s.truncated, name);
                    visit(i, item.at_depth(s.depth));
                }
            }),
            Table::Instants => rows_in(m.marker_instants.iter(), rows).for_each(|(i, s)| {
                if let Some((track, marker)) = t.find(s.marker_id, s.task_id, MarkerKind::Event) {
                    let name = name(m, s.msg, marker);
                    visit(i, Item::instant(track, s.ts_ns, name));
                }
            }),
            Table::Values => rows_in(m.marker_values.iter(), rows).for_each(|(i, v)| {
                if let Some((track, _)) = t.find(v.marker_id, v.task_id, MarkerKind::Value) {
                    visit(i, Item::counter(track, v.ts_ns, v.value));
                }
            }),
        }
    }

    fn name_keys(&self, m: &Model) -> usize {
        m.strings.all().len() + m.markers.len()
    }

    fn name_of<'a>(&'a self, m: &'a Model, key: u32) -> &'a str {
        let key = key as usize;
        match key.checked_sub(m.strings.all().len()) {
            Some(marker) => m.markers.get(marker).map_or("", |mk| mk.name.as_str()),
            None => m.strings.get(StrId(key as u32)),
        }
    }

    fn describe(&self, m: &Model, row: usize, out: &mut Details) {
        let (marker_id, task_id, message, depth) = match self.table {
            Table::Spans => match m.marker_spans.get(row) {
                Some(s) => (s.marker_id, s.task_id, Some(s.msg), Some(s.depth)),
                None => return,
            },
            Table::Instants => match m.marker_instants.get(row) {
                Some(s) => (s.marker_id, s.task_id, Some(s.msg), None),
                None => return,
            },
            Table::Values => match m.marker_values.get(row) {
                Some(v) => (v.marker_id, v.task_id, None, None),
                None => return,
            },
        };
        let kind = match self.table {
            Table::Values => MarkerKind::Value,
            Table::Spans | Table::Instants => MarkerKind::Event,
        };
        let name = (self.tracks.find(marker_id, task_id, kind))
            .and_then(|(_, i)| m.markers.get(i))
            .map_or(format!("marker {marker_id}"), |mk| mk.name.clone());
        out.push(("marker", name));
        out.push(("task", task_name_by_id(m, task_id)));
        if let Some(msg) = message {
            out.push(("message", m.strings.get(msg).to_string()));
        }
        if let Some(depth) = depth {
            out.push(("depth", depth.to_string()));
        }
        if let Table::Values = self.table {
            if let Some(v) = m.marker_values.get(row) {
                out.push(("value", v.value.to_string()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Marker, Task, TaskKind};

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
            tasks: vec![Task::new(4, "worker", TaskKind::Normal)],
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
    fn markers_are_found_by_id_task_and_kind_with_small_or_large_ids_and_unknown_tasks() {
        for extra in [None, Some(1 << 20)] {
            let m = model(extra);
            let found = MarkerTracks {
                tracks: (0..m.markers.len() as u32).collect(),
                index: marker_index(&m),
            };
            for (i, marker) in m.markers.iter().enumerate() {
                let hit = found.find(marker.marker_id, marker.task_id, marker.kind);
                assert_eq!(hit.map(|(_, index)| index), Some(i), "{extra:?}");
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
                assert_eq!(found.find(id, task, kind), None, "{id} {extra:?}");
            }
        }
    }
}
