//! Running `tband-perfetto --serve` in a test and talking HTTP and HTTPS
//! to it.

#![allow(dead_code)] // each test uses a part of it

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

/// The origin the tests send unless they say otherwise.
pub const UI_ORIGIN: &str = "https://ui.perfetto.dev";

/// A running `tband-perfetto --serve`, killed when the test ends, pass or
/// fail.
pub struct Server {
    pub child: Child,
    /// What it printed on stdout: the UI's address and the extension
    /// server's base URL.
    pub ui_link: String,
    pub extension_url: String,
    /// The port of the trace (the file's, or trace_processor's).
    pub port: u16,
    /// The URL path the trace is served at (`/` and its escaped name),
    /// when the file is served.
    pub trace_path: Option<String>,
    /// What it wrote on stderr so far.
    stderr: Arc<Mutex<String>>,
    /// The rest of its stdout.
    pub stdout: BufReader<ChildStdout>,
    /// The data directory it keeps its certificate in.
    pub data_dir: PathBuf,
    /// The certificate HTTPS requests trust: the one it made, unless the
    /// test says otherwise.
    pub trusted: PathBuf,
}

impl Server {
    /// Converts `input` to `output` and serves the file, as where there is
    /// no trace_processor, on ports the system picks.
    pub fn start(input: &str, output: &Path) -> Server {
        Server::start_with(input, output, &[], None)
    }

    /// Like [`Server::start`] with more arguments, through trace_processor
    /// when `trace_processor` names one. The certificate is kept in a
    /// data directory beside `output`.
    pub fn start_with(
        input: &str,
        output: &Path,
        args: &[&str],
        trace_processor: Option<&Path>,
    ) -> Server {
        let data_dir = output.with_extension("data");
        std::fs::create_dir_all(&data_dir).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_tband-perfetto"));
        command
            .arg(input)
            .arg("-o")
            .arg(output)
            .args(["--serve", "--port", "0", "--extension-port", "0"])
            .args(args)
            .env("XDG_DATA_HOME", &data_dir)
            // No trace_processor_shell to be found unless one is given.
            .env_remove("TBAND_TRACE_PROCESSOR")
            .env("PATH", &data_dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(shell) = trace_processor {
            command.arg("--trace-processor").arg(shell);
        }
        let mut child = command.spawn().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = BufReader::new(child.stderr.take().unwrap());
        let written = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut line = String::new();
            while pipe.read_line(&mut line).is_ok_and(|n| n > 0) {
                written.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut lines = [String::new(), String::new()];
        for line in &mut lines {
            stdout.read_line(line).unwrap();
        }
        let [ui_link, extension_url] = lines.map(|l| l.trim().to_string());
        let mut server = Server {
            child,
            ui_link,
            extension_url,
            port: 0,
            trace_path: None,
            stderr,
            stdout,
            trusted: data_dir.join("tband/localhost.pem"),
            data_dir,
        };
        if server.extension_url.is_empty() {
            let status = server.child.wait().unwrap();
            std::thread::sleep(Duration::from_millis(200));
            panic!(
                "{status} before the addresses: {}",
                server.stderr.lock().unwrap()
            );
        }
        // Its explanations on stderr end with how to stop it.
        let stderr = server.wait_for_stderr("Ctrl-C stops serving");
        let trace_url = server
            .ui_link
            .split_once("#!/?url=")
            .map(|(_, rest)| unescape(rest.split('&').next().unwrap()));
        match &trace_url {
            Some(url) => {
                let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
                let (port, path) = rest.split_once('/').unwrap();
                server.port = port.parse().unwrap();
                server.trace_path = Some(format!("/{path}"));
            }
            None => {
                // trace_processor's port, as stderr names it.
                let (_, rest) = stderr
                    .split_once("on 127.0.0.1:")
                    .unwrap_or_else(|| panic!("no port in {stderr}"));
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                server.port = digits.parse().unwrap();
            }
        }
        server
    }

    /// What it wrote on stderr once it has written `text`; fails after a
    /// minute without it.
    pub fn wait_for_stderr(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let stderr = self.stderr.lock().unwrap().clone();
            if stderr.contains(text) {
                return stderr;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no {text:?} on stderr: {stderr}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn extension_port(&self) -> u16 {
        let port = self.extension_url.strip_prefix("https://127.0.0.1:");
        port.unwrap_or_else(|| panic!("{}", self.extension_url))
            .parse()
            .unwrap()
    }

    /// Sends a plain HTTP request to the trace's port from the Perfetto
    /// UI: the response's head and body.
    pub fn request(&self, method: &str, path: &str) -> (String, Vec<u8>) {
        self.request_from(method, path, UI_ORIGIN)
    }

    /// [`Server::request`] from `origin`.
    pub fn request_from(&self, method: &str, path: &str, origin: &str) -> (String, Vec<u8>) {
        let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port)).unwrap();
        exchange(&mut stream, method, path, origin)
    }

    /// Sends an HTTPS request to the extension server from `origin`,
    /// trusting [`Server::trusted`] and no other certificate: the
    /// response's head and body.
    pub fn request_extension(&self, method: &str, path: &str, origin: &str) -> (String, Vec<u8>) {
        let mut roots = RootCertStore::empty();
        for cert in CertificateDer::pem_file_iter(&self.trusted).unwrap() {
            roots.add(cert.unwrap()).unwrap();
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        let name = ServerName::IpAddress(Ipv4Addr::LOCALHOST.into());
        let connection = ClientConnection::new(Arc::new(config), name).unwrap();
        let tcp = TcpStream::connect((Ipv4Addr::LOCALHOST, self.extension_port())).unwrap();
        let mut stream = StreamOwned::new(connection, tcp);
        exchange(&mut stream, method, path, origin)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn exchange(
    stream: &mut (impl Read + Write),
    method: &str,
    path: &str,
    origin: &str,
) -> (String, Vec<u8>) {
    // Closed after the response, by trace_processor too (it keeps
    // connections open otherwise).
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: {origin}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete response head");
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    (head, response[split + 4..].to_vec())
}

/// A query value of the UI's route decoded.
pub fn unescape(value: &str) -> String {
    let bytes = value.replace('+', " ").into_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// The value of the header `name` in a response head.
pub fn header<'h>(head: &'h str, name: &str) -> Option<&'h str> {
    head.lines().skip(1).find_map(|line| {
        let (n, v) = line.split_once(':')?;
        n.eq_ignore_ascii_case(name).then_some(v.trim())
    })
}
