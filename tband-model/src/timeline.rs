//! The timeline: what a timeline view draws beside scheduling, as generic
//! tracks of slices, instants and counter values. Small adapters, one per
//! fact of the model (markers, queue levels, mutex holders, RTOS objects,
//! tracked objects, memory, log lines, faults), describe their tracks and read their rows out of the
//! model's tables on demand: the timeline holds indices, never copies.
//!
//! Sinks (Perfetto, Chrome JSON, the terminal viewer, the summary) read
//! tracks and items without knowing which adapter made them. Scheduling
//! (who ran, task states, ISRs) and trace health stay with each sink, as
//! trace_processor keeps `sched` and `thread_state` special.
//!
//! A new fact costs one adapter module here, added to [`Timeline::new`].

use std::ops::Range;
use std::sync::Arc;

use crate::{Model, TaskKind};

mod faults;
mod logs;
mod markers;
mod memory;
mod queues;
mod rtos_objects;
mod tracked;

pub use tracked::actor_name;

/// A track's index in [`Timeline::tracks`].
pub type TrackId = u32;

/// Where a track hangs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parent {
    Top,
    /// Under a task's own track (by index in `model.tasks`).
    Task(u32),
    Track(TrackId),
}

/// The heading a flat list of rows shows a track under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Section {
    Markers,
    Values,
    Levels,
    RtosObjects,
    TrackedObjects,
    Holders,
    Memory,
    Logs,
    Faults,
}

impl Section {
    pub const ALL: [Section; 9] = [
        Section::Markers,
        Section::Values,
        Section::Levels,
        Section::RtosObjects,
        Section::TrackedObjects,
        Section::Holders,
        Section::Memory,
        Section::Logs,
        Section::Faults,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Section::Markers => "markers",
            Section::Values => "values",
            Section::Levels => "queue levels",
            Section::RtosObjects => "RTOS objects",
            Section::TrackedObjects => "tracked objects",
            Section::Holders => "mutex holders",
            Section::Memory => "memory",
            Section::Logs => "logs",
            Section::Faults => "faults",
        }
    }
}

/// What a counter counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Count,
    Bytes,
    Unspecified,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrackKind {
    /// A task's own track: what ran is scheduling, drawn by each sink.
    Task(u32),
    /// A group of tracks, holding no items itself.
    Group,
    /// Slices and instants.
    Events(Section),
    Counter(Section, Unit),
}

/// What a track stands for: the same in every timeline of a trace that
/// grows, where its [`TrackId`] may change. `family` names the adapter's
/// kind of track; `ids` are the firmware's ids or the model's indices that
/// tell tracks of a family apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TrackKey {
    pub family: &'static str,
    pub ids: (u64, u64),
}

impl TrackKey {
    pub const fn new(family: &'static str, a: u64, b: u64) -> TrackKey {
        TrackKey {
            family,
            ids: (a, b),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Track {
    pub key: TrackKey,
    pub name: String,
    /// What its items are; empty for tasks and groups.
    pub description: String,
    pub parent: Parent,
    /// Its place among its siblings (top-level groups: among those groups).
    pub rank: i32,
    pub kind: TrackKind,
}

impl Track {
    /// The heading of a track with items.
    pub fn section(&self) -> Option<Section> {
        match self.kind {
            TrackKind::Events(s) | TrackKind::Counter(s, _) => Some(s),
            TrackKind::Task(_) | TrackKind::Group => None,
        }
    }
}

/// The shape of an item and its times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `open`: cut by the end of the trace, so its end is not known.
    /// `depth`: nesting among the slices of its track (0 = outermost).
    Slice {
        start: u64,
        end: u64,
        depth: u32,
        open: bool,
    },
    Instant(u64),
    Counter(u64, i64),
}

impl Shape {
    pub fn start(&self) -> u64 {
        match *self {
            Shape::Slice { start, .. } => start,
            Shape::Instant(ts) | Shape::Counter(ts, _) => ts,
        }
    }

    pub fn end(&self) -> u64 {
        match *self {
            Shape::Slice { end, .. } => end,
            Shape::Instant(ts) | Shape::Counter(ts, _) => ts,
        }
    }
}

/// An item's name, with a key that is the same for every item of its
/// layer that has this name (so that a sink can keep what it made of a
/// name by key instead of hashing the text), below [`Layer::name_keys`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Name<'m> {
    pub text: &'m str,
    pub key: Option<u32>,
    /// The item has no name of its own: `text` is what names its track
    /// (a marker span without a message), which a view that shows the
    /// track's name beside the item may leave out.
    pub borrowed: bool,
}

impl<'m> Name<'m> {
    pub const NONE: Name<'static> = Name {
        text: "",
        key: None,
        borrowed: false,
    };

