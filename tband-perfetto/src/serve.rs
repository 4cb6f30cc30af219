//! The servers of `tband-perfetto --serve` on the loopback interface: the
//! trace file over plain HTTP (the one kind of address the Perfetto UI
//! fetches a trace from) and tband's Perfetto UI extension
//! ([`crate::extension`]) over HTTPS (the only kind of extension server
//! the UI adds), each with the CORS headers that let the UI's origins, and
//! only those, read the answers.

use std::fs::File;
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls::{ServerConfig, ServerConnection, StreamOwned};

use crate::extension::Endpoint;

/// The port the Perfetto UI fetches trace files and trace_processor from.
pub const DEFAULT_PORT: u16 = 9001;

/// The port of the extension server.
pub const DEFAULT_EXTENSION_PORT: u16 = 9443;

/// The UI `--ui` names by default.
pub const DEFAULT_UI: &str = "https://ui.perfetto.dev";

/// Longest request head read before giving up on a client.
const MAX_HEAD_BYTES: usize = 16 * 1024;

/// How long a client may keep a connection without sending its request.
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// The web origins (`scheme://host[:port]`) allowed to read the answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origins(Vec<String>);

impl Origins {
    /// The origin of the UI at `ui` and the `others`; says which is no
    /// http(s) URL.
    pub fn new(ui: &str, others: &[String]) -> Result<Origins, String> {
        let mut origins = vec![origin_of(ui)?];
        for other in others {
            let origin = origin_of(other)?;
            if !origins.contains(&origin) {
                origins.push(origin);
            }
        }
        Ok(Origins(origins))
    }

    pub fn allows(&self, origin: &str) -> bool {
        self.0.iter().any(|o| o == origin)
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }
}

/// The origin of a URL, as a browser sends it in `Origin`: lower-case
/// scheme and host, the port only when it is not the scheme's default.
fn origin_of(url: &str) -> Result<String, String> {
    let not_a_url = || {
        format!(
            "{url} is not an http:// or https:// URL, which --ui and --allow-origin take \
             (e.g. {DEFAULT_UI})"
        )
    };
    let uri: http::Uri = url.parse().map_err(|_| not_a_url())?;
    let scheme = uri.scheme_str().map(str::to_ascii_lowercase);
    let default_port = match scheme.as_deref() {
        Some("https") => 443,
        Some("http") => 80,
        _ => return Err(not_a_url()),
    };
    let host = uri.host().filter(|h| !h.is_empty()).ok_or_else(not_a_url)?;
    let port = uri
        .port_u16()
        .filter(|&p| p != default_port)
        .map_or_else(String::new, |p| format!(":{p}"));
    Ok(format!(
        "{}://{}{port}",
        scheme.unwrap_or_default(),
        host.to_ascii_lowercase()
    ))
}

/// What one server answers.
pub struct Site {
    /// A file and its URL path (`/` and its escaped name).
    file: Option<(PathBuf, String)>,
    /// Endpoints, each at `/` and its path.
    endpoints: Vec<Endpoint>,
    origins: Origins,
}

impl Site {
    /// The file alone, at `/` and its name.
    pub fn file(file: &Path, origins: Origins) -> Site {
        let name = file
            .file_name()
            .map_or_else(|| "trace".into(), |n| n.to_string_lossy());
        Site {
            file: Some((file.to_path_buf(), format!("/{}", percent_encode(&name)))),
            endpoints: Vec::new(),
            origins,
        }
    }

    /// The endpoints alone.
    pub fn endpoints(endpoints: Vec<Endpoint>, origins: Origins) -> Site {
        Site {
            file: None,
            endpoints,
            origins,
        }
    }

    /// The file's URL path, if the site has a file.
    pub fn file_path(&self) -> Option<&str> {
        self.file.as_ref().map(|(_, path)| path.as_str())
    }
}

/// A server bound to its port, over TLS when it has a configuration.
pub struct Server {
    listener: TcpListener,
    tls: Option<Arc<ServerConfig>>,
    site: Arc<Site>,
}

impl Server {
    pub fn new(listener: TcpListener, tls: Option<Arc<ServerConfig>>, site: Site) -> Server {
        Server {
            listener,
            tls,
            site: Arc::new(site),
        }
    }

    /// The server's base URL.
    pub fn base_url(&self) -> io::Result<String> {
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        let port = self.listener.local_addr()?.port();
        Ok(format!("{scheme}://127.0.0.1:{port}"))
    }

    /// Answers requests until the process ends, on a thread of its own;
    /// each client on its own thread.
    pub fn spawn(self) {
        std::thread::spawn(move || {
            // A failed accept concerns the one client it was for.
            for stream in self.listener.incoming().flatten() {
                let (site, tls) = (Arc::clone(&self.site), self.tls.clone());
                // A client that goes away mid-answer concerns only itself.
                std::thread::spawn(move || serve_client(stream, tls, &site).ok());
            }
        });
    }
}

