//! tband-perfetto in the real Perfetto UI: the real `tband-perfetto --serve`
//! on a recording, and the Perfetto UI (the folder `TBAND_PERFETTO_UI`)
//! driven in headless Chromium as a user drives it, by
//! `tests/ui/drive_ui.mjs`: it opens the link the server prints, accepts the
//! trace processor it started, adds the extension server it prints in the
//! UI's settings, reloads and runs every macro from the command palette.
//!
//! Checked against the trace model and the reports:
//! - the timeline: a scheduling track per core (`CPU Scheduling > CPU N
//!   Scheduling`), the IRQ track of each core that ran ISRs (`CPU > IRQs >
//!   Irq Cpu N`), in the firmware's process a thread per task but the idle
//!   ones (`<task> <tid>`) with its task-local marker tracks beside it
//!   (`<marker> (<tid>)`), the global markers in `Markers`, the queues in
//!   `Queues`, the mutexes in `Mutex holders`, event groups, stream buffers
//!   and timers in their groups, and `Trace health`; no track crashed and
//!   the page threw nothing;
//! - the link: its startup commands ran without complaint, and the view
//!   `tband_<report>` they define for every report, queried in the UI's
//!   query box, shows the rows of the report file run in trace_processor on
//!   the same export;
//! - the extension, added as a user adds it (Settings, Extension Servers,
//!   Add Server, HTTPS, the printed URL; its module listed and checked; Add;
//!   reload; the accelerator accepted again): every macro shows the rows of
//!   its report file in trace_processor, and pins exactly the tracks of this
//!   timeline that its patterns name (the pins are cleared before each).
//!
//! A macro's rows are also compared with those of the SQLite report of the
//! same name where the two have the same columns, the reports of
//! [`SAME_AS_SQLITE`], less the SQLite rows the PerfettoSQL form says it
//! cannot give. The others' columns differ, as their headers say
//! (`tband-query/tests/perfetto_reports.rs` compares them with SQLite
//! through what the export can say):
//! - `cpu_load`, `isr_to_task_latency`, `task_states`, `task_response`,
//!   `wait_reasons`: a task is a thread in the export, named by its thread
//!   id (`tid`), not its `task_id`;
//! - `isr_latency`: Perfetto keeps no IRQ number (`isr_id`);
//! - `markers`: Perfetto has a row per marker track and message, and no
//!   marker ids or value markers;
//! - `object_lifetimes`, `pool_low_water`: no `pool_key`; `object_leaks`:
//!   no object `name`;
//! - `heap_usage`: no heap `total_size`; `stack_margin`: no `stack_size`
//!   and `used_pct`.
//!
//! Cells are compared as the UI's own export of a result writes them
//! (Export, Download, Tab Separated Values): NULL as `null`, a real as
//! JavaScript prints it (compared as the number it reads back as).
//!
//! Needs `TBAND_TRACE_PROCESSOR` (trace_processor_shell v58),
//! `TBAND_PERFETTO_UI` (the folder of the Perfetto UI of the same release),
//! Chromium (`TBAND_CHROMIUM`, else /usr/bin/chromium) and node with
//! `npm ci` run in `tests/ui/`; skips without them unless
//! `TBAND_REQUIRE_PERFETTO_UI=1`. It binds 127.0.0.1:9001 (the one port the
//! UI looks for a trace processor on) and 127.0.0.1:10000 (the UI, an
//! origin trace_processor accepts): two runs at once collide.
//!
//! The driver's screenshots go to `TBAND_UI_SCREENSHOTS` (relative to the
//! workspace root), else to `perfetto-ui` in the target's test folder;
//! `TBAND_UI_SCREENSHOTS=docs/src/perfetto-ui` refreshes the book's.

#[path = "../../tests/trace_processor/shell.rs"]
mod shell;

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use regex::Regex;
use serde_json::{json, Value as Json};
use tband_model::{Model, TaskKind};
use tband_perfetto::extension::{self, Report, TrackMatch, REPORTS};
use tband_perfetto::threads::{Threads, PID};
use tband_perfetto::trace_processor::{Rows, Value};
use tband_perfetto::tracks::firmware_name;
use tband_perfetto::ExportOptions;
use tband_query::{engine, reports, run, Engine};
use tband_trace::{OpenOptions, Trace};

/// Two cores, tasks and idle tasks, ISRs, global and task-local markers,
/// queues, mutexes and a span never closed.
const RECORDING: [&str; 2] = ["samples/demo_2core.c0.bin@0", "samples/demo_2core.c1.bin@1"];

