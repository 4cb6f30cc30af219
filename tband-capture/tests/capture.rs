//! The binary against real sources: a TCP server in the test, and a
//! pseudo-terminal whose master side the test writes.

use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::ops::ControlFlow;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use tband_decode::stream::StreamDecoder;

mod common;
use common::raw_pty;

fn demo() -> Vec<u8> {
    fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../samples/demo.bin")).unwrap()
}

fn capture(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_tband-capture"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn finished(child: Child) -> (Output, String) {
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(output.stderr.clone()).unwrap();
    (output, stderr)
}

/// Chunk sizes that cut frames at every kind of place.
const CHUNKS: [usize; 6] = [1, 7, 2, 1000, 13, 4096];

/// Writes `data` in uneven chunks, each flushed on its own.
fn send_unevenly(stream: &mut impl Write, data: &[u8]) {
    let mut rest = data;
    for &size in CHUNKS.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (chunk, after) = rest.split_at(size.min(rest.len()));
        stream.write_all(chunk).unwrap();
        stream.flush().unwrap();
        rest = after;
    }
}

/// A server that accepts one connection and hands it to `serve`.
fn server(serve: impl FnOnce(TcpStream) + Send + 'static) -> (String, thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let handle = thread::spawn(move || serve(listener.accept().unwrap().0));
    (address, handle)
}

/// A server that sends `data` unevenly, then keeps the connection open
/// until the other side closes it.
fn server_sending_then_holding(data: Vec<u8>) -> (String, thread::JoinHandle<()>) {
    server(move |mut stream| {
        send_unevenly(&mut stream, &data);
        let mut byte = [0u8; 1];
        while stream.read(&mut byte).is_ok_and(|n| n > 0) {}
    })
}

/// Waits until `file` holds `len` bytes.
fn wait_for_size(file: &Path, len: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while fs::metadata(file).map_or(0, |m| m.len()) < len as u64 {
        assert!(
            Instant::now() < deadline,
            "{} never reached {len} bytes",
            file.display()
        );
        thread::sleep(Duration::from_millis(10));
    }
}

fn output_in(dir: &tempfile::TempDir) -> (PathBuf, String) {
    let path = dir.path().join("trace.bin");
    let text = path.to_str().unwrap().to_string();
    (path, text)
}

/// Checks a recording that ended well: exit 0, the file exactly `expected`,
/// and `end` said in the summary.
fn assert_ended_with(recorded: (Output, String), file: &Path, expected: &[u8], end: &str) {
    let (output, stderr) = recorded;
    assert!(output.status.success(), "{stderr}");
    assert_eq!(fs::read(file).unwrap(), expected);
    assert!(stderr.contains(end), "{stderr}");
}

/// The frames that decode in `bytes`, counted by the decoder's listing pass.
fn decoded_frames(bytes: &[u8]) -> u64 {
    let mut decoder = StreamDecoder::new(bytes, 0);
    decoder.for_each_frame(|_| ControlFlow::<()>::Continue(()));
    decoder.stats().decoded()
}

