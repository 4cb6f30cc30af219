//! Running a canned report on a trace in one engine, and the values its
//! rows are compared with, for the tests of the reports.

use tband_query::engine::{self, Engine, Value};
use tband_query::{reports, run, tables};
use tband_trace::Trace;

pub fn report(engine: Engine, trace: &Trace, name: &str) -> Vec<Vec<Value>> {
    let mut db = engine.open(None).expect("a database");
    engine::load(db.as_mut(), &trace.model, &tables::model_tables()).expect("loaded");
    let queries = reports::resolve(name).expect("a canned report");
    let mut results = run::run(db.as_mut(), &queries, &[]).expect("the report runs");
    results.remove(0).rows
}

pub fn int(v: u64) -> Value {
    Value::Int(v as i64)
}

pub fn text(s: &str) -> Value {
    Value::Text(s.into())
}
