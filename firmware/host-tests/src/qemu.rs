//! The QEMU example firmware (`firmware/qemu-cortex-m3`) for tests: built
//! for thumbv7m-none-eabi with one of its transports, run on QEMU's
//! lm3s6965evb. Tests skip with a message when QEMU or the rustup target is
//! missing, and fail instead when `TBAND_REQUIRE_QEMU=1` (as in CI).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

/// Whether the test can run; if not, says why (failing under
/// `TBAND_REQUIRE_QEMU=1`).
pub fn tools_present() -> bool {
    let Some(why) = missing_tools() else {
        return true;
    };
    assert!(
        std::env::var("TBAND_REQUIRE_QEMU").as_deref() != Ok("1"),
        "TBAND_REQUIRE_QEMU=1 but {why}"
    );
    println!("skipped: {why}");
    false
}

/// Runs a command to its end; panics with its output if it failed.
pub fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Builds the firmware with the transport `feature` (`snapshot`,
/// `stream-uart` or `stream-rtt`) and returns its ELF file. Each transport
/// has a target folder of its own, so tests running at once do not
/// overwrite each other's firmware.
pub fn build_firmware(feature: &str) -> PathBuf {
    let base = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"));
    let target_dir = base.join(format!("qemu-cortex-m3-{feature}"));
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
        .args(["--no-default-features", "--features", feature])
        .arg("--manifest-path")
        .arg(firmware.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir));
    target_dir.join("thumbv7m-none-eabi/release/tband-qemu-cortex-m3")
}

/// QEMU with the board, no display and semihosting on (the firmware
/// prints and exits through it), in virtual time from the instruction
/// count, so that every run is the same; the firmware and the serial port
/// are the caller's to add.
pub fn qemu() -> Command {
    let mut qemu = Command::new("qemu-system-arm");
    qemu.args(["-cpu", "cortex-m3", "-machine", "lm3s6965evb"])
        .args(["-display", "none", "-monitor", "none"])
        .args(["-semihosting-config", "enable=on,target=native"])
        .args(["-icount", "shift=4"]);
    qemu
}
