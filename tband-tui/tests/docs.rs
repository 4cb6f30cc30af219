//! The book's page on the viewer stays true: its key table lists every key
//! the viewer knows, and its snapshot is what the viewer draws today.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use tband_tui::app::App;
use tband_tui::render::{draw_buffer, to_text, KEYMAP};

fn page() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/src/tui.md");
    std::fs::read_to_string(path).expect("docs/src/tui.md")
}

#[test]
fn key_table_lists_every_key() {
    let page = page();
    for (keys, what) in KEYMAP {
        let row = format!("| {keys} | {what} |");
        assert!(page.contains(&row), "docs/src/tui.md lacks the row {row}");
    }
}

#[test]
fn snapshot_is_current() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/corpus/tband/freertos_small.bin"
    );
    let model = tband_trace::Trace::open(&[path.to_string()], &Default::default())
        .unwrap()
        .model;
    let app = App::new(model, "freertos_small.bin".to_string());
    let area = Rect::new(0, 0, 120, 34);
    let mut buf = Buffer::empty(area);
    draw_buffer(&mut buf, area, &app);
    let frame = to_text(&buf);
    assert!(
        page().contains(&format!("```text\n{frame}```")),
        "the whole-trace snapshot in docs/src/tui.md is out of date; it is now:\n{frame}"
    );
}
