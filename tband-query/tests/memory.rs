//! The memory tables and reports on the shared memory stream
//! (`tests/memory/stream.rs`): what `heap_usage`, `heap_leaks` and
//! `stack_margin` say equals what the stream records, on every engine; the
//! budgets and `heap_leaks` fail a CI job with `--fail-if-rows` exactly
//! when they should; and `tband-query diff` shows a build whose heap peak
//! grew and whose stack margin shrank.

mod canned;
#[path = "../../tests/memory/stream.rs"]
mod stream;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use canned::{int, report, text};
use tband::Event;
use tband_decode::encode::encode_stream;
use tband_query::engine::{Engine, Value};
use tband_trace::{OpenOptions, Trace};

/// `events` as a trace file `name` in `dir`.
fn write(dir: &Path, name: &str, events: &[(u64, Event<'_>)]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, encode_stream(events)).unwrap();
    path
}

/// The stream with one more allocation by the producer while its leaked
/// block is live (64 B more at the peak), and its stack down to 200 bytes
/// free.
fn grown() -> Vec<(u64, Event<'static>)> {
    let mut events = stream::events();
    let at = events.iter().position(|(ts, _)| *ts == 16).unwrap();
    let more = [
        (
            15,
            Event::HeapAlloc {
                heap_id: 0,
                addr: 0x2000_0400,
                size: 64,
            },
        ),
        (
            16,
            Event::TaskStackFree {
                task_id: 1,
                free: 200,
            },
        ),
    ];
    events.splice(at..at, more);
    events
}

/// The model's end: the last event, at 20 µs (19 µs after the first).
const END_NS: u64 = 19_000;

#[test]
fn the_reports_say_what_the_stream_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "memory.bin", &stream::events());
    let trace = Trace::open(&[path.display().to_string()], &OpenOptions::default()).unwrap();
    assert_eq!(trace.model.info.duration_ns, END_NS);
    let heap = "FreeRTOS heap";
    let usage = vec![vec![
        text(heap),
        int(4096),
        int(stream::PEAK_BYTES),
        int(stream::PEAK_NS),
        text("producer"),
        int(256),
        int(4),
        int(1),
        int(1),
    ]];
    let (addr, size) = stream::LEAKED;
    let leaks = vec![vec![
        text(heap),
        text(&format!("{addr:#x}")),
        int(size.into()),
        int(stream::PEAK_NS),
        int(END_NS - stream::PEAK_NS),
        int(0),
        text("producer"),
    ]];
    let margins = vec![
        vec![
            text("producer"),
            int(512),
            int(240),
            int(14_000),
            Value::Real(53.13),
        ],
        vec![
            text("consumer"),
            int(1024),
            int(700),
            int(7_000),
            Value::Real(31.64),
        ],
    ];
    for engine in Engine::built_in() {
        assert_eq!(report(engine, &trace, "heap_usage"), usage, "{engine:?}");
        assert_eq!(report(engine, &trace, "heap_leaks"), leaks, "{engine:?}");
        assert_eq!(
            report(engine, &trace, "stack_margin"),
            margins,
            "{engine:?}"
        );
    }
}

fn tband_query(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tband-query"))
        .args(args)
        .output()
        .expect("tband-query runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn budgets_and_leaks_fail_a_ci_job_only_when_broken() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "memory.bin", &stream::events());
    let trace = trace.to_str().unwrap();
    let check = |args: &[&str]| {
        let mut all = vec![trace];
        all.extend(args);
        all.extend(["--fail-if-rows", "--format", "csv"]);
        let o = tband_query(&all);
        (o.status.code(), stdout(&o), stderr(&o))
    };

    // The producer's stack fell to 240 bytes free, under the default 256.
    let (code, csv, err) = check(&["ci/stack_budget"]);
    assert_eq!(code, Some(3), "{err}");
    assert_eq!(
        csv,
        "task_id,task_name,stack_size,min_free_bytes,first_ns,budget_bytes\n\
         1,producer,512,240,14000,256\n"
    );
    let (code, csv, err) = check(&["ci/stack_budget", "--param", "min_free_bytes=240"]);
    assert_eq!((code, csv.lines().count()), (Some(0), 1), "{csv}{err}");

    // The peak, 288 bytes, is over 256 from the allocation at 13 µs on.
    let (code, csv, err) = check(&["ci/heap_budget", "--param", "max_peak_bytes=256"]);
    assert_eq!(code, Some(3), "{err}");
    assert_eq!(
        csv,
        "heap_id,heap_name,total_size,peak_bytes,peak_ns,first_ns,budget_bytes\n\
         0,FreeRTOS heap,4096,288,13000,13000,256\n"
    );
    let (code, csv, err) = check(&["ci/heap_budget"]);
    assert_eq!((code, csv.lines().count()), (Some(0), 1), "{csv}{err}");

    let (code, csv, err) = check(&["heap_leaks"]);
    assert_eq!((code, csv.lines().count()), (Some(3), 2), "{csv}{err}");

    // Freed before the end, the block is no leak.
    let mut freed = stream::events();
    let end = freed.len() - 1;
    let (addr, size) = stream::LEAKED;
    freed.insert(
        end,
        (
            17,
            Event::HeapFree {
                heap_id: 0,
                addr,
                size,
            },
        ),
    );
    let freed = write(dir.path(), "freed.bin", &freed);
    let o = tband_query(&[freed.to_str().unwrap(), "heap_leaks", "--fail-if-rows"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn diff_shows_the_peak_that_grew_and_the_margin_that_shrank() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.bin", &stream::events());
    let new = write(dir.path(), "new.bin", &grown());
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());

    let o = tband_query(&[
        "diff",
        old,
        new,
        "heap_usage",
        "stack_margin",
        "--changed",
        "--format",
        "csv",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "heap_name,column,old,new,change,change_pct,status\n\
         FreeRTOS heap,peak_bytes,288,352,64,22.22,changed\n\
         FreeRTOS heap,peak_ns,13000,14000,1000,7.69,changed\n\
         FreeRTOS heap,in_use_at_end,256,320,64,25,changed\n\
         FreeRTOS heap,blocks,4,5,1,25,changed\n\
         FreeRTOS heap,live_at_end,1,2,1,100,changed\n\
         \n\
         task_name,column,old,new,change,change_pct,status\n\
         producer,min_free_bytes,240,200,-40,-16.67,changed\n\
         producer,min_free_ns,14000,15000,1000,7.14,changed\n\
         producer,used_pct,53.13,60.94,7.81,14.7,changed\n"
    );

    let o = tband_query(&[
        "diff",
        old,
        new,
        "--fail-if",
        "heap_usage.peak_bytes > +10%",
        "--fail-if",
        "stack_margin.min_free_bytes < 0",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("budget `heap_usage.peak_bytes > +10%` broken by 1 row(s):\n  heap_name=FreeRTOS heap: peak_bytes 288 -> 352 (+64, +22.22%)"),
        "{err}"
    );
    assert!(
        err.contains("budget `stack_margin.min_free_bytes < 0` broken by 1 row(s):\n  task_name=producer: min_free_bytes 240 -> 200 (-40, -16.67%)"),
        "{err}"
    );
    let same = tband_query(&[
        "diff",
        old,
        old,
        "--fail-if",
        "heap_usage.peak_bytes > 0",
        "--fail-if",
        "stack_margin.min_free_bytes < 0",
    ]);
    assert_eq!(same.status.code(), Some(0), "{}", stderr(&same));
}
