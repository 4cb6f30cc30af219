//! `tband-query`: runs SQL on traces.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use tband_cli::{open_options, FormatArgs, ToolCommand};
use tband_query::cli::{self, Options};
use tband_query::run::Param;
use tband_query::{engine, output};

/// Run SQL on traces: load them into SQLite or DuckDB and run .sql reports.
#[derive(Parser, Debug)]
#[command(
    name = "tband-query",
    version,
    override_usage = "tband-query [OPTIONS] <TRACE>... <QUERY>\n       tband-query [OPTIONS] <TRACE>... -e <SQL>\n       tband-query [OPTIONS] --db <FILE> <QUERY>\n       tband-query --list\n       tband-query completion <SHELL>",
    args_conflicts_with_subcommands = true,
    after_help = "QUERY is a .sql file, a directory of them (all run, in name order), or the name \
of a canned report (see --list). Named parameters (:name or $name) are bound from --param or \
from the defaults in the query's header.\n\nExit codes: 0 success, 1 error, 2 bad usage, \
3 a query returned rows under --fail-if-rows."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<ToolCommand>,

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
    match &cli.command {
        Some(command) => command.run::<Cli>(),
        None => tband_cli::exit("tband-query", cli::run(cli.into())),
    }
}

impl From<Cli> for Options {
    fn from(cli: Cli) -> Options {
        Options {
            input: open_options(&cli.input),
            args: cli.args,
            execute: cli.execute,
            engine: cli.engine.map(|e| match e {
                Engine::Sqlite => engine::Engine::Sqlite,
                Engine::Duckdb => engine::Engine::Duckdb,
                Engine::Perfetto => engine::Engine::Perfetto,
            }),
            db: cli.db,
            format: cli.format.map(|f| match f {
                Format::Table => output::Format::Table,
                Format::Csv => output::Format::Csv,
                Format::Json => output::Format::Json,
                Format::Markdown => output::Format::Markdown,
            }),
            params: cli.params,
            fail_if_rows: cli.fail_if_rows,
            list: cli.list,
            output: cli.output,
        }
    }
}
