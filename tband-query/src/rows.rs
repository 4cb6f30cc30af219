//! The model as rows of SQL cells, table by table, in the column order of
//! [`crate::schema`]. Engines only decide how a row is written.

use tband_model::analysis;
use tband_model::{ArgValue, EventRow};
use tband_model::{IntoIter, Iter, Model, Row, StrId, Table as ModelTable};
use tband_model::{PriorityCause, QueueOpKind, StateReason, TaskStateKind};

use crate::schema::Table;

mod objects;
mod tracked;

/// One value going into the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell<'a> {
    Null,
    Int(i64),
    Text(&'a str),
}

impl From<u64> for Cell<'_> {
    /// Values beyond `i64::MAX` (only possible in raw event fields) become NULL.
    fn from(v: u64) -> Self {
        i64::try_from(v).map_or(Cell::Null, Cell::Int)
    }
}

impl From<u32> for Cell<'_> {
    fn from(v: u32) -> Self {
        Cell::Int(v.into())
    }
}

impl From<i64> for Cell<'_> {
    fn from(v: i64) -> Self {
        Cell::Int(v)
    }
}

impl From<bool> for Cell<'_> {
    fn from(v: bool) -> Self {
        Cell::Int(v.into())
    }
}

impl<'a> From<&'a str> for Cell<'a> {
    fn from(v: &'a str) -> Self {
        Cell::Text(v)
    }
}

/// The enums of columns stored as codes go in as their code: the variant's
/// position in its enum, which is the index of its text in the schema's
/// list (`schema::TASK_STATE_KINDS`, ...).
macro_rules! coded_enums {
    ($($enum:ty),*) => {$(
        impl From<$enum> for Cell<'_> {
            fn from(v: $enum) -> Self {
                Cell::Int(v as i64)
            }
        }
    )*};
}

coded_enums!(TaskStateKind, StateReason, PriorityCause, QueueOpKind);

impl<'a, T: Into<Cell<'a>>> From<Option<T>> for Cell<'a> {
    fn from(v: Option<T>) -> Self {
        v.map_or(Cell::Null, Into::into)
    }
}

/// Where rows of one table go; an error is the engine's message.
pub trait RowSink {
    fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), String>;
}

/// The model a load reads its rows from.
pub enum RowSource<'m> {
    /// A model read as it is, for loads that come back to it.
    Kept(&'m Model),
    /// A model given up as it is loaded: a model table is freed chunk by
    /// chunk as its rows are written, unless a table still to load reads
    /// it, so that the database grows into the memory the model gives up.
    /// The model's small parts stay until the source is dropped.
    Consumed {
        model: Box<Model>,
        /// The tables still to load.
        pending: Vec<&'static str>,
    },
}

impl RowSource<'static> {
    /// `model`, given up as `tables` are loaded from it in their order.
    pub fn consumed(model: Model, tables: &[&Table]) -> Self {
        RowSource::Consumed {
            model: Box::new(model),
            pending: tables.iter().map(|t| t.name).collect(),
        }
    }
}

impl RowSource<'_> {
    /// The model, or what is left of it.
    pub fn model(&self) -> &Model {
        match self {
            RowSource::Kept(model) => model,
            RowSource::Consumed { model, .. } => model,
        }
    }

    /// Takes the model table `part` out for the table being written to
    /// consume, unless the model is kept or a table still to load is one of
    /// the `readers` of that model table.
    fn take<R: Row>(
        &mut self,
        part: impl FnOnce(&mut Model) -> &mut ModelTable<R>,
        readers: &[&str],
    ) -> Option<ModelTable<R>> {
        match self {
            RowSource::Consumed { model, pending }
                if !pending.iter().any(|t| readers.contains(t)) =>
            {
                Some(std::mem::take(part(model)))
            }
            _ => None,
        }
    }
}

/// The rows of a model table by value: consumed if the table was taken out
/// of the model, else read in place.
enum Rows<'m, R: Row> {
    Read(Iter<'m, R>),
    Taken(Box<IntoIter<R>>),
}

