//! The timeline's rows, built from the model and extended with a model of
//! the trace that grows: one per core (who ran), per ISR and per task (its
//! states) — scheduling, drawn from the model's tables — and one per track
//! of the model's timeline that has items (markers, levels, RTOS objects,
//! tracked objects, mutex holders, ...), without knowing what made them:
//! a track's slices are lines by nesting, its instants ticks, a counter's
//! values samples.

use std::collections::HashMap;

use tband_model::timeline::{self as model_timeline, Section, Shape, TrackKey};
use tband_model::{IdMap, IsrKey, Model, TaskKind};

use crate::indices::Indices;
use crate::line::{IntervalLine, IntervalSource, LayerSource, SampleLine};

/// Nested spans deeper than this share the last line.
const MAX_SPAN_LINES: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Group {
    Cores,
    Isrs,
    Tasks,
    /// The rows of a section of the model's timeline.
    Section(Section),
}

impl Group {
    pub const ALL: [Group; 3 + Section::ALL.len()] = {
        let mut all = [Group::Cores; 3 + Section::ALL.len()];
        all[1] = Group::Isrs;
        all[2] = Group::Tasks;
        let mut i = 0;
        while i < Section::ALL.len() {
            all[3 + i] = Group::Section(Section::ALL[i]);
            i += 1;
        }
        all
    };

    pub fn title(self) -> &'static str {
        match self {
            Group::Cores => "cores",
            Group::Isrs => "ISRs",
            Group::Tasks => "task states",
            Group::Section(section) => section.title(),
        }
    }
}

/// What a row draws.
#[derive(Clone, Debug)]
pub enum Body {
    /// One interval track per line; `ticks` are instants drawn on line 0.
    Intervals {
        lines: Vec<IntervalLine>,
        ticks: Option<IntervalLine>,
    },
    Samples(SampleLine),
}

/// Which row a row is: what it shows, by id (firmware ids, which stay
/// when a growing trace's new tasks move others in the model's lists).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RowKey {
    Core(u32),
    Isr(IsrKey),
    Task(u32),
    /// A track of the model's timeline.
    Track(TrackKey),
}

