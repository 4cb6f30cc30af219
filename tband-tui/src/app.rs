//! The viewer's state and what keys and the mouse do to it.

use std::cell::{Cell, OnceCell};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use tband_model::analysis::Analysis;
use tband_model::timeline::Section;
use tband_model::Model;

use crate::line::Columns;
use crate::rows::{Body, Group, Row, RowKey, Rows};

/// One selectable line of the row list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Header(Group),
    Row(usize),
}

/// An item of a row picked for the details panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// Position in the interval track of line `line`.
    Interval { line: usize, pos: usize },
    /// Position in the row's instant ticks.
    Tick(usize),
    /// Position in the row's samples.
    Sample(usize),
}

/// Whether the view follows a trace that grows (a file being written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Follow {
    /// The trace does not grow.
    Off,
    /// The view keeps to the newest data: all of the trace if it showed
    /// all of it, else its last stretch of the same length.
    Pinned,
    /// The user moved the view, which stays where they put it (End or f
    /// pins it again).
    Held,
}

/// A whole trace ready to be shown in place of its first part
/// ([`App::replace`]).
pub struct Loaded {
    pub model: Model,
    pub rows: Rows,
    pub analysis: Analysis,
}

/// What was selected and picked, by what it is rather than where it is,
/// to be found again in rows built anew.
struct Selection {
    entry: Option<(Group, Option<RowKey>)>,
    /// The picked item's row and time.
    picked: Option<(RowKey, u64)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pick {
    pub row: usize,
    pub item: Item,
}

/// Where things landed on screen in the last frame, for the mouse and for
/// steps of one column.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Geometry {
    /// Columns of the timeline part.
    pub timeline_x: u16,
    pub timeline_width: u16,
    /// Screen line → entry index, for the row list.
    pub lines: Vec<(u16, usize)>,
    /// How many entries fit on screen.
    pub rows_height: u16,
}

pub struct App {
    pub model: Model,
    pub rows: Rows,
    /// Computed when the summary pane is first shown.
    analysis: OnceCell<Analysis>,
    /// How long the analysis took to compute, and when it was done.
    analysed: Cell<Option<(Duration, Instant)>>,
    /// What is open, for the title line.
    pub title: String,
    /// The visible time range, `start..end`.
    pub start: u64,
    pub end: u64,
    pub cursor: u64,
    /// Index into [`App::entries`].
    pub selected: usize,
    /// First entry shown.
    pub scroll: usize,
    pub collapsed: BTreeSet<Group>,
    pub filter: String,
    pub editing_filter: bool,
    /// Up to two measuring marks.
    pub marks: Vec<u64>,
    pub picked: Option<Pick>,
    pub show_help: bool,
    pub show_summary: bool,
    /// While only the first part of the trace is shown: how much of the
    /// whole has been read, in percent.
    pub loading: Option<u8>,
    pub follow: Follow,
    pub quit: bool,
    pub geometry: Geometry,
    entries: Vec<Entry>,
    /// Rows whose summaries are built ahead of use, see [`App::warm_up_step`].
    warmed: usize,
    /// Column and view start when a drag began.
    drag: Option<(u16, u64)>,
}

impl App {
    pub fn new(model: Model, title: String) -> App {
        let rows = Rows::new(&model);
        let mut app = App {
            model,
            rows,
            analysis: OnceCell::new(),
            analysed: Cell::new(None),
            title,
            start: 0,
            end: 1,
            cursor: 0,
            selected: 0,
            scroll: 0,
            collapsed: BTreeSet::new(),
            filter: String::new(),
            editing_filter: false,
            marks: Vec::new(),
            picked: None,
            show_help: false,
            show_summary: false,
            loading: None,
            follow: Follow::Off,
            quit: false,
            geometry: Geometry {
                timeline_width: 80,
                ..Geometry::default()
            },
            entries: Vec::new(),
            warmed: 0,
            drag: None,
        };
        app.refresh_entries();
        app.fit();
        app
    }

