//! The `tband-query` command: what it does with its arguments, which the
//! binary (`main.rs`) parses.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use tband_model::EventSink;
use tband_trace::input::InputSpec;
use tband_trace::{OpenOptions, Source, Trace};

use crate::diff::{self, Budget};
use crate::engine::{self, Database, Engine, LoadError, Value};
use crate::error::Error;
use crate::export::Tag;
use crate::output::{self, Format, Named};
use crate::reports::{self, Query};
use crate::run::{self, Param};
use crate::schema::Table;
use crate::tables::TABLES;

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
    /// `--fleet`: a folder of exported traces to run the query on.
    pub fleet: Option<PathBuf>,
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

    let results = match &cli.fleet {
        Some(dir) => {
            if let Some(trace) = traces.first() {
                return Err(Error::Input(format!(
                    "--fleet runs on the traces of its folder; {trace} is one too many arguments"
                )));
            }
            run_fleet(dir, cli.engine, &queries, &cli.params)?
        }
        None => {
            // A database file is kept for later queries, so it gets every table.
            let tables = match cli.db {
                Some(_) => TABLES.to_vec(),
                None => engine::tables_for(&queries),
            };
            let mut db =
                open_database(&traces, cli.db.as_deref(), cli.engine, &cli.input, &tables)?;
            run::run(db.as_mut(), &queries, &cli.params)?
        }
    };

    let named: Vec<Named<'_>> = queries
        .iter()
        .zip(&results)
        .map(|(q, r)| Named {
            name: &q.name,
            result: r,
        })
        .collect();
    write_results(cli.format, cli.output.as_deref(), &named)?;

    if cli.fail_if_rows && results.iter().any(|r| !r.rows.is_empty()) {
        return Ok(ExitCode::from(EXIT_ROWS));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(any(feature = "parquet", feature = "duckdb-engine"))]
fn run_fleet(
    dir: &Path,
    engine: Option<Engine>,
    queries: &[Query],
    params: &[Param],
) -> Result<Vec<engine::QueryResult>, Error> {
    crate::fleet::run(dir, engine, queries, params)
}

#[cfg(not(any(feature = "parquet", feature = "duckdb-engine")))]
fn run_fleet(
    _: &Path,
    _: Option<Engine>,
    _: &[Query],
    _: &[Param],
) -> Result<Vec<engine::QueryResult>, Error> {
    Err(Error::Input(
        "this build of tband-query reads no Parquet; rebuild it with `--features duckdb` (or `parquet`) for --fleet"
            .into(),
    ))
}

/// Writes the results to `output` (stdout if `None`) in `format`: by
/// default a table on a terminal, else CSV. A reader that stops reading
/// (`| head`) is not an error.
pub(crate) fn write_results(
    format: Option<Format>,
    output: Option<&Path>,
    named: &[Named<'_>],
) -> Result<(), Error> {
    let format = format.unwrap_or(if std::io::stdout().is_terminal() && output.is_none() {
        Format::Table
    } else {
        Format::Csv
    });
    let written = match output {
        Some(path) => std::fs::File::create(path)
            .and_then(|mut f| output::write(&mut f, format, named).and_then(|()| f.flush())),
        None => output::write(&mut std::io::stdout().lock(), format, named),
    };
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            let to = output.map_or("stdout".to_string(), |p| p.display().to_string());
            Err(Error::Input(format!("cannot write to {to}: {e}")))
        }
        _ => Ok(()),
    }
}

/// The database to query: loaded from the traces, or reused from `--db`.
pub(crate) fn open_database(
    traces: &[String],
    db: Option<&Path>,
    engine: Option<Engine>,
    options: &OpenOptions,
    tables: &[&dyn Table],
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
        && TABLES.iter().all(|t| {
            db.query(&format!("SELECT * FROM {} LIMIT 0", t.stored_name()), &[])
                .is_ok()
        }))
}

