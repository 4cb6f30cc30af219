//! The conversion's progress bars: drawn on a terminal (the binary in a
//! tmux pseudo-terminal, its output logged byte for byte) and cleared at
//! the end; nothing of them in a pipe.

#[path = "../../tests/tmux/session.rs"]
#[allow(dead_code)] // the conversion ends by itself, not by `quit`
mod session;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use session::Tmux;

const BIN: &str = env!("CARGO_BIN_EXE_tband-perfetto");

/// A directory of its own holding a simulated trace of a few MB, `sim.bin`.
fn simulated(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tband-perfetto-progress-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let config = tband_sim::Config {
        size: 4 << 20,
        ..tband_sim::Config::default()
    };
    let (streams, _) = tband_sim::generate(&config).unwrap();
    std::fs::write(dir.join("sim.bin"), &streams[0]).unwrap();
    dir
}

#[test]
fn a_terminal_sees_the_bars_while_converting_and_not_after() {
    let dir = simulated("tty");
    let log = dir.join("terminal.log");
    // The conversion waits for a key, so that the log is taken from its
    // first byte; the shell then waits, so that the screen can be read.
    let command = format!(
        "sh -c 'read go; {BIN} {input} -o {output}; echo converted; read done'",
        input = dir.join("sim.bin").display(),
        output = dir.join("sim.pftrace").display(),
    );
    let Some(tmux) = Tmux::start("tband-perfetto-progress", &command) else {
        return;
    };
    tmux.pipe_to(&log);
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_within(Duration::from_secs(120), "the conversion", |s| {
        s.contains("converted")
    });
    assert!(screen.contains("wrote "), "{screen}");
    assert!(
        !screen.contains("Reading") && !screen.contains("Writing"),
        "the bars are cleared: {screen}"
    );
    tmux.keys(&["Enter"]);

    let written = without_escapes(&String::from_utf8_lossy(&std::fs::read(&log).unwrap()));
    let reading = written.find("Reading [").expect("a reading bar was drawn");
    let writing = written.find("Writing [").expect("a writing bar was drawn");
    assert!(reading < writing, "{written}");
    assert!(
        written.contains("/4.00 MiB"),
        "bytes read of the input's: {written}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `text` without its terminal control sequences (ESC `[` ... letter).
fn without_escapes(text: &str) -> String {
    let mut plain = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.next() == Some('[') {
            chars.by_ref().find(|c| c.is_ascii_alphabetic());
        } else {
            plain.push(c);
        }
    }
    plain
}

#[test]
fn a_pipe_sees_no_bar() {
    let dir = simulated("pipe");
    let output = Command::new(BIN)
        .arg(dir.join("sim.bin"))
        .arg("-o")
        .arg(dir.join("sim.pftrace"))
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("wrote "), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
