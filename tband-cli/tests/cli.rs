//! The real `tband-decode` binary on the reference recordings: every output
//! form, every input form, and clean failures on bad input.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn conformance(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus/tband")
        .join(name)
}

fn recordings() -> Vec<PathBuf> {
    let mut bins: Vec<_> = fs::read_dir(conformance(""))
        .expect("the test corpus is in tests/corpus/tband")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    bins.sort();
    assert_eq!(bins.len(), 8);
    bins
}

/// Runs the binary with `args`, feeding `stdin` (or nothing).
fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tband-decode"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tband-decode");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn path_arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stdout(out: &Output) -> &str {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    std::str::from_utf8(&out.stdout).unwrap()
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn expected_listing(bin: &Path) -> Vec<Value> {
    json_lines(&fs::read_to_string(bin.with_extension("expected.jsonl")).unwrap())
}

/// A path in the temporary directory that no other test uses.
fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("tband-decode-cli-{}-{name}", std::process::id()))
}

#[test]
fn json_output_equals_reference_listing() {
    for bin in recordings() {
        // Stdout is a pipe here, so JSON is the default.
        let out = run(&[path_arg(&bin)], b"");
        assert_eq!(
            json_lines(stdout(&out)),
            expected_listing(&bin),
            "{}",
            bin.display()
        );
        assert!(out.stderr.is_empty());
    }
    let bin = conformance("freertos_small.bin");
    let explicit = run(&["--json", path_arg(&bin)], b"");
    assert_eq!(json_lines(stdout(&explicit)), expected_listing(&bin));
}

#[test]
fn pretty_prints_one_line_per_event_in_microseconds() {
    // 10 ns per tick: timestamps are shown in µs.
    let bin = conformance("baremetal_longstr.bin");
    let out = run(&["--pretty", path_arg(&bin)], b"");
    let text = stdout(&out);
    let expected = expected_listing(&bin);
    assert_eq!(text.lines().count(), expected.len());
    for (line, want) in text.lines().zip(&expected) {
        assert!(line.contains(want["evt"].as_str().unwrap()), "{line}");
        match want.get("ts").and_then(Value::as_u64) {
            Some(ts) => {
                let ns = ts * 10;
                let shown = format!("{}.{:03}µs", ns / 1000, ns % 1000);
                assert!(line.contains(&shown), "{line} lacks {shown}");
            }
            None => assert!(line.trim_start().starts_with("meta"), "{line}"),
        }
    }
}

#[test]
fn stats_count_frames_kinds_and_errors() {
    let bin = conformance("freertos_small.bin");
    let out = run(&["--stats", path_arg(&bin)], b"");
    let text = stdout(&out);
    assert!(
        text.contains("7982 bytes, 884 frames (884 decoded, 0 invalid, 0 empty)"),
        "{text}"
    );
    // Counts from the recording's README.
    for (kind, n) in [
        ("task_switched_in", 200),
        ("queue_send", 114),
        ("isr_enter", 13),
    ] {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(kind))
            .unwrap_or_else(|| panic!("no {kind} line in {text}"));
        assert_eq!(line.split_whitespace().nth(1), Some(n.to_string().as_str()));
    }
    assert!(!text.contains("invalid frames by reason"));
}

#[test]
fn damaged_trace_decodes_everything_else_and_counts_the_damage() {
    let bin = conformance("freertos_small.bin");
    let mut bytes = fs::read(&bin).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle..middle + 40].fill(0xC5);
    let damaged = temp_path("damaged.bin");
    fs::write(&damaged, &bytes).unwrap();

    let listing = json_lines(stdout(&run(&[path_arg(&damaged)], b"")));
    let invalid = listing.iter().filter(|l| l["evt"] == "invalid").count();
    assert!(invalid > 0);
    // Everything after the damaged region is as in the reference listing.
    let expected = expected_listing(&bin);
    let tail = 400;
    assert_eq!(
        listing[listing.len() - tail..],
        expected[expected.len() - tail..]
    );

    let stats = run(&["--stats", path_arg(&damaged)], b"");
    let text = stdout(&stats);
    assert!(text.contains(&format!("{invalid} invalid")), "{text}");
    assert!(text.contains("invalid frames by reason"), "{text}");
    fs::remove_file(&damaged).unwrap();
}

