//! Drawing one frame: title, time axis with anomalies and marks, the rows,
//! and the details, summary, help and filter overlays.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};
use ratatui::Frame;
use tband_model::{Model, TaskStateKind};

use crate::app::{App, Entry, Follow, Geometry};
use crate::details::details;
use crate::line::{Cell, Columns, IntervalLine, IntervalSource, SampleCell, SampleLine, NO_NAME};
use crate::rows::{Body, Row};
use crate::summary::{cpu_lines, isr_queue_lines, line_counts};
use crate::time::{axis_label, exact, short, tick_step};

/// Every key the viewer knows, as shown by `?` (and in the book).
pub const KEYMAP: &[(&str, &str)] = &[
    (
        "+ = w / wheel up",
        "zoom in around the cursor (wheel: the pointer)",
    ),
    ("- s / wheel down", "zoom out"),
    ("a d / h l / ← →", "pan by 1/8 of the view"),
    ("A D / H L / ⇧← ⇧→", "pan by half the view"),
    ("drag", "pan"),
    (
        "Home g / End G",
        "jump to the start / end; End follows a growing file",
    ),
    ("f 0", "fit the whole trace (and follow a growing file)"),
    (", . / < >", "move the cursor 1 / 10 columns"),
    ("click", "set the cursor, select the row and item"),
    ("↑ ↓ / k j / PgUp PgDn", "select a row"),
    ("Enter", "details of the item under the cursor"),
    ("n N", "next / previous item on the selected row"),
    ("Space", "collapse or expand the row's group"),
    ("/", "filter rows by name (Enter keeps, Esc clears)"),
    ("m", "mark the cursor; two marks measure"),
    ("x", "jump to the crash (the last fault) and show it"),
    ("t", "summary: CPU %, ISRs, queues"),
    ("Esc", "close details, clear marks and help"),
    ("?", "this help"),
    ("q Ctrl-C", "quit"),
];

const LABEL_MIN: u16 = 12;
const LABEL_MAX: u16 = 26;
const DETAILS_WIDTH: u16 = 38;
const PALETTE: [Color; 10] = [
    Color::Green,
    Color::Cyan,
    Color::Yellow,
    Color::Magenta,
    Color::Blue,
    Color::LightRed,
    Color::LightGreen,
    Color::LightCyan,
    Color::LightYellow,
    Color::LightMagenta,
];
const SPARK: [&str; 9] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];

fn colour(code: u32) -> Color {
    PALETTE[code as usize % PALETTE.len()]
}

/// Draws the whole frame and returns where the rows landed.
pub fn draw(frame: &mut Frame, app: &App) -> Geometry {
    let area = frame.area();
    let buf = frame.buffer_mut();
    draw_buffer(buf, area, app)
}