/// Where the driver serves the UI: an origin trace_processor accepts
/// without being told.
const UI_ORIGIN: &str = "http://127.0.0.1:10000";

/// The port the UI looks for a trace processor on.
const ACCELERATOR_PORT: u16 = 9001;

/// The report whose macro the book shows run.
const BOOK_MACRO: &str = "queue_levels";

/// The reports in the order their macros are run: the book's first, in a
/// page that has no other query tab.
fn macro_order() -> Vec<usize> {
    let mut order: Vec<usize> = (0..REPORTS.len()).collect();
    order.sort_by_key(|&i| REPORTS[i].name != BOOK_MACRO);
    order
}

/// The PerfettoSQL reports whose columns are those of the SQLite report of
/// the same name, each with the SQLite rows it cannot give (named by their
/// first field), as its header says.
const SAME_AS_SQLITE: [(&str, &[&str]); 3] = [
    ("heap_leaks", &[]),
    ("queue_levels", &[]),
    ("trace_health", &["events", "coverage"]),
];

/// How long `--serve` may take to convert the trace and start.
const SERVE_START: Duration = Duration::from_secs(120);

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn driver_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui")
}

fn chromium() -> PathBuf {
    std::env::var_os("TBAND_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

/// What the test needs besides trace_processor that is not here, if anything.
fn missing_tool() -> Option<String> {
    match std::env::var_os("TBAND_PERFETTO_UI") {
        None => {
            return Some(
                "TBAND_PERFETTO_UI is not set (point it at a folder of the Perfetto UI, v58)"
                    .into(),
            )
        }
        Some(ui) if !Path::new(&ui).join("index.html").is_file() => {
            return Some(format!(
                "TBAND_PERFETTO_UI={} holds no index.html",
                Path::new(&ui).display()
            ))
        }
        Some(_) => {}
    }
    if !chromium().is_file() {
        return Some(format!("no Chromium at {}", chromium().display()));
    }
    let node = Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .status();
    if !node.is_ok_and(|s| s.success()) {
        return Some("no node".into());
    }
    if !driver_dir().join("node_modules/playwright-core").is_dir() {
        return Some("no playwright-core (run `npm ci` in tband-perfetto/tests/ui)".into());
    }
    None
}

/// A port nobody listens on now.
fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// A running `tband-perfetto --serve` and the two lines it printed. Dropped,
/// it gets SIGTERM, which stops the trace_processor it started as well.
struct Serve {
    child: Child,
    link: String,
    extension: String,
}

impl Serve {
    fn start(inputs: &[String], work: &Path) -> Serve {
        let stderr = work.join("serve.stderr");
        let mut child = Command::new(env!("CARGO_BIN_EXE_tband-perfetto"))
            .args(inputs)
            .args(["--serve", "--ui", UI_ORIGIN])
            .args(["--port", &ACCELERATOR_PORT.to_string()])
            .args(["--extension-port", &free_port().to_string()])
            .env("XDG_DATA_HOME", work.join("data"))
            .stdout(Stdio::piped())
            .stderr(File::create(&stderr).unwrap())
            .spawn()
            .expect("tband-perfetto runs");
        // Read on a thread, so that a server that hangs fails the test.
        let (lines, printed) = mpsc::channel();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + SERVE_START;
        let next = || {
            printed
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .ok()
        };
        let (link, extension) = (next(), next());
        let mut serve = Serve {
            child,
            link: link.unwrap_or_default(),
            extension: extension.unwrap_or_default(),
        };
        if serve.extension.is_empty() {
            serve.stop();
            panic!(
                "tband-perfetto --serve printed no link and extension URL within {SERVE_START:?}: {}",
                std::fs::read_to_string(&stderr).unwrap_or_default()
            );
        }
        serve
    }

    fn stop(&mut self) {
        // SAFETY: kill(2) on the pid of a child not yet waited for.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.child.try_wait().ok().flatten().is_none() {
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("tband-perfetto --serve did not stop on SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            self.stop();
        }
    }
}

/// Where the driver leaves its screenshots.
fn screenshots_dir() -> PathBuf {
    match std::env::var_os("TBAND_UI_SCREENSHOTS") {
        Some(dir) => root().join(dir),
        None => Path::new(env!("CARGO_TARGET_TMPDIR")).join("perfetto-ui"),
    }
}

/// Runs the driver on `job`: what it saw.
fn drive(job: &Json, work: &Path) -> Json {
    let job_file = work.join("job.json");
    std::fs::write(&job_file, serde_json::to_vec(job).unwrap()).unwrap();
    let out = Command::new("node")
        .current_dir(driver_dir())
        .arg("drive_ui.mjs")
        .arg(&job_file)
        .stderr(Stdio::inherit())
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "the browser driver failed (the page as it was: {})",
        Path::new(job["screenshots"].as_str().unwrap())
            .join("failure.png")
            .display()
    );
    serde_json::from_slice(&out.stdout).expect("the driver's report is JSON")
}

/// The tracks the timeline must have for `model`, each as its path of
/// titles from the top.
fn expected_tracks(model: &Model) -> BTreeSet<Vec<String>> {
    let threads = Threads::new(model);
    let process = format!("{} {PID}", firmware_name(model));
    let mut tracks = BTreeSet::new();
    let mut add = |path: &[&str]| tracks.insert(path.iter().map(|s| s.to_string()).collect());
    for core in &model.cores {
        add(&[
            "CPU Scheduling",
            &format!("CPU {} Scheduling", core.core_id),
        ]);
    }
    let irq_cores: BTreeSet<u32> = model.isr_slices.iter().map(|s| s.core_id).collect();
    for core in irq_cores {
        add(&["CPU", "IRQs", &format!("Irq Cpu {core}")]);
    }
    for (i, task) in (0..).zip(&model.tasks) {
        if task.kind != TaskKind::Idle {
            let tid = threads.tid(i);
            add(&[&process, &format!("{} {tid}", task.name)]);
        }
    }
    for marker in &model.markers {
        let owner =
            (marker.task_id).and_then(|id| model.tasks.iter().position(|t| t.task_id == id));
        match owner {
            None => add(&["Markers", &marker.name]),
            Some(i) if model.tasks[i].kind == TaskKind::Idle => add(&[
                "Markers",
                &format!("{}: {}", model.tasks[i].name, marker.name),
            ]),
            Some(i) => add(&[
                &process,
                &format!("{} ({})", marker.name, threads.tid_at(Some(i))),
            ]),
        };
    }
    let has_level: BTreeSet<u32> = model
        .queue_ops
        .iter()
        .filter(|op| op.len_after.is_some())
        .map(|op| op.queue)
        .collect();
    let held: BTreeSet<u32> = model.mutex_holds.iter().map(|h| h.queue).collect();
    for (i, queue) in (0..).zip(&model.queues) {
        if has_level.contains(&i) {
            add(&["Queues", &queue.name]);
        }
        if held.contains(&i) {
            add(&["Mutex holders", &queue.name]);
        }
    }
    let objects = &model.rtos_objects;
    for group in &objects.event_groups {
        add(&["Event groups", &group.name]);
    }
    for buffer in &objects.stream_buffers {
        add(&["Stream buffers", &buffer.name]);
    }
    for timer in &objects.timers {
        add(&["Timers", &timer.name]);
    }
    tracks
}

/// The names of the tracks of `timeline` that `pins` (patterns matching a
/// track's name or its path) pin, sorted.
fn pinned_by<'p>(
    pins: impl IntoIterator<Item = (&'p str, TrackMatch)>,
    timeline: &[Vec<String>],
) -> Vec<String> {
    let mut names = Vec::new();
    for (pattern, by) in pins {
        let pattern = Regex::new(pattern).unwrap();
        for path in timeline {
            let target = match by {
                TrackMatch::Name => path.last().unwrap().clone(),
                TrackMatch::Path => path.join(" > "),
            };
            if pattern.is_match(&target) {
                names.push(path.last().unwrap().clone());
            }
        }
    }
    names.sort();
    names
}

/// What the link's startup commands do: the query tabs they open (query
/// and title) and the tracks they pin.
struct Startup {
    tabs: Vec<(String, String)>,
    pins: Vec<(String, TrackMatch)>,
}

fn startup_commands(link: &str) -> Startup {
    let query = link
        .split_once("#!/?")
        .unwrap_or_else(|| panic!("no route arguments in the link {link}"))
        .1;
    let commands = form_urlencoded::parse(query.as_bytes())
        .find(|(key, _)| key == "startupCommands")
        .unwrap_or_else(|| panic!("no startupCommands in the link {link}"))
        .1;
    let commands: Json = serde_json::from_str(&commands).expect("the startup commands are JSON");
    let mut startup = Startup {
        tabs: Vec::new(),
        pins: Vec::new(),
    };
    for command in commands.as_array().expect("a list of commands") {
        let args = strings(&command["args"]);
        match (command["id"].as_str().unwrap(), args.as_slice()) {
            ("dev.perfetto.RunQueryAndShowTab", [sql, title]) => {
                startup.tabs.push((sql.clone(), title.clone()))
            }
            ("dev.perfetto.PinTracksByRegex", [pattern, by]) => startup.pins.push((
                pattern.clone(),
                if by == "path" {
                    TrackMatch::Path
                } else {
                    TrackMatch::Name
                },
            )),
            _ => {}
        }
    }
    startup
}

/// The text the UI's export writes for a value; a real is checked by the
/// number it reads back as.
fn shown(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Int(i) => i.to_string(),
        Value::Real(r) => r.to_string(),
        Value::Text(t) => t.replace("\r\n", " ").replace(['\t', '\n', '\r'], " "),
    }
}