    /// Shows the whole trace in place of the first part, keeping the view
    /// (within the trace), the cursor, marks, filter, collapsed groups, the
    /// selected row and the picked item. A view of all of the first part
    /// becomes a view of all of the trace.
    pub fn replace(&mut self, loaded: Loaded) {
        let whole = self.start == 0 && self.end == self.full_end();
        let selection = self.selection();
        let Loaded {
            model,
            rows,
            analysis,
        } = loaded;
        self.rows = rows;
        self.model = model;
        self.analysis = OnceCell::from(analysis);
        self.warmed = 0;
        self.loading = None;
        self.refresh_entries();
        self.select_again(selection);
        if whole {
            self.fit();
        } else {
            self.set_view(self.start, self.end);
        }
        self.cursor = self.cursor.min(self.full_end() - 1);
    }

    /// Shows the model of a growing trace that [`App::model`] has become
    /// (a later one of the same trace, or, if `started_again`, of the trace
    /// read again from its start), extending the rows. A view pinned to the
    /// newest data moves with it; the selection, picked item, cursor and
    /// marks stay.
    pub fn grown(&mut self, started_again: bool) {
        let selection = self.selection();
        if started_again || !self.rows.extend(&self.model) {
            self.rows = Rows::new(&self.model);
            self.warmed = 0;
            self.analysis = OnceCell::new();
        }
        self.drop_old_figures();
        self.refresh_entries();
        self.select_again(selection);
        let span = self.span();
        let full = self.full_end();
        match self.follow {
            // A pinned view ends at the newest data: from the start it is
            // all of the trace, and stays so.
            Follow::Pinned if self.start == 0 => self.fit(),
            Follow::Pinned => self.set_view(full.saturating_sub(span), full),
            Follow::Held | Follow::Off => self.set_view(self.start, self.end),
        }
        self.cursor = self.cursor.min(full - 1);
    }

    /// The selected entry and picked item, to be found again.
    fn selection(&self) -> Selection {
        let entry = self.selected_entry().map(|e| match e {
            Entry::Header(group) => (group, None),
            Entry::Row(r) => (self.rows.all[r].group, Some(self.rows.all[r].key)),
        });
        let picked = self
            .picked
            .and_then(|p| Some((self.rows.all.get(p.row)?.key, self.item_time(p)?)));
        Selection { entry, picked }
    }

    /// Selects and picks again what [`App::selection`] kept, in rows that
    /// may have changed.
    fn select_again(&mut self, selection: Selection) {
        let entry = selection.entry.and_then(|(group, key)| match key {
            Some(key) => self.rows.row_of(key).map(Entry::Row),
            None => Some(Entry::Header(group)),
        });
        let index = entry.and_then(|e| self.entries.iter().position(|&x| x == e));
        self.select(index.unwrap_or(0));
        self.picked = None;
        if let Some((key, t)) = selection.picked {
            if let Some(row) = self.rows.row_of(key) {
                self.pick_at(row, t);
            }
        }
    }

    /// The figures of the summary pane.
    pub fn analysis(&self) -> &Analysis {
        self.analysis.get_or_init(|| {
            let start = Instant::now();
            let analysis = Analysis::of(&self.model);
            self.analysed.set(Some((start.elapsed(), Instant::now())));
            analysis
        })
    }

    /// After the trace grew: the summary pane's figures are computed again
    /// when next shown. While the pane is shown they are kept until they
    /// are ten times as old as they took to compute, so that a large trace
    /// that grows spends at most a tenth of the time on them.
    fn drop_old_figures(&mut self) {
        let fresh = self
            .analysed
            .get()
            .is_some_and(|(cost, at)| at.elapsed() < cost * 10);
        if !(self.show_summary && fresh) {
            self.analysis = OnceCell::new();
        }
    }

    /// Builds the summaries of one more row (the analysis after the last),
    /// so that later keystrokes find them ready; false once all are built.
    /// Called while the viewer waits for input after showing a frame.
    pub fn warm_up_step(&mut self) -> bool {
        match self.rows.all.get(self.warmed) {
            Some(row) => row.prepare(&self.model),
            None => {
                self.analysis();
                return false;
            }
        }
        self.warmed += 1;
        true
    }

