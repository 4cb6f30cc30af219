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
use crate::{MarkerKind, Model, StrId};

/// Each marker's track, by index in `model.markers`.
struct MarkerTracks(Vec<TrackId>);

impl MarkerTracks {
    /// The track of the marker at `marker` in `model.markers`.
    #[inline]
    fn of(&self, marker: u32) -> Option<TrackId> {
        self.0.get(marker as usize).copied()
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
    let found = Arc::new(MarkerTracks(list));
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

/// The index of a marker's task, whose id the marker holds (once per
/// marker, not per row).
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
fn name(m: &Model, msg: StrId, marker: u32) -> Name<'_> {
    let text = m.strings.get(msg);
    if text.is_empty() {
        let marker = marker as usize;
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
                if let Some(track) = t.of(s.marker) {
                    let name = name(m, s.msg, s.marker);
                    let item = Item::slice(track, s.start_ns, s.end_ns, s.truncated, name);
                    visit(i, item.at_depth(s.depth));
                }
            }),
            Table::Instants => rows_in(m.marker_instants.iter(), rows).for_each(|(i, s)| {
                if let Some(track) = t.of(s.marker) {
                    let name = name(m, s.msg, s.marker);
                    visit(i, Item::instant(track, s.ts_ns, name));
                }
            }),
            Table::Values => rows_in(m.marker_values.iter(), rows).for_each(|(i, v)| {
                if let Some(track) = t.of(v.marker) {
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
        let (marker, message, depth) = match self.table {
            Table::Spans => match m.marker_spans.get(row) {
                Some(s) => (s.marker, Some(s.msg), Some(s.depth)),
                None => return,
            },
            Table::Instants => match m.marker_instants.get(row) {
                Some(s) => (s.marker, Some(s.msg), None),
                None => return,
            },
            Table::Values => match m.marker_values.get(row) {
                Some(v) => (v.marker, None, None),
                None => return,
            },
        };
        let Some(marker) = m.markers.get(marker as usize) else {
            return;
        };
        out.push(("marker", marker.name.clone()));
        out.push(("task", task_name_by_id(m, marker.task_id)));
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