impl<R: Row> Iterator for Rows<'_, R> {
    type Item = R;

    #[inline]
    fn next(&mut self) -> Option<R> {
        match self {
            Rows::Read(rows) => rows.next(),
            Rows::Taken(rows) => rows.next(),
        }
    }
}

/// The rows of `taken` if it is there, else of `kept`.
fn rows<R: Row>(taken: Option<ModelTable<R>>, kept: &ModelTable<R>) -> Rows<'_, R> {
    match taken {
        Some(table) => Rows::Taken(Box::new(table.into_iter())),
        None => Rows::Read(kept.iter()),
    }
}

/// Writes every row of `table` into `sink`. From a consumed source, the
/// model tables that no table still to load reads are freed as they are
/// written. The `events` table has no rows here: they are written while
/// the trace is decoded (see [`EventRows`]).
pub fn write_table<S: RowSink + ?Sized>(
    source: &mut RowSource<'_>,
    table: &Table,
    sink: &mut S,
) -> Result<(), String> {
    if let RowSource::Consumed { pending, .. } = source {
        pending.retain(|&t| t != table.name);
    }
    // The model tables and the tables that read each.
    const SCHED_SLICES: &[&str] = &["sched_slices", "cpu_timeline", "task_run_time"];
    const ISR_SLICES: &[&str] = &["isr_slices", "cpu_timeline", "task_run_time"];
    match table.name {
        "sched_slices" => {
            let taken = source.take(|m| &mut m.sched_slices, SCHED_SLICES);
            let m = source.model();
            each_row(rows(taken, &m.sched_slices), sink, |s| {
                [
                    s.core_id.into(),
                    s.task_id.into(),
                    s.start_ns.into(),
                    s.end_ns.into(),
                    dur(s.start_ns, s.end_ns),
                    s.truncated.into(),
                    s.end_state.into(),
                    s.end_state.map(|_| s.end_reason).into(),
                ]
            })
        }
        "task_states" => {
            let taken = source.take(|m| &mut m.task_states, &["task_states"]);
            let m = source.model();
            each_row(rows(taken, &m.task_states), sink, |s| {
                [
                    s.task_id.into(),
                    s.state.into(),
                    s.reason.into(),
                    s.queue_id.into(),
                    s.core_id.into(),
                    s.woken_by_isr.map(|k| k.core_id).into(),
                    s.woken_by_isr.map(|k| k.isr_id).into(),
                    s.start_ns.into(),
                    s.end_ns.into(),
                    dur(s.start_ns, s.end_ns),
                    s.truncated.into(),
                ]
            })
        }
        "task_priorities" => {
            let taken = source.take(|m| &mut m.task_priorities, &["task_priorities"]);
            let m = source.model();
            each_row(rows(taken, &m.task_priorities), sink, |p| {
                [
                    p.task_id.into(),
                    p.ts_ns.into(),
                    p.priority.into(),
                    p.cause.into(),
                ]
            })
        }
        "isr_slices" => {
            let taken = source.take(|m| &mut m.isr_slices, ISR_SLICES);
            let m = source.model();
            each_row(rows(taken, &m.isr_slices), sink, |s| {
                [
                    s.core_id.into(),
                    s.isr_id.into(),
                    s.start_ns.into(),
                    s.end_ns.into(),
                    dur(s.start_ns, s.end_ns),
                    s.depth.into(),
                    s.truncated.into(),
                ]
            })
        }
        "marker_spans" => {
            let taken = source.take(|m| &mut m.marker_spans, &["marker_spans"]);
            let m = source.model();
            each_row(rows(taken, &m.marker_spans), sink, |s| {
                [
                    s.marker_id.into(),
                    s.task_id.into(),
                    s.start_ns.into(),
                    s.end_ns.into(),
                    dur(s.start_ns, s.end_ns),
                    text(m, s.msg),
                    s.depth.into(),
                    s.truncated.into(),
                ]
            })
        }
        "marker_instants" => {
            let taken = source.take(|m| &mut m.marker_instants, &["marker_instants"]);
            let m = source.model();
            each_row(rows(taken, &m.marker_instants), sink, |i| {
                [
                    i.marker_id.into(),
                    i.task_id.into(),
                    i.ts_ns.into(),
                    text(m, i.msg),
                ]
            })
        }
        "marker_values" => {
            let taken = source.take(|m| &mut m.marker_values, &["marker_values"]);
            let m = source.model();
            each_row(rows(taken, &m.marker_values), sink, |v| {
                [
                    v.marker_id.into(),
                    v.task_id.into(),
                    v.ts_ns.into(),
                    v.value.into(),
                ]
            })
        }
        "queue_ops" => {
            let taken = source.take(|m| &mut m.queue_ops, &["queue_ops"]);
            let m = source.model();
            each_row(rows(taken, &m.queue_ops), sink, |o| {
                [
                    o.queue_id.into(),
                    o.ts_ns.into(),
                    o.op.into(),
                    o.from_isr.into(),
                    o.task_id.into(),
                    o.core_id.into(),
                    o.len_after.into(),
                ]
            })
        }
        "mutex_holds" => {
            let taken = source.take(|m| &mut m.mutex_holds, &["mutex_holds"]);
            let m = source.model();
            each_row(rows(taken, &m.mutex_holds), sink, |h| {
                [
                    h.queue_id.into(),
                    h.task_id.into(),
                    h.start_ns.into(),
                    h.end_ns.into(),
                    dur(h.start_ns, h.end_ns),
                    h.truncated.into(),
                ]
            })
        }
        "task_run_time" => {
            let times = analysis::task_core_times(source.model());
            each(&times, sink, |t| {
                [
                    t.core_id.into(),
                    t.task_id.into(),
                    t.slices.into(),
                    t.run_ns.into(),
                    t.isr_ns.into(),
                ]
            })
        }
        "cpu_timeline" => {
            let sched = source.take(|m| &mut m.sched_slices, SCHED_SLICES);
            let isr = source.take(|m| &mut m.isr_slices, ISR_SLICES);
            let m = source.model();
            let sched = rows(sched, &m.sched_slices);
            let isr = rows(isr, &m.isr_slices);
            analysis::for_each_cpu_piece(sched, isr, |p| {
                // Times past BIGINT's range are NULL in the database; a
                // piece ending there could not be placed in time, so it is
                // left out.
                if i64::try_from(p.end_ns).is_err() {
                    return Ok(());
                }
                sink.row(&[
                    p.core_id.into(),
                    p.start_ns.into(),
                    p.end_ns.into(),
                    dur(p.start_ns, p.end_ns),
                    p.task_id.into(),
                    p.in_isr.into(),
                ])
            })
        }
        "events" => Err("the events table is filled while the trace is decoded".into()),
        // The model's small parts, read in place.
        _ => small_table(source.model(), table, sink),
    }
}

