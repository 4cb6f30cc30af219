//! The `tband-query` command line.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use clap::Parser;
use tband_decode::cli::{FormatArgs, ToolCommand};
use tband_decode::input::InputSpec;
use tband_decode::trace::OpenOptions;
use tband_decode::Trace;

use crate::engine::{self, Database, Engine, Value};
use crate::error::Error;
use crate::output::{self, Format, Named};
use crate::reports::{self, Query};
use crate::run::{self, Param};
use crate::schema::{self, Table};

/// Exit code when `--fail-if-rows` is given and a query returned rows.
pub const EXIT_ROWS: u8 = 3;

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
pub struct Cli {
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

/// Runs the command line; the exit code says how it went.
pub fn main(cli: Cli) -> Result<ExitCode, Error> {
    if let Some(command) = &cli.command {
        return Ok(command.run::<Cli>());
    }
    if cli.list {
        let width = reports::CANNED
            .iter()
            .map(|(n, _)| n.len())
            .max()
            .unwrap_or(0);
        for (name, text) in reports::CANNED {
            println!("{name:width$}  {}", reports::description(text));
        }
        return Ok(ExitCode::SUCCESS);
    }

    let mut traces = cli.args;
    let queries = match cli.execute {
        Some(sql) => vec![Query {
            name: "-e".to_string(),
            text: sql,
        }],
        None => {
            let Some(query) = traces.pop() else {
                return Err(Error::Input(
                    "no query given: name a .sql file, a directory or a canned report, or use -e SQL".into(),
                ));
            };
            reports::resolve(&query)?
        }
    };

    let options = cli.input.options();
    // A database file is kept for later queries, so it gets every table.
    let tables = match cli.db {
        Some(_) => schema::TABLES.to_vec(),
        None => schema::tables_for(queries.iter().map(|q| q.text.as_str())),
    };
    let mut db = open_database(&traces, cli.db.as_deref(), cli.engine, &options, &tables)?;
    let results = run::run(db.as_mut(), &queries, &cli.params)?;

    let format = cli
        .format
        .unwrap_or(if std::io::stdout().is_terminal() && cli.output.is_none() {
            Format::Table
        } else {
            Format::Csv
        });
    let named: Vec<Named<'_>> = queries
        .iter()
        .zip(&results)
        .map(|(q, r)| Named {
            name: &q.name,
            result: r,
        })
        .collect();
    let written = match &cli.output {
        Some(path) => std::fs::File::create(path)
            .and_then(|mut f| output::write(&mut f, format, &named).and_then(|()| f.flush())),
        None => output::write(&mut std::io::stdout().lock(), format, &named),
    };
    if let Err(e) = written {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            let to = cli
                .output
                .as_ref()
                .map_or("stdout".to_string(), |p| p.display().to_string());
            return Err(Error::Input(format!("cannot write to {to}: {e}")));
        }
    }

    if cli.fail_if_rows && results.iter().any(|r| !r.rows.is_empty()) {
        return Ok(ExitCode::from(EXIT_ROWS));
    }
    Ok(ExitCode::SUCCESS)
}

/// The database to query: loaded from the traces, or reused from `--db`.
fn open_database(
    traces: &[String],
    db: Option<&Path>,
    engine: Option<Engine>,
    options: &OpenOptions,
    tables: &[&Table],
) -> Result<Box<dyn Database>, Error> {
    let existing = match db {
        Some(path) if path.exists() => Some((path, database_engine(path)?)),
        _ => None,
    };
    // A database rebuilt without --engine keeps the engine it had.
    let engine = engine.or(existing.map(|(_, e)| e));
    if let Some((path, file_engine)) = existing {
        if engine != Some(file_engine) {
            if let (Some(e), true) = (engine, traces.is_empty()) {
                return Err(Error::Input(format!(
                    "{} is a {file_engine} database, not {e}",
                    path.display()
                )));
            }
        } else if traces.is_empty() || is_fresh(path, file_engine, traces)? {
            return file_engine
                .open(Some(path))
                .map_err(|e| Error::Database(format!("cannot open {}: {e}", path.display())));
        }
        std::fs::remove_file(path)
            .map_err(|e| Error::Input(format!("cannot replace {}: {e}", path.display())))?;
    } else if traces.is_empty() {
        return Err(Error::Input(match db {
            Some(path) => format!(
                "{} does not exist; give the traces to load into it",
                path.display()
            ),
            None => "no trace given: name the trace files before the query".to_string(),
        }));
    }

    let trace = Trace::open(traces, options)?;
    let engine = engine.unwrap_or_else(Engine::default_engine);
    let mut database = engine.open(db).map_err(|e| {
        Error::Database(match db {
            Some(path) => format!("cannot create {}: {e}", path.display()),
            None => format!("cannot start {engine}: {e}"),
        })
    })?;
    engine::load_consuming(database.as_mut(), trace, tables)
        .map_err(|e| Error::Database(format!("loading the trace into {engine} failed: {e}")))?;
    Ok(database)
}

/// The engine of an existing `--db` file; anything else is left alone.
fn database_engine(path: &Path) -> Result<Engine, Error> {
    Engine::of_file(path)
        .map_err(|e| Error::Input(format!("cannot read {}: {e}", path.display())))?
        .ok_or_else(|| {
            Error::Input(format!(
                "{} exists and is not a SQLite or DuckDB database; not overwriting it",
                path.display()
            ))
        })
}

/// Whether the database file was made from these traces after they last changed.
fn is_fresh(path: &Path, engine: Engine, traces: &[String]) -> Result<bool, Error> {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let Some(db_time) = modified(path) else {
        return Ok(false);
    };
    let specs: Vec<InputSpec> = traces.iter().map(|t| InputSpec::parse(t)).collect();
    let newer = specs.iter().all(|s| {
        s.path
            .as_deref()
            .and_then(modified)
            .is_some_and(|t: SystemTime| t < db_time)
    });
    if !newer {
        return Ok(false);
    }
    let sources: Vec<String> = specs.iter().map(InputSpec::display_name).collect();
    let mut db = engine
        .open(Some(path))
        .map_err(|e| Error::Database(format!("cannot open {}: {e}", path.display())))?;
    let stored = db.query("SELECT sources FROM trace_info", &[]);
    Ok(matches!(stored, Ok(r) if r.rows == [vec![Value::Text(sources.join(", "))]]))
}
