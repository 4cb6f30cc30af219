//! Golden outputs of `tband-decode`: every listing mode on every recording,
//! checked against `tests/golden/tband-decode.txt` and the texts in
//! `tests/golden/tband-decode/` (see `tests/golden/harness.rs`; bless with
//! `TBAND_BLESS=1 cargo test -p tband-cli --test golden`).

#[path = "../../tests/golden/harness.rs"]
mod harness;

use harness::{command, Kind};

#[test]
fn outputs_are_the_blessed_ones() {
    let mut commands = vec![command(&[&["--help"]])];
    for trace in harness::traces() {
        let t = trace.args();
        // No option: the JSON listing, stdout being a pipe.
        for mode in [
            &[][..],
            &["--json"],
            &["--pretty"],
            &["--stats"],
            &["--summary"],
        ] {
            commands.push(command(&[mode, &t]));
        }
        if trace.kind == Kind::Threadx {
            // ThreadX records no tick length: the options that say it.
            commands.push(command(&[&["--summary", "--tick-ns", "10"], &t]));
            commands.push(command(&[
                &["--pretty", "--tick-ns", "10", "--timer-direction", "up"],
                &t,
            ]));
        }
    }
    for bad in harness::NOT_TRACES {
        commands.push(command(&[&[bad]]));
        commands.push(command(&[&["--summary", bad]]));
    }
    harness::check(
        "tband-decode",
        env!("CARGO_BIN_EXE_tband-decode"),
        &commands,
    );
}