    /// The end of time as drawn: one past the last event.
    pub fn full_end(&self) -> u64 {
        self.model.info.duration_ns.saturating_add(1)
    }

    pub fn columns(&self) -> Columns {
        Columns::new(self.start, self.end, self.geometry.timeline_width.into())
    }

    /// Shows `start..end`, kept inside the trace and at least a few ns wide.
    pub fn set_view(&mut self, start: u64, end: u64) {
        let full = self.full_end();
        let min_span = u64::from(self.geometry.timeline_width).clamp(1, full);
        let span = end.saturating_sub(start).clamp(min_span, full);
        self.start = start.min(full - span);
        self.end = self.start + span;
    }

    pub fn fit(&mut self) {
        self.set_view(0, self.full_end());
    }

    fn span(&self) -> u64 {
        self.end - self.start
    }

    /// Zooms by `factor_num / factor_den` around time `anchor`, keeping it
    /// on the same column.
    fn zoom_around(&mut self, anchor: u64, num: u64, den: u64) {
        let span = u128::from(self.span());
        let new_span = (span * u128::from(num) / u128::from(den)).min(u128::from(u64::MAX)) as u64;
        let anchor = anchor.clamp(self.start, self.end);
        let left = u128::from(anchor - self.start) * u128::from(new_span) / span.max(1);
        let start = anchor.saturating_sub(left as u64);
        self.set_view(start, start.saturating_add(new_span));
    }

    fn zoom_anchor(&self) -> u64 {
        if (self.start..self.end).contains(&self.cursor) {
            self.cursor
        } else {
            self.start + self.span() / 2
        }
    }

    pub fn zoom_in(&mut self) {
        self.zoom_around(self.zoom_anchor(), 1, 2);
    }

    pub fn zoom_out(&mut self) {
        self.zoom_around(self.zoom_anchor(), 2, 1);
    }

    /// Pans by `num / den` of the visible span (negative: to earlier times).
    pub fn pan(&mut self, num: i64, den: u64) {
        let step = self.span() / den * num.unsigned_abs();
        let start = if num < 0 {
            self.start.saturating_sub(step)
        } else {
            self.start.saturating_add(step)
        };
        self.set_view(start, start.saturating_add(self.span()));
    }

    /// Time at the left edge of a timeline column.
    pub fn time_at_column(&self, column: u16) -> u64 {
        self.columns().bound(column.into())
    }

    fn column_ns(&self) -> u64 {
        self.columns().column_ns().max(1)
    }

    /// Moves the cursor by `columns` and scrolls the view to keep it shown.
    pub fn move_cursor(&mut self, columns: i64) {
        let step = self.column_ns() * columns.unsigned_abs();
        self.cursor = if columns < 0 {
            self.cursor.saturating_sub(step)
        } else {
            self.cursor.saturating_add(step).min(self.full_end() - 1)
        };
        self.reveal(self.cursor);
    }

    /// Pans (keeping the zoom) so that time `t` is in view.
    pub fn reveal(&mut self, t: u64) {
        if t < self.start || t >= self.end {
            let span = self.span();
            self.set_view(
                t.saturating_sub(span / 2),
                t.saturating_sub(span / 2) + span,
            );
        }
    }

    /// The selectable lines: group headers and the rows of expanded groups
    /// that match the filter.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Recomputes [`App::entries`] after the filter or a group changed.
    fn refresh_entries(&mut self) {
        let filter = self.filter.to_lowercase();
        let rows = &self.rows.all;
        let mut shown: Vec<usize> = (0..rows.len())
            .filter(|&i| filter.is_empty() || rows[i].label.to_lowercase().contains(&filter))
            .collect();
        // Rows added as a trace grew come last; they are shown in order.
        shown.sort_by_key(|&i| rows[i].key);
        self.entries.clear();
        for group in Group::ALL {
            let in_group = shown.iter().filter(|&&i| rows[i].group == group);
            let mut in_group = in_group.peekable();
            if in_group.peek().is_none() {
                continue;
            }
            self.entries.push(Entry::Header(group));
            if !self.collapsed.contains(&group) {
                self.entries.extend(in_group.map(|&i| Entry::Row(i)));
            }
        }
    }

