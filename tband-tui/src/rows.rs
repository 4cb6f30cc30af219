//! The timeline's rows, built from the model and extended with a model of
//! the trace that grows: one per core (who ran), per ISR, per task (its
//! states), per event marker (nested spans and instants), per value marker
//! per queue and stream buffer (fill level), and per task notified, event
//! group and software timer (instants).

use std::borrow::Cow;
use std::fmt;

use tband_model::{IdMap, IsrKey, MarkerKind, Model, TaskKind};

use crate::indices::Indices;
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
    RtosObjects,
}

impl Group {
    pub const ALL: [Group; 7] = [
        Group::Cores,
        Group::Isrs,
        Group::Tasks,
        Group::Markers,
        Group::Values,
        Group::Queues,
        Group::RtosObjects,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Group::Cores => "cores",
            Group::Isrs => "ISRs",
            Group::Tasks => "task states",
            Group::Markers => "markers",
            Group::Values => "values",
            Group::Queues => "queue levels",
            Group::RtosObjects => "RTOS objects",
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

/// Which row a row is: what it shows, by id. Rows are shown in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RowKey {
    Core(u32),
    Isr(IsrKey),
    Task(u32),
    /// An event marker: its task (none for a global one) and id.
    Marker(Option<u32>, u32),
    /// A value marker: its task (none for a global one) and id.
    Value(Option<u32>, u32),
    Queue(u32),
    /// A stream or message buffer, by id.
    StreamBuffer(u32),
    /// The notifications given to and taken by a task.
    Notifications(u32),
    EventGroup(u32),
    Timer(u32),
}

impl RowKey {
    pub fn group(self) -> Group {
        match self {
            RowKey::Core(_) => Group::Cores,
            RowKey::Isr(_) => Group::Isrs,
            RowKey::Task(_) => Group::Tasks,
            RowKey::Marker(..) => Group::Markers,
            RowKey::Value(..) => Group::Values,
            RowKey::Queue(_) | RowKey::StreamBuffer(_) => Group::Queues,
            RowKey::Notifications(_) | RowKey::EventGroup(_) | RowKey::Timer(_) => {
                Group::RtosObjects
            }
        }
    }

    /// The row's label as the model names it now: a name, after its
    /// core's or task's (`c0 UART`, `producer/tick`).
    fn label(self, m: &Model) -> Label<'_> {
        let task_name = |task_id| match m.task(task_id) {
            Some(t) => Cow::Borrowed(t.name.as_str()),
            None => Cow::Owned(format!("task {task_id}")),
        };
        let marker = |task_id: Option<u32>, marker_id, kind| {
            let key = (task_id, kind as u8, marker_id);
            let found =
                (m.markers).binary_search_by_key(&key, |k| (k.task_id, k.kind as u8, k.marker_id));
            Label {
                owner: task_id.map(|task| (task_name(task), '/')),
                name: match found {
                    Ok(i) => Cow::Borrowed(m.markers[i].name.as_str()),
                    Err(_) => Cow::Owned(format!("marker {marker_id}")),
                },
            }
        };
        let named = |name| Label { owner: None, name };
        match self {
            RowKey::Core(core_id) => named(Cow::Owned(format!("core {core_id}"))),
            RowKey::Isr(key) => Label {
                owner: Some((Cow::Owned(format!("c{}", key.core_id)), ' ')),
                name: match m.isr(key) {
                    Some(isr) => Cow::Borrowed(isr.name.as_str()),
                    None => Cow::Owned(format!("isr {}", key.isr_id)),
                },
            },
            RowKey::Task(task_id) => named(task_name(task_id)),
            RowKey::Marker(task_id, id) => marker(task_id, id, MarkerKind::Event),
            RowKey::Value(task_id, id) => marker(task_id, id, MarkerKind::Value),
            RowKey::Queue(queue_id) => named(match m.queue(queue_id) {
                Some(q) => Cow::Borrowed(q.name.as_str()),
                None => Cow::Owned(format!("queue {queue_id}")),
            }),
            RowKey::StreamBuffer(buffer_id) => named(match m.objects.stream_buffer(buffer_id) {
                Some(b) => Cow::Borrowed(b.name.as_str()),
                None => Cow::Owned(format!("stream buffer {buffer_id}")),
            }),
            RowKey::Notifications(task_id) => Label {
                owner: Some((task_name(task_id), '/')),
                name: Cow::Borrowed("notifications"),
            },
            RowKey::EventGroup(group_id) => named(match m.objects.event_group(group_id) {
                Some(g) => Cow::Borrowed(g.name.as_str()),
                None => Cow::Owned(format!("event group {group_id}")),
            }),
            RowKey::Timer(timer_id) => named(match m.objects.timer(timer_id) {
                Some(t) => Cow::Borrowed(t.name.as_str()),
                None => Cow::Owned(format!("timer {timer_id}")),
            }),
        }
    }
}