    fn keyed(text: &'m str, key: usize) -> Name<'m> {
        Name {
            text,
            key: u32::try_from(key).ok(),
            borrowed: false,
        }
    }

    fn borrowed(text: &'m str, key: usize) -> Name<'m> {
        Name {
            borrowed: true,
            ..Name::keyed(text, key)
        }
    }
}

/// The names of item arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgName {
    Count,
    Core,
    Truncated,
    Level,
    Line,
}

impl ArgName {
    pub const ALL: [ArgName; 5] = [
        ArgName::Count,
        ArgName::Core,
        ArgName::Truncated,
        ArgName::Level,
        ArgName::Line,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ArgName::Count => "count",
            ArgName::Core => "core",
            ArgName::Truncated => "truncated",
            ArgName::Level => "level",
            ArgName::Line => "line",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgValue {
    Uint(u64),
    Int(i64),
    Bool(bool),
    /// A word from a fixed set (a log level's name).
    Str(&'static str),
}

const MAX_ARGS: usize = 2;

/// An item's arguments, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Args {
    len: u8,
    args: [(ArgName, ArgValue); MAX_ARGS],
}

impl Args {
    pub const NONE: Args = Args {
        len: 0,
        args: [(ArgName::Count, ArgValue::Uint(0)); MAX_ARGS],
    };

    fn of(given: &[(ArgName, ArgValue)]) -> Args {
        let mut args = Args::NONE;
        for &arg in given.iter().take(MAX_ARGS) {
            args.args[args.len as usize] = arg;
            args.len += 1;
        }
        args
    }

    pub fn as_slice(&self) -> &[(ArgName, ArgValue)] {
        &self.args[..self.len as usize]
    }
}

/// One thing drawn on a track.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item<'m> {
    pub track: TrackId,
    pub shape: Shape,
    /// Of slices and instants.
    pub name: Name<'m>,
    pub args: Args,
}

impl<'m> Item<'m> {
    pub fn slice(track: TrackId, start: u64, end: u64, open: bool, name: Name<'m>) -> Item<'m> {
        let shape = Shape::Slice {
            start,
            end,
            depth: 0,
            open,
        };
        Item {
            track,
            shape,
            name,
            args: Args::NONE,
        }
    }

    /// The item nested `depth` slices deep on its track.
    pub fn at_depth(mut self, depth: u32) -> Item<'m> {
        if let Shape::Slice { depth: d, .. } = &mut self.shape {
            *d = depth;
        }
        self
    }

    pub fn with_args(self, args: Args) -> Item<'m> {
        Item { args, ..self }
    }

