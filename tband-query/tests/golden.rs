//! Golden outputs of `tband-query`: every canned report on every recording,
//! checked against `tests/golden/tband-query.txt` and the texts in
//! `tests/golden/tband-query/` (see `tests/golden/harness.rs`; bless with
//! `TBAND_BLESS=1 cargo test -p tband-query --test golden`).

#[path = "../../tests/golden/harness.rs"]
mod harness;

use harness::command;

/// Budgets tight enough that the CI checks find violations (exit code 3).
const TIGHT_BUDGETS: [&str; 7] = [
    "--fail-if-rows",
    "--param",
    "max_ns=5000",
    "--param",
    "max_load_pct=5",
    "--param",
    "max_ready_ns=100000",
];

#[test]
fn outputs_are_the_blessed_ones() {
    let mut commands = vec![command(&[&["--help"]]), command(&[&["--list"]])];
    let csv = ["--format", "csv"];
    for trace in harness::traces() {
        let t = trace.args();
        // `queries/` runs the reports at its top, `queries/ci` the budget checks.
        commands.push(command(&[&csv, &t, &["queries/"]]));
        commands.push(command(&[&csv, &t, &["queries/ci"]]));
        commands.push(command(&[&csv, &TIGHT_BUDGETS, &t, &["queries/ci"]]));
    }
    // The other output formats, on one trace.
    for format in ["table", "json", "markdown"] {
        commands.push(command(&[&[
            "--format",
            format,
            "samples/demo.bin",
            "queries/",
        ]]));
    }
    for bad in harness::NOT_TRACES {
        commands.push(command(&[&csv, &[bad, "queries/"]]));
    }
    harness::check("tband-query", env!("CARGO_BIN_EXE_tband-query"), &commands);
}