/// A row's label in its parts, borrowed from the model where it can be, so
/// that a label that has not changed is checked without being made.
struct Label<'m> {
    /// What the name belongs to, and the character after it.
    owner: Option<(Cow<'m, str>, char)>,
    name: Cow<'m, str>,
}

impl Label<'_> {
    fn is(&self, label: &str) -> bool {
        let rest = match &self.owner {
            Some((owner, after)) => label
                .strip_prefix(owner.as_ref())
                .and_then(|rest| rest.strip_prefix(*after)),
            None => Some(label),
        };
        rest == Some(self.name.as_ref())
    }
}

impl fmt::Display for Label<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((owner, after)) = &self.owner {
            write!(f, "{owner}{after}")?;
        }
        f.write_str(&self.name)
    }
}

#[derive(Clone, Debug)]
pub struct Row {
    pub key: RowKey,
    pub group: Group,
    pub label: String,
    pub body: Body,
    /// For core rows: from when on uncovered time is idle time (before the
    /// first switch nothing is known).
    pub idle_from: Option<u64>,
}

impl Row {
    fn new(key: RowKey, body: Body) -> Row {
        Row {
            key,
            group: key.group(),
            label: String::new(),
            body,
            idle_from: None,
        }
    }

    fn intervals(key: RowKey, source: IntervalSource) -> Row {
        let body = Body::Intervals {
            lines: vec![IntervalTrack::new(source, Indices::default())],
            ticks: None,
        };
        Row::new(key, body)
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

    /// The row's first interval track (a core's, an ISR's, a task's).
    fn track(&mut self) -> &mut IntervalTrack {
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

/// All rows, plus the anomalies drawn on the time axis. A timeline built
/// whole has its rows in [`RowKey`] order; one that grows with its trace
/// ([`Timeline::extend`]) adds new rows at the end, so that a row's index
/// stays its own.
#[derive(Clone, Debug)]
pub struct Timeline {
    pub rows: Vec<Row>,
    pub anomalies: IntervalTrack,
    /// Characters in the longest row label.
    pub longest_label: usize,
    /// The rows of each model table already in tracks.
    seen: TableLengths,
    /// The idle tasks, whose slices core rows leave out.
    idle_tasks: Vec<u32>,
    /// Each row's index.
    index: IdMap<RowKey, usize>,
}

impl Default for Timeline {
    fn default() -> Self {
        Timeline {
            rows: Vec::new(),
            anomalies: IntervalTrack::new(IntervalSource::Anomalies, Indices::default()),
            longest_label: 0,
            seen: TableLengths::default(),
            idle_tasks: Vec::new(),
            index: IdMap::default(),
        }
    }
}

/// How many rows each model table that rows index has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct TableLengths {
    sched_slices: usize,
    task_states: usize,
    isr_slices: usize,
    marker_spans: usize,
    marker_instants: usize,
    marker_values: usize,
    queue_ops: usize,
    stream_buffer_ops: usize,
    notifications: usize,
    event_group_ops: usize,
    timer_ops: usize,
}

impl TableLengths {
    fn of(m: &Model) -> TableLengths {
        TableLengths {
            sched_slices: m.sched_slices.len(),
            task_states: m.task_states.len(),
            isr_slices: m.isr_slices.len(),
            marker_spans: m.marker_spans.len(),
            marker_instants: m.marker_instants.len(),
            marker_values: m.marker_values.len(),
            queue_ops: m.queue_ops.len(),
            stream_buffer_ops: m.objects.stream_buffer_ops.len(),
            notifications: m.objects.notifications.len(),
            event_group_ops: m.objects.event_group_ops.len(),
            timer_ops: m.objects.timer_ops.len(),
        }
    }

    /// Whether every table is at least as long as here.
    fn within(&self, other: &TableLengths) -> bool {
        self.sched_slices <= other.sched_slices
            && self.task_states <= other.task_states
            && self.isr_slices <= other.isr_slices
            && self.marker_spans <= other.marker_spans
            && self.marker_instants <= other.marker_instants
            && self.marker_values <= other.marker_values
            && self.queue_ops <= other.queue_ops
            && self.stream_buffer_ops <= other.stream_buffer_ops
            && self.notifications <= other.notifications
            && self.event_group_ops <= other.event_group_ops
            && self.timer_ops <= other.timer_ops
    }
}

impl Timeline {
    pub fn new(m: &Model) -> Timeline {
        let mut timeline = Timeline::default();
        timeline.add_rows_of(m);
        timeline.rows.sort_by_key(|r| r.key);
        timeline.index = (timeline.rows.iter().enumerate())
            .map(|(i, r)| (r.key, i))
            .collect();
        for row in &mut timeline.rows {
            row.shrink_to_fit();
        }
        timeline
    }

    /// Adds what a later model of the same growing trace has beyond the
    /// one the timeline shows: new items to their rows, new rows at the
    /// end; labels and anomalies as the model has them now. Returns false
    /// when the timeline could not be extended but was built again (the
    /// model is not a later one of the same trace, or a task became an
    /// idle task): then the rows' indices have changed.
    pub fn extend(&mut self, m: &Model) -> bool {
        if !self.seen.within(&TableLengths::of(m)) || idle_tasks(m) != self.idle_tasks {
            *self = Timeline::new(m);
            return false;
        }
        self.add_rows_of(m);
        for row in &mut self.rows {
            row.grow(m);
        }
        true
    }

    /// Adds the model's rows beyond those already seen to their tracks,
    /// with new rows as needed, and takes the labels and anomalies.
    fn add_rows_of(&mut self, m: &Model) {
        let from = self.seen;
        self.idle_tasks = idle_tasks(m);

        // Idle time is left uncovered in core rows, so a column's covered
        // share is its busy share and its dominant task a real one.
        // Without any scheduling (bare metal) core rows would say nothing.
        for (i, s) in m.sched_slices.iter().enumerate().skip(from.sched_slices) {
            let idle = self.idle_tasks.contains(&s.task_id);
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
            let key = RowKey::Isr(IsrKey {
                core_id: s.core_id,
                isr_id: s.isr_id,
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
            self.row(RowKey::Task(s.task_id), IntervalSource::TaskStates)
                .track()
                .push(i as u32);
        }
        for task in &m.tasks {
            self.row(RowKey::Task(task.task_id), IntervalSource::TaskStates);
        }

        for (i, s) in m.marker_spans.iter().enumerate().skip(from.marker_spans) {
            let line = (s.depth as usize).min(MAX_SPAN_LINES - 1);
            let Body::Intervals { lines, .. } = &mut self.marker_row(s.marker_id, s.task_id).body
            else {
                continue;
            };
            while lines.len() <= line {
                lines.push(IntervalTrack::new(
                    IntervalSource::MarkerSpans,
                    Indices::default(),
                ));
            }
            lines[line].push(i as u32);
        }
        for (i, s) in (m.marker_instants.iter().enumerate()).skip(from.marker_instants) {
            let Body::Intervals { ticks, .. } = &mut self.marker_row(s.marker_id, s.task_id).body
            else {
                continue;
            };
            ticks
                .get_or_insert_with(|| {
                    IntervalTrack::new(IntervalSource::MarkerInstants, Indices::default())
                })
                .push(i as u32);
        }
        for (i, v) in m.marker_values.iter().enumerate().skip(from.marker_values) {
            let key = RowKey::Value(v.task_id, v.marker_id);
            self.sample_row(key, SampleSource::MarkerValues)
                .push(i as u32);
        }
        // Only operations that know the fill level.
        for (i, op) in m.queue_ops.iter().enumerate().skip(from.queue_ops) {
            if op.len_after.is_some() {
                let key = RowKey::Queue(op.queue_id);
                self.sample_row(key, SampleSource::QueueLevels)
                    .push(i as u32);
            }
        }
        let buffer_ops = m.objects.stream_buffer_ops.iter().enumerate();
        for (i, op) in buffer_ops.skip(from.stream_buffer_ops) {
            let key = RowKey::StreamBuffer(op.buffer_id);
            self.sample_row(key, SampleSource::StreamBufferLevels)
                .push(i as u32);
        }
        self.add_object_rows(m, &from);
        self.seen = TableLengths::of(m);

        for row in &mut self.rows {
            let label = row.key.label(m);
            if !label.is(&row.label) {
                row.label = label.to_string();
            }
        }
        self.longest_label = (self.rows.iter())
            .map(|r| r.label.chars().count())
            .max()
            .unwrap_or(0);
        // Anomalies are kept by end; tracks are in start order.
        let mut by_start: Vec<u32> = (0..m.anomalies.len() as u32).collect();
        by_start.sort_by_key(|&i| m.anomalies[i as usize].start_ns);
        self.anomalies =
            IntervalTrack::new(IntervalSource::Anomalies, by_start.into_iter().collect());
    }

    /// The index of the row of `key`, if there is one.
    pub fn row_of(&self, key: RowKey) -> Option<usize> {
        self.index.get(&key).copied()
    }

    /// The row of `key`, a row of intervals of `source`, made if new.
    fn row(&mut self, key: RowKey, source: IntervalSource) -> &mut Row {
        self.row_or_new(key, || Row::intervals(key, source))
    }

    /// The instants of notifications, event groups and timers added since `from`.
    fn add_object_rows(&mut self, m: &Model, from: &TableLengths) {
        let o = &m.objects;
        for (i, n) in o.notifications.iter().enumerate().skip(from.notifications) {
            let key = RowKey::Notifications(n.task_id);
            self.row(key, IntervalSource::Notifications)
                .track()
                .push(i as u32);
        }
        for (i, e) in o
            .event_group_ops
            .iter()
            .enumerate()
            .skip(from.event_group_ops)
        {
            let key = RowKey::EventGroup(e.group_id);
            self.row(key, IntervalSource::EventGroupOps)
                .track()
                .push(i as u32);
        }
        for (i, t) in o.timer_ops.iter().enumerate().skip(from.timer_ops) {
            self.row(RowKey::Timer(t.timer_id), IntervalSource::TimerOps)
                .track()
                .push(i as u32);
        }
    }

    /// The row of an event marker, made if new.
    fn marker_row(&mut self, marker_id: u32, task_id: Option<u32>) -> &mut Row {
        let key = RowKey::Marker(task_id, marker_id);
        let body = || Body::Intervals {
            lines: Vec::new(),
            ticks: None,
        };
        self.row_or_new(key, || Row::new(key, body()))
    }

    /// The track of a row of samples of `source`, made if new.
    fn sample_row(&mut self, key: RowKey, source: SampleSource) -> &mut SampleTrack {
        let row = self.row_or_new(key, || {
            Row::new(
                key,
                Body::Samples(SampleTrack::new(source, Indices::default())),
            )
        });
        match &mut row.body {
            Body::Samples(track) => track,
            Body::Intervals { .. } => unreachable!("a row of samples"),
        }
    }

    fn row_or_new(&mut self, key: RowKey, new: impl FnOnce() -> Row) -> &mut Row {
        let index = *self.index.entry(key).or_insert_with(|| {
            self.rows.push(new());
            self.rows.len() - 1
        });
        &mut self.rows[index]
    }
}

/// The model's idle tasks, in id order.
fn idle_tasks(m: &Model) -> Vec<u32> {
    m.tasks
        .iter()
        .filter(|t| t.kind == TaskKind::Idle)
        .map(|t| t.task_id)
        .collect()
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

    /// A row's items, as (model row, start, end) per line and tick.
    fn items(row: &Row, m: &Model) -> Vec<Vec<(u32, u64, u64)>> {
        let track_items = |track: &IntervalTrack| {
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
        let cols = crate::track::Columns::new(0, m.info.duration_ns + 1, 3);
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
        let mut grown = Timeline::default();
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
        let whole = Timeline::new(&model);
        assert_eq!(grown.rows.len(), whole.rows.len());
        assert!(whole.rows.is_sorted_by_key(|r| r.key));
        let mut summarised = 0;
        for row in &whole.rows {
            let other = grown.rows.iter().find(|r| r.key == row.key).unwrap();
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