/// Writes a table from the model's small parts.
fn small_table<S: RowSink + ?Sized>(m: &Model, table: &Table, sink: &mut S) -> Result<(), String> {
    match table.name {
        "trace_info" => trace_info(m, sink),
        "cores" => each(&m.cores, sink, |c| {
            [c.core_id.into(), c.idle_task_id.into()]
        }),
        "tasks" => each(&m.tasks, sink, |t| {
            [
                t.task_id.into(),
                t.name.as_str().into(),
                t.kind.as_str().into(),
                t.created_ns.into(),
                t.deleted_ns.into(),
                t.stack_size.into(),
                t.ever_waited.into(),
            ]
        }),
        "isrs" => each(&m.isrs, sink, |i| {
            [i.core_id.into(), i.isr_id.into(), i.name.as_str().into()]
        }),
        "markers" => each(&m.markers, sink, |k| {
            [
                k.marker_id.into(),
                k.task_id.into(),
                k.kind.as_str().into(),
                k.name.as_str().into(),
            ]
        }),
        "queues" => each(&m.queues, sink, |q| {
            [
                q.queue_id.into(),
                q.name.as_str().into(),
                q.kind.as_str().into(),
                q.capacity.into(),
                q.high_water.into(),
            ]
        }),
        "anomalies" => each(&m.anomalies, sink, |a| {
            [
                a.kind.as_str().into(),
                a.core_id.into(),
                a.start_ns.into(),
                a.end_ns.into(),
                a.count.into(),
                a.detail.as_str().into(),
            ]
        }),
        "object_lifetimes" | "object_marks" | "object_counters" => tracked::write(m, table, sink),
        other => objects::write(&m.rtos_objects, other, sink)
            .unwrap_or_else(|| unreachable!("schema table {other} has no rows")),
    }
}

