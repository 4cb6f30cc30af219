//! `tband-query`: runs SQL on traces.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use tband_cli::{open_options, FormatArgs, ToolCommand};
use tband_query::cli::{self, DiffOptions, Options};
use tband_query::diff::Budget;
use tband_query::export::Tag;
use tband_query::run::Param;
use tband_query::{engine, output};

/// Run SQL on traces: load them into SQLite or DuckDB and run .sql reports.
#[derive(Parser, Debug)]
#[command(
    name = "tband-query",
    version,
    override_usage = "tband-query [OPTIONS] <TRACE>... <QUERY>\n       tband-query [OPTIONS] <TRACE>... -e <SQL>\n       tband-query [OPTIONS] --db <FILE> <QUERY>\n       tband-query [OPTIONS] --fleet <DIR> <QUERY>\n       tband-query diff [OPTIONS] <OLD> <NEW> [REPORT]...\n       tband-query export [OPTIONS] <DIR> <TRACE>...\n       tband-query --list\n       tband-query completion <SHELL>",
    args_conflicts_with_subcommands = true,
    after_help = "QUERY is a .sql file, a directory of them (all run, in name order), or the name \
of a canned report (see --list). Named parameters (:name or $name) are bound from --param or \
from the defaults in the query's header.\n\nExit codes: 0 success, 1 error, 2 bad usage, \
3 a query returned rows under --fail-if-rows."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// Trace files (binary or hex text, `-` for stdin, `PATH@CORE` for one
    /// core's stream), then the QUERY unless -e gives it.
    #[arg(value_name = "TRACE... QUERY")]
    args: Vec<String>,

    /// Run this SQL instead of a QUERY file.
    #[arg(short = 'e', long = "execute", value_name = "SQL")]
    execute: Option<String>,

    /// The SQL engine [default: sqlite when built in, else duckdb; an
    /// existing --db file keeps its own].
    #[arg(long, value_enum)]
    engine: Option<Engine>,

    /// Keep the database in FILE. If FILE is newer than the traces (and was
    /// made from them) it is queried without decoding again; with no TRACE,
    /// FILE is queried as it is.
    #[arg(long, value_name = "FILE")]
    db: Option<PathBuf>,

    /// Output format [default: table on a terminal, csv otherwise].
    #[arg(long, value_enum)]
    format: Option<Format>,

    /// Run the QUERY on every trace of DIR, a folder written by
    /// `tband-query export`; a canned report's rows get the trace's id and
    /// tags in front. Runs on DuckDB when built in, reading the whole
    /// folder at once, else on SQLite, trace by trace.
    #[arg(long, value_name = "DIR", conflicts_with = "db")]
    fleet: Option<PathBuf>,

    /// Bind a query parameter (`:NAME` or `$NAME` in the SQL). Repeatable.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<Param>,

    /// Exit with code 3 if any query returns a row (budget checks are
    /// queries that return the violations).
    #[arg(long)]
    fail_if_rows: bool,

    /// List the canned reports with what each answers.
    #[arg(long)]
    list: bool,

    /// Write the results to FILE instead of stdout.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,

    #[command(flatten)]
    input: FormatArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    Diff(DiffCli),
    Export(ExportCli),
    #[command(flatten)]
    Tool(ToolCommand),
}

/// Compare two traces: run the reports on both and print, per report and
/// key (task, ISR, queue, core), each value column's old and new value and
/// its change, absolute and relative.
#[derive(Args, Debug)]
#[command(
    after_help = "OLD and NEW are each a trace (a multi-core trace: its streams joined by \
commas, e.g. `a.c0.bin@0,a.c1.bin@1`) or a database kept with --db. Rows are matched by their \
key columns (a report's `Key:` header line, else its *_id, *_name and text columns); a key on one \
side only has the status new or vanished.\n\nA budget is REPORT.COLUMN OP CHANGE with OP one of \
> >= < <= and CHANGE a number (the change new - old) or a percent of the old value, e.g. \
'cpu_load.load_pct > +2' or 'isr_latency.max_ns > +10%'. Keys on one side only break no budget.\n\n\
Exit codes: 0 success, 1 error, 2 bad usage, 3 a budget was broken (the rows are on stderr)."
)]
struct DiffCli {
    /// The old side: a trace, its streams joined by commas, or a --db file.
    #[arg(value_name = "OLD")]
    old: String,

    /// The new side, likewise.
    #[arg(value_name = "NEW")]
    new: String,

    /// Reports to compare (names, .sql files or directories) [default:
    /// every canned report outside ci/].
    #[arg(value_name = "REPORT")]
    reports: Vec<String>,