    pub fn instant(track: TrackId, ts: u64, name: Name<'m>) -> Item<'m> {
        Item {
            track,
            shape: Shape::Instant(ts),
            name,
            args: Args::NONE,
        }
    }

    pub fn counter(track: TrackId, ts: u64, value: i64) -> Item<'m> {
        Item {
            track,
            shape: Shape::Counter(ts, value),
            name: Name::NONE,
            args: Args::NONE,
        }
    }
}

/// What a sink's detail pane shows of an item: labelled values.
pub type Details = Vec<(&'static str, String)>;

/// One table of the model as items on the timeline's tracks.
pub trait Layer: Send + Sync {
    /// Rows of its table in `m` (items are made from some of them).
    fn len(&self, m: &Model) -> usize;

    /// Calls `visit` with each row in `rows` that makes an item, in table
    /// order.
    fn visit<'a>(
        &'a self,
        m: &'a Model,
        rows: Range<usize>,
        visit: &mut dyn FnMut(usize, Item<'a>),
    );

    /// One past the highest [`Name::key`] its items have.
    fn name_keys(&self, m: &Model) -> usize;

    /// The text of a name key (empty for a key no item has).
    fn name_of<'a>(&'a self, m: &'a Model, key: u32) -> &'a str;

    /// The row's facts, for a detail pane.
    fn describe(&self, m: &Model, row: usize, out: &mut Details);
}

/// The timeline of a model: tracks, parents before children, and the
/// layers whose items go on them.
#[derive(Clone)]
pub struct Timeline {
    pub tracks: Vec<Track>,
    /// Always the same layers in the same order, whatever the model holds.
    pub layers: Vec<Arc<dyn Layer>>,
}

impl Timeline {
    pub fn new(m: &Model) -> Timeline {
        let mut tracks = TrackBuilder::default();
        let task_tracks = tracks.tasks(m);
        let queues = queues::declare(m, &mut tracks);
        let rtos_objects = rtos_objects::declare(m, &task_tracks, &mut tracks);
        let markers = markers::declare(m, &task_tracks, &mut tracks);
        let tracked = tracked::declare(m, &mut tracks);
        let memory = memory::declare(m, &task_tracks, &mut tracks);
        let logs = logs::declare(m, &task_tracks, &mut tracks);
        let faults = faults::declare(m, &task_tracks, &mut tracks);
        let mut layers: Vec<Arc<dyn Layer>> = Vec::new();
        layers.extend(markers);
        layers.extend(queues);
        layers.extend(tracked);
        layers.extend(rtos_objects);
        layers.extend(memory);
        layers.push(logs);
        layers.extend(faults);
        Timeline {
            tracks: tracks.list,
            layers,
        }
    }

    /// Rows the layers read, in all.
    pub fn rows(&self, m: &Model) -> usize {
        self.layers.iter().map(|l| l.len(m)).sum()
    }

    /// A track's name after its owner's (`owner/name`): a task's, or a
    /// group's below the top.
    pub fn full_name(&self, m: &Model, track: &Track) -> String {
        let owner = match track.parent {
            Parent::Task(i) => m.tasks.get(i as usize).map(|t| t.name.as_str()),
            Parent::Track(p) => {
                let parent = &self.tracks[p as usize];
                (parent.parent != Parent::Top).then_some(parent.name.as_str())
            }
            Parent::Top => None,
        };
        match owner {
            Some(owner) => format!("{owner}/{}", track.name),
            None => track.name.clone(),
        }
    }

    /// The top-level groups there are.
    pub fn top_groups(&self) -> usize {
        (self.tracks.iter())
            .filter(|t| t.parent == Parent::Top && t.kind == TrackKind::Group)
            .count()
    }
}

/// The tracks being declared.
#[derive(Default)]
struct TrackBuilder {
    list: Vec<Track>,
    top_groups: i32,
}

impl TrackBuilder {
    fn add(&mut self, track: Track) -> TrackId {
        self.list.push(track);
        (self.list.len() - 1) as TrackId
    }

    /// A track of each task that is not an idle task (idle time is the
    /// cores' idle time, drawn by scheduling); by task index.
    fn tasks(&mut self, m: &Model) -> Vec<Option<TrackId>> {
        (m.tasks.iter().enumerate())
            .map(|(i, task)| {
                (task.kind != TaskKind::Idle).then(|| {
                    self.add(Track {
                        key: TrackKey::new("task", task.task_id.into(), 0),
                        name: task.name.clone(),
                        description: String::new(),
                        parent: Parent::Top,
                        rank: rank(i),
                        kind: TrackKind::Task(i as u32),
                    })
                })
            })
            .collect()
    }

    /// A top-level group.
    fn group(&mut self, name: &str) -> TrackId {
        self.top_groups += 1;
        self.add(Track {
            key: TrackKey::new("group", self.top_groups as u64, 0),
            name: name.to_owned(),
            description: String::new(),
            parent: Parent::Top,
            rank: self.top_groups - 1,
            kind: TrackKind::Group,
        })
    }

    fn subgroup(&mut self, key: TrackKey, parent: TrackId, rank: i32, name: String) -> TrackId {
        self.add(Track {
            key,
            name,
            description: String::new(),
            parent: Parent::Track(parent),
            rank,
            kind: TrackKind::Group,
        })
    }

    fn child(
        &mut self,
        key: TrackKey,
        parent: Parent,
        rank: i32,
        name: &str,
        description: &str,
        kind: TrackKind,
    ) -> TrackId {
        self.add(Track {
            key,
            name: name.to_owned(),
            description: description.to_owned(),
            parent,
            rank,
            kind,
        })
    }
}

/// A rank from an index.
fn rank(i: usize) -> i32 {
    i32::try_from(i).unwrap_or(i32::MAX)
}

/// A task's name for a detail pane, from its index in the model's tasks:
/// `-` for none.
fn task_name(m: &Model, task: Option<u32>) -> String {
    task.and_then(|t| m.tasks.get(t as usize))
        .map_or_else(|| "-".to_string(), |t| t.name.clone())
}

/// A task's name for a detail pane: `task <id>` for one the model does
/// not know, `-` for none.
fn task_name_by_id(m: &Model, task_id: Option<u32>) -> String {
    match task_id {
        Some(id) => m
            .task_by_id(id)
            .map_or(format!("task {id}"), |t| t.name.clone()),
        None => "-".to_string(),
    }
}

/// How an operation was done: ` from ISR` or nothing.
fn from_isr(from_isr: bool) -> &'static str {
    if from_isr {
        " from ISR"
    } else {
        ""
    }
}

/// The position of an object in a list sorted by its id.
fn index_of<T>(list: &[T], id: u32, id_of: impl Fn(&T) -> u32) -> Option<usize> {
    list.binary_search_by_key(&id, id_of).ok()
}

/// Rows of a table from `rows.start`, at most `rows.len()` of them.
fn rows_in<T>(
    rows: impl Iterator<Item = T>,
    range: Range<usize>,
) -> impl Iterator<Item = (usize, T)> {
    let len = range.len();
    rows.enumerate().skip(range.start).take(len)
}

#[cfg(test)]
mod tests;