#[test]
fn a_whole_trace_sent_in_uneven_chunks_is_recorded_byte_for_byte() {
    let trace = demo();
    let sent = trace.clone();
    let (address, server) = server(move |mut stream| send_unevenly(&mut stream, &sent));
    let dir = tempfile::tempdir().unwrap();
    let (file, path) = output_in(&dir);
    let (output, stderr) = finished(capture(&["--tcp", &address, "-o", &path]));
    server.join().unwrap();
    assert!(output.status.success(), "{stderr}");
    assert_eq!(fs::read(&file).unwrap(), trace);
    // Not a terminal: the summary line alone.
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let frames = decoded_frames(&trace);
    assert!(frames > 1000);
    let expected = format!("{} bytes to {path} in ", trace.len());
    assert!(
        stderr.starts_with(&format!("tband-capture: {expected}")),
        "{stderr}"
    );
    assert!(stderr.contains(&format!(": {frames} frames, ")), "{stderr}");
    assert!(
        stderr.contains("the other side closed the connection"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("invalid") && !stderr.contains(" 0 tasks"),
        "{stderr}"
    );
}

#[test]
fn a_byte_limit_keeps_exactly_that_prefix() {
    let trace = demo();
    let (address, server) = server_sending_then_holding(trace.clone());
    let dir = tempfile::tempdir().unwrap();
    let (file, path) = output_in(&dir);
    let recorded = finished(capture(&[
        "--tcp", &address, "-o", &path, "--bytes", "12345",
    ]));
    server.join().unwrap();
    assert_ended_with(
        recorded,
        &file,
        &trace[..12345],
        "the byte count was reached",
    );
}

#[test]
fn a_duration_stops_with_what_arrived() {
    let trace = demo();
    let half = trace[..trace.len() / 2].to_vec();
    let (address, server) = server_sending_then_holding(half);
    let dir = tempfile::tempdir().unwrap();
    let (file, path) = output_in(&dir);
    let started = Instant::now();
    let recorded = finished(capture(&[
        "--tcp",
        &address,
        "-o",
        &path,
        "--duration",
        "1",
    ]));
    let took = started.elapsed();
    server.join().unwrap();
    assert!(
        took >= Duration::from_secs(1) && took < Duration::from_secs(15),
        "{took:?}"
    );
    let half = &trace[..trace.len() / 2];
    assert_ended_with(recorded, &file, half, "the duration was reached");
}

#[test]
fn ctrl_c_stops_cleanly_with_every_byte_received() {
    let trace = demo();
    let part = trace[..30_000].to_vec();
    let (address, server) = server_sending_then_holding(part);
    let dir = tempfile::tempdir().unwrap();
    let (file, path) = output_in(&dir);
    let child = capture(&["--tcp", &address, "-o", &path]);
    wait_for_size(&file, 30_000);
    // SAFETY: a plain signal to the child this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let recorded = finished(child);
    server.join().unwrap();
    assert_ended_with(recorded, &file, &trace[..30_000], "stopped on request");
}

#[test]
fn a_connection_reset_mid_run_fails_and_keeps_what_arrived() {
    let trace = demo();
    let part = trace[..20_000].to_vec();
    let dir = tempfile::tempdir().unwrap();
    let (file, path) = output_in(&dir);
    let written = file.clone();
    let (address, server) = server(move |mut stream| {
        send_unevenly(&mut stream, &part);
        wait_for_size(&written, 20_000);
        // Linger 0: closing sends a reset instead of the end of the stream.
        let linger = libc::linger {
            l_onoff: 1,
            l_linger: 0,
        };
        // SAFETY: the option's value is a `linger` of the given size.
        let set = unsafe {
            libc::setsockopt(
                stream.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_LINGER,
                (&linger as *const libc::linger).cast(),
                size_of::<libc::linger>() as libc::socklen_t,
            )
        };
        assert_eq!(set, 0);
    });
    let (output, stderr) = finished(capture(&["--tcp", &address, "-o", &path]));
    server.join().unwrap();
    assert!(!output.status.success());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("20000 bytes received and written to"),
        "{stderr}"
    );
    assert!(stderr.contains("connection reset"), "{stderr}");
    assert_eq!(fs::read(&file).unwrap(), trace[..20_000]);
}

#[test]
fn a_refused_connection_is_one_sentence() {
    let address = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().to_string()
    };
    let dir = tempfile::tempdir().unwrap();
    let (file, path) = output_in(&dir);
    let (output, stderr) = finished(capture(&["--tcp", &address, "-o", &path]));
    assert!(!output.status.success());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "tband-capture: cannot connect to {address}: connection refused; check"
        )),
        "{stderr}"
    );
    assert!(!file.exists());
}

/// Runs the binary with `args` and the output file in `dir`; checks that it
/// failed with one line starting with `start`, and returns the line.
fn fails_with(dir: &tempfile::TempDir, args: &[&str], start: &str) -> String {
    let (_, path) = output_in(dir);
    let mut all = args.to_vec();
    all.extend(["-o", &path]);
    let (output, stderr) = finished(capture(&all));
    assert!(!output.status.success());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with(start), "{stderr}");
    stderr
}

#[test]
fn gdb_errors_are_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let address = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().to_string()
    };
    // An ELF of the host without RTT: this test's own binary.
    let no_rtt = std::env::current_exe().unwrap();
    let no_rtt = no_rtt.to_str().unwrap();
    fails_with(
        &dir,
        &["--gdb", &address, "--elf", no_rtt],
        &format!("tband-capture: {no_rtt} has no _SEGGER_RTT symbol; check"),
    );
    let text = dir.path().join("notes.txt");
    fs::write(&text, "not an ELF").unwrap();
    let text = text.to_str().unwrap();
    fails_with(
        &dir,
        &["--gdb", &address, "--elf", text],
        &format!("tband-capture: {text} is not an ELF file"),
    );
    fails_with(
        &dir,
        &["--gdb", &address, "--scan-ram", "0x20000000:0x10000"],
        &format!(
            "tband-capture: cannot attach to the GDB server at {address}: connection refused; check"
        ),
    );
}

