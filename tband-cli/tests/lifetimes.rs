//! `tband-decode --summary` on the Zephyr network-buffer trace the tests
//! write: a line per kind of object; and `--rules` that cannot be used.

#[path = "../../tests/lifetimes/net_buf_trace.rs"]
mod net_buf_trace;

use std::path::Path;
use std::process::{Command, Output};

fn tband_decode(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tband-decode"))
        .args(args)
        .output()
        .expect("tband-decode runs")
}

fn trace_dir(under: &str) -> String {
    let parent = Path::new(env!("CARGO_TARGET_TMPDIR")).join(under);
    net_buf_trace::write(&parent).display().to_string()
}

#[test]
fn the_summary_has_a_line_per_pool_of_objects() {
    let out = tband_decode(&["--summary", &trace_dir("summary")]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("text");
    let objects = text
        .split("\ntracked objects\n")
        .nth(1)
        .expect("an objects section");
    let lines: Vec<&str> = objects.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(
        lines,
        [
            "  net_buf rx_pool              3 slices (1 open at the end), longest ended 2.40 µs, 1 net_buf_ref, 2 net_buf_unref, free 2..4",
            "  net_buf data_pool            1 slice, longest ended 2.70 µs, free 7..8",
            "  net_buf tx_pool              2 slices (1 open at the end), longest ended 1.90 µs, free 1..3",
        ]
    );
}

#[test]
fn a_bad_rules_file_is_one_line_and_a_failure() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bad_rules");
    std::fs::create_dir_all(&dir).expect("a directory");
    let rules = dir.join("rules.toml");
    std::fs::write(&rules, "[[rule]]\nevent = \"net_buf_ref\"\naction = \"mark\"\nkind = \"b\"\nkey = \"buf\"\ncounter = \"c\"\n").expect("written");
    let rules = rules.display().to_string();
    let out = tband_decode(&["--summary", "--rules", &rules, &trace_dir("bad_rules")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8(out.stderr).expect("text"),
        format!(
            "tband-decode: {rules} line 6: `counter` applies only to counter rules, not mark\n"
        )
    );
    let missing = tband_decode(&[
        "--summary",
        "--rules",
        "no/such.toml",
        &trace_dir("bad_rules"),
    ]);
    let error = String::from_utf8(missing.stderr).expect("text");
    assert!(
        error.starts_with("tband-decode: cannot read the rules file no/such.toml: "),
        "{error}"
    );
    assert_eq!(error.lines().count(), 1);
}