/// Draws into a buffer (the frame's, or one for a plain-text snapshot).
pub fn draw_buffer(buf: &mut Buffer, area: Rect, app: &App) -> Geometry {
    if area.width < 30 || area.height < 6 {
        buf.set_stringn(
            area.x,
            area.y,
            "terminal too small",
            area.width.into(),
            Style::new(),
        );
        return Geometry::default();
    }
    let status_y = area.bottom() - 1;
    let summary_h = if app.show_summary {
        let (left, right) = line_counts(app);
        (left.max(right) as u16)
            .saturating_add(2)
            .min((area.height - 4) / 2)
    } else {
        0
    };
    let details_w = if app.picked.is_some() && area.width >= DETAILS_WIDTH + 40 {
        DETAILS_WIDTH
    } else {
        0
    };
    let main = Rect::new(
        area.x,
        area.y + 1,
        area.width - details_w,
        area.height - 2 - summary_h,
    );
    let label_w = (app.rows.longest_label.min(usize::from(LABEL_MAX)) as u16 + 3)
        .clamp(LABEL_MIN, LABEL_MAX)
        .min(main.width / 3);
    let timeline_x = main.x + label_w;
    let timeline_width = main.width - label_w;
    let cols = Columns::new(app.start, app.end, timeline_width.into());

    draw_title(buf, Rect::new(area.x, area.y, area.width, 1), app);
    draw_axis(buf, timeline_x, main.y, &cols, app);
    buf.set_string(
        main.x,
        main.y + 1,
        "time",
        Style::new().add_modifier(Modifier::DIM),
    );

    let rows_top = main.y + 2;
    let rows_height = main.bottom().saturating_sub(rows_top);
    let mut geometry = Geometry {
        timeline_x,
        timeline_width,
        lines: Vec::new(),
        rows_height: 0,
    };
    let entries = app.entries();
    prepare_visible(
        app,
        &cols,
        &entries[app.scroll.min(entries.len())..],
        rows_height,
    );
    let mut y = rows_top;
    let mut scratch = Scratch::default();
    for (index, entry) in entries.iter().enumerate().skip(app.scroll) {
        if y >= rows_top + rows_height {
            break;
        }
        let selected = index == app.selected;
        let label_style = if selected {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new()
        };
        geometry.lines.push((y, index));
        geometry.rows_height += 1;
        match *entry {
            Entry::Header(group) => {
                let mark = if app.collapsed.contains(&group) {
                    "▸"
                } else {
                    "▾"
                };
                let text = format!("{mark} {}", group.title());
                buf.set_stringn(
                    main.x,
                    y,
                    &text,
                    label_w.into(),
                    label_style.add_modifier(Modifier::BOLD),
                );
                y += 1;
            }
            Entry::Row(r) => {
                let row = &app.rows.all[r];
                let label = format!("  {}", row.label);
                buf.set_stringn(main.x, y, &label, usize::from(label_w) - 1, label_style);
                let height = (row.height() as u16).min(rows_top + rows_height - y);
                for line in 0..height {
                    let mut painter = LinePainter {
                        buf: &mut *buf,
                        x: timeline_x,
                        y: y + line,
                        cols: &cols,
                        m: &app.model,
                    };
                    painter.row_line(row, line.into(), &mut scratch);
                }
                y += height.max(1);
            }
        }
    }
    highlight_cursor(buf, timeline_x, rows_top, y, &cols, app);

    if details_w > 0 {
        draw_details(
            buf,
            Rect::new(main.right(), main.y, details_w, main.height),
            app,
        );
    }
    if summary_h > 0 {
        draw_summary(
            buf,
            Rect::new(area.x, main.bottom(), area.width, summary_h),
            app,
        );
    }
    draw_status(buf, Rect::new(area.x, status_y, area.width, 1), app);
    if app.show_help {
        draw_help(buf, area);
    }
    geometry
}

/// Builds the summaries of the rows about to be drawn, one pass per model
/// table, before drawing asks for them one row at a time.
fn prepare_visible(app: &App, cols: &Columns, entries: &[Entry], height: u16) {
    let mut lines = 0usize;
    let rows = entries.iter().map_while(|entry| {
        if lines >= usize::from(height) {
            return None;
        }
        Some(match *entry {
            Entry::Row(r) => {
                let row = &app.rows.all[r];
                lines += row.height();
                Some(row)
            }
            Entry::Header(_) => {
                lines += 1;
                None
            }
        })
    });
    let tracks = rows
        .flatten()
        .flat_map(|row| row.interval_tracks())
        .filter(|t| t.needs_summaries(&app.model, cols));
    IntervalLine::prepare_by_table(&app.model, tracks);
}

/// Reused per-frame buffers, so drawing a row allocates nothing per column.
#[derive(Default)]
struct Scratch {
    cells: Vec<Cell>,
    ticks: Vec<Cell>,
    samples: Vec<SampleCell>,
}

fn draw_title(buf: &mut Buffer, area: Rect, app: &App) {
    let loading = app.loading.map_or(String::new(), |percent| {
        format!("  partial: the start only, loading {percent} %")
    });
    let mut text = format!(
        " {}{loading}  {}..{} ({})  cursor {}",
        app.title,
        short(app.start),
        short(app.end),
        short(app.end - app.start),
        exact(app.cursor)
    );
    match app.marks[..] {
        [a] => text.push_str(&format!("  mark {}", short(a))),
        [a, b] => text.push_str(&format!(
            "  marks {}..{} Δ {}",
            short(a.min(b)),
            short(a.max(b)),
            short(a.abs_diff(b))
        )),
        _ => {}
    }
    buf.set_style(area, Style::new().add_modifier(Modifier::REVERSED));
    buf.set_stringn(area.x, area.y, text, area.width.into(), Style::new());
}