/// What `tband-query diff` is asked for.
#[derive(Debug, Default)]
pub struct DiffOptions {
    /// The old and the new side: each a trace (its core streams joined by
    /// commas) or a database file kept with `--db`.
    pub old: String,
    pub new: String,
    /// The reports to compare (names, files or directories); none: every
    /// canned report outside `ci/`.
    pub reports: Vec<String>,
    pub budgets: Vec<Budget>,
    /// Print only the rows whose status is not `same`.
    pub changed_only: bool,
    pub engine: Option<Engine>,
    pub format: Option<Format>,
    pub params: Vec<Param>,
    pub output: Option<PathBuf>,
    pub input: OpenOptions,
}

/// Runs `tband-query diff`: the reports on both sides, compared row by
/// row; exit code [`EXIT_ROWS`] when a budget is broken.
pub fn diff(cli: DiffOptions) -> Result<ExitCode, Error> {
    if cli.engine == Some(Engine::Perfetto) {
        return Err(Error::Input(
            "diff runs the SQL reports on sqlite or duckdb, not on the perfetto engine".into(),
        ));
    }
    let queries = if cli.reports.is_empty() {
        reports::CANNED
            .iter()
            .filter(|(name, _)| !name.starts_with("ci/"))
            .map(|(name, text)| Query {
                name: format!("{name}.sql"),
                text: text.to_string(),
            })
            .collect()
    } else {
        let mut all = Vec::new();
        for report in &cli.reports {
            all.extend(reports::resolve(report)?);
        }
        all
    };
    let report_name = |q: &Query| q.name.strip_suffix(".sql").unwrap_or(&q.name).to_string();
    let budgeted: Vec<usize> = cli
        .budgets
        .iter()
        .map(|b| {
            queries
                .iter()
                .position(|q| report_name(q) == b.report)
                .ok_or_else(|| {
                    let names: Vec<String> = queries.iter().map(report_name).collect();
                    Error::Input(format!(
                        "the budget `{b}` names the report `{}`, which is not among those compared ({})",
                        b.report,
                        names.join(", ")
                    ))
                })
        })
        .collect::<Result<_, _>>()?;

    let tables = engine::tables_for(&queries);
    let mut results = Vec::new();
    for side in [&cli.old, &cli.new] {
        let mut db = open_side(side, cli.engine, &cli.input, &tables)?;
        results.push(run::run(db.as_mut(), &queries, &cli.params)?);
    }
    let (old, new) = (&results[0], &results[1]);

    let keys: Vec<Vec<usize>> = queries
        .iter()
        .zip(old.iter().zip(new))
        .map(|(q, (o, n))| diff::key_columns(&q.text, o, n))
        .collect();
    for (budget, &q) in cli.budgets.iter().zip(&budgeted) {
        let columns = &old[q].columns;
        let values: Vec<&str> = (0..columns.len())
            .filter(|i| !keys[q].contains(i))
            .map(|i| columns[i].as_str())
            .collect();
        if !values.contains(&budget.column.as_str()) {
            let what = if columns.contains(&budget.column) {
                "a key column of"
            } else {
                "not a column of"
            };
            return Err(Error::Input(format!(
                "the budget `{budget}` names `{}`, {what} {}; its value columns are {}",
                budget.column,
                report_name(&queries[q]),
                values.join(", ")
            )));
        }
    }

    let diffs: Vec<_> = old
        .iter()
        .zip(new)
        .zip(&keys)
        .map(|((o, n), key)| diff::compare(o, n, key))
        .collect();
    let shown: Vec<_> = if cli.changed_only {
        diffs.iter().map(diff::changed).collect()
    } else {
        diffs.clone()
    };
    let named: Vec<Named<'_>> = queries
        .iter()
        .zip(&shown)
        .map(|(q, d)| Named {
            name: &q.name,
            result: d,
        })
        .collect();
    write_results(cli.format, cli.output.as_deref(), &named)?;

    let mut broken = false;
    for (budget, &q) in cli.budgets.iter().zip(&budgeted) {
        let rows = budget.broken_by(&diffs[q]);
        if rows.is_empty() {
            continue;
        }
        broken = true;
        eprintln!(
            "tband-query: budget `{budget}` broken by {} row(s):",
            rows.len()
        );
        let key_count = keys[q].len();
        for row in rows {
            eprintln!("  {}", broken_row(&diffs[q].columns, key_count, row));
        }
    }
    Ok(if broken {
        ExitCode::from(EXIT_ROWS)
    } else {
        ExitCode::SUCCESS
    })
}

