//! Follow benchmark: the delay from bytes written to a growing trace file
//! to the redrawn screen, as `tband-tui --follow` has it, for a small and a
//! large file. A writer thread appends a simulated trace in 64 KiB writes at
//! irregular times (about 3 MB/s, as a fast capture writes); the viewer runs
//! the loop the real one runs (look at the file, extend the rows, redraw at
//! 200x60, wait `FOLLOW_INTERVAL` while nothing is new). A write's delay
//! runs from its return to the end of the first redraw that shows its last
//! whole frame. Also printed: the time each look that found something
//! took with its redraw, and the time the summary pane's figures take to
//! compute (while the pane is shown they are computed again at most every
//! ten times that).
//!
//! `cargo bench -p tband-tui --bench follow [-- MB...]` (the sizes of the
//! file before the writes; 1 and 100 by default)

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use tband_model::analysis::Analysis;
use tband_tui::app::App;
use tband_tui::load::{Follower, FOLLOW_INTERVAL};
use tband_tui::render::draw_buffer;

/// Bytes per write, as `tband-capture` writes a read of a fast link.
const WRITE_BYTES: usize = 64 << 10;
/// Writes per run.
const WRITES: usize = 48;

/// One write: when it returned, and where the last whole frame it
/// completed ends in the file.
struct Written {
    at: Instant,
    frames_end: u64,
}

/// What a run measured.
struct Run {
    /// How long the viewer took to show the file as it was at the start.
    caught_up: Duration,
    /// Each write's delay.
    delays: Vec<Duration>,
    /// Each look that found something, with its redraw.
    updates: Vec<Duration>,
    /// Computing the summary pane's figures at the end.
    figures: Duration,
}

/// The view the viewer keeps during a run.
#[derive(Clone, Copy)]
enum View {
    /// All of the trace, as it opens.
    Whole,
    /// All of it, with the summary pane shown.
    WholeWithSummary,
    /// The last 1/64 of it (zoomed in six times, then End).
    Last,
}

impl View {
    fn name(self) -> &'static str {
        match self {
            View::Whole => "whole trace",
            View::WholeWithSummary => "whole + summary pane",
            View::Last => "last 1/64, pinned",
        }
    }
}

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmHWM:"));
    let kb: f64 = line
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0.0);
    kb / 1e3
}

fn key(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let mut sizes: Vec<u64> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .map(|a| a.parse().expect("a size in MB"))
        .collect();
    if sizes.is_empty() {
        sizes = vec![1, 100];
    }
    let appended = (WRITE_BYTES * WRITES) as u64;
    let config = tband_sim::Config {
        size: sizes.iter().max().unwrap() * 1_000_000 + appended,
        wide_values: true,
        ..tband_sim::Config::default()
    };
    let trace = tband_sim::generate(&config).unwrap().0.remove(0);
    let dir = tempfile::tempdir().unwrap();
    println!(
        "{WRITES} writes of {} KiB at 1-40 ms intervals, redrawn at 200x60, looked at every {} ms when idle",
        WRITE_BYTES >> 10,
        FOLLOW_INTERVAL.as_millis()
    );
    println!(
        "{:>8}  {:<22}{:>24}{:>18}{:>12}{:>11}",
        "file", "view", "delay mean/p50/max ms", "update mean/max", "catch-up s", "figures"
    );
    for &mb in &sizes {
        let prefix = (mb * 1_000_000) as usize;
        // The file starts at a frame's end, as a recording does.
        let start = trace[..prefix].iter().rposition(|&b| b == 0).unwrap() + 1;
        for view in [View::Whole, View::WholeWithSummary, View::Last] {
            let path = dir.path().join("growing.bin");
            std::fs::write(&path, &trace[..start]).unwrap();
            let mut run = run(&path, &trace[start..], view);
            run.delays.sort();
            run.updates.sort();
            let mean = |d: &[Duration]| ms(d.iter().sum::<Duration>() / d.len().max(1) as u32);
            let last = |d: &[Duration]| ms(d.last().copied().unwrap_or_default());
            let delays = format!(
                "{:.1} / {:.1} / {:.1}",
                mean(&run.delays),
                ms(run.delays[run.delays.len() / 2]),
                last(&run.delays)
            );
            let updates = format!("{:.1} / {:.1}", mean(&run.updates), last(&run.updates));
            println!(
                "{:>5} MB  {:<22}{delays:>24}{updates:>18}{:>12.2}{:>8.0} ms",
                mb,
                view.name(),
                run.caught_up.as_secs_f64(),
                ms(run.figures)
            );
        }
    }
    println!(
        "peak RSS {:.1} MB (the simulated trace in memory included)",
        peak_rss_mb()
    );
}

