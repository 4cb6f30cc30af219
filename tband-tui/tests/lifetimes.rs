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
