//! A program in a tmux pseudo-terminal, for end-to-end tests of the tools
//! that draw on a terminal (`tband-tui`, `tband-capture --tui`): driven
//! with `send-keys`, read with `capture-pane`. Included by those tests
//! with `#[path]`.

use std::process::{Command, Output};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// A tmux server of its own, killed when the test ends.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `command` (a shell command line) in a 140×45 session of a
    /// tmux server named after `name`; `None` when tmux is not installed.
    pub fn start(name: &str, command: &str) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            println!("skipped: tmux is not installed");
            return None;
        }
        let tmux = Tmux {
            socket: format!("{name}-{}", std::process::id()),
        };
        let started = tmux.run(&[
            "new-session",
            "-d",
            "-s",
            "tui",
            "-x",
            "140",
            "-y",
            "45",
            command,
        ]);
        assert!(started.status.success(), "{started:?}");
        Some(tmux)
    }

    /// Sends `q` and waits for the program to end.
    pub fn quit(&self) {
        self.keys(&["q"]);
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.alive() {
            assert!(Instant::now() < deadline, "q did not quit");
            sleep(Duration::from_millis(50));
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs")
    }

    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "tui"]).stdout).into_owned()
    }

    /// Logs everything the program writes to the terminal from now on, as
    /// bytes (escape sequences and lines drawn over included), to `file`.
    #[allow(dead_code)] // not every test that includes this file logs
    pub fn pipe_to(&self, file: &std::path::Path) {
        let command = format!("cat > '{}'", file.display());
        assert!(self
            .run(&["pipe-pane", "-o", "-t", "tui", &command])
            .status
            .success());
    }

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "tui"];
        args.extend_from_slice(keys);
        assert!(self.run(&args).status.success());
    }

    /// Waits until the screen satisfies `ok`, returning it.
    pub fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        self.wait_within(Duration::from_secs(20), what, ok)
    }

    /// Waits at most `time` until the screen satisfies `ok`, returning it.
    pub fn wait_within(&self, time: Duration, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + time;
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{screen}"
            );
            sleep(Duration::from_millis(20));
        }
    }

    pub fn alive(&self) -> bool {
        self.run(&["has-session", "-t", "tui"]).status.success()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}