/// Follows the file at `path` while `more` is appended to it.
fn run(path: &std::path::Path, more: &[u8], view: View) -> Run {
    let area = Rect::new(0, 0, 200, 60);
    let mut buf = Buffer::empty(area);
    let started = Instant::now();
    let mut follower = Follower::open(&[path.display().to_string()], &Default::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut app = follower.viewer("growing.bin".into()).unwrap();
    let mut draw = |app: &mut App| {
        buf.reset();
        app.geometry = draw_buffer(&mut buf, area, app);
    };
    draw(&mut app);
    while follower.update(&mut app).unwrap().behind {
        draw(&mut app);
    }
    draw(&mut app);
    let caught_up = started.elapsed();
    match view {
        View::Whole => {}
        View::WholeWithSummary => key(&mut app, KeyCode::Char('t')),
        View::Last => {
            for _ in 0..6 {
                key(&mut app, KeyCode::Char('+'));
            }
            key(&mut app, KeyCode::End);
        }
    }
    draw(&mut app);

    let (sent, written) = mpsc::channel();
    let base = std::fs::metadata(path).unwrap().len();
    let mut file = OpenOptions::new().append(true).open(path).unwrap();
    let more = more[..(WRITE_BYTES * WRITES).min(more.len())].to_vec();
    let writer = thread::spawn(move || write_slowly(&mut file, &more, base, &sent));

    let mut pending: Vec<Written> = Vec::new();
    let mut delays = Vec::new();
    let mut updates = Vec::new();
    let mut drawn = Instant::now();
    while delays.len() < WRITES {
        let look = Instant::now();
        let update = follower.update(&mut app).unwrap();
        if update.changed {
            draw(&mut app);
            drawn = Instant::now();
            updates.push(drawn - look);
        }
        // A write told of after the look that read it was shown by the
        // last redraw.
        pending.extend(written.try_iter());
        let shown = follower.read_to();
        pending.retain(|w| {
            let done = w.frames_end <= shown;
            if done {
                delays.push(drawn.saturating_duration_since(w.at));
            }
            !done
        });
        if !update.behind {
            thread::sleep(FOLLOW_INTERVAL);
        }
    }
    writer.join().unwrap();
    let figured = Instant::now();
    Analysis::of(&app.model);
    Run {
        caught_up,
        delays,
        updates,
        figures: figured.elapsed(),
    }
}

/// Appends `bytes` to `file` (which holds `base` bytes) in writes of
/// [`WRITE_BYTES`] at irregular intervals, telling `sent` about each.
fn write_slowly(file: &mut File, bytes: &[u8], base: u64, sent: &mpsc::Sender<Written>) {
    let mut interval = 7;
    let mut written = 0;
    for chunk in bytes.chunks(WRITE_BYTES) {
        interval = interval * 13 % 41 + 1;
        thread::sleep(Duration::from_millis(interval));
        file.write_all(chunk).unwrap();
        let at = Instant::now();
        let last_zero = chunk.iter().rposition(|&b| b == 0).unwrap();
        let frames_end = base + (written + last_zero + 1) as u64;
        written += chunk.len();
        sent.send(Written { at, frames_end }).unwrap();
    }
}
