//! End-to-end tests of the `tband-perfetto` binary on real recordings.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use prost::Message;
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

/// Kills the server when the test ends, pass or fail.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn http_get(port: u16, path: &str, method: &str) -> (String, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://ui.perfetto.dev\r\n\r\n"
    )
    .unwrap();
    let mut response = Vec::new();
    s.read_to_end(&mut response).unwrap();
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete response head");
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    (head, response[split + 4..].to_vec())
}

#[test]
fn serve_answers_the_perfetto_ui_with_cors_headers() {
    let dir = temp_dir("serve");
    let out = dir.join("served trace.pftrace");
    // Port 0: the system picks a free one, which the printed URL names.
    let mut child = bin()
        .arg(SMALL)
        .arg("-o")
        .arg(&out)
        .args(["--serve", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let server = Server(child);
    let url = line.trim();
    let file_url = url
        .strip_prefix("https://ui.perfetto.dev/#!/?url=")
        .unwrap_or_else(|| panic!("not a Perfetto UI address: {url}"));
    let rest = file_url.strip_prefix("http://127.0.0.1:").unwrap();
    let (port, path) = rest.split_once('/').unwrap();
    let port: u16 = port.parse().unwrap();
    assert_eq!(path, "served%20trace.pftrace");

    let (head, body) = http_get(port, &format!("/{path}"), "GET");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.contains("Access-Control-Allow-Origin: https://ui.perfetto.dev"),
        "{head}"
    );
    assert_eq!(body, std::fs::read(&out).unwrap());

    let (preflight, _) = http_get(port, &format!("/{path}"), "OPTIONS");
    assert!(preflight.starts_with("HTTP/1.1 204"), "{preflight}");
    assert!(preflight.contains("Access-Control-Allow-Private-Network: true"));

    let (missing, _) = http_get(port, "/other.pftrace", "GET");
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