fn each<'m, T, S: RowSink + ?Sized, const N: usize>(
    rows: &'m [T],
    sink: &mut S,
    cells: impl Fn(&'m T) -> [Cell<'m>; N],
) -> Result<(), String> {
    rows.iter().try_for_each(|r| sink.row(&cells(r)))
}

/// [`each`] for the model's column tables, which yield rows by value.
fn each_row<'m, R: Row, S: RowSink + ?Sized, const N: usize>(
    mut rows: impl Iterator<Item = R>,
    sink: &mut S,
    cells: impl Fn(R) -> [Cell<'m>; N],
) -> Result<(), String> {
    rows.try_for_each(|r| sink.row(&cells(r)))
}

/// The `dur_ns` a table stores: NULL where the view's `end_ns - start_ns`
/// gives the duration, which is wherever both times fit BIGINT (times past
/// it are NULL); else the duration itself, NULL if it does not fit either.
/// An end before the start, which the model does not make, would be 0.
fn dur<'a>(start_ns: u64, end_ns: u64) -> Cell<'a> {
    if end_ns >= start_ns && i64::try_from(end_ns).is_ok() {
        Cell::Null
    } else {
        end_ns.saturating_sub(start_ns).into()
    }
}

fn text(m: &Model, id: StrId) -> Cell<'_> {
    Cell::Text(m.strings.get(id))
}

fn trace_info<S: RowSink + ?Sized>(m: &Model, sink: &mut S) -> Result<(), String> {
    let i = &m.info;
    let sources = i.sources.join(", ");
    sink.row(&[
        i.format.as_str().into(),
        sources.as_str().into(),
        (m.cores.len() as u64).into(),
        i.ns_per_tick.into(),
        i.ns_per_tick_known.into(),
        i.first_ts_raw.into(),
        i.duration_ns.into(),
        i.events.into(),
        i.invalid_frames.into(),
        env!("CARGO_PKG_VERSION").into(),
    ])
}

/// The rows of the `events` table, from the events an importer hands on:
/// integer fields fill arg1..arg3 in field order, the string field (at most
/// one per event) goes to `arg_text`. The first error stops the writing.
pub struct EventRows<'s> {
    sink: &'s mut dyn RowSink,
    seq: i64,
    written: Result<(), String>,
}

impl<'s> EventRows<'s> {
    pub fn new(sink: &'s mut dyn RowSink) -> Self {
        EventRows {
            sink,
            seq: 0,
            written: Ok(()),
        }
    }

    pub fn event(&mut self, e: &EventRow<'_>) {
        if self.written.is_err() {
            return;
        }
        let mut ints = [Cell::Null; 3];
        let mut n = 0;
        let mut msg = None;
        for &(_, value) in e.args {
            let cell = match value {
                ArgValue::Int(v) => v.into(),
                ArgValue::UInt(v) => v.into(),
                ArgValue::Str(bytes) => {
                    msg = Some(String::from_utf8_lossy(bytes));
                    continue;
                }
            };
            if let Some(slot) = ints.get_mut(n) {
                *slot = cell;
                n += 1;
            }
        }
        self.written = self.sink.row(&[
            self.seq.into(),
            e.ts_ns.into(),
            e.core_id.into(),
            e.name.into(),
            ints[0],
            ints[1],
            ints[2],
            msg.as_deref().into(),
        ]);
        self.seq += 1;
    }

