//! Running `tband-perfetto --serve` in a test and talking HTTP to it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A running `tband-perfetto --serve`, killed when the test ends, pass or fail.
pub struct Server {
    child: Child,
    pub port: u16,
    /// The URL path the trace is served at (`/` and its escaped name).
    pub trace_path: String,
}

impl Server {
    /// Converts `input` to `output` and serves it on a port the system
    /// picks, which the printed Perfetto UI address names.
    pub fn start(input: &str, output: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tband-perfetto"))
            .arg(input)
            .arg("-o")
            .arg(output)
            .args(["--serve", "--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim();
        let file_url = url
            .strip_prefix("https://ui.perfetto.dev/#!/?url=")
            .unwrap_or_else(|| panic!("not a Perfetto UI address: {url}"));
        let rest = file_url.strip_prefix("http://127.0.0.1:").unwrap();
        let (port, path) = rest.split_once('/').unwrap();
        Server {
            port: port.parse().unwrap(),
            trace_path: format!("/{path}"),
            child,
        }
    }

    /// Sends a request as the Perfetto UI would: the response's head and body.
    pub fn request(&self, method: &str, path: &str) -> (String, Vec<u8>) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
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
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The value of the header `name` in a response head.
pub fn header<'h>(head: &'h str, name: &str) -> Option<&'h str> {
    head.lines().skip(1).find_map(|line| {
        let (n, v) = line.split_once(':')?;
        n.eq_ignore_ascii_case(name).then_some(v.trim())
    })
}
