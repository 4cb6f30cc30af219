//! The rows of every table. They agree with the schema: a row has a value
//! for each column, in the columns' order, and each value fits the type
//! the column is stored as (NULL anywhere, an integer in a BIGINT column
//! and among the texts of a column stored as codes, text in a TEXT
//! column), on the recordings in `tests/corpus/` and `samples/`, the
//! lifetimes tests' trace, the memory stream's trace, the crash stream's
//! trace and a simulated trace with every kind of row.
//! And a model given up as it is loaded gives the rows of a kept one.

#[path = "../../tests/fault/stream.rs"]
mod crash;
#[path = "../../tests/golden/harness.rs"]
mod harness;
#[path = "../../tests/lifetimes/net_buf_trace.rs"]
mod net_buf_trace;
#[path = "../../tests/memory/stream.rs"]
mod stream;

use std::collections::BTreeMap;
use std::path::Path;

use tband_decode::encode::encode_stream;
use tband_model::Model;
use tband_query::rows::{Cell, RowSink, RowSource};
use tband_query::schema::{Column, ColumnType, Stored, Table};
use tband_query::tables::{self, EventRows, Events, ON_DEMAND, TABLES};
use tband_trace::input::Input;
use tband_trace::{OpenOptions, Source, Trace};

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
    with_log_line(&mut model);
    model.memory = Trace::from_inputs(memory_inputs(), &OpenOptions::default())
        .unwrap()
        .model
        .memory;
    model.faults = Trace::from_inputs(crash_inputs(), &OpenOptions::default())
        .unwrap()
        .model
        .faults;
    model
}

/// The crash stream's trace, whose fault the simulator does not make.
fn crash_inputs() -> Vec<Input> {
    Input::per_core("crash", vec![encode_stream(&crash::crash())])
}

/// The memory stream's trace, whose heap and stacks the simulator does
/// not make.
fn memory_inputs() -> Vec<Input> {
    Input::per_core("memory", vec![encode_stream(&stream::events())])
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
        group: 0,
        op: EventGroupOpKind::Set,
        bits: 3,
        from_isr: true,
        task: None,
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
        buffer: 0,
        op: StreamBufferOpKind::Send,
        from_isr: false,
        task: Some(0),
        core_id: 0,
        bytes_after: 8,
    });
    o.timers.push(Timer {
        timer_id: 1,
        name: "timer".into(),
    });
    o.timer_ops.push(TimerOp {
        ts_ns: 4,
        timer: 0,
        op: TimerOpKind::Start,
        command: Some(1),
        from_isr: false,
        task: Some(0),
        core_id: 0,
    });
}

/// A decoded log line, which needs a firmware's ELF (the QEMU embassy
/// test decodes real ones).
fn with_log_line(m: &mut Model) {
    use tband_model::*;
    m.logs.push(LogLine {
        ts_ns: 5,
        core_id: 0,
        by: Some(Actor::Task(1)),
        frame: vec![1, 0],
        message: Some(LogMessage {
            level: Some(LogLevel::Info),
            text: "started".into(),
            file: Some("src/main.rs".into()),
            line: Some(12),
        }),
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

fn write_all(source: &mut RowSource<'_>, tables: &[&dyn Table]) -> Vec<Vec<String>> {
    tables
        .iter()
        .map(|table| {
            let mut rows = Collect::default();
            table.write(source, &mut rows).unwrap();
            rows.0
        })
        .collect()
}

#[test]
fn a_consumed_trace_gives_the_rows_of_a_kept_one_and_ends_empty() {
    let kept = model();
    let always: Vec<&dyn Table> = tables::model_tables()
        .into_iter()
        .filter(|t| !ON_DEMAND.iter().any(|o| o.name() == t.name()))
        .collect();
    for tables in [tables::model_tables(), always] {
        let expected = write_all(&mut RowSource::Kept(&kept), &tables);
        assert!(expected.iter().all(|rows| !rows.is_empty()));
        let mut consumed = RowSource::consumed(model(), tables.iter().map(|t| t.name()));
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

/// Checks each row it is given against the columns of its table.
struct Agreement {
    table: &'static str,
    columns: Vec<&'static Column>,
    rows: u64,
}

impl Agreement {
    fn new(table: &'static dyn Table) -> Self {
        Agreement {
            table: table.name(),
            columns: table.columns(),
            rows: 0,
        }
    }
}

impl RowSink for Agreement {
    fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), String> {
        let names: Vec<&str> = self.columns.iter().map(|c| c.name).collect();
        if cells.len() != self.columns.len() {
            return Err(format!(
                "{}: a row of {} values for the columns {names:?}",
                self.table,
                cells.len()
            ));
        }
        for (cell, column) in cells.iter().zip(&self.columns) {
            let fits = match (*cell, column.stored_type(), column.stored) {
                (Cell::Null, _, _) => true,
                (Cell::Int(code), ColumnType::BigInt, Stored::Code(texts)) => {
                    usize::try_from(code).is_ok_and(|c| c < texts.len())
                }
                (Cell::Int(_), ColumnType::BigInt, _) => true,
                (Cell::Text(_), ColumnType::Text, _) => true,
                _ => false,
            };
            if !fits {
                return Err(format!(
                    "{}.{} is stored as {} but has {cell:?}",
                    self.table,
                    column.name,
                    column.stored_type().sql()
                ));
            }
        }
        self.rows += 1;
        Ok(())
    }
}

/// Checks the rows of every table of `model` ([`TABLES`] but events); adds
/// the rows of each to `rows`.
fn check_model(model: &Model, rows: &mut BTreeMap<&'static str, u64>) {
    for &table in TABLES.iter().filter(|t| t.name() != Events.name()) {
        let mut agreement = Agreement::new(table);
        let written = table.write(&mut RowSource::Kept(model), &mut agreement);
        written.unwrap_or_else(|e| panic!("{e}"));
        *rows.entry(agreement.table).or_default() += agreement.rows;
    }
}

/// Checks the rows of every table of the trace `args`, events too.
fn check_trace(args: &[String], rows: &mut BTreeMap<&'static str, u64>) {
    let options = OpenOptions::default();
    let source = Source::open(args, &options).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    let mut events = Agreement::new(&Events);
    let mut event_rows = EventRows::new(&mut events);
    let trace = Trace::build_with_events(source, &options, &mut |e| event_rows.event(e))
        .unwrap_or_else(|e| panic!("{args:?}: {e}"));
    event_rows
        .finish()
        .unwrap_or_else(|e| panic!("{args:?}: {e}"));
    *rows.entry(events.table).or_default() += events.rows;
    check_model(&trace.model, rows);
}

#[test]
fn every_row_has_its_tables_columns_and_types() {
    let mut rows = BTreeMap::new();
    for trace in harness::traces() {
        let args: Vec<String> = trace
            .args
            .iter()
            .map(|a| harness::root().join(a).display().to_string())
            .collect();
        check_trace(&args, &mut rows);
    }
    let under = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rows");
    let net_buf = net_buf_trace::write(&under).display().to_string();
    check_trace(&[net_buf], &mut rows);
    let memory = under.join("memory.bin");
    std::fs::write(&memory, encode_stream(&stream::events())).unwrap();
    check_trace(&[memory.display().to_string()], &mut rows);
    let crashed = under.join("crash.bin");
    std::fs::write(&crashed, encode_stream(&crash::crash())).unwrap();
    check_trace(&[crashed.display().to_string()], &mut rows);
    check_model(&model(), &mut rows);
    for table in TABLES {
        assert!(
            rows[table.name()] > 0,
            "no trace has rows of {}",
            table.name()
        );
    }
}