#[test]
fn a_probe_that_is_not_there_is_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let expected = if cfg!(feature = "probe") {
        "tband-capture: no debug probe found; check"
    } else {
        "tband-capture: this tband-capture was built without probe-rs; install it with"
    };
    let args = [
        "--probe",
        "--chip",
        "STM32F407VGTx",
        "--scan-ram",
        "0x20000000:0x100",
    ];
    fails_with(&dir, &args, expected);
}

#[test]
fn a_missing_serial_device_is_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let (_, path) = output_in(&dir);
    let port = dir.path().join("ttyNOPE");
    let port = port.to_str().unwrap();
    let (output, stderr) = finished(capture(&[
        "--serial", port, "--baud", "115200", "-o", &path,
    ]));
    assert!(!output.status.success());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "tband-capture: cannot open serial port {port}: no such file or directory; check"
        )),
        "{stderr}"
    );
}

#[test]
fn a_serial_port_is_recorded_byte_for_byte() {
    let trace = demo();
    // The slave stays open here too, so that the terminal does not hang up
    // between the test's set-up and the capture's open.
    let (mut master, _slave, port) = raw_pty();
    let dir = tempfile::tempdir().unwrap();
    let (file, path) = output_in(&dir);
    let len = trace.len().to_string();
    let child = capture(&[
        "--serial", &port, "--baud", "921600", "-o", &path, "--bytes", &len,
    ]);
    send_unevenly(&mut master, &trace);
    let (output, stderr) = finished(child);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(fs::read(&file).unwrap(), trace);
    let frames = decoded_frames(&trace);
    assert!(stderr.contains(&format!(": {frames} frames, ")), "{stderr}");
}

#[test]
fn noise_on_a_serial_port_is_said_to_look_wrong_and_still_recorded() {
    let noise: Vec<u8> = (0..8192u32).map(|i| (i % 251 + 1) as u8).collect();
    let (mut master, _slave, port) = raw_pty();
    let dir = tempfile::tempdir().unwrap();
    let (file, path) = output_in(&dir);
    let child = capture(&[
        "--serial", &port, "--baud", "9600", "-o", &path, "--bytes", "8192",
    ]);
    send_unevenly(&mut master, &noise);
    let (output, stderr) = finished(child);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(fs::read(&file).unwrap(), noise);
    assert_eq!(stderr.matches("wrong baud rate").count(), 1, "{stderr}");
    assert!(stderr.contains(": 0 frames ("), "{stderr}");
}

#[test]
fn on_a_terminal_the_status_line_is_redrawn_in_place() {
    let trace = demo();
    let (address, server) = server_sending_then_holding(trace.clone());
    let (mut terminal, stderr, _) = raw_pty();
    let dir = tempfile::tempdir().unwrap();
    let (_, path) = output_in(&dir);
    let status = Command::new(env!("CARGO_BIN_EXE_tband-capture"))
        .args(["--tcp", &address, "-o", &path, "--duration", "0.5"])
        .stderr(stderr)
        .status()
        .unwrap();
    server.join().unwrap();
    assert!(status.success());
    // The child has exited and the test's copy of the slave went to it:
    // the master reads what it wrote, then fails.
    let mut shown = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n @ 1..) = terminal.read(&mut buf) {
        shown.extend_from_slice(&buf[..n]);
    }
    let shown = String::from_utf8(shown).unwrap();
    let frames = decoded_frames(&trace);
    let line = format!("{frames} frames, ");
    assert!(
        shown.starts_with('\r') && shown.contains(&line),
        "{shown:?}"
    );
    assert!(shown.contains(" dropped events\x1b[K"), "{shown:?}");
    let summary = shown.rsplit("\r\x1b[K").next().unwrap();
    let bytes = format!("tband-capture: {} bytes to ", trace.len());
    assert!(summary.starts_with(&bytes), "{shown:?}");
    assert!(summary.ends_with("the duration was reached\n"), "{shown:?}");
}

#[path = "../../tests/tmux/session.rs"]
mod session;