#[test]
fn output_file_receives_the_listing() {
    let bin = conformance("baremetal_basic.bin");
    let target = temp_path("listing.jsonl");
    let out = run(&["-o", path_arg(&target), path_arg(&bin)], b"");
    assert!(stdout(&out).is_empty());
    let written = fs::read_to_string(&target).unwrap();
    assert_eq!(json_lines(&written), expected_listing(&bin));
    fs::remove_file(&target).unwrap();
}

#[test]
fn hex_text_on_stdin() {
    let bin = conformance("baremetal_basic.bin");
    let mut hex = String::new();
    for line in fs::read(&bin).unwrap().chunks(16) {
        let words: Vec<_> = line.iter().map(|b| format!("0x{b:02X}")).collect();
        hex.push_str(&words.join(", "));
        hex.push('\n');
    }
    let out = run(&["-"], hex.as_bytes());
    assert_eq!(json_lines(stdout(&out)), expected_listing(&bin));
}

#[test]
fn file_at_core_sets_the_core_of_a_stream() {
    let c0 = conformance("baremetal_2core_snap_c0.bin");
    let c1 = conformance("baremetal_2core_snap_c1.bin");
    let c1_at_1 = format!("{}@1", path_arg(&c1));

    let text = stdout(&run(&["--pretty", &c1_at_1], b"")).to_string();
    assert!(text.lines().all(|l| l.contains(" c1 ")), "{text}");
    let plain = stdout(&run(&["--pretty", path_arg(&c1)], b"")).to_string();
    assert!(plain.lines().all(|l| l.contains(" c0 ")), "{plain}");

    // Several inputs: each listed in turn.
    let both = run(&[path_arg(&c0), &c1_at_1], b"");
    let mut expected = expected_listing(&c0);
    expected.extend(expected_listing(&c1));
    assert_eq!(json_lines(stdout(&both)), expected);
}

#[test]
fn completion_script_for_bash() {
    let out = run(&["completion", "bash"], b"");
    let script = stdout(&out);
    assert!(script.contains("complete -F"), "{script}");
    assert!(script.contains("tband-decode"));
    assert!(script.contains("--stats"));
}

/// Bad input: a non-zero exit (not a panic's 101) and one sentence on stderr.
fn assert_fails_cleanly(args: &[&str], stdin: &[u8], what: &str) {
    let out = run(args, stdin);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{what}: {err}");
    assert_eq!(err.lines().count(), 1, "{what}: {err}");
    assert!(err.starts_with("tband-decode: "), "{what}: {err}");
    assert!(!err.contains("panicked"), "{what}: {err}");
}

#[test]
fn bad_inputs_fail_with_one_sentence() {
    let missing = temp_path("missing.bin");
    assert_fails_cleanly(&[path_arg(&missing)], b"", "missing file");
    assert_fails_cleanly(&[path_arg(&std::env::temp_dir())], b"", "directory");

    let empty = temp_path("empty.bin");
    fs::write(&empty, b"").unwrap();
    assert_fails_cleanly(&[path_arg(&empty)], b"", "empty file");
    fs::remove_file(&empty).unwrap();

    let garbage = temp_path("garbage.txt");
    fs::write(&garbage, "This is a shopping list, not a trace.\n").unwrap();
    assert_fails_cleanly(&[path_arg(&garbage)], b"", "garbage");
    fs::remove_file(&garbage).unwrap();

    assert_fails_cleanly(&["-"], b"", "empty stdin");
    assert_fails_cleanly(&["-"], b"0x02 0x04 0x0\n", "odd hex digits");
}

#[test]
fn completion_script_to_a_full_disk_is_one_error_line() {
    let Ok(full) = fs::OpenOptions::new().write(true).open("/dev/full") else {
        return;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_tband-decode"))
        .args(["completion", "bash"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("tband-decode: cannot write the completion script"),
        "{err}"
    );
}

/// The listing recognises the format as every tool does: inputs of two
/// formats, or two ThreadX buffers, are one clear error, not a listing of
/// one format read as another.
#[test]
fn inputs_of_different_formats_are_refused_as_by_every_tool() {
    let threadx = |name: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/corpus/threadx")
            .join(name)
    };
    let small = threadx("threadx_demo_small.trx");
    let startup = threadx("threadx_demo_startup.trx");
    let stream = conformance("freertos_small.bin");
    let out = run(&["--json", path_arg(&stream), path_arg(&small)], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("different formats"), "{err}");
    assert_fails_cleanly(&[path_arg(&stream), path_arg(&small)], b"", "mixed");
    assert_fails_cleanly(&[path_arg(&small), path_arg(&startup)], b"", "two buffers");
}
