//! tband's PerfettoSQL reports (`queries/perfetto/`) as a Perfetto UI
//! extension: the endpoints of Perfetto's extension server protocol, which
//! the UI fetches from the servers listed in its settings.
//!
//! - `manifest`: the server's name, its namespace (`dev.tband`), the
//!   features it serves (macros, SQL modules) and its one module, `default`.
//! - `modules/default/sql_modules`: each report as the SQL module
//!   `dev.tband.<report>`, which defines the view `tband_<report>`. The
//!   module is the report file itself with `CREATE OR REPLACE PERFETTO
//!   VIEW ... AS` put before its last statement, so the files stay the one
//!   definition.
//! - `modules/default/macros`: a command-palette entry per report, which
//!   includes the module, shows the view in a query tab and pins the tracks
//!   the report is about.
//!
//! The UI rejects a server whose macro ids or module names do not start
//! with its namespace and a dot.
//!
//! The same views need no extension at all through the UI's startup
//! commands ([`startup_commands`]), which a link can carry: the link
//! defines every view and shows one report. A module included after them
//! replaces the view rather than failing on it.

use std::io;
use std::path::Path;

use serde_json::{json, Value};

use crate::sql_text;

/// The prefix of every macro id and SQL module name.
pub const NAMESPACE: &str = "dev.tband";

/// The extension's one module (the one the UI enables when a server is added).
pub const MODULE: &str = "default";

/// Command ids of Perfetto UI's stable automation commands.
const RUN_QUERY: &str = "dev.perfetto.RunQuery";
const RUN_QUERY_AND_SHOW_TAB: &str = "dev.perfetto.RunQueryAndShowTab";
const PIN_TRACKS_BY_REGEX: &str = "dev.perfetto.PinTracksByRegex";

/// A report of `queries/perfetto/` and how the UI presents it.
pub struct Report {
    /// The file's name without `.sql`.
    pub name: &'static str,
    /// The file.
    pub sql: &'static str,
    /// The macro's name in the command palette and the query tab's title.
    pub title: &'static str,
    /// TrackUuids to pin, as the regular expression (JavaScript syntax) and
    /// whether it matches a track's name or its path (`Group > Track`).
    pub pins: &'static [(&'static str, TrackMatch)],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrackMatch {
    Name,
    Path,
}

impl TrackMatch {
    fn arg(self) -> &'static str {
        match self {
            TrackMatch::Name => "name",
            TrackMatch::Path => "path",
        }
    }
}

/// The UI's names of the tracks the reports are about: the scheduling
/// track of each CPU (named by the UI), the IRQ track of each CPU (named by
/// trace_processor), and tband-perfetto's own groups and tracks.
const CPU_TRACKS: (&str, TrackMatch) = (r"^CPU \d+ Scheduling", TrackMatch::Name);
const IRQ_TRACKS: (&str, TrackMatch) = (r"^Irq Cpu \d+$", TrackMatch::Name);
const QUEUE_TRACKS: (&str, TrackMatch) = (r"(^| > )Queues > [^>]+$", TrackMatch::Path);
const MARKER_TRACKS: (&str, TrackMatch) = (r"(^| > )Markers > [^>]+$", TrackMatch::Path);
const HEALTH_TRACK: (&str, TrackMatch) = (r"^Trace health$", TrackMatch::Name);
/// The lanes and counters of each pool (`Objects > <kind> <pool> > ...`).
const OBJECT_TRACKS: (&str, TrackMatch) = (r"(^| > )Objects > [^>]+ > [^>]+$", TrackMatch::Path);
/// The tracks of each heap (`Memory > <heap> > ...`: in use, failed
/// allocations, block lanes).
const HEAP_TRACKS: (&str, TrackMatch) = (r"(^| > )Memory > [^>]+ > [^>]+$", TrackMatch::Path);
/// Each task's stack margin (`stack free` under its thread, `<task> stack
/// free` for an idle task).
const STACK_TRACKS: (&str, TrackMatch) = (r"(^| )stack free$", TrackMatch::Name);

