//! Golden outputs of `tband-tui`: frames of every recording printed with
//! `--snapshot`, checked against `tests/golden/tband-tui.txt` and the texts
//! in `tests/golden/tband-tui/` (see `tests/golden/harness.rs`; bless with
//! `TBAND_BLESS=1 cargo test -p tband-tui --test golden`).

#[path = "../../tests/golden/harness.rs"]
mod harness;

use harness::command;

#[test]
fn outputs_are_the_blessed_ones() {
    let mut commands = vec![command(&[&["--help"]])];
    for trace in harness::traces() {
        let t = trace.args();
        for mode in [
            &["--snapshot", "120x40"][..],
            &["--snapshot", "120x40", "--summary"],
            &["--snapshot", "100x30", "--range", "1ms..2ms"],
        ] {
            commands.push(command(&[mode, &t]));
        }
    }
    for bad in harness::NOT_TRACES {
        commands.push(command(&[&["--snapshot", "80x24", bad]]));
    }
    harness::check("tband-tui", env!("CARGO_BIN_EXE_tband-tui"), &commands);
}