    /// Whether every row was written.
    pub fn finish(self) -> Result<(), String> {
        self.written
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{self, EVENTS, ON_DEMAND};
    use tband_trace::input::Input;
    use tband_trace::{OpenOptions, Trace};

    /// Lifetime rules that make objects of the simulator's markers.
    const MARKER_RULES: &str = "
        [[rule]]
        event = \"evtmarker_begin\"
        action = \"begin\"
        kind = \"span\"
        key = \"evtmarker_id\"
        name = \"msg\"
        [[rule]]
        event = \"evtmarker_end\"
        action = \"end\"
        kind = \"span\"
        key = \"evtmarker_id\"
        [[rule]]
        event = \"valmarker\"
        action = \"mark\"
        kind = \"span\"
        key = \"valmarker_id\"
        value = \"val\"
        [[rule]]
        event = \"valmarker\"
        action = \"counter\"
        kind = \"span\"
        key = \"valmarker_id\"
        counter = \"value\"
        value = \"val\"
    ";

    /// The model of a simulated two-core trace with every kind of row.
    fn model() -> Model {
        let config = tband_sim::Config {
            cores: 2,
            size: 256 << 10,
            wide_values: true,
            ..tband_sim::Config::default()
        };
        let (streams, _) = tband_sim::generate(&config).unwrap();
        let inputs = Input::per_core("sim", streams);
        let rules = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(rules.path(), MARKER_RULES).unwrap();
        let options = OpenOptions {
            rules: Some(rules.path().to_path_buf()),
            ..OpenOptions::default()
        };
        let mut model = Trace::from_inputs(inputs, &options).unwrap().model;
        with_rtos_objects(&mut model);
        model
    }

    /// One row of each of the model's RTOS objects, which the simulator
    /// does not make.
    fn with_rtos_objects(m: &mut Model) {
        use tband_model::*;
        let o = &mut m.rtos_objects;
        o.notifications.push(Notification {
            ts_ns: 1,
            task_id: 1,
            op: NotificationOp::Given,
            value: 2,
            from_isr: false,
            by_task_id: Some(2),
            core_id: 0,
        });
        o.event_groups.push(EventGroup {
            group_id: 1,
            name: "group".into(),
        });
        o.event_group_ops.push(EventGroupOp {
            ts_ns: 2,
            group_id: 1,
            op: EventGroupOpKind::Set,
            bits: 3,
            from_isr: true,
            task_id: None,
            core_id: 1,
        });
        o.stream_buffers.push(StreamBuffer {
            buffer_id: 1,
            name: "bytes".into(),
            kind: StreamBufferKind::Message,
            high_water: 8,
        });
        o.stream_buffer_ops.push(StreamBufferOp {
            ts_ns: 3,
            buffer_id: 1,
            op: StreamBufferOpKind::Send,
            from_isr: false,
            task_id: Some(1),
            core_id: 0,
            bytes_after: 8,
        });
        o.timers.push(Timer {
            timer_id: 1,
            name: "timer".into(),
        });
        o.timer_ops.push(TimerOp {
            ts_ns: 4,
            timer_id: 1,
            op: TimerOpKind::Start,
            command: Some(1),
            from_isr: false,
            task_id: Some(1),
            core_id: 0,
        });
    }

    #[derive(Default)]
    struct Collect(Vec<String>);

    impl RowSink for Collect {
        fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), String> {
            self.0.push(format!("{cells:?}"));
            Ok(())
        }
    }

    fn write_all(source: &mut RowSource<'_>, tables: &[&Table]) -> Vec<Vec<String>> {
        tables
            .iter()
            .map(|table| {
                let mut rows = Collect::default();
                write_table(source, table, &mut rows).unwrap();
                rows.0
            })
            .collect()
    }

    #[test]
    fn a_consumed_trace_gives_the_rows_of_a_kept_one_and_ends_empty() {
        let kept = model();
        let always: Vec<&Table> = schema::model_tables()
            .into_iter()
            .filter(|t| !ON_DEMAND.iter().any(|o| o.name == t.name))
            .collect();
        for tables in [schema::model_tables(), always] {
            let expected = write_all(&mut RowSource::Kept(&kept), &tables);
            assert!(expected.iter().all(|rows| !rows.is_empty()));
            let mut consumed = RowSource::consumed(model(), &tables);
            assert_eq!(write_all(&mut consumed, &tables), expected);
            // Every model table was given up as it was written, the slices
            // after `cpu_timeline` when it is loaded.
            let m = consumed.model();
            assert!(m.sched_slices.is_empty() && m.task_states.is_empty());
            assert!(m.isr_slices.is_empty() && m.queue_ops.is_empty());
            assert!(m.marker_spans.is_empty() && m.marker_values.is_empty());
            assert!(!m.tasks.is_empty());
        }
        // A kept model stays whole.
        assert!(!kept.task_states.is_empty());
    }

