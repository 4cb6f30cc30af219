//! The `tband-perfetto` command: what it does with its arguments, which
//! the binary (`main.rs`) parses.

use std::io::{self, Write};
use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use signal_hook::consts::{SIGINT, SIGTERM};
use tband_cli::progress::{open_trace, showing_share};
use tband_model::Model;
use tband_trace::OpenOptions;

use crate::accelerator::Accelerator;
use crate::chrome_json::write_chrome_json;
use crate::extension;
use crate::link::ui_link;
use crate::serve::{Origins, Server, Site, DEFAULT_PORT};
use crate::tls::{self, Tls};
use crate::trace_processor;
use crate::windows::{self, WindowOptions};
use crate::writer::Output;
use crate::ExportOptions;

/// What the command line asks for (its options, by the same names).
#[derive(Clone, Debug)]
pub struct Options {
    /// The trace files.
    pub inputs: Vec<String>,
    /// How to read them.
    pub input: OpenOptions,
    pub output: Option<PathBuf>,
    pub gzip: bool,
    pub format: OutputFormat,
    /// `--sched-format` and `--threads`.
    pub export: ExportOptions,
    /// `--serve` or `--open`, and how.
    pub serve: Option<ServeOptions>,
    /// `--from`, `--to` and `--split`.
    pub window: WindowOptions,
}

/// How to serve the trace (the options by the same names).
#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub open: bool,
    pub port: u16,
    pub extension_port: u16,
    /// The Perfetto UI the printed address opens.
    pub ui: String,
    pub allow_origins: Vec<String>,
    pub trace_processor: Option<PathBuf>,
    /// `--tls-cert` and `--tls-key`.
    pub tls: Option<(PathBuf, PathBuf)>,
}

/// What to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// Perfetto protobuf (`.pftrace`), with native scheduling and IRQ data.
    Perfetto,
    /// Chrome trace-event JSON (`.json`).
    ChromeJson,
}

/// Runs the command: converts the trace, writes it and serves it when asked.
pub fn run(cli: &Options) -> Result<(), String> {
    let output = output_path(cli)?;
    windows::check_split(&cli.window, &output, cli.serve.is_some())?;
    if output.as_os_str() == "-" && cli.serve.is_some() {
        return Err("--serve and --open need an output file, not stdout".into());
    }
    let trace = open_trace(&cli.inputs, &cli.input).map_err(|e| e.to_string())?;
    let window = windows::window(&trace.model, cli.window.from, cli.window.to)?;
    let model = window.as_ref().unwrap_or(&trace.model);
    if let Some(size) = cli.window.split {
        let start = cli.window.from.unwrap_or(0);
        return windows::write_pieces(
            model,
            start,
            size,
            &output,
            |piece| export_bytes(piece, cli),
            |piece, path| write(piece, cli, path),
        );
    }
    let serving = cli.serve.as_ref().map(Serving::prepare).transpose()?;
    write(model, cli, &output)?;
    match serving {
        Some(serving) => serving.serve(&output),
        None => Ok(()),
    }
}

/// Writes `model` to `output` in the format asked for, and says what it wrote.
fn write(model: &Model, cli: &Options, output: &Path) -> Result<(), String> {
    let to_stdout = output.as_os_str() == "-";
    let cannot_write = |e: io::Error| format!("cannot write {}: {e}", output.display());
    let mut file = if to_stdout {
        Output::stdout(cli.gzip)
    } else {
        Output::create(output).map_err(cannot_write)?
    };
    if cli.format == OutputFormat::ChromeJson {
        let mut out = io::BufWriter::new(file);
        write_chrome_json(&mut out, model).map_err(cannot_write)?;
        out.into_inner()
            .map_err(|e| cannot_write(e.into_error()))?
            .finish()
            .map_err(cannot_write)?;
        eprintln!("wrote {} (Chrome trace-event JSON)", output.display());
    } else {
        let stats = showing_share("Writing", crate::rows_to_read(model), |tell| {
            crate::export_with_progress(model, cli.export, &mut file, tell)
        })
        .map_err(cannot_write)?;
        file.finish().map_err(cannot_write)?;
        eprintln!(
            "wrote {}: {} packets, {} bytes; {} context switches, {} wake-ups, {} IRQs, {} slices, {} instants, {} counter values",
            output.display(),
            stats.packets,
            stats.bytes,
            stats.sched.switches,
            stats.sched.wakings,
            stats.sched.irqs,
            stats.events.slices,
            stats.events.instants,
            stats.events.counter_values,
        );
    }
    Ok(())
}

