//! `tband-decode` on the ThreadX conformance buffers, end to end: the format
//! is recognised without flags, and bad input gets one sentence and a
//! non-zero exit.

use std::process::{Command, Output};

const CONFORMANCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/threadx");

const RECORDINGS: [&str; 4] = [
    "threadx_demo_small",
    "threadx_demo_startup",
    "tracex_samples/demo_threadx",
    "tracex_samples/demo_filex",
];

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tband-decode"))
        .args(args)
        .output()
        .expect("tband-decode runs")
}

fn path(name: &str) -> String {
    format!("{CONFORMANCE}/{name}.trx")
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

#[test]
fn json_listing_has_one_line_per_entry() {
    for name in RECORDINGS {
        let listing = stdout(&run(&["--json", &path(name)]));
        let reference = std::fs::read_to_string(format!("{CONFORMANCE}/{name}.entries.csv"))
            .expect("reference listing");
        assert_eq!(
            listing.lines().count(),
            reference.lines().count() - 1,
            "{name}"
        );
        let first: serde_json::Value =
            serde_json::from_str(listing.lines().next().expect("a line")).expect("JSON line");
        let reference_first: Vec<&str> = reference
            .lines()
            .nth(1)
            .expect("a row")
            .split(',')
            .collect();
        assert_eq!(first["slot"].to_string(), reference_first[1]);
        assert_eq!(first["context"], reference_first[3]);
        assert_eq!(first["event"], reference_first[6]);
        assert_eq!(first["timestamp"].to_string(), reference_first[7]);
        assert_eq!(first["ts_ns"], 0);
    }
}

#[test]
fn summary_shows_threads_isrs_and_queues() {
    let summary = stdout(&run(&["--summary", &path("threadx_demo_small")]));
    assert!(summary.contains("(threadx)"), "{summary}");
    for expected in [
        "thread 1",
        "thread 2",
        "queue 0",
        "isr 0",
        "no_timer_resolution",
    ] {
        assert!(summary.contains(expected), "{expected} missing:\n{summary}");
    }
    let scaled = stdout(&run(&[
        "--summary",
        "--tick-ns",
        "20.833",
        "--timer-direction",
        "up",
        &path("threadx_demo_small"),
    ]));
    assert!(!scaled.contains("no_timer_resolution"), "{scaled}");
    // 516034 ticks of 20.833 ns.
    assert!(scaled.contains("10.75 ms"), "{scaled}");
}

#[test]
fn stats_count_events_by_name() {
    let stats = stdout(&run(&["--stats", &path("tracex_samples/demo_filex")]));
    assert!(
        stats.contains("FX_TRACE_INTERNAL_IO_DRIVER_READ"),
        "{stats}"
    );
    assert!(stats.contains("counting up (detected)"), "{stats}");
    let stats = stdout(&run(&["--stats", &path("tracex_samples/demo_threadx")]));
    assert!(
        stats.contains("timer mask 0x0000FFFF counting down (detected)"),
        "{stats}"
    );
}

#[test]
fn bad_input_gets_one_sentence_and_a_failure_exit() {
    let not_threadx = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    for args in [
        vec!["--input-format", "threadx", not_threadx],
        vec!["--summary", "--input-format", "threadx", not_threadx],
    ] {
        let output = run(&args);
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("not a ThreadX trace buffer"), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    let two = run(&[
        "--summary",
        &path("threadx_demo_small"),
        &path("threadx_demo_startup"),
    ]);
    assert!(!two.status.success());
    assert!(String::from_utf8_lossy(&two.stderr).contains("one buffer"));
}

#[test]
fn damaged_buffer_is_listed_with_its_problems() {
    let mut bytes = std::fs::read(path("threadx_demo_small")).expect("file");
    bytes.truncate(20_000);
    let damaged = std::env::temp_dir().join(format!("threadx_cli_{}.trx", std::process::id()));
    std::fs::write(&damaged, &bytes).expect("temporary file");
    let damaged_path = damaged.display().to_string();
    let pretty = stdout(&run(&["--pretty", &damaged_path]));
    let summary = stdout(&run(&["--summary", &damaged_path]));
    let _ = std::fs::remove_file(&damaged);
    assert!(
        pretty.contains("problem: buffer_truncated at byte 19984: 399 of 974 trace slots"),
        "{pretty}"
    );
    assert!(summary.contains("invalid_frame"), "{summary}");
}
