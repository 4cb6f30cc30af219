//! `tband-web`: serves the built web page (`tband-web/build.sh`) on the
//! loopback interface, for trying it without a web server.

use std::fs;
use std::io::{self, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use tband_perfetto::serve::Request;

/// Serve the tband web converter (built by tband-web/build.sh) on 127.0.0.1.
#[derive(Parser)]
#[command(name = "tband-web", version)]
struct Cli {
    /// The folder the page was built into.
    #[arg(default_value = "tband-web/dist")]
    folder: PathBuf,
    /// The port to listen on (0: any free port).
    #[arg(long, default_value_t = 8000)]
    port: u16,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tband_cli::exit("tband-web", serve(&cli))
}

fn serve(cli: &Cli) -> Result<ExitCode, String> {
    if !cli.folder.join("index.html").is_file() {
        return Err(format!(
            "{} holds no built page (index.html); build it with tband-web/build.sh",
            cli.folder.display()
        ));
    }
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, cli.port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{}: {e}", cli.port))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    println!("http://127.0.0.1:{port}/");
    let folder = Arc::new(cli.folder.clone());
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let folder = Arc::clone(&folder);
        // A client that goes away mid-answer concerns only itself.
        std::thread::spawn(move || answer(stream, &folder).ok());
    }
    Ok(ExitCode::SUCCESS)
}

fn answer(stream: TcpStream, folder: &Path) -> io::Result<()> {
    let Request { method, path, .. } = Request::read(&stream)?;
    let (method, path) = (method.as_str(), path.as_str());
    let mut out = io::BufWriter::new(stream);
    let file = (method == "GET" || method == "HEAD")
        .then(|| file_path(folder, path))
        .flatten()
        .and_then(|p| fs::read(&p).ok().map(|bytes| (p, bytes)));
    match file {
        Some((path, bytes)) => {
            write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
                content_type(&path),
                bytes.len()
            )?;
            if method == "GET" {
                out.write_all(&bytes)?;
            }
        }
        None => write!(
            out,
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )?,
    }
    out.flush()
}

/// The file a URL path names inside `folder`; `None` for a path that
/// would leave it.
fn file_path(folder: &Path, url_path: &str) -> Option<PathBuf> {
    let relative = Path::new(url_path.trim_start_matches('/'));
    if !relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)))
    {
        return None;
    }
    let path = folder.join(relative);
    Some(if path.is_dir() {
        path.join("index.html")
    } else {
        path
    })
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_folder() {
        let folder = Path::new("/srv/page");
        assert_eq!(file_path(folder, "/app.js"), Some(folder.join("app.js")));
        assert_eq!(
            file_path(folder, "/pkg/x.wasm"),
            Some(folder.join("pkg/x.wasm"))
        );
        assert_eq!(file_path(folder, "/../secret"), None);
        assert_eq!(file_path(folder, "/pkg/../../secret"), None);
    }
}
