//! The TUI's lanes of objects on the Zephyr network-buffer trace the tests
//! write: a row per pool with a line per lane of live buffers, and a row
//! per pool counter.

#[path = "../../tests/lifetimes/net_buf_trace.rs"]
mod net_buf_trace;

use std::path::Path;
use std::process::Command;

#[test]
fn a_snapshot_has_a_lane_per_pool_and_its_counter() {
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
        .skip_while(|l| !l.contains("▾ objects"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    let labels: Vec<&str> = objects
        .iter()
        .map(|l| l.get(..20).unwrap_or(l).trim())
        .collect();
    // The rx and tx pools each had two buffers live at once (a lane each).
    assert_eq!(
        labels,
        [
            "net_buf rx_pool",
            "",
            "net_buf data_pool",
            "net_buf tx_pool",
            "",
            "rx_pool free",
            "data_pool free",
            "tx_pool free"
        ],
        "{frame}"
    );
    for lane in &objects[..5] {
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
