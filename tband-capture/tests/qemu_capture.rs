//! The QEMU example firmware streaming its trace, captured by the real
//! binary: over the board's UART (QEMU serves it on a TCP port) with
//! `--tcp`, and over RTT with `--gdb` against QEMU's gdbstub. Each capture
//! must hold every event the firmware says it traced, and nothing else.

use std::path::Path;
use std::process::{Child, Command};

use tband::EventKind;
use tband_host_tests::qemu::{self, build_firmware, free_port, start_qemu, start_qemu_for_gdb};
use tband_host_tests::{decode, Frame};

/// Runs `tband-capture` to its end; returns whether it succeeded and its
/// stderr.
fn run_capture(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tband-capture"))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), stderr)
}

/// Runs `tband-capture`, which must succeed; returns its stderr.
fn capture(args: &[&str]) -> String {
    let (succeeded, stderr) = run_capture(args);
    assert!(succeeded, "tband-capture failed: {stderr}");
    stderr
}

/// The firmware's own count line, printed by semihosting as it exits.
fn emitted(qemu: Child) -> String {
    let out = qemu.wait_with_output().unwrap();
    assert!(out.status.success(), "the firmware failed");
    let stdout = String::from_utf8(out.stdout).unwrap();
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("tband emitted: "))
        .unwrap_or_else(|| panic!("no count line in {stdout:?}"))
        .to_owned()
}

fn count(frames: &[Frame], kind: EventKind) -> usize {
    frames.iter().filter(|f| f.kind == kind).count()
}

/// Checks a capture against the firmware's count line.
fn check(trace: &Path, emitted: &str) {
    let bytes = std::fs::read(trace).unwrap();
    let frames = decode(&bytes, 0).expect("every frame of the capture decodes");
    let found = format!(
        "isr_enter={} isr_exit={} evtmarker_begin={} evtmarker_end={} evtmarker={} valmarker={} dropped=0",
        count(&frames, EventKind::IsrEnter),
        count(&frames, EventKind::IsrExit),
        count(&frames, EventKind::EvtmarkerBegin),
        count(&frames, EventKind::EvtmarkerEnd),
        count(&frames, EventKind::Evtmarker),
        count(&frames, EventKind::Valmarker),
    );
    assert_eq!(found, emitted, "the capture against the firmware's counts");
    assert!(
        count(&frames, EventKind::IsrEnter) >= 190,
        "about 200 ticks streamed"
    );
    let names: Vec<_> = frames
        .iter()
        .filter(|f| matches!(f.kind, EventKind::IsrName | EventKind::EvtmarkerName))
        .map(|f| f.fields.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "isr_id=15 name=SysTick",
            "evtmarker_id=1 name=task_a",
            "evtmarker_id=2 name=task_b",
            "evtmarker_id=3 name=tick_seen"
        ]
    );
    let times: Vec<u64> = frames.iter().filter_map(|f| f.ts).collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "time never goes back"
    );
    // 200 ticks of 12,000 cycles of 83 ns each: about 0.2 s.
    let span = times.last().unwrap() - times.first().unwrap();
    assert!((2_300_000..2_500_000).contains(&span), "{span} ticks");
}

#[test]
fn uart_stream_over_tcp() {
    if !qemu::tools_present() {
        return;
    }
    let firmware = build_firmware("stream-uart");
    let port = free_port();
    let serial = format!("tcp:127.0.0.1:{port},server=on,wait=on");
    let (qemu, _stderr) = start_qemu(&firmware, &["-serial", &serial]);
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("uart.bin");
    let status = capture(&[
        "--tcp",
        &format!("127.0.0.1:{port}"),
        "-o",
        trace.to_str().unwrap(),
    ]);
    assert!(
        status.contains("the other side closed the connection"),
        "{status}"
    );
    check(&trace, &emitted(qemu));
}

#[test]
fn rtt_stream_through_the_gdbstub() {
    if !qemu::tools_present() {
        return;
    }
    let firmware = build_firmware("stream-rtt");
    let (qemu, _stderr, port) = start_qemu_for_gdb(&firmware);

    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("rtt.bin");
    capture(&[
        "--gdb",
        &format!("127.0.0.1:{port}"),
        "--elf",
        firmware.to_str().unwrap(),
        "-o",
        trace.to_str().unwrap(),
    ]);
    check(&trace, &emitted(qemu));
}

#[test]
fn memory_the_gdb_server_refuses_is_one_sentence() {
    if !qemu::tools_present() {
        return;
    }
    let firmware = build_firmware("stream-rtt");
    let (mut qemu, _stderr, port) = start_qemu_for_gdb(&firmware);
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("rtt.bin");
    // No memory is mapped there on this board.
    let (succeeded, stderr) = run_capture(&[
        "--gdb",
        &format!("127.0.0.1:{port}"),
        "--scan-ram",
        "0x60000000:0x1000",
        "-o",
        trace.to_str().unwrap(),
    ]);
    qemu.kill().unwrap();
    qemu.wait().unwrap();
    assert!(!succeeded);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("failed (cannot read target memory at 0x60000000: the server refused"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&trace).unwrap(), b"");
}
