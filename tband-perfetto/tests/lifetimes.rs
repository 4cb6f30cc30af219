//! Objects on the timeline: the Zephyr network-buffer trace the tests
//! write, exported as Chrome JSON and as a Perfetto trace read back by
//! Perfetto's trace processor, holds each buffer's lifetime on a lane of its
//! pool, its references as instants and each pool's free buffers, as the
//! stream records them.

mod common;
#[path = "../../tests/lifetimes/net_buf_trace.rs"]
mod net_buf_trace;
#[path = "../../tests/trace_processor/shell.rs"]
mod shell;

use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use tband_perfetto::chrome_json::write_chrome_json;
use tband_perfetto::trace_processor::{self, Value};
use tband_trace::{OpenOptions, Trace};

/// The trace, written under a directory of the test's own (`under`):
/// tests run at the same time.
fn trace_dir(under: &str) -> PathBuf {
    net_buf_trace::write(&Path::new(env!("CARGO_TARGET_TMPDIR")).join(under))
}

/// The lifetimes the stream records: pool, key, start, end (the trace's
/// end for a leak).
fn expected_lifetimes() -> Vec<(String, String, u64, u64)> {
    let mut rows: Vec<_> = net_buf_trace::LIFETIMES
        .iter()
        .map(|l| {
            let end = l.3.unwrap_or(net_buf_trace::END_NS);
            (format!("net_buf {}", l.0), format!("{:#x}", l.1), l.2, end)
        })
        .collect();
    rows.sort_by_key(|r| r.2);
    rows
}

fn expected_marks() -> Vec<(String, u64, i64)> {
    let marks = net_buf_trace::MARKS.iter();
    marks
        .map(|&(ts, _, event, count)| (event.to_string(), ts, count.into()))
        .collect()
}

fn expected_free() -> Vec<(String, u64, i64)> {
    let free = net_buf_trace::FREE.iter();
    free.map(|&(pool, ts, v)| (format!("net_buf {pool}"), ts, v.into()))
        .collect()
}

#[test]
fn chrome_json_holds_the_lifetimes_references_and_pool_levels() {
    let model = Trace::open(
        &[trace_dir("chrome_json").display().to_string()],
        &OpenOptions::default(),
    )
    .expect("the trace opens")
    .model;
    let mut json = Vec::new();
    write_chrome_json(&mut json, &model).expect("written");
    let root: Json = serde_json::from_slice(&json).expect("strict JSON");
    let events = root["traceEvents"].as_array().expect("events");
    // Lifetimes are on the threads of their lanes (`<pool>/<lane>`), pool
    // counters named `<pool>/<counter>`.
    let thread = |pid: &Json, tid: &Json| {
        events
            .iter()
            .find(|e| {
                e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == *pid && e["tid"] == *tid
            })
            .and_then(|e| e["args"]["name"].as_str())
            .expect("a named thread")
            .to_string()
    };
    let pool = |name: &str| name.split('/').next().expect("a pool").to_string();
    let ns = |v: &Json| (v.as_f64().expect("a time") * 1000.0).round() as u64;
    let objects = |ph: &'static str| {
        events
            .iter()
            .filter(move |e| e["ph"] == ph && e["cat"] == "tracked objects")
    };
    let lifetimes: Vec<_> = objects("X")
        .map(|e| {
            let start = ns(&e["ts"]);
            let name = e["name"].as_str().expect("a key").to_string();
            let lane = thread(&e["pid"], &e["tid"]);
            (pool(&lane), name, start, start + ns(&e["dur"]))
        })
        .collect();
    assert_eq!(lifetimes, expected_lifetimes());
    let leaks = objects("X")
        .filter(|e| e["args"]["truncated"] == true)
        .count();
    assert_eq!(leaks, 2);
    let marks: Vec<_> = objects("i")
        .map(|e| {
            (
                e["name"].as_str().expect("an event").to_string(),
                ns(&e["ts"]),
                e["args"]["count"].as_i64().expect("a count"),
            )
        })
        .collect();
    assert_eq!(marks, expected_marks());
    let free: Vec<_> = objects("C")
        .filter(|e| e["name"].as_str().is_some_and(|n| n.ends_with("/free")))
        .map(|e| {
            let name = e["name"].as_str().expect("a counter");
            (
                pool(name),
                ns(&e["ts"]),
                e["args"]["value"].as_i64().expect("a level"),
            )
        })
        .collect();
    assert_eq!(free, expected_free());
}

const QUERIES: [&str; 3] = [
    "SELECT g.name AS pool, s.name AS key, s.ts, IIF(s.dur < 0, NULL, s.ts + s.dur) AS end_ts \
     FROM slice s JOIN track k ON k.id = s.track_id JOIN track g ON g.id = k.parent_id \
     JOIN track o ON o.id = g.parent_id WHERE o.name = 'Objects' AND s.dur <> 0 ORDER BY s.ts",
    "SELECT s.name, s.ts, extract_arg(s.arg_set_id, 'debug.count') AS value FROM slice s \
     JOIN track k ON k.id = s.track_id JOIN track g ON g.id = k.parent_id \
     WHERE g.name GLOB 'net_buf *' AND s.dur = 0 ORDER BY s.ts",
    "SELECT g.name AS pool, c.ts, CAST(c.value AS INT) AS value FROM counter c \
     JOIN counter_track k ON k.id = c.track_id JOIN track g ON g.id = k.parent_id \
     WHERE g.name GLOB 'net_buf *' AND k.name = 'free' ORDER BY c.ts, g.name",
];

#[test]
fn perfetto_reads_the_lifetimes_references_and_pool_levels() {
    let Some(shell) = shell::trace_processor() else {
        return;
    };
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("net_buf.pftrace");
    common::convert(&[trace_dir("perfetto").display().to_string()], &out, &[]);
    let pairs: Vec<(&str, &str)> = QUERIES.iter().map(|q| ("", *q)).collect();
    let results = trace_processor::queries(&shell, &pairs, &out).expect("trace_processor runs");
    let text = |v: &Value| match v {
        Value::Text(s) => s.clone(),
        other => panic!("{other:?} is not text"),
    };
    let int = |v: &Value| match v {
        Value::Int(i) => *i,
        other => panic!("{other:?} is not an integer"),
    };
    // A leak is open (no end): it lives on at the end of the trace.
    let mut open = 0;
    let lifetimes: Vec<_> = results[0]
        .rows
        .iter()
        .map(|r| {
            let end = match &r[3] {
                Value::Null => {
                    open += 1;
                    net_buf_trace::END_NS
                }
                end => int(end) as u64,
            };
            (text(&r[0]), text(&r[1]), int(&r[2]) as u64, end)
        })
        .collect();
    assert_eq!(lifetimes, expected_lifetimes());
    let leaks = net_buf_trace::LIFETIMES.iter().filter(|l| l.3.is_none());
    assert_eq!(open, leaks.count());
    let marks: Vec<_> = results[1]
        .rows
        .iter()
        .map(|r| (text(&r[0]), int(&r[1]) as u64, int(&r[2])))
        .collect();
    assert_eq!(marks, expected_marks());
    let free: Vec<_> = results[2]
        .rows
        .iter()
        .map(|r| (text(&r[0]), int(&r[1]) as u64, int(&r[2])))
        .collect();
    let mut expected = expected_free();
    expected.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    assert_eq!(free, expected);
}