    pub fn selected_entry(&self) -> Option<Entry> {
        self.entries().get(self.selected).copied()
    }

    fn selected_row(&self) -> Option<usize> {
        match self.selected_entry()? {
            Entry::Row(r) => Some(r),
            Entry::Header(_) => None,
        }
    }

    fn select(&mut self, index: usize) {
        let count = self.entries().len();
        self.selected = index.min(count.saturating_sub(1));
        let height = usize::from(self.geometry.rows_height.max(1));
        if self.selected < self.scroll {
            self.scroll = self.selected;
        } else if self.selected >= self.scroll + height {
            self.scroll = self.selected + 1 - height;
        }
    }

    fn move_selection(&mut self, by: i64) {
        let index = if by < 0 {
            self.selected.saturating_sub(by.unsigned_abs() as usize)
        } else {
            self.selected.saturating_add(by as usize)
        };
        self.select(index);
    }

    fn toggle_group(&mut self) {
        let group = match self.selected_entry() {
            Some(Entry::Header(g)) => g,
            Some(Entry::Row(r)) => self.rows.all[r].group,
            None => return,
        };
        if !self.collapsed.remove(&group) {
            self.collapsed.insert(group);
        }
        self.refresh_entries();
        let header = self
            .entries()
            .iter()
            .position(|e| *e == Entry::Header(group))
            .unwrap_or(0);
        self.select(header);
    }

    /// Picks the item of `row` under time `t` (within one column).
    pub fn pick_at(&mut self, row: usize, t: u64) {
        let slack = self.column_ns();
        let m = &self.model;
        self.picked = self.rows.all.get(row).and_then(|r| {
            match &r.body {
                Body::Intervals { lines, ticks } => {
                    let tick = ticks
                        .as_ref()
                        .and_then(|tr| tr.at(m, t, slack))
                        .map(Item::Tick);
                    let covering = lines.iter().enumerate().rev().find_map(|(line, tr)| {
                        tr.at(m, t, 0).map(|pos| Item::Interval { line, pos })
                    });
                    let near = || {
                        lines.iter().enumerate().find_map(|(line, tr)| {
                            tr.at(m, t, slack).map(|pos| Item::Interval { line, pos })
                        })
                    };
                    tick.or(covering).or_else(near)
                }
                Body::Samples(tr) => tr.near(m, t, slack).map(Item::Sample),
            }
            .map(|item| Pick { row, item })
        });
    }

    /// Start time of a picked item.
    pub fn item_time(&self, pick: Pick) -> Option<u64> {
        let row = self.rows.all.get(pick.row)?;
        let m = &self.model;
        match (&row.body, pick.item) {
            (Body::Intervals { lines, .. }, Item::Interval { line, pos }) => {
                lines.get(line)?.get(m, pos).map(|(_, s)| s.start)
            }
            (Body::Intervals { ticks, .. }, Item::Tick(pos)) => {
                ticks.as_ref()?.get(m, pos).map(|(_, s)| s.start)
            }
            (Body::Samples(tr), Item::Sample(pos)) => tr.get(m, pos).map(|(_, t, _)| t),
            _ => None,
        }
    }

    /// Moves the cursor to the next (or previous) item on the selected row
    /// and picks it.
    pub fn step_event(&mut self, forward: bool) {
        let Some(row_index) = self.selected_row() else {
            return;
        };
        let row: &Row = &self.rows.all[row_index];
        let m = &self.model;
        let t = self.cursor;
        let mut candidates: Vec<Item> = Vec::new();
        match &row.body {
            Body::Intervals { lines, ticks } => {
                for (line, tr) in lines.iter().enumerate() {
                    let pos = if forward {
                        tr.next_after(m, t)
                    } else {
                        tr.prev_before(m, t)
                    };
                    candidates.extend(pos.map(|pos| Item::Interval { line, pos }));
                }
                if let Some(tr) = ticks {
                    let pos = if forward {
                        tr.next_after(m, t)
                    } else {
                        tr.prev_before(m, t)
                    };
                    candidates.extend(pos.map(Item::Tick));
                }
            }
            Body::Samples(tr) => {
                let pos = if forward {
                    tr.next_after(m, t)
                } else {
                    tr.prev_before(m, t)
                };
                candidates.extend(pos.map(Item::Sample));
            }
        }
        let timed = candidates.into_iter().filter_map(|item| {
            let pick = Pick {
                row: row_index,
                item,
            };
            self.item_time(pick).map(|t| (t, pick))
        });
        let best = if forward {
            timed.min_by_key(|&(t, _)| t)
        } else {
            timed.max_by_key(|&(t, _)| t)
        };
        if let Some((t, pick)) = best {
            self.cursor = t;
            self.picked = Some(pick);
            self.reveal(t);
        }
    }

