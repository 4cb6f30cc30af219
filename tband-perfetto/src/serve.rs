//! Serves one trace file over HTTP on the loopback interface, with the CORS
//! headers that let the Perfetto UI (a web page on ui.perfetto.dev) fetch it.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};

/// The port the Perfetto UI accepts trace URLs from.
pub const DEFAULT_PORT: u16 = 9001;

const UI_ORIGIN: &str = "https://ui.perfetto.dev";

/// Longest request head read before giving up on a client.
const MAX_HEAD_BYTES: u64 = 16 * 1024;

/// A bound server for one file.
pub struct TraceServer {
    listener: TcpListener,
    file: PathBuf,
    url_path: String,
}

impl TraceServer {
    pub fn bind(file: &Path, port: u16) -> io::Result<TraceServer> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))?;
        let name = file
            .file_name()
            .map_or_else(|| "trace".into(), |n| n.to_string_lossy());
        Ok(TraceServer {
            listener,
            file: file.to_path_buf(),
            url_path: format!("/{}", percent_encode(&name)),
        })
    }

    /// The URL the file is served at.
    pub fn file_url(&self) -> io::Result<String> {
        Ok(format!(
            "http://127.0.0.1:{}{}",
            self.listener.local_addr()?.port(),
            self.url_path
        ))
    }

    /// The Perfetto UI address that opens the served file.
    pub fn ui_url(&self) -> io::Result<String> {
        Ok(format!("{UI_ORIGIN}/#!/?url={}", self.file_url()?))
    }

    /// Answers requests until the process ends; each client on its own thread.
    pub fn run(&self) -> io::Result<()> {
        for stream in self.listener.incoming() {
            let stream = stream?;
            let file = self.file.clone();
            let url_path = self.url_path.clone();
            std::thread::spawn(move || {
                // A client that goes away mid-answer is no concern of the server.
                let _ = answer(stream, &file, &url_path);
            });
        }
        Ok(())
    }
}

fn answer(stream: TcpStream, file: &Path, url_path: &str) -> io::Result<()> {
    let mut reader = BufReader::new(io::Read::take(stream.try_clone()?, MAX_HEAD_BYTES));
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Skip the headers up to the blank line.
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        line.clear();
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("");
    let path = parts.next().unwrap_or("");
    let path = path.split('?').next().unwrap_or(path);
    let mut out = io::BufWriter::new(stream);
    let cors = format!(
        "Access-Control-Allow-Origin: {UI_ORIGIN}\r\n\
         Access-Control-Allow-Methods: GET, OPTIONS\r\n\
         Access-Control-Allow-Headers: *\r\n\
         Access-Control-Allow-Private-Network: true\r\n\
         Cache-Control: no-cache\r\n\
         Connection: close\r\n"
    );
    match (method, path == url_path) {
        ("OPTIONS", _) => write!(out, "HTTP/1.1 204 No Content\r\n{cors}\r\n")?,
        ("GET" | "HEAD", true) => {
            let mut f = File::open(file)?;
            let len = f.metadata()?.len();
            write!(
                out,
                "HTTP/1.1 200 OK\r\n{cors}Content-Type: application/octet-stream\r\nContent-Length: {len}\r\n\r\n"
            )?;
            if method == "GET" {
                io::copy(&mut f, &mut out)?;
            }
        }
        ("GET" | "HEAD", false) => {
            let body = "not found\n";
            write!(
                out,
                "HTTP/1.1 404 Not Found\r\n{cors}Content-Type: text/plain\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )?;
        }
        _ => write!(
            out,
            "HTTP/1.1 405 Method Not Allowed\r\n{cors}Content-Length: 0\r\n\r\n"
        )?,
    }
    out.flush()
}

/// Escapes everything but unreserved URL characters.
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_escaped_in_urls() {
        assert_eq!(percent_encode("a b+c.pftrace"), "a%20b%2Bc.pftrace");
        assert_eq!(percent_encode("ok-1_~.gz"), "ok-1_~.gz");
    }
}