/// Labels on one line, the rule with ticks, anomalies (`!`) and marks
/// (`A`, `B`) below it.
fn draw_axis(buf: &mut Buffer, x: u16, y: u16, cols: &Columns, app: &App) {
    let width = cols.width as u16;
    let step = tick_step(cols.span_ns().saturating_mul(12) / cols.width as u64);
    let mut next_free = 0u16;
    let rule_style = Style::new().add_modifier(Modifier::DIM);
    for c in 0..width {
        put_glyph(buf, x + c, y + 1, "─", rule_style);
    }
    let mut t = cols.start.div_ceil(step).saturating_mul(step);
    while t < cols.end {
        let c = cols.column_of(t) as u16;
        buf.set_string(x + c, y + 1, "┬", rule_style);
        let label = axis_label(t, step);
        let len = label.chars().count() as u16;
        if c >= next_free && c + len <= width {
            buf.set_string(x + c, y, &label, Style::new());
            next_free = c + len + 1;
        }
        t = match t.checked_add(step) {
            Some(t) => t,
            None => break,
        };
    }
    let mut cells = Vec::new();
    app.rows.anomalies.cells(&app.model, cols, &mut cells);
    let bad = Style::new()
        .fg(Color::LightRed)
        .add_modifier(Modifier::BOLD);
    for (c, cell) in cells.iter().enumerate() {
        if !cell.is_empty() {
            put_glyph(buf, x + c as u16, y + 1, "!", bad);
        }
    }
    for (mark, name) in app.marks.iter().zip(["A", "B"]) {
        if (cols.start..cols.end).contains(mark) {
            let c = cols.column_of(*mark) as u16;
            buf.set_string(x + c, y + 1, name, Style::new().fg(Color::Yellow));
        }
    }
}

/// Sets one cell to a glyph one column wide: what [`Buffer::set_string`]
/// does for it, without splitting the text into graphemes, which costs more
/// than the rest of drawing a column.
fn put_glyph(buf: &mut Buffer, x: u16, y: u16, glyph: &str, style: Style) {
    if let Some(cell) = buf.cell_mut((x, y)) {
        cell.set_symbol(glyph).set_style(style);
    }
}

/// Draws into one screen line of the timeline.
struct LinePainter<'a> {
    buf: &'a mut Buffer,
    /// Screen position of column 0.
    x: u16,
    y: u16,
    cols: &'a Columns,
    m: &'a Model,
}

