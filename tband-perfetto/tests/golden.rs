//! Golden outputs of `tband-perfetto`: the Perfetto protobuf and Chrome
//! JSON exports of every recording, checked against
//! `tests/golden/tband-perfetto.txt` and the texts in
//! `tests/golden/tband-perfetto/` (see `tests/golden/harness.rs`; bless
//! with `TBAND_BLESS=1 cargo test -p tband-perfetto --test golden`).

#[path = "../../tests/golden/harness.rs"]
mod harness;

use harness::command;

#[test]
fn outputs_are_the_blessed_ones() {
    // No `--help`: it shows the default of `--threads`, which is the
    // machine's (2 where there are two cores, else 1).
    let mut commands = Vec::new();
    for trace in harness::traces() {
        let t = trace.args();
        // `--threads` is always given: its default follows the machine's
        // cores, and the two ways order the packets differently.
        for mode in [
            &["--threads", "2"][..],
            &["--threads", "1"],
            &["--threads", "2", "--sched-format", "events"],
            &["--format", "chrome-json"],
        ] {
            commands.push(command(&[&["-o", "-"], mode, &t]));
        }
    }
    for bad in harness::NOT_TRACES {
        commands.push(command(&[&["-o", "-", bad]]));
    }
    harness::check(
        "tband-perfetto",
        env!("CARGO_BIN_EXE_tband-perfetto"),
        &commands,
    );
}
