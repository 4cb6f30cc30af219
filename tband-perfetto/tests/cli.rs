//! End-to-end tests of the `tband-perfetto` binary on real recordings.

#[path = "common/serving.rs"]
mod serving;
#[path = "../../tests/trace_processor/shell.rs"]
mod shell;

use std::io::Read;
use std::net::TcpListener;
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
    assert_eq!(complete("markers"), model.marker_spans.len());
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

/// Without trace_processor the file is served over plain HTTP for the
/// UI's open-from-URL route, and the extension over HTTPS; only the UI's
/// origin and the allowed ones are granted CORS. Stdout is the two
/// addresses and nothing else.
#[test]
fn serve_without_trace_processor_serves_the_file_and_the_extension() {
    let dir = temp_dir("serve");
    let out = dir.join("served trace.pftrace");
    let other = "http://127.0.0.1:10000";
    let mut server = Server::start_with(SMALL, &out, &["--allow-origin", other], None);
    assert_eq!(
        server.trace_path.as_deref(),
        Some("/served%20trace.pftrace")
    );
    assert!(
        server
            .ui_link
            .starts_with("https://ui.perfetto.dev/#!/?url=http%3A%2F%2F127.0.0.1%3A"),
        "{}",
        server.ui_link
    );
    assert!(server.ui_link.contains("&startupCommands="));
    let stderr = server.wait_for_stderr("Ctrl-C");
    assert!(stderr.contains("made a certificate"), "{stderr}");

    let trace_path = server.trace_path.clone().unwrap();
    let (head, body) = server.request("GET", &trace_path);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(
        header(&head, "Access-Control-Allow-Origin"),
        Some("https://ui.perfetto.dev"),
        "{head}"
    );
    assert_eq!(body, std::fs::read(&out).unwrap());
    let (preflight, _) = server.request("OPTIONS", &trace_path);
    assert!(preflight.starts_with("HTTP/1.1 204"), "{preflight}");
    assert_eq!(
        header(&preflight, "Access-Control-Allow-Private-Network"),
        Some("true")
    );
    let (missing, _) = server.request("GET", "/other.pftrace");
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");

    for (origin, granted) in [
        (other, Some(other)),
        ("https://ui.perfetto.dev", Some("https://ui.perfetto.dev")),
        ("https://elsewhere.example", None),
    ] {
        for method in ["GET", "OPTIONS"] {
            let (head, _) = server.request_extension(method, "/manifest", origin);
            assert!(head.starts_with("HTTP/1.1 2"), "{head}");
            assert_eq!(
                header(&head, "Access-Control-Allow-Origin"),
                granted,
                "{method} from {origin}: {head}"
            );
        }
    }

    // SIGINT stops it; it printed nothing more.
    unsafe { libc::kill(server.child.id() as i32, libc::SIGINT) };
    assert!(server.child.wait().unwrap().success());
    let mut rest = String::new();
    server.stdout.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "");
    drop(server);

    // The certificate is kept: a second server presents it and says
    // nothing about it.
    let cert = std::fs::read(dir.join("served trace.data/tband/localhost.pem")).unwrap();
    let server = Server::start(SMALL, &out);
    let stderr = server.wait_for_stderr("Ctrl-C");
    assert!(!stderr.contains("certificate"), "{stderr}");
    let (head, _) = server.request_extension("GET", "/manifest", "https://ui.perfetto.dev");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(std::fs::read(&server.trusted).unwrap(), cert);
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// With trace_processor the trace is loaded into its HTTP accelerator,
/// which the UI's origins may use; the printed address carries no file.
/// SIGINT stops everything, and so does killing tband-perfetto outright.
#[test]
fn serve_with_trace_processor_loads_the_trace_into_it() {
    let Some(shell) = shell::trace_processor() else {
        return;
    };
    let dir = temp_dir("accelerator");
    let out = dir.join("accelerated.pftrace");
    let origin = "http://127.0.0.1:10000";
    for stop in [libc::SIGINT, libc::SIGKILL] {
        let mut server = Server::start_with(SMALL, &out, &["--allow-origin", origin], Some(&shell));
        assert!(
            server
                .ui_link
                .starts_with("https://ui.perfetto.dev/#!/?startupCommands="),
            "{}",
            server.ui_link
        );
        assert_eq!(server.trace_path, None);
        let children = children_of(server.child.id());
        assert_eq!(children.len(), 1, "{children:?}");

        // trace_processor's status names the loaded trace.
        let (head, body) = server.request_from("GET", "/status", origin);
        let body = String::from_utf8_lossy(&body);
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(body.contains("accelerated.pftrace"), "{head}\n\n{body}");
        assert_eq!(
            header(&head, "Access-Control-Allow-Origin"),
            Some(origin),
            "{head}"
        );

        unsafe { libc::kill(server.child.id() as i32, stop) };
        let status = server.child.wait().unwrap();
        if stop == libc::SIGINT {
            assert!(status.success(), "{status}");
        }
        let (port, extension_port) = (server.port, server.extension_port());
        eventually(&format!("trace_processor {children:?} gone"), || {
            !Path::new(&format!("/proc/{}", children[0])).exists()
        });
        eventually("both ports free", || {
            [port, extension_port]
                .iter()
                .all(|&p| TcpListener::bind(("127.0.0.1", p)).is_ok())
        });
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A port in use is one sentence naming the option that changes it, said
/// before trace_processor is started or the trace converted.
#[test]
fn serve_says_which_port_is_in_use() {
    let dir = temp_dir("ports");
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    for (option, other) in [
        ("--port", "--extension-port"),
        ("--extension-port", "--port"),
    ] {
        let out = bin()
            .arg(SMALL)
            .arg("-o")
            .arg(dir.join("t.pftrace"))
            .args(["--serve", option, &port, other, "0"])
            .env("XDG_DATA_HOME", &dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr,
            format!(
                "tband-perfetto: port {port} of 127.0.0.1 is in use: stop what listens there or \
                 choose another port with {option}\n"
            )
        );
        assert!(out.stdout.is_empty());
        assert!(!dir.join("t.pftrace").exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// --tls-cert and --tls-key serve a certificate of the user's instead of
/// making one; files that hold none, and a --ui that is no URL, are one
/// sentence each.
#[test]
fn serve_presents_a_given_certificate_and_refuses_bad_settings() {
    let dir = temp_dir("given");
    let key = rcgen::KeyPair::generate().unwrap();
    let params = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap();
    let cert = params.self_signed(&key).unwrap();
    let (cert_file, key_file) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert_file, cert.pem()).unwrap();
    std::fs::write(&key_file, key.serialize_pem()).unwrap();
    let (cert_arg, key_arg) = (
        cert_file.display().to_string(),
        key_file.display().to_string(),
    );
    let given = ["--tls-cert", &cert_arg, "--tls-key", &key_arg];
    let mut server = Server::start_with(SMALL, &dir.join("t.pftrace"), &given, None);
    let stderr = server.wait_for_stderr("Ctrl-C");
    assert!(!stderr.contains("certificate"), "{stderr}");
    assert!(!server.data_dir.join("tband").exists());
    server.trusted = cert_file.clone();
    let (head, _) = server.request_extension("GET", "/manifest", "https://ui.perfetto.dev");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    drop(server);

    let not_pem = dir.join("not.pem");
    std::fs::write(&not_pem, "no certificate here\n").unwrap();
    let not_pem = not_pem.display().to_string();
    for (args, expected) in [
        (
            vec!["--tls-cert", not_pem.as_str(), "--tls-key", &key_arg],
            "cannot read the TLS certificate or key",
        ),
        (
            vec!["--ui", "ui.perfetto.dev"],
            "ui.perfetto.dev is not an http:// or https:// URL",
        ),
    ] {
        let out = bin()
            .arg(SMALL)
            .arg("-o")
            .arg(dir.join("bad.pftrace"))
            .args(["--serve", "--port", "0", "--extension-port", "0"])
            .args(&args)
            .env("XDG_DATA_HOME", &dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with(&format!("tband-perfetto: {expected}")),
            "{stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The processes whose parent is `pid`.
fn children_of(pid: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| {
            let child: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).ok()?;
            // The parent is the second field after the command's `)`.
            let (_, fields) = stat.rsplit_once(')')?;
            let parent: u32 = fields.split_whitespace().nth(1)?.parse().ok()?;
            (parent == pid).then_some(child)
        })
        .collect()
}

/// Waits up to ten seconds for `done`.
fn eventually(what: &str, done: impl Fn() -> bool) {
    let start = std::time::Instant::now();
    while !done() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "not {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn open_without_a_browser_launcher_fails_with_one_sentence() {
    let dir = temp_dir("open");
    // An empty PATH: no xdg-open (or open) to be found.
    let out = bin()
        .arg(SMALL)
        .arg("-o")
        .arg(dir.join("t.pftrace"))
        .args(["--open", "--port", "0", "--extension-port", "0"])
        .env("PATH", &dir)
        .env_remove("TBAND_TRACE_PROCESSOR")
        .env("XDG_DATA_HOME", &dir)
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
