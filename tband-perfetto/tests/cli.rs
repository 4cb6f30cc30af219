//! End-to-end tests of the `tband-perfetto` binary on real recordings.

#[path = "common/serving.rs"]
mod serving;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use prost::Message;
use serving::{header, Server};
use tband_perfetto::protos::Trace;

const SMALL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/corpus/tband/freertos_small.bin"
);

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tband-perfetto"))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("tband-perfetto-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn decode(path: &Path) -> Trace {
    let bytes = std::fs::read(path).unwrap();
    Trace::decode(bytes.as_slice()).unwrap()
}

#[test]
fn default_output_is_the_input_name_with_pftrace() {
    let dir = temp_dir("default");
    let input = dir.join("small.bin");
    std::fs::copy(SMALL, &input).unwrap();
    let out = bin().arg(&input).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let trace = decode(&dir.join("small.bin.pftrace"));
    assert!(trace.packet.iter().any(|p| p.process_tree.is_some()));
    assert!(trace.packet.iter().any(|p| p
        .ftrace_events
        .as_ref()
        .is_some_and(|b| b.compact_sched.is_some())));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("183 context switches"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn chrome_json_output_is_valid_json_with_the_models_slices() {
    let dir = temp_dir("chrome");
    let input = dir.join("small.bin");
    std::fs::copy(SMALL, &input).unwrap();
    let out = bin()
        .args(["--format", "chrome-json"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("small.bin.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let events = json["traceEvents"].as_array().expect("a traceEvents array");
    let model = tband_trace::Trace::open(&[SMALL.to_string()], &Default::default())
        .unwrap()
        .model;
    let complete = |cat: &str| {
        events
            .iter()
            .filter(|e| e["ph"] == "X" && e["cat"] == cat)
            .count()
    };
    // Each run slice is shown on its task's thread and on its core's.
    assert_eq!(complete("sched"), 2 * model.sched_slices.len());
    assert_eq!(complete("isr"), model.isr_slices.len());
    assert_eq!(complete("marker"), model.marker_spans.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gzip_output_decompresses_to_the_same_trace() {
    let dir = temp_dir("gzip");
    let plain = dir.join("t.pftrace");
    assert!(bin()
        .arg(SMALL)
        .arg("-o")
        .arg(&plain)
        .output()
        .unwrap()
        .status
        .success());
    let gz_base = dir.join("t.pftrace");
    assert!(bin()
        .arg(SMALL)
        .arg("--gzip")
        .arg("-o")
        .arg(&gz_base)
        .output()
        .unwrap()
        .status
        .success());
    let mut unzipped = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(dir.join("t.pftrace.gz")).unwrap())
        .read_to_end(&mut unzipped)
        .unwrap();
    assert_eq!(unzipped, std::fs::read(&plain).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dash_writes_the_trace_to_stdout() {
    let dir = temp_dir("stdout");
    let file = dir.join("t.pftrace");
    assert!(bin()
        .arg(SMALL)
        .arg("-o")
        .arg(&file)
        .output()
        .unwrap()
        .status
        .success());
    let out = bin().arg(SMALL).args(["-o", "-"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, std::fs::read(&file).unwrap());
    let serve = bin()
        .arg(SMALL)
        .args(["-o", "-", "--serve"])
        .output()
        .unwrap();
    assert!(!serve.status.success());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_that_is_no_trace_fails_with_one_sentence() {
    let dir = temp_dir("bad");
    let bad = dir.join("bad.bin");
    std::fs::write(&bad, [0xffu8; 64]).unwrap();
    let out = bin()
        .arg(&bad)
        .arg("-o")
        .arg(dir.join("x.pftrace"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("tband-perfetto: "), "{stderr}");
    let missing = bin().arg(dir.join("missing.bin")).output().unwrap();
    assert!(!missing.status.success());
    assert_eq!(String::from_utf8_lossy(&missing.stderr).lines().count(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn completion_prints_a_script() {
    let out = bin().args(["completion", "bash"]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("tband-perfetto"));
}

#[test]
fn serve_answers_the_perfetto_ui_with_cors_headers() {
    let dir = temp_dir("serve");
    let out = dir.join("served trace.pftrace");
    let server = Server::start(SMALL, &out);
    assert_eq!(server.trace_path, "/served%20trace.pftrace");

    let (head, body) = server.request("GET", &server.trace_path);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(
        header(&head, "Access-Control-Allow-Origin"),
        Some("https://ui.perfetto.dev"),
        "{head}"
    );
    assert_eq!(body, std::fs::read(&out).unwrap());

    let (preflight, _) = server.request("OPTIONS", &server.trace_path);
    assert!(preflight.starts_with("HTTP/1.1 204"), "{preflight}");
    assert_eq!(
        header(&preflight, "Access-Control-Allow-Private-Network"),
        Some("true")
    );

    let (missing, _) = server.request("GET", "/other.pftrace");
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn open_without_a_browser_launcher_fails_with_one_sentence() {
    let dir = temp_dir("open");
    // An empty PATH: no xdg-open (or open) to be found.
    let out = bin()
        .arg(SMALL)
        .arg("-o")
        .arg(dir.join("t.pftrace"))
        .args(["--open", "--port", "0"])
        .env("PATH", &dir)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<_> = stderr
        .lines()
        .filter(|l| l.starts_with("tband-perfetto: "))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains("browser"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
