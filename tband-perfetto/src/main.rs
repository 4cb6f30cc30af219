//! `tband-perfetto`: converts traces to Perfetto traces and serves them to
//! the Perfetto UI.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, ExitCode};

use clap::{Parser, ValueEnum};
use tband_cli::{open_options, InputArgs, ToolCommand};
use tband_decode::chrome_json::write_chrome_json;
use tband_decode::Trace;
use tband_perfetto::sched::SchedEncoding;
use tband_perfetto::serve::{TraceServer, DEFAULT_PORT};
use tband_perfetto::writer::Output;
use tband_perfetto::ExportOptions;

/// Convert tband traces to Perfetto traces (open them in ui.perfetto.dev or
/// query them with trace_processor).
///
/// Tasks become threads of one process named after the input file, with
/// native CPU scheduling tracks, thread states and IRQ tracks; markers,
/// values, queue fill levels, mutex holders, task priorities and trace
/// damage go on named tracks under the tasks or in groups.
#[derive(Parser)]
#[command(
    name = "tband-perfetto",
    version,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<ToolCommand>,

    #[command(flatten)]
    input: InputArgs,

    /// Write to FILE (default: the first input's name + `.pftrace`, or
    /// `.pftrace.gz` with --gzip; `-` for stdout). A name ending in `.gz` is
    /// gzip-compressed.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,

    /// Gzip-compress the output (implied by an output name ending in `.gz`;
    /// with `-o -`, compresses stdout).
    #[arg(long)]
    gzip: bool,

    /// What to write: Perfetto protobuf, or the Chrome trace-event JSON that
    /// chrome://tracing, Tracy's import-chrome and speedscope read.
    #[arg(long, value_enum, default_value_t = OutputFormat::Perfetto)]
    format: OutputFormat,

    /// How context switches and wake-ups are written (Perfetto format).
    #[arg(long, value_enum, default_value_t = SchedFormat::Compact)]
    sched_format: SchedFormat,

    /// Threads to encode on: 2 encodes the track events beside the kernel
    /// events (the default where there are two cores). Either way the
    /// output is the same every run; the two ways order the packets
    /// differently.
    #[arg(long, value_name = "N", default_value_t = default_threads(), value_parser = clap::value_parser!(u8).range(1..=2))]
    threads: u8,

    /// After converting, serve the file to the Perfetto UI on 127.0.0.1 and
    /// print the ui.perfetto.dev address that opens it (until Ctrl-C).
    #[arg(long)]
    serve: bool,

    /// Like --serve, and open that address in the default browser.
    #[arg(long)]
    open: bool,

    /// Port to serve on (the Perfetto UI only fetches from port 9001).
    #[arg(long, default_value_t = DEFAULT_PORT, value_name = "PORT")]
    port: u16,
}

/// Two encoding threads where there are two cores.
fn default_threads() -> u8 {
    if std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2) {
        2
    } else {
        1
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OutputFormat {
    /// Perfetto protobuf (`.pftrace`), with native scheduling and IRQ data.
    Perfetto,
    /// Chrome trace-event JSON (`.json`).
    ChromeJson,
}

#[derive(Clone, Copy, ValueEnum)]
enum SchedFormat {
    /// Parallel delta-encoded arrays, as Perfetto records them (smallest).
    Compact,
    /// One sched_switch / sched_waking message per event (readable by any ftrace tool).
    Events,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match &cli.command {
        Some(command) => command.run::<Cli>(),
        None => tband_cli::exit("tband-perfetto", run(&cli).map(|()| ExitCode::SUCCESS)),
    }
}

fn run(cli: &Cli) -> Result<(), String> {
    let output = output_path(cli)?;
    let trace = Trace::open(&cli.input.inputs, &open_options!(&cli.input.format))
        .map_err(|e| e.to_string())?;
    let options = ExportOptions {
        sched: match cli.sched_format {
            SchedFormat::Compact => SchedEncoding::Compact,
            SchedFormat::Events => SchedEncoding::Events,
        },
        two_threads: cli.threads == 2,
    };
    let to_stdout = output.as_os_str() == "-";
    if to_stdout && (cli.serve || cli.open) {
        return Err("--serve and --open need an output file, not stdout".into());
    }
    let cannot_write = |e: io::Error| format!("cannot write {}: {e}", output.display());
    let mut file = if to_stdout {
        Output::stdout(cli.gzip)
    } else {
        Output::create(&output).map_err(cannot_write)?
    };
    if cli.format == OutputFormat::ChromeJson {
        let mut out = io::BufWriter::new(file);
        write_chrome_json(&mut out, &trace.model).map_err(cannot_write)?;
        out.into_inner()
            .map_err(|e| cannot_write(e.into_error()))?
            .finish()
            .map_err(cannot_write)?;
        eprintln!("wrote {} (Chrome trace-event JSON)", output.display());
    } else {
        let stats =
            tband_perfetto::export(&trace.model, options, &mut file).map_err(cannot_write)?;
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
    if cli.serve || cli.open {
        serve(&output, cli.port, cli.open)?;
    }
    Ok(())
}

fn output_path(cli: &Cli) -> Result<PathBuf, String> {
    let mut path = match &cli.output {
        Some(p) => p.clone(),
        None => {
            let first = cli.input.inputs.first().map_or("-", |s| s.as_str());
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
    eprintln!("serving {} (Ctrl-C to stop)", file.display());
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