/// Bytes of the whole export (before compression) in the format asked for.
fn export_bytes(model: &Model, cli: &Options) -> io::Result<u64> {
    let mut counter = ByteCounter(0);
    match cli.format {
        OutputFormat::Perfetto => Ok(crate::export(model, cli.export, &mut counter)?.bytes),
        OutputFormat::ChromeJson => {
            write_chrome_json(&mut counter, model)?;
            Ok(counter.0)
        }
    }
}

/// A writer that keeps only the number of bytes written.
struct ByteCounter(u64);

impl Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn output_path(cli: &Options) -> Result<PathBuf, String> {
    let mut path = match &cli.output {
        Some(p) => p.clone(),
        None => {
            let first = cli.inputs.first().map_or("-", |s| s.as_str());
            let file = first.split('@').next().unwrap_or(first);
            if file == "-" {
                return Err("reading the trace from stdin needs an output name (-o FILE)".into());
            }
            let extension = match cli.format {
                OutputFormat::Perfetto => "pftrace",
                OutputFormat::ChromeJson => "json",
            };
            PathBuf::from(format!("{file}.{extension}"))
        }
    };
    if cli.gzip && path.as_os_str() != "-" && path.extension().is_none_or(|e| e != "gz") {
        path.as_mut_os_string().push(".gz");
    }
    Ok(path)
}

/// What `--serve` sets up before the conversion, so that a port in use or
/// a certificate that cannot be read is said before any long work.
struct Serving<'o> {
    options: &'o ServeOptions,
    origins: Origins,
    /// The trace's port, held until the file is served on it or
    /// trace_processor is started on it.
    trace_listener: TcpListener,
    extension_listener: TcpListener,
    tls: Tls,
    trace_processor: Option<PathBuf>,
}