fn cell_is(cell: &str, value: &Value) -> bool {
    match value {
        Value::Real(r) => cell.parse::<f64>() == Ok(*r),
        _ => cell == shown(value),
    }
}

fn strings(json: &Json) -> Vec<String> {
    json.as_array()
        .unwrap_or_else(|| panic!("not an array: {json}"))
        .iter()
        .map(|s| {
            s.as_str()
                .unwrap_or_else(|| panic!("not a string: {s}"))
                .into()
        })
        .collect()
}

/// Checks that the table the UI showed (`{columns, rows, error}`) has the
/// rows of `expected`; returns their number.
fn assert_shows(what: &str, table: &Json, expected: &Rows) -> usize {
    assert!(
        table["error"].is_null(),
        "{what}: the UI shows an error: {}",
        table["error"]
    );
    assert_eq!(strings(&table["columns"]), expected.columns, "{what}");
    let rows: Vec<Vec<String>> = table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(strings)
        .collect();
    let same = rows.len() == expected.rows.len()
        && rows.iter().zip(&expected.rows).all(|(row, values)| {
            row.len() == values.len() && row.iter().zip(values).all(|(c, v)| cell_is(c, v))
        });
    let expected: Vec<Vec<String>> = expected
        .rows
        .iter()
        .map(|r| r.iter().map(shown).collect())
        .collect();
    assert!(
        same,
        "{what}: the UI shows\n{rows:?}\nbut the report gives\n{expected:?}"
    );
    rows.len()
}

