//! The TUI's memory rows on the memory fixture: the heap's bytes in use,
//! its failed allocations and its lanes of blocks, each task's stack
//! margin; and the stack in a task's details.

#[path = "../../tests/memory/stream.rs"]
mod stream;

use std::process::Command;

use ratatui::crossterm::event::KeyCode;
use tband_decode::encode::encode_stream;
use tband_tui::app::{App, Entry};

fn snapshot(size: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("memory.bin");
    std::fs::write(&path, encode_stream(&stream::events())).expect("written");
    let out = Command::new(env!("CARGO_BIN_EXE_tband-tui"))
        .args(["--snapshot", size])
        .arg(&path)
        .output()
        .expect("tband-tui runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("text")
}

#[test]
fn a_snapshot_has_the_heap_rows_and_the_stack_margins() {
    let frame = snapshot("120x40");
    let labels: Vec<&str> = (frame.lines())
        .skip_while(|l| !l.contains("▾ memory"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.get(..25).unwrap_or(l).trim())
        .collect();
    // Two blocks were live at once at most: two lanes.
    assert_eq!(
        labels,
        [
            "FreeRTOS heap/failed al",
            "FreeRTOS heap/in use",
            "FreeRTOS heap/block 0",
            "FreeRTOS heap/block 1",
            "producer/stack free",
            "consumer/stack free",
        ],
        "{frame}"
    );
}

#[test]
fn a_tasks_details_give_its_stack() {
    let model = tband_trace::Trace::from_inputs(
        tband_decode::input::Input::per_core("memory", vec![encode_stream(&stream::events())]),
        &Default::default(),
    )
    .unwrap()
    .model;
    let mut app = App::new(model, "memory".into());
    let producer = (app.rows.all.iter())
        .position(|r| r.label.trim() == "producer")
        .expect("a producer row");
    app.selected = (app.entries().iter())
        .position(|e| *e == Entry::Row(producer))
        .expect("the producer's row is shown");
    // In the producer's last slice, after its stack fell to 240 bytes.
    app.cursor = 14_500;
    app.on_key(KeyCode::Enter.into());
    let details = tband_tui::details::details(&app, app.picked.expect("picked"));
    assert!(
        details.contains(&("stack", "240 B free of 512 B at the fewest".into())),
        "{details:?}"
    );
}
