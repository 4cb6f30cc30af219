//! The `tband-query` command: what it does with its arguments, which the
//! binary (`main.rs`) parses.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use tband_model::EventSink;
use tband_trace::input::InputSpec;
use tband_trace::{OpenOptions, Source, Trace};

use crate::engine::{self, Database, Engine, LoadError, Value};
use crate::error::Error;
use crate::output::{self, Format, Named};
use crate::reports::{self, Query};
use crate::run::{self, Param};
use crate::schema::{self, Table};

/// Exit code when `--fail-if-rows` is given and a query returned rows.
pub const EXIT_ROWS: u8 = 3;

/// What the command line asks for (its options, by the same names).
#[derive(Debug, Default)]
pub struct Options {
    /// The trace files, then the QUERY unless `execute` gives it.
    pub args: Vec<String>,
    /// `-e`: SQL to run instead of a QUERY file.
    pub execute: Option<String>,
    pub engine: Option<Engine>,
    pub db: Option<PathBuf>,
    pub format: Option<Format>,
    pub params: Vec<Param>,
    pub fail_if_rows: bool,
    pub list: bool,
    pub output: Option<PathBuf>,
    /// How to read the traces.
    pub input: OpenOptions,
}

/// Runs the command; the exit code says how it went.
pub fn run(cli: Options) -> Result<ExitCode, Error> {
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

    // A database file is kept for later queries, so it gets every table.
    let tables = match cli.db {
        Some(_) => schema::TABLES.to_vec(),
        None => engine::tables_for(&queries),
    };
    let mut db = open_database(&traces, cli.db.as_deref(), cli.engine, &cli.input, &tables)?;
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
    if engine == Some(Engine::Perfetto) {
        if db.is_some() {
            return Err(Error::Input(
                "--db keeps a SQLite or DuckDB database; --engine perfetto queries the trace itself"
                    .into(),
            ));
        }
        if traces.is_empty() {
            return Err(Error::Input(
                "no trace given: name the trace files before the query".into(),
            ));
        }
        let model = Trace::open(traces, options)?.model;
        return engine::Perfetto::open(&model)
            .map(|db| Box::new(db) as Box<dyn Database>)
            .map_err(Error::Database);
    }
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

    let source = Source::open(traces, options)?;
    let engine = engine.unwrap_or_else(Engine::default_engine);
    let mut database = engine.open(db).map_err(|e| {
        Error::Database(match db {
            Some(path) => format!("cannot create {}: {e}", path.display()),
            None => format!("cannot start {engine}: {e}"),
        })
    })?;
    let build = |events: Option<EventSink<'_>>| {
        match events {
            Some(events) => Trace::build_with_events(source, options, events),
            None => Trace::build(source, options),
        }
        .map(|trace| trace.model)
    };
    match engine::load_while_building(database.as_mut(), tables, build) {
        Ok(()) => Ok(database),
        Err(LoadError::Model(e)) => {
            // A trace that does not decode leaves no database file behind.
            drop(database);
            if let Some(path) = db {
                let _ = std::fs::remove_file(path);
            }
            Err(e.into())
        }
        Err(LoadError::Database(e)) => Err(Error::Database(format!(
            "loading the trace into {engine} failed: {e}"
        ))),
    }
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

/// Whether the database file was made from these traces after they last
/// changed, with the tables stored as this version stores them.
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
    let same_sources = matches!(stored, Ok(r) if r.rows == [vec![Value::Text(sources.join(", "))]]);
    Ok(same_sources
        && schema::TABLES.iter().all(|t| {
            db.query(&format!("SELECT * FROM {} LIMIT 0", t.stored_name()), &[])
                .is_ok()
        }))
}
