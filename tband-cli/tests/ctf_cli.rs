//! `tband-decode` run on the shipped Zephyr CTF recordings.

use std::process::Command;

const ZEPHYR_CTF: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/zephyr_ctf/");

fn run(args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_tband-decode"))
        .args(args)
        .output()
        .unwrap();
    (
        output.status.success(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn pretty_output_reproduces_the_babeltrace2_listings() {
    for (args, listing) in [
        (vec!["hello_sem"], "hello_sem.listing.txt"),
        (vec!["workload/channel0_0"], "workload.listing.txt"),
    ] {
        let args: Vec<String> = args.iter().map(|a| format!("{ZEPHYR_CTF}{a}")).collect();
        let mut all = vec!["--pretty"];
        all.extend(args.iter().map(String::as_str));
        let (ok, stdout, stderr) = run(&all);
        assert!(ok, "{stderr}");
        let expected = std::fs::read_to_string(format!("{ZEPHYR_CTF}{listing}")).unwrap();
        assert!(stdout == expected, "{listing} differs");
    }
}

#[test]
fn json_output_is_one_object_per_event() {
    let (ok, stdout, stderr) = run(&[
        "--json",
        "--ctf-metadata",
        &format!("{ZEPHYR_CTF}hello_sem/metadata"),
        &format!("{ZEPHYR_CTF}hello_sem/channel0_0"),
    ]);
    assert!(ok, "{stderr}");
    let events: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(events.len(), 284);
    assert_eq!(events[8]["event"], "thread_name_set");
    assert_eq!(events[8]["fields"]["name"], "thread_b");
    assert_eq!(events[283]["ts_ns"], 9_690_000_000u64);
}

#[test]
fn summary_and_stats_describe_the_trace() {
    let dir = format!("{ZEPHYR_CTF}workload");
    let (ok, stdout, stderr) = run(&["--summary", &dir]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("(ctf): 1 core(s), 5.991 s, 9530 events"),
        "{stdout}"
    );
    assert!(stdout.contains("logger"), "{stdout}");
    let (ok, stdout, _) = run(&["--stats", &dir]);
    assert!(ok);
    assert!(
        stdout.contains("  mutex_lock_blocking                       59\n"),
        "{stdout}"
    );
}

#[test]
fn unusable_metadata_is_one_sentence_and_a_failure() {
    let (ok, stdout, stderr) = run(&[
        "--ctf-metadata",
        &format!("{ZEPHYR_CTF}hello_sem.listing.txt"),
        &format!("{ZEPHYR_CTF}hello_sem/channel0_0"),
    ]);
    assert!(!ok);
    assert!(stdout.is_empty());
    assert!(
        stderr.starts_with("tband-decode: ")
            && stderr.trim_end().ends_with(
                "hello_sem.listing.txt is not plain-text CTF metadata (packetized metadata is not supported)"
            )
            && stderr.lines().count() == 1,
        "{stderr}"
    );
}

#[test]
fn pretty_times_are_on_the_trace_clock_when_the_first_event_is_late() {
    // Drop the 18 events at boot: the stream then starts at 0.51 s.
    let trace =
        tband_ctf::CtfTrace::open(std::path::Path::new(&format!("{ZEPHYR_CTF}hello_sem"))).unwrap();
    let bytes = &trace.streams[0].bytes;
    let mut decoder = tband_ctf::StreamDecoder::new(&trace.metadata, bytes);
    let mut values = Vec::new();
    for _ in 0..18 {
        decoder.next_event(&mut values).unwrap().unwrap();
    }
    let dir = std::env::temp_dir().join(format!("tband-ctf-late-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("channel0_0"), &bytes[decoder.position()..]).unwrap();
    std::fs::copy(
        format!("{ZEPHYR_CTF}hello_sem/metadata"),
        dir.join("metadata"),
    )
    .unwrap();
    let (ok, stdout, stderr) = run(&["--pretty", dir.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(ok, "{stderr}");

    let listing = std::fs::read_to_string(format!("{ZEPHYR_CTF}hello_sem.listing.txt")).unwrap();
    let expected: Vec<&str> = listing.lines().skip(18).collect();
    let ours: Vec<&str> = stdout.lines().collect();
    assert_eq!(ours.len(), expected.len());
    assert_eq!(
        ours[0],
        expected[0].replace("(+0.510000000)", "(+?.?????????)")
    );
    assert_eq!(ours[1..], expected[1..]);
}