    /// Moves the cursor to the last fault, selects its core's row in the
    /// faults and shows its details.
    fn jump_to_crash(&mut self) {
        let Some(fault) = self.model.faults.last() else {
            return;
        };
        let t = fault.ts_ns.min(self.full_end() - 1);
        let label = format!("core {}", fault.core_id);
        let faults = Group::Section(Section::Faults);
        let row = (self.rows.all.iter()).position(|r| r.group == faults && r.label == label);
        self.cursor = t;
        self.reveal(t);
        let Some(row) = row else {
            return;
        };
        if let Some(entry) = (self.entries.iter()).position(|e| *e == Entry::Row(row)) {
            self.select(entry);
        }
        self.pick_at(row, t);
    }

    fn mark(&mut self) {
        if self.marks.len() == 2 {
            self.marks.clear();
        }
        self.marks.push(self.cursor);
    }

    /// The measured interval between the two marks.
    pub fn measured(&self) -> Option<u64> {
        match self.marks[..] {
            [a, b] => Some(a.abs_diff(b)),
            _ => None,
        }
    }

    pub fn on_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        if self.editing_filter {
            self.on_filter_key(key);
            return;
        }
        let view = (self.start, self.end);
        self.on_view_key(key);
        let pins = matches!(key.code, KeyCode::End | KeyCode::Char('G' | 'f' | '0'));
        self.follow_after(view, pins);
    }

    /// What a key does outside the filter line.
    fn on_view_key(&mut self, key: KeyEvent) {
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        match key.code {
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => self.quit = true,
            KeyCode::Char('q') => self.quit = true,
            KeyCode::Char('?') => self.show_help = !self.show_help,
            KeyCode::Esc => {
                self.show_help = false;
                self.picked = None;
                self.marks.clear();
            }
            KeyCode::Char('+' | '=' | 'w') => self.zoom_in(),
            KeyCode::Char('-' | 's') => self.zoom_out(),
            KeyCode::Char('a' | 'h') => self.pan(-1, 8),
            KeyCode::Char('d' | 'l') => self.pan(1, 8),
            KeyCode::Char('A' | 'H') => self.pan(-1, 2),
            KeyCode::Char('D' | 'L') => self.pan(1, 2),
            KeyCode::Left => self.pan(-1, if shift { 2 } else { 8 }),
            KeyCode::Right => self.pan(1, if shift { 2 } else { 8 }),
            KeyCode::Home | KeyCode::Char('g') => {
                let span = self.span();
                self.set_view(0, span);
                self.cursor = 0;
            }
            KeyCode::End | KeyCode::Char('G') => {
                let span = self.span();
                let end = self.full_end();
                self.set_view(end - span, end);
                self.cursor = end - 1;
            }
            KeyCode::Char('f' | '0') => self.fit(),
            KeyCode::Char(',') => self.move_cursor(-1),
            KeyCode::Char('.') => self.move_cursor(1),
            KeyCode::Char('<') => self.move_cursor(-10),
            KeyCode::Char('>') => self.move_cursor(10),
            KeyCode::Up | KeyCode::Char('k') => self.move_selection(-1),
            KeyCode::Down | KeyCode::Char('j') => self.move_selection(1),
            KeyCode::PageUp => self.move_selection(-i64::from(self.geometry.rows_height.max(1))),
            KeyCode::PageDown => self.move_selection(i64::from(self.geometry.rows_height.max(1))),
            KeyCode::Char(' ') => self.toggle_group(),
            KeyCode::Enter => match self.selected_entry() {
                Some(Entry::Header(_)) => self.toggle_group(),
                Some(Entry::Row(row)) => self.pick_at(row, self.cursor),
                None => {}
            },
            KeyCode::Char('n') => self.step_event(true),
            KeyCode::Char('N') => self.step_event(false),
            KeyCode::Char('m') => self.mark(),
            KeyCode::Char('x') => self.jump_to_crash(),
            KeyCode::Char('t') => self.show_summary = !self.show_summary,
            KeyCode::Char('/') => {
                self.editing_filter = true;
                self.filter.clear();
                self.refresh_entries();
                self.select(0);
            }
            _ => {}
        }
    }

    fn on_filter_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Enter => self.editing_filter = false,
            KeyCode::Esc => {
                self.editing_filter = false;
                self.filter.clear();
            }
            KeyCode::Backspace => {
                self.filter.pop();
            }
            KeyCode::Char(c) => self.filter.push(c),
            _ => {}
        }
        self.refresh_entries();
        self.scroll = 0;
        self.select(0);
    }

    /// Pins a view to the newest data of a growing trace (`pins`), or
    /// holds it where the user moved it from `view`.
    fn follow_after(&mut self, view: (u64, u64), pins: bool) {
        if self.follow == Follow::Off {
            return;
        }
        if pins {
            self.follow = Follow::Pinned;
        } else if (self.start, self.end) != view {
            self.follow = Follow::Held;
        }
    }

    pub fn on_mouse(&mut self, ev: MouseEvent) {
        let view = (self.start, self.end);
        self.on_mouse_event(ev);
        self.follow_after(view, false);
    }

    fn on_mouse_event(&mut self, ev: MouseEvent) {
        let g = &self.geometry;
        let in_timeline = ev.column >= g.timeline_x && ev.column < g.timeline_x + g.timeline_width;
        let column = ev.column.saturating_sub(g.timeline_x);
        let entry = g.lines.iter().find(|&&(y, _)| y == ev.row).map(|&(_, e)| e);
        match ev.kind {
            MouseEventKind::ScrollUp if in_timeline => {
                self.zoom_around(self.time_at_column(column), 1, 2)
            }
            MouseEventKind::ScrollDown if in_timeline => {
                self.zoom_around(self.time_at_column(column), 2, 1)
            }
            MouseEventKind::Down(MouseButton::Left) => {
                if let Some(e) = entry {
                    self.select(e);
                }
                if in_timeline {
                    self.cursor = self.time_at_column(column);
                    self.drag = Some((ev.column, self.start));
                    if let Some(row) = self.selected_row() {
                        self.pick_at(row, self.cursor);
                    }
                } else if matches!(self.selected_entry(), Some(Entry::Header(_))) {
                    self.toggle_group();
                }
            }
            MouseEventKind::Drag(MouseButton::Left) => {
                if let Some((from, start)) = self.drag {
                    let ns = self.column_ns();
                    let span = self.span();
                    let delta = u64::from(from.abs_diff(ev.column)) * ns;
                    let new_start = if ev.column > from {
                        start.saturating_sub(delta)
                    } else {
                        start.saturating_add(delta)
                    };
                    self.set_view(new_start, new_start.saturating_add(span));
                }
            }
            MouseEventKind::Up(MouseButton::Left) => self.drag = None,
            _ => {}
        }
    }
}