impl LinePainter<'_> {
    /// Puts a glyph one column wide (a block name's characters go through
    /// [`Buffer::set_string`], which knows wide characters).
    fn put(&mut self, column: usize, glyph: &str, style: Style) {
        put_glyph(self.buf, self.x + column as u16, self.y, glyph, style);
    }

    fn row_line(&mut self, row: &Row, line: usize, scratch: &mut Scratch) {
        let m = self.m;
        match &row.body {
            Body::Intervals { lines, ticks } => {
                if let Some(track) = lines.get(line) {
                    track.cells(m, self.cols, &mut scratch.cells);
                    self.intervals(track, &scratch.cells, row.idle_from);
                }
                if let (0, Some(ticks)) = (line, ticks) {
                    ticks.cells(m, self.cols, &mut scratch.ticks);
                    for (c, cell) in scratch.ticks.iter().enumerate() {
                        if cell.starts > 0 {
                            self.put(c, "|", Style::new().fg(Color::Yellow));
                        }
                    }
                }
            }
            Body::Samples(track) => {
                track.cells(m, self.cols, &mut scratch.samples);
                self.samples(track, &scratch.samples);
            }
        }
    }

    fn intervals(&mut self, track: &IntervalLine, cells: &[Cell], idle_from: Option<u64>) {
        match &track.source {
            IntervalSource::SchedSlices | IntervalSource::Layer(_) => {
                self.blocks(&track.source, cells, idle_from)
            }
            IntervalSource::TaskStates => {
                const RUNNING: u32 = TaskStateKind::Running as u32;
                for (c, cell) in cells.iter().enumerate() {
                    if cell.code != RUNNING && cell.has(RUNNING) {
                        // Short runs stay visible when another state dominates.
                        self.put(c, "▌", Style::new().fg(Color::Green));
                    } else if cell.covered_ns > 0 {
                        let (glyph, fg) = state_glyph(cell.code);
                        self.put(c, glyph, Style::new().fg(fg));
                    }
                }
            }
            IntervalSource::IsrSlices | IntervalSource::Anomalies => {
                for (c, cell) in cells.iter().enumerate() {
                    if !cell.is_empty() {
                        let glyph = if cell.fraction() >= 0.5 { "█" } else { "▄" };
                        let nested = cell.code > 0;
                        let fg = if nested {
                            Color::LightMagenta
                        } else {
                            Color::Magenta
                        };
                        self.put(c, glyph, Style::new().fg(fg));
                    }
                }
            }
        }
    }

    /// Named blocks (tasks on a core, marker spans): runs of columns mostly
    /// covered by one code show its name, then `█`; columns only partly
    /// covered show `▂`; uncovered time after `idle_from` shows `·` (idle).
    fn blocks(&mut self, source: &IntervalSource, cells: &[Cell], idle_from: Option<u64>) {
        let full = |c: &Cell| c.covered_ns > 0 && c.fraction() >= 0.5;
        let mut c = 0;
        while c < cells.len() {
            let cell = cells[c];
            if full(&cell) {
                let mut end = c + 1;
                while end < cells.len() && full(&cells[end]) && cells[end].code == cell.code {
                    end += 1;
                }
                let fg = colour(cell.code);
                let mut name = block_name(self.m, source, cell.code).chars();
                for col in c..end {
                    match name.next() {
                        Some(ch) if end - c >= 2 => {
                            let style = Style::new().fg(Color::Black).bg(fg);
                            let x = self.x + col as u16;
                            self.buf
                                .set_string(x, self.y, ch.encode_utf8(&mut [0; 4]), style);
                        }
                        _ => self.put(col, "█", Style::new().fg(fg)),
                    }
                }
                c = end;
                continue;
            }
            if cell.covered_ns > 0 {
                self.put(c, "▂", Style::new().fg(colour(cell.code)));
            } else if idle_from.is_some_and(|from| self.cols.bound(c + 1) > from) {
                self.put(c, "·", Style::new().add_modifier(Modifier::DIM));
            }
            c += 1;
        }
    }

    fn samples(&mut self, track: &SampleLine, cells: &[SampleCell]) {
        let (min, max) = track.bounds(self.m);
        let range = max.saturating_sub(min);
        let style = Style::new().fg(Color::Cyan);
        for (c, cell) in cells.iter().enumerate() {
            let Some(level) = cell.level() else {
                continue;
            };
            let index = if range == 0 {
                4
            } else {
                let above = i128::from(level) - i128::from(min);
                1 + (above * 7 / i128::from(range)).clamp(0, 7) as usize
            };
            self.put(c, SPARK[index], style);
        }
    }
}

/// The text a block of this code shows.
fn block_name<'a>(m: &'a Model, source: &'a IntervalSource, code: u32) -> &'a str {
    match source {
        IntervalSource::SchedSlices => m.tasks.get(code as usize).map_or("?", |t| t.name.as_str()),
        IntervalSource::Layer(_) if code == NO_NAME => "",
        IntervalSource::Layer(layer) => layer.layer.name_of(m, code),
        _ => "",
    }
}