impl<'o> Serving<'o> {
    fn prepare(options: &'o ServeOptions) -> Result<Serving<'o>, String> {
        let origins = Origins::new(&options.ui, &options.allow_origins)?;
        let trace_listener = listen(options.port, "--port")?;
        let extension_listener = listen(options.extension_port, "--extension-port")?;
        let tls = match &options.tls {
            Some((cert, key)) => tls::given(cert, key)?,
            None => tls::kept()?,
        };
        Ok(Serving {
            options,
            origins,
            trace_listener,
            extension_listener,
            tls,
            trace_processor: trace_processor::locate(options.trace_processor.as_deref()),
        })
    }

    /// Serves `file` and the extension until Ctrl-C or SIGTERM; prints the
    /// UI's address and the extension server's on stdout, one a line, when
    /// they are ready.
    fn serve(self, file: &Path) -> Result<(), String> {
        let stop = Arc::new(AtomicBool::new(false));
        for signal in [SIGINT, SIGTERM] {
            signal_hook::flag::register(signal, Arc::clone(&stop))
                .map_err(|e| format!("cannot catch signal {signal}: {e}"))?;
        }
        let port = self
            .trace_listener
            .local_addr()
            .map_err(|e| e.to_string())?
            .port();
        let extension = Server::new(
            self.extension_listener,
            Some(self.tls.config),
            Site::endpoints(extension::endpoints(), self.origins.clone()),
        );
        let extension_url = extension.base_url().map_err(|e| e.to_string())?;
        extension.spawn();
        let name = file
            .file_name()
            .unwrap_or(file.as_os_str())
            .to_string_lossy();
        let (link, mut accelerator) = match &self.trace_processor {
            Some(shell) => {
                // Free the port for trace_processor to listen on.
                drop(self.trace_listener);
                let accelerator =
                    Accelerator::start(shell, file, port, self.origins.iter(), &stop)?;
                eprintln!(
                    "trace_processor holds {name} on 127.0.0.1:{port}: open the first address \
                     below and answer \"YES, use loaded trace\" when the UI offers its native acceleration"
                );
                (ui_link(&self.options.ui, None), Some(accelerator))
            }
            None => {
                let site = Site::file(file, self.origins.clone());
                let path = site.file_path().unwrap_or_default().to_string();
                let server = Server::new(self.trace_listener, None, site);
                let file_url = server.base_url().map_err(|e| e.to_string())? + &path;
                server.spawn();
                eprintln!(
                    "serving {name} at {file_url}: open the first address below; with trace_processor \
                     ({}, on PATH or --trace-processor; get it with `{}`) the UI opens traces of any size",
                    trace_processor::ENV,
                    trace_processor::DOWNLOAD
                );
                (ui_link(&self.options.ui, Some(&file_url)), None)
            }
        };
        if port != DEFAULT_PORT {
            eprintln!("note: the Perfetto UI reaches port {DEFAULT_PORT} only; use port {port} with other tools");
        }
        eprintln!(
            "tband's extension server is the second address: add it once in the UI under Settings > \
             Extension Servers > Add Server > HTTPS and reload; its macros are in the command palette (Ctrl+Shift+P)"
        );
        if self.tls.made {
            eprintln!(
                "made a certificate for 127.0.0.1 in {}: trust it once by opening {extension_url}/manifest \
                 in your browser and accepting it, or add that file to your system's or browser's certificates",
                self.tls.cert.display()
            );
        }
        eprintln!("Ctrl-C stops serving");
        let mut stdout = io::stdout().lock();
        writeln!(stdout, "{link}\n{extension_url}")
            .and_then(|()| stdout.flush())
            .map_err(|e| format!("cannot write to stdout: {e}"))?;
        if self.options.open {
            launch_browser(&link)?;
        }
        while !stop.load(Ordering::Relaxed) {
            if let Some(why) = accelerator.as_mut().and_then(Accelerator::stopped) {
                return Err(why);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(())
    }
}

/// Takes `port` on 127.0.0.1; a port in use is one sentence naming the
/// `option` that changes it.
fn listen(port: u16, option: &str) -> Result<TcpListener, String> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, port)).map_err(|e| match e.kind() {
        io::ErrorKind::AddrInUse => format!(
            "port {port} of 127.0.0.1 is in use: stop what listens there or choose another port with {option}"
        ),
        _ => format!("cannot listen on 127.0.0.1:{port}: {e}"),
    })
}

/// `tband-perfetto extension DIR`: writes the Perfetto UI extension's
/// endpoints as files under `dir`.
pub fn write_extension(dir: &Path) -> Result<(), String> {
    let written = extension::write_dir(dir)
        .map_err(|e| format!("cannot write the extension to {}: {e}", dir.display()))?;
    let paths: Vec<&str> = written.iter().map(|e| e.path.as_str()).collect();
    eprintln!(
        "wrote {} in {}: the Perfetto UI extension of namespace {}",
        paths.join(", "),
        dir.display(),
        extension::NAMESPACE
    );
    Ok(())
}

fn launch_browser(url: &str) -> Result<(), String> {
    let launcher = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    Process::new(launcher)
        .arg(url)
        .spawn()
        .map(drop)
        .map_err(|e| {
            format!("cannot start a browser with {launcher} ({e}); open the address above by hand")
        })
}
