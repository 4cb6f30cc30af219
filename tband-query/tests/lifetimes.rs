//! The object tables and reports on the Zephyr network-buffer trace the
//! tests write: what the reports say equals what the stream records, on
//! every engine, and `--fail-if-rows` fails on its leaks.

mod canned;
#[path = "../../tests/lifetimes/net_buf_trace.rs"]
mod net_buf_trace;

use std::path::Path;
use std::process::Command;

use canned::{int, report, text};
use net_buf_trace::{Who, END_NS, LIFETIMES, LOW_WATER};
use tband_query::engine::{Engine, Value};
use tband_trace::{OpenOptions, Trace};

/// The trace, written under a directory of the test's own (`under`):
/// tests run at the same time.
fn trace_dir(under: &str) -> String {
    let parent = Path::new(env!("CARGO_TARGET_TMPDIR")).join(under);
    net_buf_trace::write(&parent).display().to_string()
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[u64], p: usize) -> u64 {
    sorted[(sorted.len() * p).div_ceil(100) - 1]
}

#[test]
fn the_reports_say_what_the_stream_records() {
    let trace =
        Trace::open(&[trace_dir("reports")], &OpenOptions::default()).expect("the trace opens");
    let isr_name = trace.model.isrs[0].name.clone();
    let mut pools: Vec<&str> = LIFETIMES.iter().map(|l| l.0).collect();
    pools.sort();
    pools.dedup();
    let pool_key = |pool: &str| {
        let (key, _) = [net_buf_trace::RX, net_buf_trace::TX, net_buf_trace::DATA]
            .into_iter()
            .find(|p| p.1 == pool)
            .expect("a pool of the stream");
        format!("{key:#x}")
    };
    let lifetimes: Vec<Vec<Value>> = pools
        .iter()
        .map(|&pool| {
            let mut ended: Vec<u64> = LIFETIMES
                .iter()
                .filter(|l| l.0 == pool)
                .filter_map(|l| l.3.map(|end| end - l.2))
                .collect();
            ended.sort();
            let leaked = LIFETIMES
                .iter()
                .filter(|l| l.0 == pool && l.3.is_none())
                .count();
            vec![
                text("net_buf"),
                text(pool),
                text(&pool_key(pool)),
                int(ended.len() as u64),
                int(leaked as u64),
                int(ended[0]),
                int(percentile(&ended, 50)),
                int(percentile(&ended, 99)),
                int(*ended.last().expect("one ended")),
            ]
        })
        .collect();
    let leaks: Vec<Vec<Value>> = LIFETIMES
        .iter()
        .filter(|l| l.3.is_none())
        .map(|&(pool, buf, start, _, who, _)| {
            let begun_by = match who {
                Who::Thread(name) => name.to_string(),
                Who::Isr => isr_name.clone(),
            };
            vec![
                text("net_buf"),
                text(pool),
                text(&format!("{buf:#x}")),
                text(pool),
                int(start),
                int(END_NS - start),
                int(0),
                text(&begun_by),
            ]
        })
        .collect();
    let low_water: Vec<Vec<Value>> = LOW_WATER
        .iter()
        .map(|&(pool, free, at)| {
            let samples = net_buf_trace::FREE.iter().filter(|f| f.0 == pool).count();
            vec![
                text("net_buf"),
                text(pool),
                text(&pool_key(pool)),
                text("free"),
                int(samples as u64),
                int(free.into()),
                int(at),
            ]
        })
        .collect();
    for engine in Engine::built_in() {
        assert_eq!(
            report(engine, &trace, "object_lifetimes"),
            lifetimes,
            "{engine:?}"
        );
        assert_eq!(report(engine, &trace, "object_leaks"), leaks, "{engine:?}");
        assert_eq!(
            report(engine, &trace, "pool_low_water"),
            low_water,
            "{engine:?}"
        );
    }
}

#[test]
fn fail_if_rows_fails_on_leaks_only() {
    let run = |trace: &str| {
        Command::new(env!("CARGO_BIN_EXE_tband-query"))
            .args([trace, "object_leaks", "--fail-if-rows"])
            .output()
            .expect("tband-query runs")
    };
    let leaking = run(&trace_dir("fail_if_rows"));
    assert_eq!(leaking.status.code(), Some(3));
    let csv = String::from_utf8(leaking.stdout).expect("text");
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(
        csv.lines()
            .nth(1)
            .expect("a leak")
            .starts_with("net_buf,tx_pool,0x20002040,tx_pool,2500,3500,0,tx_thread"),
        "{csv}"
    );
    let none = run(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/corpus/zephyr_ctf/workload"
    ));
    assert_eq!(none.status.code(), Some(0));
}
