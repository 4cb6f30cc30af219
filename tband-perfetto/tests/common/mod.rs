//! What the end-to-end tests share: running the `tband-perfetto` binary,
//! and writing simulated traces for it to read.

#![allow(dead_code)] // each test uses a part of it

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

/// Writes the streams the simulator makes for `config`, one file per core
/// named after `base` (as [`tband_sim::core_file_name`] names them): the
/// inputs that open them as one trace (`FILE@CORE`).
pub fn simulated_inputs(config: &tband_sim::Config, base: &Path) -> Vec<String> {
    let (streams, _) = tband_sim::generate(config).unwrap();
    streams
        .iter()
        .enumerate()
        .map(|(core, bytes)| {
            let path = tband_sim::core_file_name(base, core as u32, config.cores);
            std::fs::write(&path, bytes).unwrap();
            format!("{}@{core}", path.display())
        })
        .collect()
}
