//! What the end-to-end tests share: running the `tband-perfetto` binary.

use std::path::Path;
use std::process::Command;

/// Converts `inputs` to `out` with the binary and `extra_args`; fails the
/// test with the tool's message if it fails. Returns what it printed on
/// stderr (its summary).
pub fn convert(inputs: &[String], out: &Path, extra_args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_tband-perfetto"))
        .args(inputs)
        .arg("-o")
        .arg(out)
        .args(extra_args)
        .output()
        .expect("tband-perfetto runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "tband-perfetto failed on {inputs:?}: {stderr}"
    );
    stderr
}
