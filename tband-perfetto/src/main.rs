//! `tband-perfetto`: converts traces to Perfetto traces and serves them to
//! the Perfetto UI.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use tband_cli::{open_options, parse_size, InputArgs, ToolCommand};
use tband_model::summary::parse_ns;
use tband_perfetto::cli::{self, Options, ServeOptions};
use tband_perfetto::sched::SchedEncoding;
use tband_perfetto::serve::{DEFAULT_EXTENSION_PORT, DEFAULT_PORT, DEFAULT_UI};
use tband_perfetto::windows::WindowOptions;
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
    command: Option<Command>,

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

    /// After converting, serve the trace to the Perfetto UI on 127.0.0.1
    /// until Ctrl-C: through trace_processor's HTTP accelerator when there
    /// is a trace_processor_shell (--trace-processor, TBAND_TRACE_PROCESSOR
    /// or PATH), which opens traces of any size, else as a file. Beside
    /// it, tband's extension server over HTTPS (see the `extension`
    /// command). Prints the UI address to open, then the extension
    /// server's.
    #[arg(long)]
    serve: bool,

    /// Like --serve, and open that address in the default browser.
    #[arg(long)]
    open: bool,

    /// Port of the trace (the Perfetto UI reaches trace_processor and trace
    /// files on port 9001 only).
    #[arg(long, default_value_t = DEFAULT_PORT, value_name = "PORT")]
    port: u16,

    /// Port of the extension server (HTTPS).
    #[arg(long, default_value_t = DEFAULT_EXTENSION_PORT, value_name = "PORT")]
    extension_port: u16,

    /// The Perfetto UI the printed address opens; its origin may read what
    /// is served.
    #[arg(long, default_value = DEFAULT_UI, value_name = "URL")]
    ui: String,

    /// Another web origin (e.g. https://perfetto.example.com) that may
    /// read what is served; repeatable.
    #[arg(long, value_name = "ORIGIN")]
    allow_origin: Vec<String>,

    /// The trace_processor_shell to serve the trace with.
    #[arg(long, value_name = "PATH")]
    trace_processor: Option<PathBuf>,

    /// Certificate (PEM) of the extension server, instead of the one made
    /// for 127.0.0.1 and kept in the user's data directory.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,

    /// Private key (PEM) of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,

    /// Write only the trace from TIME on (a time as `tband-decode --summary`
    /// prints it, e.g. `12.50 ms`, or in ns).
    ///
    /// The window is self-contained: it starts with what was in effect at
    /// TIME (the task running on each core, every task's state, every
    /// counter's value, the slices open then).
    #[arg(long, value_name = "TIME", value_parser = parse_ns)]
    from: Option<u64>,

    /// Write only the trace before TIME (as --from).
    ///
    /// Slices still open at TIME end there, as at the end of a trace.
    #[arg(long, value_name = "TIME", value_parser = parse_ns)]
    to: Option<u64>,

    /// Write consecutive self-contained pieces of about SIZE bytes each
    /// (e.g. `100M`): FILE.001.pftrace, FILE.002.pftrace, ...
    ///
    /// SIZE takes K, M and G (powers of 1024) and counts bytes before
    /// --gzip compresses them; a window of --from/--to is split too. The
    /// whole export is measured first, and what every piece repeats (its
    /// tracks and the state at its start); each piece then ends at the time
    /// by which it holds its share of the trace's events, so sizes vary a
    /// little.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    split: Option<u64>,
}

#[derive(Subcommand)]
enum Command {
    /// Write tband's Perfetto UI extension as static files under DIR.
    ///
    /// The extension holds tband's PerfettoSQL reports as SQL modules
    /// (`INCLUDE PERFETTO MODULE dev.tband.cpu_load;`) and command-palette
    /// macros that show them. DIR is an extension server for any web host
    /// or a GitHub repository; `--serve` serves the same files beside the
    /// trace.
    Extension {
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    #[command(flatten)]
    Tool(ToolCommand),
}

/// Two encoding threads where there are two cores.
fn default_threads() -> u8 {
    if std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2) {
        2
    } else {
        1
    }
}

/// The values of `--format`: [`cli::OutputFormat`], variant for variant.
#[derive(Clone, Copy, ValueEnum)]
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
        Some(Command::Tool(command)) => command.run::<Cli>(),
        Some(Command::Extension { dir }) => tband_cli::exit(
            "tband-perfetto",
            cli::write_extension(dir).map(|()| ExitCode::SUCCESS),
        ),
        None => tband_cli::exit(
            "tband-perfetto",
            cli::run(&cli.into()).map(|()| ExitCode::SUCCESS),
        ),
    }
}

impl From<Cli> for Options {
    fn from(cli: Cli) -> Options {
        Options {
            input: open_options(&cli.input.format),
            inputs: cli.input.inputs,
            output: cli.output,
            gzip: cli.gzip,
            format: match cli.format {
                OutputFormat::Perfetto => cli::OutputFormat::Perfetto,
                OutputFormat::ChromeJson => cli::OutputFormat::ChromeJson,
            },
            export: ExportOptions {
                sched: match cli.sched_format {
                    SchedFormat::Compact => SchedEncoding::Compact,
                    SchedFormat::Events => SchedEncoding::Events,
                },
                two_threads: cli.threads == 2,
            },
            serve: (cli.serve || cli.open).then(|| ServeOptions {
                open: cli.open,
                port: cli.port,
                extension_port: cli.extension_port,
                ui: cli.ui,
                allow_origins: cli.allow_origin,
                trace_processor: cli.trace_processor,
                tls: cli.tls_cert.zip(cli.tls_key),
            }),
            window: WindowOptions {
                from: cli.from,
                to: cli.to,
                split: cli.split,
            },
        }
    }
}
