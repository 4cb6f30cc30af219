//! The `tband-perfetto` command: what it does with its arguments, which
//! the binary (`main.rs`) parses.

use std::io;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use crate::chrome_json::write_chrome_json;
use tband_model::Model;
use tband_trace::{OpenOptions, Trace};

use crate::extension;
use crate::serve::{TraceServer, DEFAULT_PORT};
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
    pub serve: bool,
    pub open: bool,
    pub port: u16,
    /// `--from`, `--to` and `--split`.
    pub window: WindowOptions,
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
    windows::check_split(&cli.window, &output, cli.serve || cli.open)?;
    let trace = Trace::open(&cli.inputs, &cli.input).map_err(|e| e.to_string())?;
    let to_stdout = output.as_os_str() == "-";
    if to_stdout && (cli.serve || cli.open) {
        return Err("--serve and --open need an output file, not stdout".into());
    }
    let window = windows::window(&trace.model, cli.window.from, cli.window.to)?;
    let model = window.as_ref().unwrap_or(&trace.model);
    if let Some(size) = cli.window.split {
        let start = cli.window.from.unwrap_or(0);
        return windows::write_pieces(model, start, size, cli, &output, |piece, path| {
            write(piece, cli, path)
        });
    }
    write(model, cli, &output)?;
    if cli.serve || cli.open {
        serve(&output, cli.port, cli.open)?;
    }
    Ok(())
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
        let stats = crate::export(model, cli.export, &mut file).map_err(cannot_write)?;
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

fn serve(file: &Path, port: u16, open: bool) -> Result<(), String> {
    let server = TraceServer::bind(file, port)
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let url = server.ui_url().map_err(|e| e.to_string())?;
    println!("{url}");
    if port != DEFAULT_PORT {
        eprintln!("note: ui.perfetto.dev only loads traces from port {DEFAULT_PORT}; use the file URL with other tools");
    }
    eprintln!(
        "serving {} and the Perfetto UI extension server {} (Ctrl-C to stop)",
        file.display(),
        server.base_url().map_err(|e| e.to_string())?
    );
    if open {
        // The launcher may only return once the browser has the page, which
        // needs the server running: wait for it beside the server.
        std::thread::spawn(move || {
            if let Err(message) = launch_browser(&url) {
                eprintln!("tband-perfetto: {message}");
                std::process::exit(1);
            }
        });
    }
    server.run().map_err(|e| format!("serving failed: {e}"))
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
