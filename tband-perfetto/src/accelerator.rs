//! trace_processor's HTTP accelerator: `trace_processor_shell --httpd` on
//! a trace, which the Perfetto UI opens natively whatever its size. The
//! shell loads the trace before it listens, which for a large trace takes
//! a while: a progress bar shows it on a terminal.

use std::io::Read;
use std::net::{Ipv4Addr, TcpStream};
use std::path::Path;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use tband_cli::progress::Progress;

/// How often to look whether the shell listens yet.
const POLL: Duration = Duration::from_millis(100);

/// A running `trace_processor_shell --httpd`, killed when dropped.
pub struct Accelerator {
    child: Child,
    port: u16,
    /// The last line the shell wrote on stderr.
    last_line: Arc<Mutex<String>>,
    /// How many bytes of the trace the shell says it has loaded.
    loaded: Arc<AtomicU64>,
    /// The thread reading stderr, which ends when the shell does.
    reader: Option<JoinHandle<()>>,
}

impl Accelerator {
    /// Starts `shell` serving `trace` on 127.0.0.1:`port` to the UI
    /// `origins` (besides those the shell allows by itself), and waits
    /// until it listens, or `stop` is set.
    pub fn start<'o>(
        shell: &Path,
        trace: &Path,
        port: u16,
        origins: impl Iterator<Item = &'o str>,
        stop: &AtomicBool,
    ) -> Result<Accelerator, String> {
        let origins: Vec<&str> = origins.collect();
        let mut command = Command::new(shell);
        command
            .args(["--httpd", "--http-ip-address", "127.0.0.1", "--http-port"])
            .arg(port.to_string())
            .arg("--http-additional-cors-origins")
            .arg(origins.join(","))
            .arg(trace)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        die_with_parent(&mut command);
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", shell.display()))?;
        let last_line = Arc::new(Mutex::new(String::new()));
        let stderr = child.stderr.take().expect("a piped stderr");
        let loaded = Arc::new(AtomicU64::new(0));
        let (loaded_of_reader, last_line_of_reader) = (Arc::clone(&loaded), Arc::clone(&last_line));
        let reader = std::thread::spawn(move || {
            read_stderr(stderr, &loaded_of_reader, &last_line_of_reader)
        });
        let mut accelerator = Accelerator {
            child,
            port,
            last_line,
            loaded,
            reader: Some(reader),
        };
        let size = std::fs::metadata(trace).map_or(0, |m| m.len());
        let bar = Progress::bytes("Loading", size);
        accelerator
            .wait_until_listening(stop, &bar)
            .map(|()| accelerator)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Why the shell stopped, if it did.
    pub fn stopped(&mut self) -> Option<String> {
        let status = self.child.try_wait().ok()??;
        // Its last words may still be in the pipe.
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        let line = self.last_line.lock().map(|l| l.clone()).unwrap_or_default();
        Some(if line.is_empty() {
            format!("trace_processor stopped ({status})")
        } else {
            format!("trace_processor stopped ({status}): {line}")
        })
    }

    fn wait_until_listening(&mut self, stop: &AtomicBool, bar: &Progress) -> Result<(), String> {
        loop {
            bar.set(self.loaded.load(Ordering::Relaxed));
            if let Some(why) = self.stopped() {
                return Err(why);
            }
            if stop.load(Ordering::Relaxed) {
                return Err("stopped before trace_processor had loaded the trace".into());
            }
            if TcpStream::connect((Ipv4Addr::LOCALHOST, self.port)).is_ok() {
                return Ok(());
            }
            std::thread::sleep(POLL);
        }
    }
}

impl Drop for Accelerator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// On Linux, the shell is killed when this process dies, however it dies.
fn die_with_parent(command: &mut Command) {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(command, || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// Follows the shell's stderr: its progress lines (`Loading trace: 12.34
/// MB`, in millions of bytes, each ended by a carriage return) are counted
/// in `loaded`; the last other line is kept to say why the shell stopped.
fn read_stderr(mut stderr: ChildStderr, loaded: &AtomicU64, last_line: &Mutex<String>) {
    let mut pending = Vec::new();
    let mut chunk = [0; 4096];
    while let Ok(n) = stderr.read(&mut chunk) {
        if n == 0 {
            break;
        }
        pending.extend_from_slice(&chunk[..n]);
        while let Some(end) = pending.iter().position(|&b| b == b'\n' || b == b'\r') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line).trim().to_string();
            if let Some(megabytes) = line
                .strip_prefix("Loading trace: ")
                .and_then(|l| l.strip_suffix(" MB"))
                .and_then(|mb| mb.parse::<f64>().ok())
            {
                loaded.store((megabytes * 1e6) as u64, Ordering::Relaxed);
            } else if !line.is_empty() {
                if let Ok(mut last) = last_line.lock() {
                    *last = without_log_prefix(&line).to_string();
                }
            }
        }
    }
}

/// A line of the shell's log without the time and source position it
/// starts with (`[12.345]   http_server.cc:67 `).
fn without_log_prefix(line: &str) -> &str {
    let Some((_, rest)) = line.strip_prefix('[').and_then(|l| l.split_once("] ")) else {
        return line;
    };
    let rest = rest.trim_start();
    match rest.split_once(' ') {
        Some((source, message)) if source.contains(".cc:") => message,
        _ => rest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_lose_their_time_and_source() {
        assert_eq!(
            without_log_prefix("[419.900]       http_server.cc:67 [HTTP] Starting HTTP server"),
            "[HTTP] Starting HTTP server"
        );
        assert_eq!(
            without_log_prefix("failed to read trace file (path: t): Unknown trace type"),
            "failed to read trace file (path: t): Unknown trace type"
        );
    }
}
