//! The TUI's lanes of objects on the Zephyr network-buffer trace the tests
//! write: a row per pool counter, and a row per lane of live buffers.

#[path = "../../tests/lifetimes/net_buf_trace.rs"]
mod net_buf_trace;

use std::path::Path;
use std::process::Command;

#[test]
fn a_snapshot_has_a_row_per_pool_counter_and_per_lane() {
    let dir = net_buf_trace::write(Path::new(env!("CARGO_TARGET_TMPDIR")));
    let out = Command::new(env!("CARGO_BIN_EXE_tband-tui"))
        .args(["--snapshot", "120x30"])
        .arg(&dir)
        .output()
        .expect("tband-tui runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let frame = String::from_utf8(out.stdout).expect("text");
    let objects: Vec<&str> = frame
        .lines()
        .skip_while(|l| !l.contains("▾ tracked objects"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    // Labels are cut to the label column.
    let labels: Vec<&str> = objects
        .iter()
        .map(|l| l.get(..25).unwrap_or(l).trim())
        .collect();
    // The counters, then the lanes: the rx and tx pools each had two
    // buffers live at once (a lane each).
    assert_eq!(
        labels,
        [
            "net_buf rx_pool/free",
            "net_buf data_pool/free",
            "net_buf tx_pool/free",
            "net_buf rx_pool/net_buf",
            "net_buf rx_pool/net_buf",
            "net_buf data_pool/net_b",
            "net_buf tx_pool/net_buf",
            "net_buf tx_pool/net_buf",
        ],
        "{frame}"
    );
    for lane in &objects[3..] {
        assert!(lane.contains('█'), "every lane holds a lifetime: {frame}");
    }
}

/// `--rules` with `--follow`: a rules file that does not parse is the same
/// one sentence, before any terminal is used.
#[test]
fn a_followed_file_with_a_rules_file_that_does_not_parse_is_one_sentence() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let rules = dir.path().join("rules.toml");
    std::fs::write(
        &rules,
        "[[rule]]\nevent = \"evtmarker\"\naction = \"start\"\n",
    )
    .expect("written");
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/corpus/tband/freertos_small.bin"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_tband-tui"))
        .arg("--follow")
        .arg("--rules")
        .arg(&rules)
        .arg(trace)
        .output()
        .expect("tband-tui runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(out.stdout.is_empty());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let line = format!("{} line 3: ", rules.display());
    assert!(stderr.contains(&line), "{stderr}");
}
