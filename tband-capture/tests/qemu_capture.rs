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

fn count(frames: &[Frame], kind: EventKind) -> u64 {
    frames.iter().filter(|f| f.kind == kind).count() as u64
}

/// The kinds of event the firmware counts, as its count line names them.
const COUNTED: [(&str, EventKind); 6] = [
    ("isr_enter", EventKind::IsrEnter),
    ("isr_exit", EventKind::IsrExit),
    ("evtmarker_begin", EventKind::EvtmarkerBegin),
    ("evtmarker_end", EventKind::EvtmarkerEnd),
    ("evtmarker", EventKind::Evtmarker),
    ("valmarker", EventKind::Valmarker),
];

/// The value of `name=N` in the firmware's count line.
fn emitted_count(emitted: &str, name: &str) -> u64 {
    emitted
        .split(' ')
        .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {name} in {emitted:?}"))
        .parse()
        .unwrap()
}

/// Checks a capture against the firmware's count line: every event the
/// firmware traced is in the capture, or counted by the firmware as
/// dropped; returns the number dropped.
fn check(trace: &Path, emitted: &str) -> u64 {
    let bytes = std::fs::read(trace).unwrap();
    let frames = decode(&bytes, 0).expect("every frame of the capture decodes");
    let dropped = emitted_count(emitted, "dropped");
    let mut missing = 0;
    for (name, kind) in COUNTED {
        let traced = emitted_count(emitted, name);
        let captured = count(&frames, kind);
        assert!(captured <= traced, "{captured} {name} captured of {traced}");
        missing += traced - captured;
    }
    assert_eq!(
        missing, dropped,
        "events missing against those the firmware dropped"
    );
    // A running total, sent as a heartbeat and after a loss with the next
    // event that fits.
    let reported: Vec<u64> = frames
        .iter()
        .filter(|f| f.kind == EventKind::DroppedEvtCnt)
        .map(|f| f.fields.strip_prefix("cnt=").unwrap().parse().unwrap())
        .collect();
    assert!(reported.windows(2).all(|w| w[0] <= w[1]), "{reported:?}");
    let last = reported.last().copied().unwrap_or(0);
    assert!(
        last <= dropped && (last > 0) == (dropped > 0),
        "{reported:?}"
    );
    assert!(
        emitted_count(emitted, "isr_enter") >= 190,
        "about 200 ticks traced"
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
    // 200 ticks of 12,000 cycles of 83 ns each: about 0.2 s, less the end
    // if that was dropped.
    let span = times.last().unwrap() - times.first().unwrap();
    assert!(span < 2_500_000, "{span} ticks");
    assert!(dropped > 0 || span >= 2_300_000, "{span} ticks");
    dropped
}

/// Captures the RTT stream of `firmware` through QEMU's gdbstub; returns
/// the file and the firmware's count line.
fn capture_rtt(firmware: &Path, dir: &Path) -> (std::path::PathBuf, String) {
    let (qemu, _stderr, port) = start_qemu_for_gdb(firmware);
    let trace = dir.join("rtt.bin");
    capture(&[
        "--gdb",
        &format!("127.0.0.1:{port}"),
        "--elf",
        firmware.to_str().unwrap(),
        "-o",
        trace.to_str().unwrap(),
    ]);
    (trace, emitted(qemu))
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
    assert_eq!(check(&trace, &emitted(qemu)), 0, "a UART drops nothing");
}

#[test]
fn rtt_stream_through_the_gdbstub() {
    if !qemu::tools_present() {
        return;
    }
    let firmware = build_firmware("stream-rtt");
    let dir = tempfile::tempdir().unwrap();
    let (trace, emitted) = capture_rtt(&firmware, dir.path());
    assert_eq!(
        check(&trace, &emitted),
        0,
        "a waiting channel drops nothing"
    );
}

#[test]
fn rtt_drops_are_counted_when_the_channel_is_full() {
    if !qemu::tools_present() {
        return;
    }
    let firmware = build_firmware("rtt-drop");
    let dir = tempfile::tempdir().unwrap();
    let (trace, emitted) = capture_rtt(&firmware, dir.path());
    assert!(
        check(&trace, &emitted) > 0,
        "a 512-byte channel overflows: {emitted}"
    );
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
