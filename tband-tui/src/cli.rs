//! The `tband-tui` command: what it does with its arguments, which the
//! binary (`main.rs`) parses.

use std::io::{self, Write};
use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event};
use ratatui::crossterm::execute;
use ratatui::layout::Rect;
use tband_trace::OpenOptions;

use crate::app::App;
use crate::load::{self, Follower, Loader, Opened, FOLLOW_INTERVAL};
use crate::render::{draw, draw_buffer, to_text};
use crate::time::parse_range;

/// What the command line asks for (its options, by the same names).
#[derive(Clone, Debug)]
pub struct Options {
    /// The trace files.
    pub inputs: Vec<String>,
    /// How to read them.
    pub input: OpenOptions,
    /// Print one frame of this size (width, height) as text instead.
    pub snapshot: Option<(u16, u16)>,
    /// The time range to show first, as `START..END`.
    pub range: Option<String>,
    pub summary: bool,
    pub preview_bytes: u64,
    /// Follow the one trace file as another process appends to it.
    pub follow: bool,
}

impl Options {
    /// The options of `tband-tui --follow FILE`.
    pub fn follow(file: String) -> Options {
        Options {
            inputs: vec![file],
            input: OpenOptions::default(),
            snapshot: None,
            range: None,
            summary: false,
            preview_bytes: 0,
            follow: true,
        }
    }
}

/// Runs the command: the timeline in the terminal until the user quits, or
/// one snapshot frame.
pub fn run(cli: &Options) -> Result<(), String> {
    let range = cli
        .range
        .as_deref()
        .map(parse_range)
        .transpose()
        .map_err(|e| e.to_string())?;
    // File names only: the title line has little room.
    let title = cli
        .inputs
        .iter()
        .map(|i| i.rsplit('/').next().unwrap_or(i))
        .collect::<Vec<_>>()
        .join(" ");
    if cli.follow {
        let mut follower = Follower::open(&cli.inputs, &cli.input).map_err(|e| e.to_string())?;
        let mut app = follower.viewer(title).map_err(|e| e.to_string())?;
        app.show_summary = cli.summary;
        return interact(app, Input::Follower(Box::new(follower)), None);
    }
    let preview = (cli.snapshot.is_none() && cli.preview_bytes > 0).then_some(cli.preview_bytes);
    let opened = load::open(&cli.inputs, &cli.input, preview).map_err(|e| e.to_string())?;
    let (model, loader) = match opened {
        Opened::Complete(model) => (model, None),
        Opened::Partial { preview, loader } => (preview, Some(loader)),
    };
    let mut app = App::new(model, title);
    app.show_summary = cli.summary;
    app.loading = loader.as_ref().map(Loader::percent);

    if let Some((width, height)) = cli.snapshot {
        let area = Rect::new(0, 0, width, height);
        let mut buf = Buffer::empty(area);
        // The first pass learns the timeline width the range is laid out on.
        app.geometry = draw_buffer(&mut buf, area, &app);
        apply_range(&mut app, range);
        let mut buf = Buffer::empty(area);
        draw_buffer(&mut buf, area, &app);
        io::stdout()
            .write_all(to_text(&buf).as_bytes())
            .map_err(|e| format!("cannot write the snapshot: {e}"))?;
        return Ok(());
    }
    let input = match loader {
        Some(loader) => Input::Loader(loader),
        None => Input::Complete,
    };
    interact(app, input, range)
}

/// Where more of the trace shown comes from.
enum Input {
    /// It is all shown.
    Complete,
    /// The whole trace, being loaded.
    Loader(Loader),
    /// The file, as it grows.
    Follower(Box<Follower>),
}

/// Shows `range` (`START..END`, either side open), if any.
fn apply_range(app: &mut App, range: Option<(Option<u64>, Option<u64>)>) {
    if let Some((start, end)) = range {
        let start = start.unwrap_or(0);
        let end = end.unwrap_or(app.full_end());
        app.set_view(start, end);
        app.cursor = app.start;
    }
}

/// The timeline in the terminal until the user quits.
fn interact(
    mut app: App,
    mut input: Input,
    range: Option<(Option<u64>, Option<u64>)>,
) -> Result<(), String> {
    let mut terminal = ratatui::try_init().map_err(|e| format!("cannot use the terminal: {e}"))?;
    let terminal_error = |e: io::Error| format!("terminal error: {e}");
    let result = (|| -> Result<(), String> {
        execute!(io::stdout(), EnableMouseCapture).map_err(terminal_error)?;
        let mut first = true;
        let mut dirty = true;
        let mut warming = true;
        let mut behind = false;
        // The view the options asked for, to be asked for again of the
        // whole trace unless the user has moved away from it.
        let mut initial_view = (app.start, app.end);
        while !app.quit {
            if matches!(&input, Input::Loader(l) if l.is_done()) {
                if let Input::Loader(l) = std::mem::replace(&mut input, Input::Complete) {
                    let untouched = (app.start, app.end) == initial_view;
                    app.replace(l.wait());
                    if untouched {
                        apply_range(&mut app, range);
                    }
                    warming = true;
                    dirty = true;
                }
            }
            match &mut input {
                Input::Loader(l) => {
                    let percent = Some(l.percent());
                    dirty |= app.loading != percent;
                    app.loading = percent;
                }
                Input::Follower(f) => {
                    let update = f.update(&mut app).map_err(|e| e.to_string())?;
                    dirty |= update.changed;
                    behind = update.behind;
                }
                Input::Complete => {}
            }
            if dirty {
                terminal
                    .draw(|frame| app.geometry = draw(frame, &app))
                    .map_err(terminal_error)?;
                dirty = false;
                if first {
                    // The range is laid out on the width the first frame found.
                    first = false;
                    dirty = range.is_some();
                    apply_range(&mut app, range);
                    initial_view = (app.start, app.end);
                    continue;
                }
            }
            // While no key is waiting, the summaries of rows not shown yet
            // are built one row at a time. While the whole trace loads, the
            // progress is shown a few times a second; a followed file is
            // looked at more often.
            let wait = match &input {
                _ if warming || behind => Duration::ZERO,
                Input::Loader(_) => Duration::from_millis(200),
                Input::Follower(_) => FOLLOW_INTERVAL,
                Input::Complete => Duration::from_millis(500),
            };
            if !event::poll(wait).map_err(terminal_error)? {
                if warming {
                    warming = app.warm_up_step();
                }
                continue;
            }
            match event::read().map_err(terminal_error)? {
                Event::Key(key) => app.on_key(key),
                Event::Mouse(mouse) => app.on_mouse(mouse),
                Event::Resize(..) => {}
                _ => continue,
            }
            dirty = true;
        }
        Ok(())
    })();
    let _ = execute!(io::stdout(), DisableMouseCapture);
    ratatui::restore();
    result
}
