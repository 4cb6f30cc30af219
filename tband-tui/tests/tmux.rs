//! End to end: the real binary in a tmux pseudo-terminal, driven with
//! `send-keys` and read with `capture-pane` — open, zoom, pan, select, quit;
//! follow a file that grows, with lifetime rules applied as it grows.

#[path = "../../tests/lifetimes/requests.rs"]
mod requests;

use std::fs::OpenOptions;
use std::io::Write;
use std::time::Duration;

#[path = "../../tests/tmux/session.rs"]
mod session;
use session::Tmux;

/// The recording the tests open.
const TRACE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/corpus/tband/freertos_small.bin"
);

/// Starts `tband-tui ARGS FILE` in tmux; `None` when tmux is not installed.
fn start(name: &str, args: &str, file: &str) -> Option<Tmux> {
    let command = format!("{} {args} {file}", env!("CARGO_BIN_EXE_tband-tui"));
    Tmux::start(name, &command)
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
    let Some(tmux) = start("tband-tui-test", "", TRACE) else {
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
    let Some(tmux) = start("tband-tui-progressive", "--preview-bytes 4000", TRACE) else {
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
    let Some(tmux) = start("tband-tui-follow", "--follow", path.to_str().unwrap()) else {
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

/// The labels of the object rows on the screen (the lines of the group
/// `tracked objects`, cut to their first 14 characters), e.g. `request 0x7/in`
/// for the pool's counter and `request 0x7/re` for each lane.
fn object_labels(screen: &str) -> Vec<String> {
    let rows = screen
        .lines()
        .skip_while(|l| !l.contains("▾ tracked objects"));
    rows.skip(1)
        .take_while(|l| !l.trim().is_empty() && !l.contains('▾') && !l.contains('▸'))
        .map(|l| l.chars().take(16).collect::<String>().trim().to_string())
        .collect()
}

/// A followed file with a rules file: the pool of requests its markers
/// begin shows as soon as the first are written, with its counter and a
/// lane per request live at once, and gains lanes as more requests are
/// live at once.
#[test]
fn a_followed_file_shows_the_objects_its_rules_make() {
    let bytes = requests::stream(60);
    // The first two requests: up to their second's counter value.
    let first = 2 * bytes.len() / 60;
    let first = bytes[..first].iter().rposition(|&b| b == 0).unwrap() + 1;
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules.toml");
    std::fs::write(&rules, requests::RULES).unwrap();
    let path = dir.path().join("requests.bin");
    std::fs::write(&path, &bytes[..first]).unwrap();
    let args = format!("--follow --rules {}", rules.display());
    let Some(tmux) = start("tband-tui-follow-rules", &args, path.to_str().unwrap()) else {
        return;
    };
    const COUNTER: &str = "request 0x7/in";
    const LANE: &str = "request 0x7/re";
    let screen = tmux.wait_for("the pool of requests", |s| {
        object_labels(s).first().is_some_and(|l| l == COUNTER)
    });
    let labels = object_labels(&screen);
    assert!(labels.len() < 1 + requests::MOST_LIVE as usize, "{screen}");

    let mut file = OpenOptions::new().append(true).open(&path).unwrap();
    file.write_all(&bytes[first..]).unwrap();
    let mut rows = vec![COUNTER];
    rows.extend([LANE; requests::MOST_LIVE as usize]);
    let screen = tmux.wait_within(Duration::from_secs(1), "all lanes", |s| {
        object_labels(s) == rows
    });
    assert!(
        screen.contains("anomalies"),
        "the end never begun: {screen}"
    );
    tmux.quit();
}
