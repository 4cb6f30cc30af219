//! Serves one trace file and tband's Perfetto UI extension
//! ([`crate::extension`]) over HTTP on the loopback interface, with the
//! CORS headers that let the Perfetto UI (a web page on ui.perfetto.dev)
//! fetch them.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::extension::{self, Endpoint};

/// The port the Perfetto UI accepts trace URLs from.
pub const DEFAULT_PORT: u16 = 9001;

const UI_ORIGIN: &str = "https://ui.perfetto.dev";

/// Longest request head read before giving up on a client.
const MAX_HEAD_BYTES: u64 = 16 * 1024;

/// A bound server for one file and the extension.
pub struct TraceServer {
    listener: TcpListener,
    routes: Arc<Routes>,
}

/// What is served where.
struct Routes {
    file: PathBuf,
    /// The file's URL path (`/` and its name, escaped).
    file_path: String,
    /// The extension's endpoints, at `/` and their paths.
    extension: Vec<Endpoint>,
}

impl TraceServer {
    pub fn bind(file: &Path, port: u16) -> io::Result<TraceServer> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))?;
        let name = file
            .file_name()
            .map_or_else(|| "trace".into(), |n| n.to_string_lossy());
        Ok(TraceServer {
            listener,
            routes: Arc::new(Routes {
                file: file.to_path_buf(),
                file_path: format!("/{}", percent_encode(&name)),
                extension: extension::endpoints(),
            }),
        })
    }

    /// The extension server's base URL (its manifest is `/manifest`).
    pub fn base_url(&self) -> io::Result<String> {
        Ok(format!(
            "http://127.0.0.1:{}",
            self.listener.local_addr()?.port()
        ))
    }

    /// The URL the file is served at.
    pub fn file_url(&self) -> io::Result<String> {
        Ok(format!("{}{}", self.base_url()?, self.routes.file_path))
    }

    /// The Perfetto UI address that opens the served file.
    pub fn ui_url(&self) -> io::Result<String> {
        Ok(format!("{UI_ORIGIN}/#!/?url={}", self.file_url()?))
    }

    /// Answers requests until the process ends; each client on its own thread.
    pub fn run(&self) -> io::Result<()> {
        for stream in self.listener.incoming() {
            let stream = stream?;
            let routes = Arc::clone(&self.routes);
            std::thread::spawn(move || {
                // A client that goes away mid-answer is no concern of the server.
                let _ = answer(stream, &routes);
            });
        }
        Ok(())
    }
}

/// The method and path (without its query) of an HTTP request, read from
/// its head; the headers are skipped.
pub struct Request {
    pub method: String,
    pub path: String,
}

impl Request {
    pub fn read(stream: &TcpStream) -> io::Result<Request> {
        let mut reader = BufReader::new(io::Read::take(stream.try_clone()?, MAX_HEAD_BYTES));
        let mut request_line = String::new();
        reader.read_line(&mut request_line)?;
        // Skip the headers up to the blank line.
        let mut line = String::new();
        while reader.read_line(&mut line)? > 2 {
            line.clear();
        }
        let mut parts = request_line.split_whitespace();
        let method = parts.next().unwrap_or("").to_string();
        let target = parts.next().unwrap_or("");
        let path = target
            .split(['?', '#'])
            .next()
            .unwrap_or(target)
            .to_string();
        Ok(Request { method, path })
    }
}

fn answer(stream: TcpStream, routes: &Routes) -> io::Result<()> {
    let Request { method, path } = Request::read(&stream)?;
    let (method, path) = (method.as_str(), path.as_str());
    let mut out = io::BufWriter::new(stream);
    // `*` allows any other request header, but never `Authorization`,
    // which the extension server protocol names.
    let cors = format!(
        "Access-Control-Allow-Origin: {UI_ORIGIN}\r\n\
         Access-Control-Allow-Methods: GET, OPTIONS\r\n\
         Access-Control-Allow-Headers: Authorization, Content-Type, *\r\n\
         Access-Control-Allow-Private-Network: true\r\n\
         Cache-Control: no-cache\r\n\
         Connection: close\r\n"
    );
    let endpoint = path
        .strip_prefix('/')
        .and_then(|p| routes.extension.iter().find(|e| e.path == p));
    let head_only = method == "HEAD";
    match method {
        "OPTIONS" => write!(out, "HTTP/1.1 204 No Content\r\n{cors}\r\n")?,
        "GET" | "HEAD" if path == routes.file_path => {
            let mut f = File::open(&routes.file)?;
            let len = f.metadata()?.len();
            write!(
                out,
                "HTTP/1.1 200 OK\r\n{cors}Content-Type: application/octet-stream\r\nContent-Length: {len}\r\n\r\n"
            )?;
            if !head_only {
                io::copy(&mut f, &mut out)?;
            }
        }
        "GET" | "HEAD" => {
            let (status, kind, body) = match endpoint {
                Some(e) => ("200 OK", "application/json", e.body.as_str()),
                None => ("404 Not Found", "text/plain", "not found\n"),
            };
            write!(
                out,
                "HTTP/1.1 {status}\r\n{cors}Content-Type: {kind}\r\nContent-Length: {}\r\n\r\n",
                body.len()
            )?;
            if !head_only {
                out.write_all(body.as_bytes())?;
            }
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
