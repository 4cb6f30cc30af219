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
use crate::load::{self, Loader, Opened};
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
    let preview = (cli.snapshot.is_none() && cli.preview_bytes > 0).then_some(cli.preview_bytes);
    let opened = load::open(&cli.inputs, &cli.input, preview).map_err(|e| e.to_string())?;
    let (model, mut loader) = match opened {
        Opened::Complete(model) => (model, None),
        Opened::Partial { preview, loader } => (preview, Some(loader)),
    };
    // File names only: the title line has little room.
    let title = cli
        .inputs
        .iter()
        .map(|i| i.rsplit('/').next().unwrap_or(i))
        .collect::<Vec<_>>()
        .join(" ");
    let mut app = App::new(model, title);
    app.show_summary = cli.summary;
    app.loading = loader.as_ref().map(Loader::percent);

    let apply_range = |app: &mut App| {
        if let Some((start, end)) = range {
            let start = start.unwrap_or(0);
            let end = end.unwrap_or(app.full_end());
            app.set_view(start, end);
            app.cursor = app.start;
        }
    };

    if let Some((width, height)) = cli.snapshot {
        let area = Rect::new(0, 0, width, height);
        let mut buf = Buffer::empty(area);
        // The first pass learns the timeline width the range is laid out on.
        app.geometry = draw_buffer(&mut buf, area, &app);
        apply_range(&mut app);
        let mut buf = Buffer::empty(area);
        draw_buffer(&mut buf, area, &app);
        io::stdout()
            .write_all(to_text(&buf).as_bytes())
            .map_err(|e| format!("cannot write the snapshot: {e}"))?;
        return Ok(());
    }

    let mut terminal = ratatui::try_init().map_err(|e| format!("cannot use the terminal: {e}"))?;
    let result = (|| -> io::Result<()> {
        execute!(io::stdout(), EnableMouseCapture)?;
        let mut first = true;
        let mut dirty = true;
        let mut warming = true;
        // The view the options asked for, to be asked for again of the
        // whole trace unless the user has moved away from it.
        let mut initial_view = (app.start, app.end);
        while !app.quit {
            if let Some(l) = loader.take_if(|l| l.is_done()) {
                let untouched = (app.start, app.end) == initial_view;
                app.replace(l.wait());
                if untouched {
                    apply_range(&mut app);
                }
                warming = true;
                dirty = true;
            } else if let Some(l) = &loader {
                let percent = Some(l.percent());
                dirty |= app.loading != percent;
                app.loading = percent;
            }
            if dirty {
                terminal.draw(|frame| app.geometry = draw(frame, &app))?;
                dirty = false;
                if first {
                    // The range is laid out on the width the first frame found.
                    first = false;
                    dirty = range.is_some();
                    apply_range(&mut app);
                    initial_view = (app.start, app.end);
                    continue;
                }
            }
            // While no key is waiting, the summaries of rows not shown yet
            // are built one row at a time. While the whole trace loads, the
            // progress is shown a few times a second.
            let wait = if warming {
                Duration::ZERO
            } else if loader.is_some() {
                Duration::from_millis(200)
            } else {
                Duration::from_millis(500)
            };
            if !event::poll(wait)? {
                if warming {
                    warming = app.warm_up_step();
                }
                continue;
            }
            match event::read()? {
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
    result.map_err(|e| format!("terminal error: {e}"))
}