/// One side of a diff as a database: a kept database file as it is, or
/// the trace loaded.
fn open_side(
    side: &str,
    engine: Option<Engine>,
    options: &OpenOptions,
    tables: &[&dyn Table],
) -> Result<Box<dyn Database>, Error> {
    let path = Path::new(side);
    let is_database = path.is_file()
        && Engine::of_file(path)
            .map_err(|e| Error::Input(format!("cannot read {side}: {e}")))?
            .is_some();
    if is_database {
        return open_database(&[], Some(path), engine, options, tables);
    }
    let streams: Vec<String> = side.split(',').map(str::to_string).collect();
    open_database(&streams, None, engine, options, tables)
}

/// A row that broke a budget, for stderr:
/// `core_id=0 task_name=idle: load_pct 12.5 -> 20.1 (+7.6, +60.8%)`.
fn broken_row(columns: &[String], key_count: usize, row: &[Value]) -> String {
    let text = output::text;
    let signed = |v: &Value| match v {
        Value::Int(i) if *i >= 0 => format!("+{i}"),
        Value::Real(r) if *r >= 0.0 => format!("+{r}"),
        other => text(other),
    };
    let key: Vec<String> = columns[..key_count]
        .iter()
        .zip(row)
        .map(|(c, v)| format!("{c}={}", text(v)))
        .collect();
    let [column, old, new, change, pct, _] = &row[key_count..] else {
        unreachable!("a diff row ends with the diff columns");
    };
    let pct = match pct {
        Value::Null => String::new(),
        pct => format!(", {}%", signed(pct)),
    };
    format!(
        "{}: {} {} -> {} ({}{pct})",
        key.join(" "),
        text(column),
        text(old),
        text(new),
        signed(change),
    )
}

/// What `tband-query export` is asked for.
#[derive(Debug, Default)]
pub struct ExportOptions {
    /// The folder written into.
    pub dir: PathBuf,
    /// The traces, one an argument (a multi-core trace's streams joined by
    /// commas).
    pub traces: Vec<String>,
    pub tags: Vec<Tag>,
    pub input: OpenOptions,
}

/// Runs `tband-query export`: each trace in turn decoded and written as
/// Parquet; a line per trace on stdout.
#[cfg(feature = "parquet")]
pub fn export(cli: ExportOptions) -> Result<ExitCode, Error> {
    use crate::export;
    let mut ids: Vec<String> = Vec::new();
    for trace in &cli.traces {
        let id = export::trace_id(trace.split(',').next().unwrap_or(trace));
        if ids.contains(&id) {
            return Err(Error::Input(format!(
                "two traces would be trace={id}: their first files have the same name"
            )));
        }
        ids.push(id);
    }
    let mut out = std::io::stdout().lock();
    for (trace, id) in cli.traces.iter().zip(&ids) {
        let streams: Vec<String> = trace.split(',').map(str::to_string).collect();
        let model = Trace::open(&streams, &cli.input)?.model;
        let written = export::export(&cli.dir, id, model, &cli.tags).map_err(Error::Input)?;
        let _ = writeln!(
            out,
            "trace={id}\t{} rows\t{} bytes",
            written.rows, written.bytes
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `tband-query export` in a build without the writer.
#[cfg(not(feature = "parquet"))]
pub fn export(_: ExportOptions) -> Result<ExitCode, Error> {
    Err(Error::Input(
        "this build of tband-query has no Parquet export; rebuild it with `--features parquet`"
            .into(),
    ))
}