impl RowKey {
    /// The row's label as the model names it now (`c0 UART`,
    /// `producer/tick`), from `names` for a track's row.
    fn label(self, m: &Model, names: &HashMap<TrackKey, String>) -> String {
        match self {
            RowKey::Core(core_id) => format!("core {core_id}"),
            RowKey::Isr(key) => match m.isr(key) {
                Some(isr) => format!("c{} {}", key.core_id, isr.name),
                None => format!("c{} isr {}", key.core_id, key.isr_id),
            },
            RowKey::Task(task_id) => match m.tasks.binary_search_by_key(&task_id, |t| t.task_id) {
                Ok(i) => m.tasks[i].name.clone(),
                Err(_) => format!("task {task_id}"),
            },
            RowKey::Track(key) => names.get(&key).cloned().unwrap_or_default(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Row {
    pub key: RowKey,
    pub group: Group,
    /// Its place in its group in a timeline built whole: a track's row by
    /// its place on the model's timeline, the others by key.
    pub order: u32,
    pub label: String,
    pub body: Body,
    /// For core rows: from when on uncovered time is idle time (before the
    /// first switch nothing is known).
    pub idle_from: Option<u64>,
}

impl Row {
    fn new(key: RowKey, group: Group, body: Body) -> Row {
        Row {
            key,
            group,
            order: 0,
            label: String::new(),
            body,
            idle_from: None,
        }
    }

    fn intervals(key: RowKey, group: Group, source: IntervalSource) -> Row {
        let body = Body::Intervals {
            lines: vec![IntervalLine::new(source, Indices::default())],
            ticks: None,
        };
        Row::new(key, group, body)
    }

    /// Points the row's tracks of timeline layers at `layers`, those of a
    /// later model of the same trace.
    fn take_layers(&mut self, layers: &[std::sync::Arc<dyn model_timeline::Layer>]) {
        let take = |source: &mut LayerSource| {
            if let Some(layer) = layers.get(source.index) {
                source.layer = layer.clone();
            }
        };
        match &mut self.body {
            Body::Intervals { lines, ticks } => {
                for track in lines.iter_mut().chain(ticks) {
                    if let IntervalSource::Layer(source) = &mut track.source {
                        take(source);
                    }
                }
            }
            Body::Samples(track) => take(&mut track.source),
        }
    }

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
                .map(IntervalLine::heap_bytes)
                .fold((0, 0), add),
            Body::Samples(track) => track.heap_bytes(),
        }
    }

    /// The row's interval tracks (span lines, then ticks).
    pub fn interval_tracks(&self) -> impl Iterator<Item = &IntervalLine> {
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

    /// The row's first interval track (a core's, an ISR's, a task's).
    fn track(&mut self) -> &mut IntervalLine {
        match &mut self.body {
            Body::Intervals { lines, .. } => &mut lines[0],
            Body::Samples(_) => unreachable!("a row of intervals"),
        }
    }

    /// Brings the summaries built so far up to the items added since.
    fn grow(&mut self, m: &Model) {
        match &mut self.body {
            Body::Intervals { lines, ticks } => {
                for track in lines.iter_mut().chain(ticks) {
                    track.grow(m);
                }
            }
            Body::Samples(track) => track.grow(m),
        }
    }

    fn shrink_to_fit(&mut self) {
        match &mut self.body {
            Body::Intervals { lines, ticks } => {
                for track in lines.iter_mut().chain(ticks) {
                    track.shrink_to_fit();
                }
            }
            Body::Samples(track) => track.shrink_to_fit(),
        }
    }
}

/// All rows, plus the anomalies drawn on the time axis. Rows built
/// whole has its rows in group order, then [`Row::order`]; one that grows
/// with its trace ([`Rows::extend`]) adds new rows at the end, so that
/// a row's index stays its own.
#[derive(Clone, Debug)]
pub struct Rows {
    pub all: Vec<Row>,
    pub anomalies: IntervalLine,
    /// Characters in the longest row label.
    pub longest_label: usize,
    /// The rows of each model table already in tracks.
    seen: TableLengths,
    /// Each task's id and whether it is an idle task (core rows leave out
    /// idle time), in the model's order: the rows' codes of tasks are
    /// indices into it.
    tasks: Vec<(u32, bool)>,
    /// Each row's index.
    index: IdMap<RowKey, usize>,
}

impl Default for Rows {
    fn default() -> Self {
        Rows {
            all: Vec::new(),
            anomalies: IntervalLine::new(IntervalSource::Anomalies, Indices::default()),
            longest_label: 0,
            seen: TableLengths::default(),
            tasks: Vec::new(),
            index: IdMap::default(),
        }
    }
}

/// How many rows each model table that rows index has.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct TableLengths {
    sched_slices: usize,
    task_states: usize,
    isr_slices: usize,
    /// By layer of the model's timeline.
    layers: Vec<usize>,
}

impl TableLengths {
    fn of(m: &Model, timeline: &model_timeline::Timeline) -> TableLengths {
        TableLengths {
            sched_slices: m.sched_slices.len(),
            task_states: m.task_states.len(),
            isr_slices: m.isr_slices.len(),
            layers: timeline.layers.iter().map(|l| l.len(m)).collect(),
        }
    }

    /// Whether every table is at least as long as here.
    fn within(&self, other: &TableLengths) -> bool {
        self.sched_slices <= other.sched_slices
            && self.task_states <= other.task_states
            && self.isr_slices <= other.isr_slices
            && (self.layers.iter().zip(&other.layers)).all(|(a, b)| a <= b)
    }
}

impl Rows {
    pub fn new(m: &Model) -> Rows {
        let mut rows = Rows::default();
        rows.add_rows_of(m, &model_timeline::Timeline::new(m));
        rows.all.sort_by_key(|r| (r.group, r.order, r.key));
        rows.index = (rows.all.iter().enumerate())
            .map(|(i, r)| (r.key, i))
            .collect();
        for row in &mut rows.all {
            row.shrink_to_fit();
        }
        rows
    }

    /// Adds what a later model of the same growing trace has beyond the
    /// one the timeline shows: new items to their rows, new rows at the
    /// end; labels and anomalies as the model has them now. Returns false
    /// when the timeline could not be extended but was built again (the
    /// model is not a later one of the same trace, a task became an idle
    /// task, or a new task came before others in id order, which moves
    /// their indices): then the rows' indices have changed.
    pub fn extend(&mut self, m: &Model) -> bool {
        let tracks = model_timeline::Timeline::new(m);
        let grown = self.seen.within(&TableLengths::of(m, &tracks));
        if !grown || !tasks(m).starts_with(&self.tasks) {
            *self = Rows::new(m);
            return false;
        }
        for row in &mut self.all {
            row.take_layers(&tracks.layers);
        }
        self.add_rows_of(m, &tracks);
        for row in &mut self.all {
            row.grow(m);
        }
        true
    }

    /// Adds the model's rows beyond those already seen to their tracks,
    /// with new rows as needed, and takes the labels and anomalies.
    fn add_rows_of(&mut self, m: &Model, tracks: &model_timeline::Timeline) {
        let from = std::mem::take(&mut self.seen);
        self.tasks = tasks(m);

        // Idle time is left uncovered in core rows, so a column's covered
        // share is its busy share and its dominant task a real one.
        // Without any scheduling (bare metal) core rows would say nothing.
        for (i, s) in m.sched_slices.iter().enumerate().skip(from.sched_slices) {
            let idle = self
                .tasks
                .get(s.task as usize)
                .is_some_and(|&(_, idle)| idle);
            let row = self.row(RowKey::Core(s.core_id), IntervalSource::SchedSlices);
            row.idle_from.get_or_insert(s.start_ns);
            if !idle {
                row.track().push(i as u32);
            }
        }
        if !m.sched_slices.is_empty() {
            for core in &m.cores {
                self.row(RowKey::Core(core.core_id), IntervalSource::SchedSlices);
            }
        }

        for (i, s) in m.isr_slices.iter().enumerate().skip(from.isr_slices) {
            let Some(isr) = m.isrs.get(s.isr as usize) else {
                continue;
            };
            let key = RowKey::Isr(IsrKey {
                core_id: isr.core_id,
                isr_id: isr.isr_id,
            });
            self.row(key, IntervalSource::IsrSlices)
                .track()
                .push(i as u32);
        }
        for isr in &m.isrs {
            let key = RowKey::Isr(IsrKey {
                core_id: isr.core_id,
                isr_id: isr.isr_id,
            });
            self.row(key, IntervalSource::IsrSlices);
        }

        for (i, s) in m.task_states.iter().enumerate().skip(from.task_states) {
            let task_id = self.tasks.get(s.task as usize).map_or(0, |&(id, _)| id);
            self.row(RowKey::Task(task_id), IntervalSource::TaskStates)
                .track()
                .push(i as u32);
        }
        for task in &m.tasks {
            self.row(RowKey::Task(task.task_id), IntervalSource::TaskStates);
        }

        for (index, layer) in tracks.layers.iter().enumerate() {
            let source = LayerSource {
                index,
                layer: layer.clone(),
            };
            let start = from.layers.get(index).copied().unwrap_or(0);
            layer.visit(m, start..layer.len(m), &mut |row, item| {
                let id = item.track;
                self.add_item(tracks, id, &source, row as u32, item.shape);
            });
        }
        self.seen = TableLengths::of(m, tracks);

        let names: HashMap<TrackKey, String> = (tracks.tracks.iter())
            .map(|t| (t.key, tracks.full_name(m, t)))
            .collect();
        for row in &mut self.all {
            let label = row.key.label(m, &names);
            if label != row.label {
                row.label = label;
            }
        }
        self.longest_label = (self.all.iter())
            .map(|r| r.label.chars().count())
            .max()
            .unwrap_or(0);
        // Anomalies are kept by end; tracks are in start order.
        let mut by_start: Vec<u32> = (0..m.anomalies.len() as u32).collect();
        by_start.sort_by_key(|&i| m.anomalies[i as usize].start_ns);
        self.anomalies =
            IntervalLine::new(IntervalSource::Anomalies, by_start.into_iter().collect());
    }

    /// Adds row `row` of a timeline layer to the row of its track `id`:
    /// a slice to the line of its depth, an instant to the ticks, a
    /// counter value to the samples.
    fn add_item(
        &mut self,
        tracks: &model_timeline::Timeline,
        id: model_timeline::TrackId,
        source: &LayerSource,
        row: u32,
        shape: Shape,
    ) {
        let Some(track) = tracks.tracks.get(id as usize) else {
            return;
        };
        let Some(section) = track.section() else {
            return;
        };
        let key = RowKey::Track(track.key);
        let group = Group::Section(section);
        let layer = || source.clone();
        let new_row = |body| {
            let mut new = Row::new(key, group, body);
            new.order = id;
            new
        };
        let row_of = self.row_or_new(key, || {
            new_row(match shape {
                Shape::Counter(..) => Body::Samples(SampleLine::new(layer(), Indices::default())),
                Shape::Slice { .. } | Shape::Instant(_) => Body::Intervals {
                    lines: Vec::new(),
                    ticks: None,
                },
            })
        });
        match (&mut row_of.body, shape) {
            (Body::Intervals { lines, .. }, Shape::Slice { depth, .. }) => {
                let line = (depth as usize).min(MAX_SPAN_LINES - 1);
                while lines.len() <= line {
                    let source = IntervalSource::Layer(layer());
                    lines.push(IntervalLine::new(source, Indices::default()));
                }
                lines[line].push(row);
            }
            (Body::Intervals { ticks, .. }, Shape::Instant(_)) => {
                let ticks = ticks.get_or_insert_with(|| {
                    IntervalLine::new(IntervalSource::Layer(layer()), Indices::default())
                });
                ticks.push(row);
            }
            (Body::Samples(samples), Shape::Counter(..)) => samples.push(row),
            _ => {}
        }
    }

    /// The index of the row of `key`, if there is one.
    pub fn row_of(&self, key: RowKey) -> Option<usize> {
        self.index.get(&key).copied()
    }

    /// The scheduling row of `key` (a core's, an ISR's, a task's), a row
    /// of intervals of `source`, made if new.
    fn row(&mut self, key: RowKey, source: IntervalSource) -> &mut Row {
        let group = match key {
            RowKey::Core(_) => Group::Cores,
            RowKey::Isr(_) => Group::Isrs,
            RowKey::Task(_) | RowKey::Track(_) => Group::Tasks,
        };
        self.row_or_new(key, || Row::intervals(key, group, source))
    }

    fn row_or_new(&mut self, key: RowKey, new: impl FnOnce() -> Row) -> &mut Row {
        let index = *self.index.entry(key).or_insert_with(|| {
            self.all.push(new());
            self.all.len() - 1
        });
        &mut self.all[index]
    }
}

/// Each task's id and whether it is an idle task, in the model's order.
fn tasks(m: &Model) -> Vec<(u32, bool)> {
    m.tasks
        .iter()
        .map(|t| (t.task_id, t.kind == TaskKind::Idle))
        .collect()
}

impl Rows {
    /// Builds the summaries of every row now, one pass per model table.
    pub fn prepare_all(&self, m: &Model) {
        IntervalLine::prepare_by_table(m, self.all.iter().flat_map(Row::interval_tracks));
        for row in &self.all {
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
        let t = Rows::new(&m);
        let labels = |g: Group| -> Vec<&str> {
            t.all
                .iter()
                .filter(|r| r.group == g)
                .map(|r| r.label.as_str())
                .collect()
        };
        let markers = Group::Section(Section::Markers);
        assert_eq!(labels(Group::Cores), ["core 0"]);
        assert_eq!(labels(Group::Isrs), ["c0 SimIRQ"]);
        assert_eq!(labels(Group::Tasks).len(), m.tasks.len());
        assert!(labels(markers).contains(&"MyEvts"));
        assert!(labels(markers).contains(&"mytask1/marker 0"));
        assert!(
            !labels(markers).contains(&"T1Evts"),
            "unused markers are left out"
        );
        assert_eq!(
            labels(Group::Section(Section::Values)),
            ["MyVals", "ProdNeg", "mytask1/marker 0", "consumer/marker 1"]
        );
        assert!(labels(Group::Section(Section::Levels)).contains(&"my_q1"));
        // Nested spans get their own lines.
        let task_marker = t
            .all
            .iter()
            .find(|r| r.label == "mytask1/marker 0")
            .unwrap();
        assert!(task_marker.height() > 1);
        assert!(!t.anomalies.is_empty());
    }

    /// A row's items, as (model row, start, end) per line and tick.
    fn items(row: &Row, m: &Model) -> Vec<Vec<(u32, u64, u64)>> {
        let track_items = |track: &IntervalLine| {
            (0..track.len())
                .map(|pos| track.get(m, pos).map(|(i, s)| (i, s.start, s.end)).unwrap())
                .collect()
        };
        match &row.body {
            Body::Intervals { .. } => row.interval_tracks().map(track_items).collect(),
            Body::Samples(track) => {
                let samples = (0..).map_while(|pos| track.get(m, pos));
                vec![samples.map(|(i, t, v)| (i, t, v as u64)).collect()]
            }
        }
    }

    /// What the whole trace's cells add up to on a few columns, drawn
    /// from the summaries: (time covered, items starting) per track.
    fn totals(row: &Row, m: &Model) -> Vec<(u64, u32)> {
        let cols = crate::line::Columns::new(0, m.info.duration_ns + 1, 3);
        let mut cells = Vec::new();
        row.interval_tracks()
            .map(|track| {
                track.cells(m, &cols, &mut cells);
                let covered = cells.iter().map(|c| c.covered_ns).sum();
                (covered, cells.iter().map(|c| c.starts).sum())
            })
            .collect()
    }

    #[test]
    fn a_timeline_extended_as_its_trace_grows_is_the_one_built_whole() {
        let config = tband_sim::Config {
            size: 400_000,
            ..tband_sim::Config::default()
        };
        let bytes = tband_sim::generate(&config).unwrap().0.remove(0);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("growing.bin");
        std::fs::File::create(&path).unwrap();
        let mut file =
            tband_trace::GrowingFile::open(&[path.display().to_string()], &Default::default())
                .unwrap();
        let mut model = Model::default();
        let mut grown = Rows::default();
        let (mut written, mut size) = (0, 300);
        let (mut looks, mut extended) = (0, 0);
        while written < bytes.len() {
            let end = (written + size).min(bytes.len());
            let mut out = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            std::io::Write::write_all(&mut out, &bytes[written..end]).unwrap();
            (written, size) = (end, size * 2);
            file.look(&mut model, u64::MAX).unwrap();
            // Built again only while the idle tasks are not all known.
            looks += 1;
            extended += usize::from(grown.extend(&model));
            // Summaries built early grow with the trace.
            grown.prepare_all(&model);
        }
        assert!(extended + 2 >= looks, "{extended} of {looks}");
        let whole = Rows::new(&model);
        assert_eq!(grown.all.len(), whole.all.len());
        assert!(whole.all.is_sorted_by_key(|r| (r.group, r.order, r.key)));
        let mut summarised = 0;
        for row in &whole.all {
            let other = grown.all.iter().find(|r| r.key == row.key).unwrap();
            assert_eq!(other.label, row.label);
            assert_eq!(other.idle_from, row.idle_from, "{}", row.label);
            assert_eq!(items(other, &model), items(row, &model), "{}", row.label);
            let long = row.interval_tracks().any(|t| t.len() > 1000);
            summarised += usize::from(long);
            assert_eq!(totals(other, &model), totals(row, &model), "{}", row.label);
        }
        assert!(summarised > 3, "rows drawn from their summaries");
        assert_eq!(grown.longest_label, whole.longest_label);
    }
}