#[path = "../../tests/lifetimes/requests.rs"]
mod requests;

/// `--tui` in a terminal (tmux): the follow view shows the trace as it
/// arrives, quitting it stops the recording, and the summary comes after.
#[test]
fn the_tui_shows_the_recording_and_quitting_it_stops_it() {
    let trace = demo();
    let half = trace.len() / 2;
    let (more, wait_for_more) = std::sync::mpsc::channel::<()>();
    let sent = trace.clone();
    let (address, server) = server(move |mut stream| {
        send_unevenly(&mut stream, &sent[..half]);
        let _ = wait_for_more.recv();
        send_unevenly(&mut stream, &sent[half..]);
        let mut byte = [0u8; 1];
        while stream.read(&mut byte).is_ok_and(|n| n > 0) {}
    });
    let dir = tempfile::tempdir().unwrap();
    let (path, file) = output_in(&dir);
    let err = dir.path().join("stderr.txt");
    let exit = dir.path().join("exit.txt");
    let command = format!(
        "{} --tcp {address} -o {file} --tui 2>{}; echo $? >{}",
        env!("CARGO_BIN_EXE_tband-capture"),
        err.display(),
        exit.display()
    );
    let Some(tmux) = session::Tmux::start("tband-capture-tui", &command) else {
        drop(more);
        server.join().unwrap();
        return;
    };
    // All of the trace is 92.32 ms long.
    let whole = "0ns..92.32ms (92.32ms)";
    let screen = tmux.wait_for("the first half", |s| {
        s.contains("prod0") && s.contains("keeps to the newest data")
    });
    assert!(!screen.contains(whole), "{screen}");
    more.send(()).unwrap();
    wait_for_size(&path, trace.len());
    tmux.wait_for("the whole trace", |s| s.contains(whole));
    tmux.quit();
    server.join().unwrap();
    assert_eq!(fs::read_to_string(&exit).unwrap().trim(), "0");
    assert_eq!(fs::read(&path).unwrap(), trace);
    let stderr = fs::read_to_string(&err).unwrap();
    let summary = format!("tband-capture: {} bytes to {file}", trace.len());
    assert!(stderr.starts_with(&summary), "{stderr}");
    assert!(stderr.ends_with("stopped on request\n"), "{stderr}");
}

/// `--tui --rules FILE`: the view applies the rules to the recording as it
/// arrives, so the pool of requests that the stream's markers begin is
/// shown with its lanes and counter.
#[test]
fn the_tui_applies_a_rules_file() {
    let trace = requests::stream(60);
    let (address, server) = server_sending_then_holding(trace.clone());
    let dir = tempfile::tempdir().unwrap();
    let (path, file) = output_in(&dir);
    let rules = dir.path().join("rules.toml");
    fs::write(&rules, requests::RULES).unwrap();
    let command = format!(
        "{} --tcp {address} -o {file} --tui --rules {}",
        env!("CARGO_BIN_EXE_tband-capture"),
        rules.display()
    );
    let Some(tmux) = session::Tmux::start("tband-capture-tui-rules", &command) else {
        return;
    };
    wait_for_size(&path, trace.len());
    // A row of the pool's counter and rows of its lanes, labelled
    // `pool/counter` and `pool/lane` (cut to the label column).
    tmux.wait_for("the pool of requests and its counter", |s| {
        s.contains("request 0x7/in") && s.contains("request 0x7/re")
    });
    tmux.quit();
    server.join().unwrap();
}

/// A rules file that does not parse is one sentence naming its line, and
/// nothing is recorded: the source is not even opened.
#[test]
fn a_rules_file_that_does_not_parse_stops_the_command_before_it_records() {
    let dir = tempfile::tempdir().unwrap();
    let (path, file) = output_in(&dir);
    let rules = dir.path().join("rules.toml");
    fs::write(
        &rules,
        "[[rule]]\nevent = \"evtmarker\"\naction = \"start\"\n",
    )
    .unwrap();
    let rules_arg = rules.to_str().unwrap();
    // Nothing listens at this address: a connection would fail differently.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = closed.local_addr().unwrap().to_string();
    drop(closed);
    let args = [
        "--tcp", &address, "-o", &file, "--tui", "--rules", rules_arg,
    ];
    let output = capture(&args).wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("{rules_arg} line 3: ")),
        "{stderr}"
    );
    assert!(!path.exists());
}