#[cfg(test)]
#[path = "../../tests/fault/stream.rs"]
mod crash_stream;

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyEventState;
    use tband_decode::encode::encode_stream;
    use tband_decode::input::Input;

    fn app() -> App {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/corpus/tband/freertos_small.bin"
        );
        let model = tband_trace::Trace::open(&[path.to_string()], &Default::default())
            .unwrap()
            .model;
        App::new(model, "freertos_small.bin".into())
    }

    fn key(app: &mut App, code: KeyCode) {
        app.on_key(KeyEvent {
            code,
            modifiers: KeyModifiers::NONE,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        });
    }

    fn chars(app: &mut App, text: &str) {
        for c in text.chars() {
            key(app, KeyCode::Char(c));
        }
    }

    #[test]
    fn zoom_keeps_cursor_column_and_fit_restores() {
        let mut a = app();
        let full = a.full_end();
        a.cursor = full / 4;
        chars(&mut a, "+");
        assert_eq!(a.end - a.start, full / 2);
        let at = (a.cursor - a.start) * 4;
        assert!(
            at.abs_diff(a.end - a.start) <= 4,
            "the cursor stays at 1/4 of the view"
        );
        chars(&mut a, "www");
        assert_eq!(a.end - a.start, full / 16);
        chars(&mut a, "s");
        assert_eq!(a.end - a.start, full / 16 * 2);
        chars(&mut a, "f");
        assert_eq!((a.start, a.end), (0, full));
        chars(&mut a, "-");
        assert_eq!(
            (a.start, a.end),
            (0, full),
            "cannot zoom out past the trace"
        );
    }

    #[test]
    fn warm_up_builds_every_row_then_stops() {
        let mut a = app();
        let mut steps = 0;
        while a.warm_up_step() {
            steps += 1;
        }
        assert_eq!(steps, a.rows.all.len());
        assert!(a.analysis.get().is_some());
        assert!(!a.warm_up_step());
    }

    #[test]
    fn pan_stays_inside_trace() {
        let mut a = app();
        chars(&mut a, "ww");
        let span = a.end - a.start;
        key(&mut a, KeyCode::Home);
        assert_eq!(a.start, 0);
        chars(&mut a, "d");
        assert_eq!(a.start, span / 8);
        key(&mut a, KeyCode::Left);
        key(&mut a, KeyCode::Left);
        assert_eq!(a.start, 0);
        key(&mut a, KeyCode::End);
        assert_eq!(a.end, a.full_end());
        chars(&mut a, "l");
        assert_eq!(a.end, a.full_end());
        assert_eq!(a.end - a.start, span);
    }

    #[test]
    fn next_event_walks_the_selected_row() {
        let mut a = app();
        let entries = a.entries().to_vec();
        let core = entries.iter().position(|e| *e == Entry::Row(0)).unwrap();
        a.selected = core;
        a.cursor = 0;
        chars(&mut a, "n");
        let first = a
            .model
            .sched_slices
            .iter()
            .find(|s| !a.model.is_idle(s.task))
            .unwrap();
        assert_eq!(a.cursor, first.start_ns);
        assert!(a.picked.is_some());
        chars(&mut a, "n");
        assert!(a.cursor > first.start_ns);
        chars(&mut a, "N");
        assert_eq!(a.cursor, first.start_ns);
    }

    #[test]
    fn filter_collapse_and_marks() {
        let mut a = app();
        chars(&mut a, "/prod");
        key(&mut a, KeyCode::Enter);
        let labels: Vec<String> = a
            .entries()
            .iter()
            .filter_map(|e| match e {
                Entry::Row(r) => Some(a.rows.all[*r].label.clone()),
                Entry::Header(_) => None,
            })
            .collect();
        assert!(!labels.is_empty());
        assert!(
            labels.iter().all(|l| l.to_lowercase().contains("prod")),
            "{labels:?}"
        );
        key(&mut a, KeyCode::Char('/'));
        key(&mut a, KeyCode::Esc);
        let all = a.entries().len();
        a.selected = 0;
        chars(&mut a, " ");
        assert!(
            a.entries().len() < all,
            "collapsing the first group hides its rows"
        );
        chars(&mut a, " ");
        assert_eq!(a.entries().len(), all);

        a.cursor = 1_000;
        chars(&mut a, "m");
        a.cursor = 4_000;
        chars(&mut a, "m");
        assert_eq!(a.measured(), Some(3_000));
        chars(&mut a, "m");
        assert_eq!(a.marks, [4_000]);
    }

    fn mouse(app: &mut App, kind: MouseEventKind, column: u16, row: u16) {
        app.on_mouse(MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        });
    }

    #[test]
    fn wheel_zooms_at_the_pointer_and_drag_pans() {
        let mut a = app();
        a.geometry = Geometry {
            timeline_x: 20,
            timeline_width: 100,
            lines: vec![(5, 1)],
            rows_height: 1,
        };
        let at = a.time_at_column(75);
        mouse(&mut a, MouseEventKind::ScrollUp, 20 + 75, 5);
        assert_eq!(a.end - a.start, a.full_end() / 2);
        assert!(
            a.time_at_column(75).abs_diff(at) <= a.column_ns(),
            "the pointer's time stays put"
        );
        let start = a.start;
        mouse(&mut a, MouseEventKind::Down(MouseButton::Left), 60, 5);
        assert_eq!(a.selected, 1, "the click selects the row");
        assert_eq!(a.cursor, a.time_at_column(40));
        mouse(&mut a, MouseEventKind::Drag(MouseButton::Left), 50, 5);
        assert_eq!(
            a.start,
            start + 10 * a.column_ns(),
            "dragging left shows later times"
        );
        mouse(&mut a, MouseEventKind::Up(MouseButton::Left), 50, 5);
        mouse(&mut a, MouseEventKind::ScrollDown, 20 + 75, 5);
        mouse(&mut a, MouseEventKind::ScrollDown, 20 + 75, 5);
        assert_eq!((a.start, a.end), (0, a.full_end()));
    }

    #[test]
    fn a_pinned_view_keeps_to_the_newest_data_until_the_user_moves_it() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/corpus/tband/freertos_small.bin"
        );
        let bytes = std::fs::read(path).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("growing.bin");
        std::fs::write(&file, &bytes[..2000]).unwrap();
        let mut follower =
            crate::load::Follower::open(&[file.display().to_string()], &Default::default())
                .unwrap();
        let mut a = follower.viewer("growing.bin".into()).unwrap();
        let append = |range: std::ops::Range<usize>| {
            let mut out = std::fs::OpenOptions::new()
                .append(true)
                .open(&file)
                .unwrap();
            std::io::Write::write_all(&mut out, &bytes[range]).unwrap();
        };
        assert_eq!(a.follow, Follow::Pinned);
        assert_eq!((a.start, a.end), (0, a.full_end()), "all of the trace");
        // Select a task's row: it stays selected as rows are added.
        let tasks = a
            .entries()
            .iter()
            .position(|e| *e == Entry::Header(Group::Tasks));
        a.select(tasks.unwrap() + 1);
        let selected = a.selected_entry();

        append(2000..4000);
        assert!(follower.update(&mut a).unwrap().changed);
        assert_eq!((a.start, a.end), (0, a.full_end()), "all of it still");
        assert_eq!(a.selected_entry(), selected);

        // Zoomed in, the view is held; it no longer moves.
        chars(&mut a, "+");
        assert_eq!(a.follow, Follow::Held);
        let held = (a.start, a.end);
        append(4000..6000);
        assert!(follower.update(&mut a).unwrap().changed);
        assert_eq!((a.start, a.end), held);

        // End pins its last stretch, which then moves with the data.
        key(&mut a, KeyCode::End);
        assert_eq!(a.follow, Follow::Pinned);
        let span = a.end - a.start;
        append(6000..bytes.len());
        assert!(follower.update(&mut a).unwrap().changed);
        assert_eq!((a.end - a.start, a.end), (span, a.full_end()));
        assert!(!follower.update(&mut a).unwrap().changed);
        assert_eq!(a.selected_entry(), selected);
    }

    #[test]
    fn x_jumps_to_the_crash_and_shows_it() {
        let inputs = Input::per_core("crash", vec![encode_stream(&super::crash_stream::crash())]);
        let model = tband_trace::Trace::from_inputs(inputs, &Default::default())
            .unwrap()
            .model;
        let crash_ns = model.faults[0].ts_ns;
        let mut a = App::new(model, "crash".into());
        while a.warm_up_step() {}
        chars(&mut a, "x");
        assert_eq!(a.cursor, crash_ns);
        let row = a.selected_row().unwrap();
        assert_eq!(a.rows.all[row].label, "core 0");
        assert_eq!(a.rows.all[row].group, Group::Section(Section::Faults));
        assert!(a.picked.is_some_and(|p| p.row == row));
    }
}