/// Every report of `queries/perfetto/`.
pub const REPORTS: [Report; 15] = [
    Report {
        name: "cpu_load",
        sql: include_str!("../../queries/perfetto/cpu_load.sql"),
        title: "tband: CPU load per task",
        pins: &[CPU_TRACKS, IRQ_TRACKS],
    },
    Report {
        name: "isr_latency",
        sql: include_str!("../../queries/perfetto/isr_latency.sql"),
        title: "tband: ISR latency",
        pins: &[IRQ_TRACKS],
    },
    Report {
        name: "isr_to_task_latency",
        sql: include_str!("../../queries/perfetto/isr_to_task_latency.sql"),
        title: "tband: ISR-to-task latency",
        pins: &[IRQ_TRACKS, CPU_TRACKS],
    },
    Report {
        name: "task_states",
        sql: include_str!("../../queries/perfetto/task_states.sql"),
        title: "tband: task states",
        pins: &[CPU_TRACKS],
    },
    Report {
        name: "task_response",
        sql: include_str!("../../queries/perfetto/task_response.sql"),
        title: "tband: task response",
        pins: &[CPU_TRACKS],
    },
    Report {
        name: "wait_reasons",
        sql: include_str!("../../queries/perfetto/wait_reasons.sql"),
        title: "tband: wait reasons",
        pins: &[QUEUE_TRACKS],
    },
    Report {
        name: "queue_levels",
        sql: include_str!("../../queries/perfetto/queue_levels.sql"),
        title: "tband: queue high-water",
        pins: &[QUEUE_TRACKS],
    },
    Report {
        name: "markers",
        sql: include_str!("../../queries/perfetto/markers.sql"),
        title: "tband: markers",
        pins: &[MARKER_TRACKS],
    },
    Report {
        name: "trace_health",
        sql: include_str!("../../queries/perfetto/trace_health.sql"),
        title: "tband: trace health",
        pins: &[HEALTH_TRACK],
    },
    Report {
        name: "object_lifetimes",
        sql: include_str!("../../queries/perfetto/object_lifetimes.sql"),
        title: "tband: object lifetimes",
        pins: &[OBJECT_TRACKS],
    },
    Report {
        name: "object_leaks",
        sql: include_str!("../../queries/perfetto/object_leaks.sql"),
        title: "tband: object leaks",
        pins: &[OBJECT_TRACKS, CPU_TRACKS],
    },
    Report {
        name: "pool_low_water",
        sql: include_str!("../../queries/perfetto/pool_low_water.sql"),
        title: "tband: pool low-water",
        pins: &[OBJECT_TRACKS],
    },
    Report {
        name: "heap_usage",
        sql: include_str!("../../queries/perfetto/heap_usage.sql"),
        title: "tband: heap usage",
        pins: &[HEAP_TRACKS],
    },
    Report {
        name: "heap_leaks",
        sql: include_str!("../../queries/perfetto/heap_leaks.sql"),
        title: "tband: heap leaks",
        pins: &[HEAP_TRACKS, CPU_TRACKS],
    },
    Report {
        name: "stack_margin",
        sql: include_str!("../../queries/perfetto/stack_margin.sql"),
        title: "tband: stack margin",
        pins: &[STACK_TRACKS],
    },
];

impl Report {
    /// The SQL module's name, for `INCLUDE PERFETTO MODULE`.
    pub fn module(&self) -> String {
        format!("{NAMESPACE}.{}", self.name)
    }

    /// The view the module defines.
    pub fn view(&self) -> String {
        format!("tband_{}", self.name)
    }

    /// The module's SQL: the report, its last statement made the view.
    pub fn module_sql(&self) -> String {
        let start = sql_text::last_statement_start(self.sql);
        format!(
            "{}CREATE OR REPLACE PERFETTO VIEW {} AS\n{}",
            &self.sql[..start],
            self.view(),
            &self.sql[start..]
        )
    }

    /// The macro's id: the namespace and the report's name in CamelCase.
    pub fn macro_id(&self) -> String {
        let camel: String = self
            .name
            .split('_')
            .map(|word| {
                let mut chars = word.chars();
                chars
                    .next()
                    .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                    .unwrap_or_default()
            })
            .collect();
        format!("{NAMESPACE}.{camel}")
    }

    fn macro_json(&self) -> Value {
        let mut run = vec![command(
            RUN_QUERY,
            &[&format!("INCLUDE PERFETTO MODULE {};", self.module())],
        )];
        run.extend(self.show_commands());
        json!({"id": self.macro_id(), "name": self.title, "run": run})
    }