/// The rows of the SQLite report named like each report, where there is one.
fn sqlite_results(model: &Model) -> Vec<Option<Rows>> {
    let queries: Vec<Option<Vec<reports::Query>>> = REPORTS
        .iter()
        .map(|r| {
            reports::CANNED
                .iter()
                .any(|(name, _)| *name == r.name)
                .then(|| reports::resolve(r.name).unwrap())
        })
        .collect();
    let all: Vec<reports::Query> = queries.iter().flatten().flatten().cloned().collect();
    let mut db = Engine::Sqlite.open(None).unwrap();
    engine::load(db.as_mut(), model, &engine::tables_for(&all)).unwrap();
    queries
        .iter()
        .map(|q| {
            q.as_ref()
                .map(|q| run::run(db.as_mut(), q, &[]).unwrap().remove(0))
        })
        .collect()
}

#[test]
fn the_perfetto_ui_shows_the_served_trace_and_runs_every_report() {
    let tools = match shell::trace_processor() {
        None => Err("no trace_processor_shell".to_string()),
        Some(shell) => missing_tool().map_or(Ok(shell), Err),
    };
    let shell = match tools {
        Ok(shell) => shell,
        Err(missing) => {
            assert!(
                std::env::var("TBAND_REQUIRE_PERFETTO_UI").as_deref() != Ok("1"),
                "{missing}, and TBAND_REQUIRE_PERFETTO_UI=1"
            );
            eprintln!("skipped: {missing} (TBAND_REQUIRE_PERFETTO_UI=1 makes this a failure)");
            return;
        }
    };
    let started = Instant::now();
    let work = tempfile::tempdir().unwrap();
    let work = work.path();
    let inputs: Vec<String> = RECORDING
        .iter()
        .map(|a| root().join(a).display().to_string())
        .collect();
    let model = Trace::open(&inputs, &OpenOptions::default()).unwrap().model;
    let pftrace = work.join("export.pftrace");
    tband_perfetto::export(
        &model,
        ExportOptions::default(),
        &mut File::create(&pftrace).unwrap(),
    )
    .unwrap();
    let files: Vec<String> = REPORTS.iter().map(|r| r.sql.to_string()).collect();
    let expected = shell::report_results(&shell, &files, &pftrace);
    let sqlite = sqlite_results(&model);

    let serve = Serve::start(&inputs, work);
    assert!(
        serve.link.starts_with(&format!("{UI_ORIGIN}/#!/?")),
        "the link is for another UI: {}",
        serve.link
    );
    let startup = startup_commands(&serve.link);
    let job = json!({
        "link": serve.link,
        "extension": serve.extension,
        "linkTabs": startup.tabs.iter().map(|(_, title)| title).collect::<Vec<_>>(),
        "focusTrack": format!("{} {PID}", firmware_name(&model)),
        "views": REPORTS.iter().map(Report::view).collect::<Vec<_>>(),
        "macros": macro_order().iter().map(|&i| REPORTS[i].title).collect::<Vec<_>>(),
        "macroShot": REPORTS[macro_order()[0]].title,
        "screenshots": screenshots_dir(),
    });
    let ui = drive(&job, work);
    drop(serve);

    let timeline: Vec<Vec<String>> = ui["tracks"]
        .as_array()
        .unwrap()
        .iter()
        .map(strings)
        .collect();
    let shown_tracks: BTreeSet<&Vec<String>> = timeline.iter().collect();
    let missing: Vec<_> = expected_tracks(&model)
        .into_iter()
        .filter(|t| !shown_tracks.contains(t))
        .collect();
    assert!(
        missing.is_empty(),
        "the timeline lacks {missing:?}; it has {timeline:?}"
    );
    assert!(
        model.anomalies.is_empty() || timeline.iter().any(|t| t.last().unwrap() == "Trace health"),
        "no Trace health track in {timeline:?}"
    );
    assert_eq!(strings(&ui["crashedTracks"]), Vec::<String>::new());
    assert!(
        ui["startupIssues"].is_null(),
        "the link's startup commands: {}",
        ui["startupIssues"]
    );
    for ((sql, title), shown) in startup.tabs.iter().zip(ui["linkTabs"].as_array().unwrap()) {
        let query = sql.trim().trim_end_matches(';');
        let i = REPORTS
            .iter()
            .position(|r| query == format!("SELECT * FROM {}", r.view()))
            .unwrap_or_else(|| panic!("the link's tab {title} shows {sql}, no report's view"));
        assert_shows(
            &format!("the link's tab {title}"),
            &shown["table"],
            &expected[i],
        );
    }
    let mut link_pinned = strings(&ui["linkPinned"]);
    link_pinned.sort();
    let pins = startup.pins.iter().map(|(p, by)| (p.as_str(), *by));
    assert_eq!(link_pinned, pinned_by(pins, &timeline), "the link's pins");

    let manifest = extension::endpoints()
        .into_iter()
        .find(|e| e.path == "manifest")
        .unwrap();
    let manifest: Json = serde_json::from_str(&manifest.body).unwrap();
    let modules: Vec<String> = manifest["modules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        strings(&ui["modules"]),
        modules,
        "the modules the dialog lists"
    );

    let macros = ui["macros"].as_array().unwrap();
    assert_eq!(macros.len(), REPORTS.len());
    let mut same_columns = Vec::new();
    let mut rows_shown = Vec::new();
    for (&i, shown) in macro_order().iter().zip(macros) {
        let (report, expected, sqlite) = (&REPORTS[i], &expected[i], &sqlite[i]);
        let view = report.view();
        assert_shows(&view, &ui["views"][&view], expected);
        let rows = assert_shows(report.title, &shown["table"], expected);
        let mut pinned = strings(&shown["pinned"]);
        pinned.sort();
        let pins = report.pins.iter().copied();
        assert_eq!(pinned, pinned_by(pins, &timeline), "{} pins", report.title);
        if let Some(sqlite) = sqlite.as_ref().filter(|s| s.columns == expected.columns) {
            let left_out = SAME_AS_SQLITE
                .iter()
                .find(|(name, _)| *name == report.name)
                .map_or(&[][..], |(_, rows)| rows);
            let given = Rows {
                columns: sqlite.columns.clone(),
                rows: sqlite
                    .rows
                    .iter()
                    .filter(
                        |row| !matches!(&row[0], Value::Text(t) if left_out.contains(&t.as_str())),
                    )
                    .cloned()
                    .collect(),
            };
            assert_shows(
                &format!("{} (SQLite)", report.title),
                &shown["table"],
                &given,
            );
            same_columns.push(report.name);
        }
        rows_shown.push((report.name, rows));
    }
    let listed: Vec<&str> = SAME_AS_SQLITE.iter().map(|(name, _)| *name).collect();
    same_columns.sort();
    assert_eq!(
        same_columns, listed,
        "the reports with the columns of their SQLite report"
    );
    println!("rows each macro showed: {rows_shown:?}");
    println!(
        "the drive's phases (ms): {}; the whole test: {:.1} s",
        ui["timings"],
        started.elapsed().as_secs_f64()
    );
}