fn serve_client(stream: TcpStream, tls: Option<Arc<ServerConfig>>, site: &Site) -> io::Result<()> {
    // Browsers open connections ahead of requests and may leave them idle.
    stream.set_read_timeout(Some(IDLE_TIMEOUT))?;
    let Some(config) = tls else {
        return answer(stream, site);
    };
    let connection = ServerConnection::new(config).map_err(io::Error::other)?;
    let mut stream = StreamOwned::new(connection, stream);
    answer(&mut stream, site)?;
    stream.conn.send_close_notify();
    stream.flush()
}

/// What the servers read of an HTTP request: its method, its path
/// (without the query) and the `Origin` header.
pub struct Request {
    pub method: String,
    pub path: String,
    pub origin: Option<String>,
}

impl Request {
    /// Reads a request's head (a request of the servers here has no body).
    pub fn read(mut stream: impl Read) -> io::Result<Request> {
        let mut head = Vec::new();
        let mut chunk = [0; 2048];
        loop {
            let n = stream.read(&mut chunk)?;
            if n == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            head.extend_from_slice(&chunk[..n]);
            let mut headers = [httparse::EMPTY_HEADER; 64];
            let mut request = httparse::Request::new(&mut headers);
            match request.parse(&head) {
                Ok(httparse::Status::Complete(_)) => {
                    let target = request.path.unwrap_or("");
                    let path = target.split(['?', '#']).next().unwrap_or(target);
                    let origin = request
                        .headers
                        .iter()
                        .find(|h| h.name.eq_ignore_ascii_case("Origin"))
                        .and_then(|h| std::str::from_utf8(h.value).ok());
                    return Ok(Request {
                        method: request.method.unwrap_or("").to_string(),
                        path: path.to_string(),
                        origin: origin.map(String::from),
                    });
                }
                Ok(httparse::Status::Partial) if head.len() < MAX_HEAD_BYTES => {}
                Ok(httparse::Status::Partial) => {
                    return Err(io::Error::other("request head too long"))
                }
                Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e)),
            }
        }
    }
}

fn answer(mut stream: impl Read + Write, site: &Site) -> io::Result<()> {
    let request = Request::read(&mut stream)?;
    let (method, path) = (request.method.as_str(), request.path.as_str());
    let mut out = io::BufWriter::new(stream);
    let mut headers =
        String::from("Cache-Control: no-cache\r\nConnection: close\r\nVary: Origin\r\n");
    if let Some(origin) = request.origin.filter(|o| site.origins.allows(o)) {
        // `*` allows any other request header, but never `Authorization`,
        // which the extension server protocol names.
        headers.push_str(&format!(
            "Access-Control-Allow-Origin: {origin}\r\n\
             Access-Control-Allow-Methods: GET, HEAD, OPTIONS\r\n\
             Access-Control-Allow-Headers: Authorization, Content-Type, *\r\n\
             Access-Control-Allow-Private-Network: true\r\n"
        ));
    }
    let head_only = method == "HEAD";
    let file = site.file.as_ref().filter(|(_, p)| p == path);
    let endpoint = path
        .strip_prefix('/')
        .and_then(|p| site.endpoints.iter().find(|e| e.path == p));
    match (method, file, endpoint) {
        ("OPTIONS", ..) => write!(out, "HTTP/1.1 204 No Content\r\n{headers}\r\n")?,
        ("GET" | "HEAD", Some((file, _)), _) => {
            let mut f = File::open(file)?;
            let len = f.metadata()?.len();
            write!(
                out,
                "HTTP/1.1 200 OK\r\n{headers}Content-Type: application/octet-stream\r\nContent-Length: {len}\r\n\r\n"
            )?;
            if !head_only {
                io::copy(&mut f, &mut out)?;
            }
        }
        ("GET" | "HEAD", None, endpoint) => {
            let (status, kind, body) = match endpoint {
                Some(e) => ("200 OK", "application/json", e.body.as_str()),
                None => ("404 Not Found", "text/plain", "not found\n"),
            };
            write!(
                out,
                "HTTP/1.1 {status}\r\n{headers}Content-Type: {kind}\r\nContent-Length: {}\r\n\r\n",
                body.len()
            )?;
            if !head_only {
                out.write_all(body.as_bytes())?;
            }
        }
        _ => write!(
            out,
            "HTTP/1.1 405 Method Not Allowed\r\n{headers}Content-Length: 0\r\n\r\n"
        )?,
    }
    out.flush()
}

/// Escapes everything but unreserved URL characters.
pub fn percent_encode(s: &str) -> String {
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

    #[test]
    fn origins_are_written_as_browsers_send_them() {
        let origins = Origins::new(
            "https://UI.perfetto.dev/",
            &[
                "http://127.0.0.1:10000/x".into(),
                "https://a.example:443".into(),
            ],
        )
        .unwrap();
        assert_eq!(
            origins.iter().collect::<Vec<_>>(),
            [
                "https://ui.perfetto.dev",
                "http://127.0.0.1:10000",
                "https://a.example"
            ]
        );
        assert!(origins.allows("http://127.0.0.1:10000"));
        assert!(!origins.allows("http://127.0.0.1:10001"));
        for bad in ["ui.perfetto.dev", "ftp://x", "https://", ""] {
            let error = Origins::new(bad, &[]).unwrap_err();
            assert!(
                error.contains("is not an http:// or https:// URL"),
                "{error}"
            );
        }
    }
}