    /// The commands that show the view in a query tab and pin the tracks.
    fn show_commands(&self) -> impl Iterator<Item = Value> + '_ {
        let tab = command(
            RUN_QUERY_AND_SHOW_TAB,
            &[&format!("SELECT * FROM {};", self.view()), self.title],
        );
        let pins = self
            .pins
            .iter()
            .map(|(pattern, by)| command(PIN_TRACKS_BY_REGEX, &[pattern, by.arg()]));
        std::iter::once(tab).chain(pins)
    }
}

/// The UI's startup commands (run once the trace has loaded) that define
/// every report's view, the module's SQL without its comments, and show
/// `shown` as its macro does: the reports with no extension installed.
pub fn startup_commands(shown: &Report) -> Value {
    let views = REPORTS
        .iter()
        .map(|r| command(RUN_QUERY, &[&sql_text::compact(&r.module_sql())]));
    Value::Array(views.chain(shown.show_commands()).collect())
}

/// One endpoint of the extension: its path under the server's base URL
/// (no leading `/`) and its JSON.
pub struct Endpoint {
    pub path: String,
    pub body: String,
}

/// Every endpoint: the manifest, the macros and the SQL modules.
pub fn endpoints() -> Vec<Endpoint> {
    let manifest = json!({
        "name": "tband",
        "namespace": NAMESPACE,
        "features": [{"name": "macros"}, {"name": "sql_modules"}],
        "modules": [{"id": MODULE, "name": "tband reports"}],
    });
    let macros: Vec<Value> = REPORTS.iter().map(Report::macro_json).collect();
    let sql_modules: Vec<Value> = REPORTS
        .iter()
        .map(|r| json!({"name": r.module(), "sql": r.module_sql()}))
        .collect();
    [
        ("manifest".to_string(), manifest),
        (
            format!("modules/{MODULE}/macros"),
            json!({ "macros": macros }),
        ),
        (
            format!("modules/{MODULE}/sql_modules"),
            json!({ "sql_modules": sql_modules }),
        ),
    ]
    .into_iter()
    .map(|(path, value)| Endpoint {
        path,
        body: format!("{value:#}\n"),
    })
    .collect()
}

/// Writes every endpoint as a file under `dir`, at its path: a static
/// extension server for any web host. Returns what it wrote.
pub fn write_dir(dir: &Path) -> io::Result<Vec<Endpoint>> {
    let endpoints = endpoints();
    for endpoint in &endpoints {
        let path = dir.join(&endpoint.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, &endpoint.body)?;
    }
    Ok(endpoints)
}

fn command(id: &str, args: &[&str]) -> Value {
    json!({"id": id, "args": args})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_report_becomes_a_module_defining_its_view() {
        let cpu_load = &REPORTS[0];
        let sql = cpu_load.module_sql();
        assert!(sql.starts_with(cpu_load.sql.lines().next().unwrap()));
        assert!(sql.contains(
            "INCLUDE PERFETTO MODULE intervals.intersect;\n\nCREATE OR REPLACE PERFETTO VIEW tband_cpu_load AS\nWITH slices AS ("
        ));
        for report in &REPORTS {
            let sql = report.module_sql();
            let view = format!("CREATE OR REPLACE PERFETTO VIEW {} AS\n", report.view());
            let (_, query) = sql.split_once(&view).unwrap();
            let first = query.split_whitespace().next().unwrap();
            assert!(
                ["SELECT", "WITH"].contains(&first),
                "{}: {first}",
                report.name
            );
        }
    }

    #[test]
    fn every_report_file_is_in_the_extension_under_its_name() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../queries/perfetto");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|e| e == "sql"))
            .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let mut names: Vec<String> = REPORTS.iter().map(|r| r.name.to_string()).collect();
        names.sort();
        assert_eq!(names, files);
        for report in &REPORTS {
            let file = std::fs::read_to_string(format!("{dir}/{}.sql", report.name)).unwrap();
            assert_eq!(report.sql, file, "{}", report.name);
        }
    }

    #[test]
    fn macro_ids_are_the_namespace_and_the_report_in_camel_case() {
        assert_eq!(REPORTS[2].macro_id(), "dev.tband.IsrToTaskLatency");
    }
}
