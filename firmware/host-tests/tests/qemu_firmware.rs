//! Builds the QEMU example firmware (`firmware/qemu-cortex-m3`) for
//! thumbv7m-none-eabi, runs it on QEMU's lm3s6965evb and checks the trace it
//! writes by semihosting: SysTick enter/exit pairs, names, time order.
//! Without qemu-system-arm or the rustup target the test says why and
//! passes, unless TBAND_REQUIRE_QEMU=1.

use std::path::{Path, PathBuf};
use std::process::Command;

use tband::EventKind;
use tband_host_tests::{decode, Frame};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Why the firmware cannot be built and run here, if it cannot.
fn missing_tools() -> Option<String> {
    let qemu = Command::new("qemu-system-arm").arg("--version").output();
    if !qemu.is_ok_and(|o| o.status.success()) {
        return Some("qemu-system-arm is not installed".into());
    }
    let targets = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output();
    match targets {
        Ok(o) if String::from_utf8_lossy(&o.stdout).contains("thumbv7m-none-eabi") => None,
        _ => Some("the rustup target thumbv7m-none-eabi is not installed".into()),
    }
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Builds and runs the firmware; returns the trace it wrote.
pub fn record_qemu_trace() -> Vec<u8> {
    let base = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"));
    let target_dir = base.join("qemu-cortex-m3");
    let firmware = repo().join("firmware/qemu-cortex-m3");
    // Run from the firmware's folder so that its .cargo/config.toml applies.
    run(Command::new(env!("CARGO"))
        .current_dir(&firmware)
        .args([
            "build",
            "--quiet",
            "--release",
            "--target",
            "thumbv7m-none-eabi",
        ])
        .arg("--manifest-path")
        .arg(firmware.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir));
    let elf = target_dir.join("thumbv7m-none-eabi/release/tband-qemu-cortex-m3");
    let work = target_dir.join("run");
    std::fs::create_dir_all(&work).unwrap();
    let trace = work.join("trace.bin");
    let _ = std::fs::remove_file(&trace);
    run(Command::new("qemu-system-arm")
        .current_dir(&work)
        .args(["-cpu", "cortex-m3", "-machine", "lm3s6965evb", "-nographic"])
        .args(["-semihosting-config", "enable=on,target=native"])
        // Virtual time from the instruction count: the same trace every run.
        .args(["-icount", "shift=4", "-kernel"])
        .arg(&elf));
    std::fs::read(&trace).expect("the firmware writes trace.bin")
}

fn names(frames: &[Frame], kind: EventKind) -> Vec<String> {
    frames
        .iter()
        .filter(|f| f.kind == kind)
        .map(|f| f.fields.clone())
        .collect()
}

#[test]
fn firmware_trace_in_qemu() {
    if let Some(why) = missing_tools() {
        assert!(
            std::env::var("TBAND_REQUIRE_QEMU").as_deref() != Ok("1"),
            "TBAND_REQUIRE_QEMU=1 but {why}"
        );
        println!("skipped: {why}");
        return;
    }
    let bytes = record_qemu_trace();
    let frames = decode(&bytes, 0).expect("every frame decodes");
    assert_eq!(
        names(&frames, EventKind::IsrName),
        ["isr_id=15 name=SysTick"]
    );
    assert_eq!(
        names(&frames, EventKind::EvtmarkerName),
        [
            "evtmarker_id=1 name=task_a",
            "evtmarker_id=2 name=task_b",
            "evtmarker_id=3 name=tick_seen"
        ]
    );
    assert_eq!(
        names(&frames, EventKind::ValmarkerName),
        ["valmarker_id=1 name=counter"]
    );
    assert_eq!(names(&frames, EventKind::TsResolutionNs), ["ns_per_ts=83"]);

    let timed: Vec<_> = frames.iter().filter(|f| f.ts.is_some()).collect();
    assert!(
        timed.windows(2).all(|w| w[0].ts <= w[1].ts),
        "time never goes back"
    );
    // SysTick: strictly alternating enter/exit, never nested.
    let isr: Vec<_> = timed
        .iter()
        .filter(|f| matches!(f.kind, EventKind::IsrEnter | EventKind::IsrExit))
        .collect();
    assert!(
        isr.len() >= 10,
        "at least 5 ticks recorded, got {}",
        isr.len() / 2
    );
    for (i, f) in isr.iter().enumerate() {
        let expected = if i % 2 == 0 {
            EventKind::IsrEnter
        } else {
            EventKind::IsrExit
        };
        // The snapshot may end between an enter and its exit.
        if i + 1 < isr.len() || f.kind == expected {
            assert_eq!(f.kind, expected, "ISR event {i}");
        }
        assert_eq!(f.fields, "isr_id=15");
    }
    // Ticks are about 1 ms (12000 cycles) apart.
    let enters: Vec<_> = isr
        .iter()
        .filter(|f| f.kind == EventKind::IsrEnter)
        .collect();
    for w in enters.windows(2) {
        let gap = w[1].ts.unwrap() - w[0].ts.unwrap();
        assert!((11_000..13_000).contains(&gap), "tick gap {gap}");
    }
    let values = names(&frames, EventKind::Valmarker);
    assert!(values.len() > 10);
}
