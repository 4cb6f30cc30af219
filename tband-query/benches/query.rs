//! Load and report benchmark on a simulated trace, one engine per run (so
//! the peak memory printed is that engine's):
//!
//! ```text
//! cargo bench -p tband-query --bench query -- [sqlite|duckdb] [SIZE_MB] [REPORT]
//! ```
//!
//! Prints decode and load throughput in events per second, the load time of
//! each on-demand table, each canned report's latency including the load of
//! the on-demand tables it reads (or only those whose name contains REPORT),
//! the load time of `events` (last: it loads while a second decoding of the
//! trace builds the model) and the process's peak resident memory. Times are
//! given as wall clock and as the CPU time of this process (user + system),
//! which is the meaningful figure on a machine busy with other work.

use std::time::Duration;

use tband_query::engine::{self, Engine};
use tband_query::schema::Table;
use tband_query::{reports, run, tables};
use tband_trace::input::Input;
use tband_trace::{OpenOptions, Source, Trace};

mod measure;
use measure::{peak_rss_mb, per_second, timed};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let engine = match args.first().map(String::as_str) {
        Some("sqlite") => Engine::Sqlite,
        Some("duckdb") => Engine::Duckdb,
        _ => Engine::default_engine(),
    };
    let size_mb: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100);
    let only = args.get(2).map_or("", String::as_str);

    let config = tband_sim::Config {
        size: size_mb << 20,
        // The traces docs/performance.md was measured on.
        wide_values: true,
        ..tband_sim::Config::default()
    };
    let simulate = || {
        let (streams, _) = tband_sim::generate(&config).expect("simulating the trace");
        streams
    };
    let streams = simulate();
    let bytes: usize = streams.iter().map(Vec::len).sum();
    let inputs = Input::per_core("sim", streams);

    let (trace, decode, decode_cpu) =
        timed(|| Trace::from_inputs(inputs, &OpenOptions::default()).expect("decoding the trace"));
    let events = trace.model.info.events;
    println!(
        "trace: {:.1} MB, {events} events, {} sched slices, {} ISR slices, {} task states",
        bytes as f64 / 1e6,
        trace.model.sched_slices.len(),
        trace.model.isr_slices.len(),
        trace.model.task_states.len()
    );
    println!(
        "{:<30} {:>9} {:>9} {:>14}",
        "", "wall s", "cpu s", "M events/cpu s"
    );
    let line = |what: &str, wall: Duration, cpu: Duration| {
        println!(
            "{what:<30} {:>9.3} {:>9.3} {:>14.2}",
            wall.as_secs_f64(),
            cpu.as_secs_f64(),
            per_second(events, cpu) / 1e6
        )
    };
    line("decode (model)", decode, decode_cpu);

    let mut db = engine.open(None).expect("opening the engine");
    let model_tables = engine::tables_for(&[]);
    let ((), load, load_cpu) = timed(|| {
        engine::load(db.as_mut(), &trace.model, &model_tables).expect("loading the trace")
    });
    line(&format!("load model tables into {engine}"), load, load_cpu);
    line("decode + load", decode + load, decode_cpu + load_cpu);
    let ((), wall, cpu) = timed(|| {
        engine::load(db.as_mut(), &trace.model, &[&tables::CpuTimeline])
            .expect("loading the cpu_timeline table")
    });
    line("load the cpu_timeline table", wall, cpu);
    db.execute(&tables::CpuTimeline.drop_sql())
        .expect("dropping the table");
    // Each report loads the on-demand tables it reads, as a run of the
    // command-line tool would, and its time includes that load.
    for (name, _) in reports::CANNED.iter().filter(|(n, _)| n.contains(only)) {
        let queries = reports::resolve(name).expect("a canned report");
        let on_demand: Vec<_> = engine::tables_for(&queries)
            .into_iter()
            .filter(|t| !model_tables.iter().any(|m| m.name() == t.name()))
            .collect();
        let (results, wall, cpu) = timed(|| {
            engine::load(db.as_mut(), &trace.model, &on_demand).expect("loading on-demand tables");
            run::run(db.as_mut(), &queries, &[]).expect("running the report")
        });
        for table in &on_demand {
            db.execute(&table.drop_sql()).expect("dropping the table");
        }
        let rows: usize = results.iter().map(|r| r.rows.len()).sum();
        let loaded: Vec<&str> = on_demand.iter().map(|t| t.name()).collect();
        println!(
            "{:<30} {:>9.3} {:>9.3}   ({rows} rows{})",
            format!("report {name}"),
            wall.as_secs_f64(),
            cpu.as_secs_f64(),
            if loaded.is_empty() {
                String::new()
            } else {
                format!("; loaded {}", loaded.join(", "))
            }
        );
    }
    // The events come as a trace is decoded: a second decoding, whose own
    // cost is the first one's, once the first model is gone.
    drop(trace);
    let options = OpenOptions::default();
    let source = Source::from_inputs(Input::per_core("sim", simulate()), &options)
        .expect("reading the trace");
    let ((), wall, cpu) = timed(|| {
        engine::load_while_building(db.as_mut(), &[&tables::Events], |events| {
            let events = events.expect("a sink for the events");
            Trace::build_with_events(source, &options, events).map(|trace| trace.model)
        })
        .expect("loading the events table")
    });
    line("decode + load the events table", wall, cpu);
    line(
        "load the events table",
        wall.saturating_sub(decode),
        cpu.saturating_sub(decode_cpu),
    );
    db.execute(&tables::Events.drop_sql())
        .expect("dropping the table");

    match peak_rss_mb() {
        Some(mb) => println!("peak RSS: {mb} MB"),
        None => println!("peak RSS: unknown (no /proc/self/status)"),
    }
}
