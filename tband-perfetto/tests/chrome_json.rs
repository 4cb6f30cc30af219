//! The Chrome trace event JSON of real traces is valid JSON whose events match the model.

#[path = "../../tests/rtos_objects/stream.rs"]
mod stream;

use serde_json::Value;
use tband_model::Model;
use tband_perfetto::chrome_json::write_chrome_json;
use tband_trace::{OpenOptions, Trace};

const CONFORMANCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/");

fn convert(path: &str) -> (Model, Vec<Value>) {
    let trace = Trace::open(&[format!("{CONFORMANCE}{path}")], &OpenOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut json = Vec::new();
    write_chrome_json(&mut json, &trace.model).unwrap();
    let root: Value = serde_json::from_slice(&json).expect("strict JSON");
    assert_eq!(root["displayTimeUnit"], "ns");
    let events = root["traceEvents"].as_array().expect("traceEvents").clone();
    (trace.model, events)
}

fn count(events: &[Value], ph: &str, cat: &str) -> usize {
    events
        .iter()
        .filter(|e| e["ph"] == ph && e["cat"] == cat)
        .count()
}

fn thread_names(events: &[Value], pid: u64) -> Vec<&str> {
    events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == pid)
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect()
}

#[test]
fn zephyr_ctf_recording() {
    let (model, events) = convert("zephyr_ctf/workload");
    // Each sched slice appears on its task's thread and on its core's thread.
    assert_eq!(count(&events, "X", "sched"), 2 * model.sched_slices.len());
    assert_eq!(count(&events, "X", "isr"), model.isr_slices.len());
    assert_eq!(
        count(&events, "X", "mutex holders"),
        model.mutex_holds.len()
    );
    assert_eq!(count(&events, "i", "markers"), model.marker_instants.len());
    assert_eq!(
        count(&events, "C", "queue levels"),
        model
            .queue_ops
            .iter()
            .filter(|o| o.len_after.is_some())
            .count()
    );
    assert_eq!(
        thread_names(&events, 1),
        ["bg_load", "logger", "ctrl", "sensor", "idle", "main"]
    );
    assert_eq!(thread_names(&events, 2), ["core 0", "core 0 ISRs"]);
    // Times are µs with ns precision: the first ISR of the recording starts at 10 ms.
    let first_isr = events.iter().find(|e| e["cat"] == "isr").unwrap();
    assert_eq!(first_isr["ts"].as_f64(), Some(10_000.0));
    for event in events.iter().filter(|e| e["ph"] == "X") {
        assert!(event["dur"].as_f64().unwrap() >= 0.0);
    }
}

#[test]
fn tband_recording_with_markers_and_anomalies() {
    let (model, events) = convert("tband/freertos_lossy.bin");
    assert_eq!(count(&events, "X", "sched"), 2 * model.sched_slices.len());
    assert_eq!(count(&events, "X", "isr"), model.isr_slices.len());
    assert_eq!(count(&events, "X", "markers"), model.marker_spans.len());
    assert_eq!(count(&events, "i", "markers"), model.marker_instants.len());
    assert_eq!(count(&events, "C", "values"), model.marker_values.len());
    assert_eq!(count(&events, "i", "anomaly"), model.anomalies.len());
    assert!(!model.anomalies.is_empty() && !model.marker_instants.is_empty());
    assert_eq!(thread_names(&events, 1).len(), model.tasks.len());
}

#[test]
fn the_chrome_json_writer_takes_threadx_models() {
    let (model, events) = convert("threadx/threadx_demo_small.trx");
    let text = serde_json::to_string(&events).expect("JSON");
    for name in ["thread 1", "thread 2", "System Timer Thread", "queue 0"] {
        assert!(text.contains(name), "{name} missing");
    }
    assert!(events.len() > model.sched_slices.len());
}

#[test]
fn rtos_objects_are_in_their_sections_like_the_perfetto_export() {
    let inputs = tband_decode::input::Input::per_core(
        "objects",
        vec![tband_decode::encode::encode_stream(&stream::events())],
    );
    let model = Trace::from_inputs(inputs, &OpenOptions::default())
        .unwrap()
        .model;
    let mut json = Vec::new();
    write_chrome_json(&mut json, &model).unwrap();
    let root: Value = serde_json::from_slice(&json).expect("strict JSON");
    let events = root["traceEvents"].as_array().expect("traceEvents");
    let objects = events
        .iter()
        .find(|e| {
            e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"] == "RTOS objects"
        })
        .and_then(|e| e["pid"].as_u64())
        .expect("a process of the RTOS objects");
    let mut threads = thread_names(events, objects);
    threads.sort_unstable();
    assert_eq!(threads, ["flags", "taker/Notifications", "tick"]);
    let ns = |e: &Value| (e["ts"].as_f64().unwrap() * 1000.0).round() as u64;
    let instants: Vec<_> = (events.iter())
        .filter(|e| e["ph"] == "i" && e["pid"] == objects)
        .map(|e| (ns(e), e["name"].as_str().unwrap()))
        .collect();
    // Times from the first event (at tick 1), as every sink counts them.
    assert_eq!(
        instants,
        [
            (6, "given"),
            (11, "taken"),
            (16, "given from ISR"),
            (7, "set"),
            (12, "clear"),
            (14, "wait_end"),
            (5, "created"),
            (9, "stop"),
            (18, "expired"),
        ]
    );
    let bytes: Vec<_> = (events.iter())
        .filter(|e| e["ph"] == "C" && e["pid"] == objects)
        .map(|e| {
            (
                e["name"].as_str().unwrap(),
                ns(e),
                e["args"]["value"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(bytes, [("rx", 8, 12), ("rx", 13, 0)]);
}
