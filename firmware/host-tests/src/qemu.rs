//! The QEMU example firmware (`firmware/qemu-cortex-m3` with one of its
//! transports, `firmware/embassy-cortex-m3`) for tests: built for
//! thumbv7m-none-eabi, run on QEMU's lm3s6965evb. Tests skip with a message when QEMU or the rustup target is
//! missing, and fail instead when `TBAND_REQUIRE_QEMU=1` (as in CI).

use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Stdio};

use crate::run;

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

/// Builds the firmware with the transport `feature` (`snapshot`,
/// `stream-uart` or `stream-rtt`) and returns its ELF file. Each transport
/// has a target folder of its own, so tests running at once do not
/// overwrite each other's firmware.
pub fn build_firmware(feature: &str) -> PathBuf {
    build(
        "qemu-cortex-m3",
        "tband-qemu-cortex-m3",
        &format!("qemu-cortex-m3-{feature}"),
        &["--no-default-features", "--features", feature],
    )
}

/// Builds the embassy example firmware (`firmware/embassy-cortex-m3`)
/// and returns the ELF file of its program `bin` (`tband-embassy-cortex-m3`,
/// or `poll_cost` with `features`).
pub fn build_embassy_firmware(bin: &str, features: &[&str]) -> PathBuf {
    let mut args = vec!["--bin", bin, "--no-default-features"];
    let features = features.join(",");
    if !features.is_empty() {
        args.extend(["--features", &features]);
    }
    let folder = format!("embassy-cortex-m3-{bin}-{}", features.replace(',', "-"));
    build("embassy-cortex-m3", bin, &folder, &args)
}

/// Builds firmware crate `firmware/<dir>` in release mode for
/// thumbv7m-none-eabi into target folder `folder`; returns its ELF `bin`.
fn build(dir: &str, bin: &str, folder: &str, args: &[&str]) -> PathBuf {
    let base = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"));
    let target_dir = base.join(folder);
    let firmware = repo().join("firmware").join(dir);
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
        .args(args)
        .arg("--manifest-path")
        .arg(firmware.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir));
    target_dir.join("thumbv7m-none-eabi/release").join(bin)
}

/// QEMU with the board, no display and semihosting on (the firmware
/// prints and exits through it), in virtual time from the instruction
/// count, so that every run is the same; the firmware and the serial port
/// are the caller's to add.
pub fn qemu() -> Command {
    lm3s6965evb("shift=4")
}

/// [`qemu`] in virtual time of one nanosecond per instruction: for the
/// programs that count instructions with SysTick.
pub fn qemu_counting_instructions() -> Command {
    lm3s6965evb("shift=0")
}

fn lm3s6965evb(icount: &str) -> Command {
    let mut qemu = Command::new("qemu-system-arm");
    qemu.args(["-cpu", "cortex-m3", "-machine", "lm3s6965evb"])
        .args(["-display", "none", "-monitor", "none"])
        .args(["-semihosting-config", "enable=on,target=native"])
        .args(["-icount", icount]);
    qemu
}

/// QEMU's mps2-an385 (the FreeRTOS example's board) in `dir`, where its
/// semihosting files go, in virtual time from the instruction count.
pub fn qemu_mps2_an385(dir: &Path) -> Command {
    let mut qemu = Command::new("qemu-system-arm");
    qemu.current_dir(dir)
        .args(["-machine", "mps2-an385", "-cpu", "cortex-m3"])
        .args(["-display", "none", "-monitor", "none"])
        .args(["-semihosting-config", "enable=on,target=native"])
        .args(["-icount", "shift=4"]);
    qemu
}

/// A TCP port that was free a moment ago, for QEMU to listen on.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts QEMU with `firmware` and a socket server `chardev` that holds the
/// machine until a client connects; returns once it listens.
pub fn start_qemu(firmware: &Path, server: &[&str]) -> (Child, BufReader<ChildStderr>) {
    spawn_listening(qemu().args(server).arg("-kernel").arg(firmware))
}

/// Starts `qemu`, whose arguments include a socket server that holds the
/// machine until a client connects; returns once it listens.
pub fn spawn_listening(qemu: &mut Command) -> (Child, BufReader<ChildStderr>) {
    let mut child = qemu
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("qemu-system-arm starts");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    wait_for_line(
        &mut stderr,
        "waiting for connection",
        "QEMU ended before it listened",
    );
    (child, stderr)
}

/// Where QEMU puts the firmware's semihosting console.
pub enum Console {
    Stdout,
    Stderr,
}

/// Starts `qemu` with `firmware` and its gdbstub on a free port; returns
/// once the firmware says on its `console` that it recorded a fault: QEMU,
/// left waiting in the fault handler, and the gdbstub's address.
pub fn run_until_fault(qemu: &mut Command, firmware: &Path, console: Console) -> (Child, String) {
    let address = format!("127.0.0.1:{}", free_port());
    qemu.args(["-gdb", &format!("tcp:{address}")])
        .arg("-kernel")
        .arg(firmware);
    match console {
        Console::Stdout => qemu.stdout(Stdio::piped()),
        Console::Stderr => qemu.stderr(Stdio::piped()),
    };
    let mut child = qemu.spawn().expect("qemu-system-arm starts");
    let output: Box<dyn Read> = match console {
        Console::Stdout => Box::new(child.stdout.take().unwrap()),
        Console::Stderr => Box::new(child.stderr.take().unwrap()),
    };
    wait_for_line(
        &mut BufReader::new(output),
        "fault recorded",
        "the firmware ended without faulting",
    );
    (child, address)
}

/// Reads `lines` up to one that contains `text`; panics with `ended` if
/// they end first.
fn wait_for_line(lines: &mut impl BufRead, text: &str, ended: &str) {
    let mut line = String::new();
    while !line.contains(text) {
        line.clear();
        assert!(lines.read_line(&mut line).unwrap() > 0, "{ended}");
    }
}

/// QEMU with `firmware`, held at its first instruction until a GDB client
/// attaches on the returned port.
pub fn start_qemu_for_gdb(firmware: &Path) -> (Child, BufReader<ChildStderr>, u16) {
    let port = free_port();
    let args = gdb_server_args(port);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (qemu, stderr) = start_qemu(firmware, &args);
    (qemu, stderr, port)
}

/// QEMU's arguments for a GDB server on `port` that holds the machine
/// halted until a client connects (the serial port unused).
pub fn gdb_server_args(port: u16) -> Vec<String> {
    let gdb = format!("socket,id=gdb,host=127.0.0.1,port={port},server=on,wait=on,nodelay=on");
    [
        "-serial",
        "null",
        "-chardev",
        &gdb,
        "-gdb",
        "chardev:gdb",
        "-S",
    ]
    .map(String::from)
    .to_vec()
}