fn state_glyph(code: u32) -> (&'static str, Color) {
    const RUNNING: u32 = TaskStateKind::Running as u32;
    const READY: u32 = TaskStateKind::Ready as u32;
    const BLOCKED: u32 = TaskStateKind::Blocked as u32;
    const SUSPENDED: u32 = TaskStateKind::Suspended as u32;
    match code {
        RUNNING => ("█", Color::Green),
        READY => ("▒", Color::Yellow),
        BLOCKED => ("─", Color::Red),
        SUSPENDED => ("╌", Color::Magenta),
        _ => (" ", Color::Reset),
    }
}

fn highlight_cursor(buf: &mut Buffer, x: u16, top: u16, bottom: u16, cols: &Columns, app: &App) {
    if !(cols.start..cols.end).contains(&app.cursor) {
        return;
    }
    let c = x + cols.column_of(app.cursor) as u16;
    for y in top..bottom {
        if let Some(cell) = buf.cell_mut((c, y)) {
            cell.set_bg(Color::DarkGray);
        }
    }
}

fn draw_details(buf: &mut Buffer, area: Rect, app: &App) {
    let Some(pick) = app.picked else {
        return;
    };
    let block = Block::new().borders(Borders::LEFT).title(" details ");
    let inner = block.inner(area);
    block.render(area, buf);
    for (i, (field, value)) in details(app, pick).iter().enumerate() {
        let y = inner.y + i as u16;
        if y >= inner.bottom() {
            break;
        }
        buf.set_stringn(
            inner.x + 1,
            y,
            format!("{field:<9}{value}"),
            usize::from(inner.width.saturating_sub(1)),
            Style::new(),
        );
    }
}

fn draw_summary(buf: &mut Buffer, area: Rect, app: &App) {
    // The figures of a trace that grows may be of its first part only.
    let figured = app.analysis().duration_ns;
    let title = if figured < app.model.info.duration_ns {
        format!(" summary (t), figures up to {} ", short(figured))
    } else {
        " summary (t) ".to_string()
    };
    let block = Block::new().borders(Borders::TOP).title(title);
    let inner = block.inner(area);
    block.render(area, buf);
    let half = inner.width / 2;
    let limit = usize::from(inner.height);
    for (column, lines) in [
        (0, cpu_lines(app, limit)),
        (half, isr_queue_lines(app, limit)),
    ] {
        for (i, line) in lines.iter().enumerate() {
            buf.set_stringn(
                inner.x + column,
                inner.y + i as u16,
                line,
                half.into(),
                Style::new(),
            );
        }
    }
}

fn draw_status(buf: &mut Buffer, area: Rect, app: &App) {
    let text = if app.editing_filter {
        format!("/{}▏  (Enter keeps, Esc clears)", app.filter)
    } else {
        let anomalies = app.model.anomalies.len();
        let mut text = String::from("? keys  q quit");
        match app.follow {
            Follow::Off => {}
            _ if app.model.info.events == 0 => text.push_str("  following: no events yet"),
            Follow::Pinned => text.push_str("  following: the view keeps to the newest data"),
            Follow::Held => text.push_str("  following: view held, End or f follows again"),
        }
        if !app.filter.is_empty() {
            text.push_str(&format!("  filter: {}", app.filter));
        }
        if anomalies > 0 {
            text.push_str(&format!("  ! {anomalies} anomalies on the axis"));
        }
        text
    };
    buf.set_stringn(
        area.x,
        area.y,
        text,
        area.width.into(),
        Style::new().add_modifier(Modifier::DIM),
    );
}

fn draw_help(buf: &mut Buffer, area: Rect) {
    let width = 76.min(area.width);
    let height = (KEYMAP.len() as u16 + 2).min(area.height);
    let popup = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    Clear.render(popup, buf);
    let text: Vec<ratatui::text::Line> = KEYMAP
        .iter()
        .map(|(keys, what)| format!("{keys:<23}{what}").into())
        .collect();
    Paragraph::new(text)
        .block(Block::bordered().title(" keys (? closes) "))
        .render(popup, buf);
}

/// A buffer as plain text, one line per row, trailing spaces removed.
pub fn to_text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let mut line = String::new();
        for x in area.left()..area.right() {
            if let Some(cell) = buf.cell((x, y)) {
                line.push_str(cell.symbol());
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