    /// Exit with code 3 when a change breaks this budget, e.g.
    /// 'cpu_load.load_pct > +2'. Repeatable.
    #[arg(long = "fail-if", value_name = "BUDGET")]
    fail_if: Vec<Budget>,

    /// Print only the rows that changed (status changed, new or vanished).
    #[arg(long)]
    changed: bool,

    /// The SQL engine [default: sqlite when built in, else duckdb].
    #[arg(long, value_enum)]
    engine: Option<Engine>,

    /// Output format [default: table on a terminal, csv otherwise].
    #[arg(long, value_enum)]
    format: Option<Format>,

    /// Bind a query parameter on both sides. Repeatable.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<Param>,

    /// Write the comparison to FILE instead of stdout.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,

    #[command(flatten)]
    input: FormatArgs,
}

/// Write traces as Parquet: every table of the SQL schema but `events`, one
/// file per table and trace, in Hive-style folders
/// (DIR/table=NAME/trace=ID/data.parquet), for DuckDB, Spark, Trino.
#[derive(Args, Debug)]
#[command(
    after_help = "A trace's ID is its first file's name without extension, @CORE and a \
.c<N> core suffix. Exporting a trace again replaces its files. The traces are written one after \
the other, each freed before the next is read."
)]
struct ExportCli {
    /// The folder to write into (created if missing).
    #[arg(value_name = "DIR")]
    dir: PathBuf,

    /// The traces: each argument one trace (a multi-core trace's streams
    /// joined by commas, e.g. `a.c0.bin@0,a.c1.bin@1`).
    #[arg(value_name = "TRACE", required = true)]
    traces: Vec<String>,

    /// A column NAME of every exported trace's trace_info row, holding
    /// VALUE (e.g. firmware=1.4.2). Repeatable.
    #[arg(long = "tag", value_name = "NAME=VALUE")]
    tags: Vec<Tag>,

    #[command(flatten)]
    input: FormatArgs,
}

/// The values of `--engine`: [`engine::Engine`], variant for variant.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Engine {
    Sqlite,
    Duckdb,
    /// Perfetto's trace_processor_shell (on PATH or in
    /// TBAND_TRACE_PROCESSOR), on the trace's Perfetto export; the queries
    /// are PerfettoSQL, e.g. those of queries/perfetto/.
    Perfetto,
}

/// The values of `--format`: [`output::Format`], variant for variant. The
/// doc comments are the help of each value.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Format {
    /// Aligned columns for reading.
    Table,
    /// RFC 4180 CSV with a header line.
    Csv,
    /// One array of row objects keyed by column name (an object of such
    /// arrays, keyed by query, when several queries ran).
    Json,
    /// GitHub-flavoured Markdown tables, e.g. for a CI job summary.
    Markdown,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Tool(command)) => command.run::<Cli>(),
        Some(Command::Diff(diff)) => tband_cli::exit("tband-query", cli::diff(diff.into())),
        Some(Command::Export(export)) => tband_cli::exit(
            "tband-query",
            cli::export(cli::ExportOptions {
                dir: export.dir,
                traces: export.traces,
                tags: export.tags,
                input: open_options(&export.input),
            }),
        ),
        None => tband_cli::exit("tband-query", cli::run(cli.into())),
    }
}

impl From<Cli> for Options {
    fn from(cli: Cli) -> Options {
        Options {
            input: open_options(&cli.input),
            args: cli.args,
            execute: cli.execute,
            engine: cli.engine.map(Engine::into),
            db: cli.db,
            fleet: cli.fleet,
            format: cli.format.map(Format::into),
            params: cli.params,
            fail_if_rows: cli.fail_if_rows,
            list: cli.list,
            output: cli.output,
        }
    }
}

impl From<DiffCli> for DiffOptions {
    fn from(cli: DiffCli) -> DiffOptions {
        DiffOptions {
            old: cli.old,
            new: cli.new,
            reports: cli.reports,
            budgets: cli.fail_if,
            changed_only: cli.changed,
            engine: cli.engine.map(Engine::into),
            format: cli.format.map(Format::into),
            params: cli.params,
            output: cli.output,
            input: open_options(&cli.input),
        }
    }
}

impl From<Engine> for engine::Engine {
    fn from(e: Engine) -> engine::Engine {
        match e {
            Engine::Sqlite => engine::Engine::Sqlite,
            Engine::Duckdb => engine::Engine::Duckdb,
            Engine::Perfetto => engine::Engine::Perfetto,
        }
    }
}

impl From<Format> for output::Format {
    fn from(f: Format) -> output::Format {
        match f {
            Format::Table => output::Format::Table,
            Format::Csv => output::Format::Csv,
            Format::Json => output::Format::Json,
            Format::Markdown => output::Format::Markdown,
        }
    }
}