    #[test]
    fn events_number_their_integer_fields_and_keep_their_text() {
        let mut rows = Collect::default();
        let mut events = EventRows::new(&mut rows);
        let args = [
            ("a", ArgValue::UInt(1)),
            ("name", ArgValue::Str(b"x\xff")),
            ("b", ArgValue::Int(-2)),
            ("c", ArgValue::UInt(u64::MAX)),
            ("d", ArgValue::UInt(4)),
        ];
        let event = |ts_ns, args| EventRow {
            ts_ns,
            core_id: 1,
            class: 0,
            name: "e",
            args,
            actor: None,
        };
        events.event(&event(Some(5), &args));
        events.event(&event(None, &[]));
        events.finish().unwrap();
        let null = Cell::Null;
        let text = Cell::Text("x\u{FFFD}");
        let e = Cell::Text("e");
        assert_eq!(
            rows.0,
            [
                format!(
                    "{:?}",
                    [
                        Cell::Int(0),
                        Cell::Int(5),
                        Cell::Int(1),
                        e,
                        Cell::Int(1),
                        Cell::Int(-2),
                        null,
                        text
                    ]
                ),
                format!(
                    "{:?}",
                    [Cell::Int(1), null, Cell::Int(1), e, null, null, null, null]
                ),
            ]
        );
        assert!(write_table(&mut RowSource::Kept(&model()), &EVENTS, &mut rows).is_err());
    }

    /// Every variant of an enum. The match fails to compile when the model
    /// gains a variant the list lacks.
    macro_rules! every {
        ($enum:ident: $($variant:ident),*) => {{
            let _ = |v: $enum| match v {
                $($enum::$variant)|* => (),
            };
            [$($enum::$variant),*]
        }};
    }

    fn assert_codes<E: Copy + Into<Cell<'static>>>(
        every: &[E],
        texts: &[&str],
        as_str: fn(E) -> &'static str,
    ) {
        assert_eq!(every.len(), texts.len());
        for &v in every {
            let Cell::Int(code) = v.into() else {
                panic!("{} is not coded", as_str(v))
            };
            let text = usize::try_from(code).ok().and_then(|c| texts.get(c));
            assert_eq!(text, Some(&as_str(v)), "code {code}");
        }
    }

    #[test]
    fn each_code_stands_for_the_text_of_its_variant() {
        use tband_model::{
            PriorityCause as P, QueueOpKind as Q, StateReason as R, TaskStateKind as S,
        };
        let states = every!(S: Running, Ready, Blocked, Suspended, Deleted);
        assert_codes(&states, schema::TASK_STATE_KINDS, S::as_str);
        let reasons = every!(
            R: None, Preempted, Woken, Created, Delay, DelayUntil, QueueSend, QueueReceive,
            QueuePeek, Semaphore, Mutex, EventFlags, Sleep, Suspend, Deleted
        );
        assert_codes(&reasons, schema::STATE_REASONS, R::as_str);
        assert_codes(
            &every!(P: Set, Inherit, Disinherit),
            schema::PRIORITY_CAUSES,
            P::as_str,
        );
        let ops = every!(Q: Send, Overwrite, Receive, Reset, Level);
        assert_codes(&ops, schema::QUEUE_OP_KINDS, Q::as_str);
    }

    #[test]
    fn durations_are_stored_only_where_sql_cannot_compute_them() {
        let past = 1 << 63;
        assert_eq!(dur(5, 9), Cell::Null);
        assert_eq!(dur(5, 5), Cell::Null);
        assert_eq!(dur(past + 1, past + 255), Cell::Int(254));
        assert_eq!(dur(1, past), Cell::Int(i64::MAX));
        assert_eq!(dur(0, past), Cell::Null);
    }

    #[test]
    fn sources_cross_to_a_loading_thread() {
        // DuckDB produces the rows on a second thread.
        fn send<T: Send>() {}
        send::<RowSource<'_>>();
    }
}
