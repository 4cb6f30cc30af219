//! Capture throughput from a local writer: over TCP and over a
//! pseudo-terminal (a serial port's stand-in), each checked for zero loss.
//!
//! `cargo bench -p tband-capture --bench throughput [-- MEGABYTES]`
//! (100 MB by default). Each figure is the wall time from starting the
//! `tband-capture` process to its exit, with every byte compared after.

use std::fs;
use std::io::Write;
use std::net::TcpListener;
use std::process::{Command, Output};
use std::thread;
use std::time::{Duration, Instant};

use tband_sim::{generate, Config};

#[path = "../tests/common/mod.rs"]
mod common;

/// How much the writer hands over at a time.
const WRITE_BYTES: usize = 64 << 10;

fn main() {
    let megabytes: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100);
    let config = Config {
        size: megabytes * 1_000_000,
        ..Config::default()
    };
    let (streams, _) = generate(&config).expect("the simulated trace");
    let trace = &streams[0];
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("trace.bin");
    let path = file.to_str().unwrap();
    println!(
        "capture of a {:.0} MB tband trace from a local writer",
        mb(trace.len())
    );

    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let writer = thread::scope(|scope| {
        scope.spawn(|| {
            let mut stream = listener.accept().unwrap().0;
            for chunk in trace.chunks(WRITE_BYTES) {
                stream.write_all(chunk).unwrap();
            }
        });
        capture(&["--tcp", &address, "-o", path])
    });
    report("tcp", trace, &fs::read(&file).unwrap(), writer);

    let (mut master, _slave, port) = common::raw_pty();
    let len = trace.len().to_string();
    let writer = thread::scope(|scope| {
        scope.spawn(|| {
            for chunk in trace.chunks(WRITE_BYTES) {
                master.write_all(chunk).unwrap();
            }
        });
        let args = [
            "--serial", &port, "--baud", "921600", "-o", path, "--bytes", &len,
        ];
        capture(&args)
    });
    report("pty", trace, &fs::read(&file).unwrap(), writer);
}

/// Runs the capture to its end; its output and wall time.
fn capture(args: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_tband-capture"))
        .args(args)
        .output()
        .unwrap();
    (output, start.elapsed())
}

fn report(name: &str, sent: &[u8], recorded: &[u8], (output, took): (Output, Duration)) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{name}: {stderr}");
    let lost = sent.len() - recorded.len().min(sent.len());
    assert!(recorded == sent, "{name}: {lost} bytes lost or changed");
    println!(
        "{name}: {:7.1} MB/s  ({:.0} MB in {:.2} s, zero loss)",
        mb(sent.len()) / took.as_secs_f64(),
        mb(sent.len()),
        took.as_secs_f64()
    );
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}
