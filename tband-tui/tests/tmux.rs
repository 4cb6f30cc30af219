//! End to end: the real binary in a tmux pseudo-terminal, driven with
//! `send-keys` and read with `capture-pane` — open, zoom, pan, select, quit;
//! follow a file that grows.

use std::fs::OpenOptions;
use std::io::Write;
use std::process::{Command, Output};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// A tmux server of its own, killed when the test ends.
struct Tmux {
    socket: String,
}

/// The recording the tests open.
const TRACE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/corpus/tband/freertos_small.bin"
);

impl Tmux {
    /// Starts `tband-tui ARGS TRACE` in a 140×45 session of a tmux server
    /// named after `name`; `None` when tmux is not installed.
    fn start(name: &str, args: &str) -> Option<Tmux> {
        Tmux::start_on(name, args, TRACE)
    }

    /// Starts `tband-tui ARGS FILE`, as [`Tmux::start`] does.
    fn start_on(name: &str, args: &str, file: &str) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            println!("skipped: tmux is not installed");
            return None;
        }
        let tmux = Tmux {
            socket: format!("{name}-{}", std::process::id()),
        };
        let command = format!("{} {args} {file}", env!("CARGO_BIN_EXE_tband-tui"));
        let started = tmux.run(&[
            "new-session",
            "-d",
            "-s",
            "tui",
            "-x",
            "140",
            "-y",
            "45",
            &command,
        ]);
        assert!(started.status.success(), "{started:?}");
        Some(tmux)
    }

    /// Sends `q` and waits for the program to end.
    fn quit(&self) {
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

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "tui"]).stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "tui"];
        args.extend_from_slice(keys);
        assert!(self.run(&args).status.success());
    }

    /// Waits until the screen satisfies `ok`, returning it.
    fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        self.wait_within(Duration::from_secs(20), what, ok)
    }

    /// Waits at most `time` until the screen satisfies `ok`, returning it.
    fn wait_within(&self, time: Duration, what: &str, ok: impl Fn(&str) -> bool) -> String {
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

    fn alive(&self) -> bool {
        self.run(&["has-session", "-t", "tui"]).status.success()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

/// The view span from the title line, e.g. `(44.92ms)`.
fn span(screen: &str) -> String {
    let title = screen.lines().next().unwrap_or("");
    let open = title.find('(').unwrap_or(0);
    let close = title.find(')').unwrap_or(0);
    title.get(open..=close).unwrap_or("").to_string()
}

fn view_start(screen: &str) -> String {
    let title = screen.lines().next().unwrap_or("");
    title
        .split_whitespace()
        .find(|w| w.contains("..") && !w.contains('/'))
        .and_then(|w| w.split("..").next())
        .unwrap_or("")
        .to_string()
}

#[test]
fn open_zoom_pan_select_quit() {
    let Some(tmux) = Tmux::start("tband-tui-test", "") else {
        return;
    };

    let screen = tmux.wait_for("the first frame", |s| s.contains("? keys"));
    assert_eq!(span(&screen), "(89.84ms)", "{screen}");
    assert!(
        screen.contains("core 0") && screen.contains("c0 SimIRQ"),
        "{screen}"
    );

    tmux.keys(&["+"]);
    let screen = tmux.wait_for("zoom in", |s| span(s) == "(44.92ms)");
    let start = view_start(&screen);
    tmux.keys(&["w"]);
    tmux.wait_for("zoom in again", |s| span(s) == "(22.46ms)");
    tmux.keys(&["d"]);
    let screen = tmux.wait_for("pan right", |s| view_start(s) != start);
    let panned = view_start(&screen);
    tmux.keys(&["Left"]);
    tmux.wait_for("pan left", |s| view_start(s) != panned);

    // Select the core row, jump to its next slice: the details panel opens.
    tmux.keys(&["j", "n"]);
    let screen = tmux.wait_for("the details panel", |s| s.contains("│ details"));
    assert!(screen.contains("task "), "{screen}");
    assert!(screen.contains("duration"), "{screen}");

    tmux.keys(&["?"]);
    tmux.wait_for("the key help", |s| s.contains("keys (? closes)"));
    tmux.keys(&["?"]);
    tmux.quit();
}

/// A trace larger than the preview: its first part is shown while the whole
/// loads (too fast here to catch reliably), then the whole trace, fitted, as
/// if it had been opened complete; keys work from the first frame on.
#[test]
fn progressive_open_ends_with_the_whole_trace() {
    let Some(tmux) = Tmux::start("tband-tui-progressive", "--preview-bytes 4000") else {
        return;
    };
    tmux.keys(&["j"]);
    let screen = tmux.wait_for("the whole trace", |s| {
        span(s) == "(89.84ms)" && !s.contains("loading")
    });
    assert!(screen.contains("core 0"), "{screen}");
    tmux.keys(&["+"]);
    tmux.wait_for("zoom in", |s| span(s) == "(44.92ms)");
    tmux.quit();
}

/// A file that grows while it is followed: the task that only the later
/// part names shows within a second of that part being written; panning
/// holds the view and End follows the file again.
#[test]
fn a_followed_file_shows_a_new_task_within_a_second() {
    let bytes = std::fs::read(TRACE).unwrap();
    // Cut inside the frame that names the task `tmpB`.
    let cut = bytes.windows(4).position(|w| w == b"tmpB").unwrap() - 2;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("growing.bin");
    std::fs::write(&path, &bytes[..cut]).unwrap();
    let Some(tmux) = Tmux::start_on("tband-tui-follow", "--follow", path.to_str().unwrap()) else {
        return;
    };
    let screen = tmux.wait_for("the first part", |s| {
        s.contains("tmpA") && s.contains("keeps to the newest data")
    });
    assert!(!screen.contains("tmpB"), "{screen}");
    assert!(
        !screen.contains("anomalies"),
        "no frame is invalid: {screen}"
    );

    let mut file = OpenOptions::new().append(true).open(&path).unwrap();
    file.write_all(&bytes[cut..]).unwrap();
    let screen = tmux.wait_within(Duration::from_secs(1), "the new task", |s| {
        s.contains("tmpB")
    });
    assert_eq!(span(&screen), "(89.84ms)", "all of the trace: {screen}");

    tmux.keys(&["+"]);
    tmux.wait_for("the view held", |s| {
        s.contains("view held, End or f follows again")
    });
    tmux.keys(&["End"]);
    tmux.wait_for("the view following", |s| {
        s.contains("keeps to the newest data")
    });
    tmux.quit();
}
