//! The Perfetto UI extension as the UI gets it. `tband-perfetto --serve`
//! serves it beside a trace, over a real socket; every endpoint is fetched
//! over HTTPS, trusting the certificate the server made, and checked
//! against Perfetto's extension server protocol: the
//! manifest's fields, the features it declares (and only those served),
//! macro ids and SQL module names under the namespace, macro commands that
//! are the UI's stable automation commands with the arguments they take,
//! the CORS headers the UI needs. Then the SQL modules are registered in
//! `trace_processor_shell` as a package, as the UI registers them, and each
//! macro's queries run on recordings of the corpus, on the Zephyr
//! network-buffer trace the lifetime tests write (the recordings track no
//! objects) and on the trace of the memory stream (nor do they have heaps):
//! the rows its query tab shows must be the rows of its report file in
//! `queries/perfetto/`.
//!
//! `tband-perfetto extension DIR` must write the bytes the server serves,
//! and nothing else; the repository's `perfetto-extension/` (a GitHub
//! extension server) must be what it writes today.
//!
//! The shell is found as [`shell::trace_processor`] says.

mod common;
#[path = "../../tests/lifetimes/net_buf_trace.rs"]
mod net_buf_trace;
#[path = "common/serving.rs"]
mod serving;
#[path = "../../tests/trace_processor/shell.rs"]
mod shell;
#[path = "../../tests/memory/stream.rs"]
mod stream;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use serving::{header, unescape, Server, UI_ORIGIN};
const FEATURES: [&str; 3] = ["macros", "sql_modules", "proto_descriptors"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tband-perfetto-extension-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Fetches `path` as the UI does and checks the answer is JSON the UI may
/// read across origins: the body and the JSON.
fn fetch_json(server: &Server, path: &str) -> (Vec<u8>, Value) {
    let (head, body) = server.request_extension("GET", path, UI_ORIGIN);
    assert!(head.starts_with("HTTP/1.1 200"), "{path}: {head}");
    check_cors(path, &head);
    assert_eq!(
        header(&head, "Content-Type"),
        Some("application/json"),
        "{path}"
    );
    let json = serde_json::from_slice(&body).unwrap_or_else(|e| panic!("{path} is not JSON: {e}"));
    (body, json)
}

/// The headers the protocol asks of a server for the UI's origin.
fn check_cors(path: &str, head: &str) {
    assert_eq!(
        header(head, "Access-Control-Allow-Origin"),
        Some(UI_ORIGIN),
        "{path}: {head}"
    );
    let list = |name: &str| -> Vec<String> {
        header(head, name)
            .unwrap_or_else(|| panic!("{path}: no {name}: {head}"))
            .split(',')
            .map(|v| v.trim().to_ascii_lowercase())
            .collect()
    };
    assert!(list("Access-Control-Allow-Methods").contains(&"get".into()));
    let allowed = list("Access-Control-Allow-Headers");
    for name in ["authorization", "content-type"] {
        assert!(
            allowed.contains(&name.into()),
            "{path}: {name} in {allowed:?}"
        );
    }
}

fn string<'v>(value: &'v Value, key: &str, what: &str) -> &'v str {
    value[key]
        .as_str()
        .unwrap_or_else(|| panic!("{what}: `{key}` is not a string: {value}"))
}

fn array<'v>(value: &'v Value, key: &str, what: &str) -> &'v Vec<Value> {
    value[key]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: `{key}` is not an array: {value}"))
}

/// Checks a macro's commands against the UI's stable automation commands:
/// the statements it runs, in order, the last one the query tab's.
fn macro_statements(id: &str, run: &[Value]) -> (Vec<String>, String) {
    let mut statements = Vec::new();
    let mut tab = None;
    for command in run {
        let command_id = string(command, "id", id);
        let args: Vec<&str> = array(command, "args", id)
            .iter()
            .map(|a| {
                a.as_str()
                    .unwrap_or_else(|| panic!("{id}: an argument is no string"))
            })
            .collect();
        match (command_id, args.as_slice()) {
            ("dev.perfetto.RunQuery", [sql]) => statements.push(sql.to_string()),
            ("dev.perfetto.RunQueryAndShowTab", [sql, title]) => {
                assert!(!title.is_empty(), "{id}: an untitled tab");
                assert!(tab.replace(sql.to_string()).is_none(), "{id}: two tabs");
            }
            // Without its second argument the command asks the user which.
            ("dev.perfetto.PinTracksByRegex", [regex, "name" | "path"]) => {
                assert!(!regex.is_empty(), "{id}: an empty pattern");
            }
            _ => panic!("{id}: not a stable automation command with its arguments: {command}"),
        }
    }
    (
        statements,
        tab.unwrap_or_else(|| panic!("{id}: no query tab")),
    )
}

/// The extension as served: each endpoint's path and body, checked against
/// the protocol; the macros (id, statements, tab query) and the modules
/// (name, SQL).
struct Served {
    bodies: BTreeMap<String, Vec<u8>>,
    macros: Vec<(String, Vec<String>, String)>,
    modules: Vec<(String, String)>,
}

fn fetch_extension(server: &Server) -> Served {
    let mut bodies = BTreeMap::new();
    let (body, manifest) = fetch_json(server, "/manifest");
    bodies.insert("manifest".to_string(), body);
    let namespace = string(&manifest, "namespace", "manifest").to_string();
    assert_eq!(namespace, "dev.tband");
    assert!(!string(&manifest, "name", "manifest").is_empty());
    let features: BTreeSet<&str> = array(&manifest, "features", "manifest")
        .iter()
        .map(|f| string(f, "name", "feature"))
        .collect();
    assert!(
        features.iter().all(|f| FEATURES.contains(f)),
        "{features:?}"
    );
    assert_eq!(features, BTreeSet::from(["macros", "sql_modules"]));
    let modules: Vec<&str> = array(&manifest, "modules", "manifest")
        .iter()
        .map(|m| {
            assert!(!string(m, "name", "module").is_empty());
            string(m, "id", "module")
        })
        .collect();
    // The UI enables `default` when a server is added.
    assert_eq!(modules, ["default"]);

    let (mut macros, mut sql_modules) = (Vec::new(), Vec::new());
    let prefix = format!("{namespace}.");
    for module in &modules {
        for feature in FEATURES {
            let path = format!("/modules/{module}/{feature}");
            if !features.contains(feature) {
                let (head, _) = server.request_extension("GET", &path, UI_ORIGIN);
                assert!(head.starts_with("HTTP/1.1 404"), "{path}: {head}");
                continue;
            }
            let (body, json) = fetch_json(server, &path);
            bodies.insert(path[1..].to_string(), body);
            for entry in array(&json, feature, &path) {
                if feature == "macros" {
                    let id = string(entry, "id", &path);
                    assert!(id.starts_with(&prefix), "macro {id} outside {namespace}");
                    assert!(!string(entry, "name", id).is_empty());
                    let (statements, tab) = macro_statements(id, array(entry, "run", id));
                    macros.push((id.to_string(), statements, tab));
                } else {
                    let name = string(entry, "name", &path);
                    assert!(
                        name.starts_with(&prefix),
                        "module {name} outside {namespace}"
                    );
                    sql_modules.push((name.to_string(), string(entry, "sql", name).to_string()));
                }
            }
        }
    }
    let ids: BTreeSet<&str> = macros.iter().map(|(id, ..)| id.as_str()).collect();
    assert_eq!(ids.len(), macros.len(), "macro ids are unique");
    let (preflight, _) = server.request_extension("OPTIONS", "/manifest", UI_ORIGIN);
    assert!(preflight.starts_with("HTTP/1.1 204"), "{preflight}");
    check_cors("OPTIONS /manifest", &preflight);
    Served {
        bodies,
        macros,
        modules: sql_modules,
    }
}

/// The report files of `queries/perfetto/`, by name.
fn report_files() -> BTreeMap<String, String> {
    std::fs::read_dir(root().join("queries/perfetto"))
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect()
}

/// Writes the modules as the files of a package for `--add-sql-package`.
fn write_package(dir: &Path, namespace: &str, modules: &[(String, String)]) {
    for (name, sql) in modules {
        let relative = name[namespace.len() + 1..].replace('.', "/") + ".sql";
        let path = dir.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, sql).unwrap();
    }
}

/// Runs `sql` on `trace` with the package registered: the shell's output.
fn run_with_package(shell: &Path, package: &Path, sql: &str, trace: &Path) -> String {
    let output = Command::new(shell)
        .arg("query")
        .arg("--add-sql-package")
        .arg(format!("{}@dev.tband", package.display()))
        .args(["-f", "-"])
        .arg(trace)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(sql.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(
        output.status.success(),
        "trace_processor failed on {sql}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The last result set of the shell's output.
fn last_set(output: &str) -> &str {
    output.trim_end().rsplit("\n\n").next().unwrap_or("")
}

#[test]
fn the_served_extension_follows_the_protocol_and_its_macros_show_the_reports() {
    let dir = temp_dir("served");
    let served_trace = dir.join("demo.pftrace");
    let server = Server::start(
        &root().join("samples/demo.bin").display().to_string(),
        &served_trace,
    );
    let served = fetch_extension(&server);
    // The trace is served beside the extension.
    let (head, body) = server.request("GET", server.trace_path.as_ref().unwrap());
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(body, std::fs::read(&served_trace).unwrap());
    drop(server);

    let reports = report_files();
    let module_names: BTreeSet<String> = served
        .modules
        .iter()
        .map(|(name, _)| name.clone())
        .collect();
    let expected: BTreeSet<String> = reports.keys().map(|r| format!("dev.tband.{r}")).collect();
    assert_eq!(module_names, expected, "a module per report file");

    // Each macro includes one module and shows a query of it.
    let mut report_of_macro = Vec::new();
    for (id, statements, tab) in &served.macros {
        let included: Vec<&str> = statements
            .iter()
            .filter_map(|s| s.strip_prefix("INCLUDE PERFETTO MODULE "))
            .map(|s| s.trim_end_matches(';'))
            .collect();
        let [module] = included[..] else {
            panic!("{id} includes {included:?}, not one module");
        };
        assert!(module_names.contains(module), "{id} includes {module}");
        report_of_macro.push(module["dev.tband.".len()..].to_string());
        assert!(!tab.is_empty());
    }
    let shown: BTreeSet<&String> = report_of_macro.iter().collect();
    assert_eq!(shown.len(), reports.len(), "a macro per report");

    let Some(shell) = shell::trace_processor() else {
        return;
    };
    let package = dir.join("package");
    write_package(&package, "dev.tband", &served.modules);
    let lossy = dir.join("lossy.pftrace");
    common::convert(
        &[root()
            .join("tests/corpus/tband/freertos_lossy.bin")
            .display()
            .to_string()],
        &lossy,
        &[],
    );

    let net_buf = dir.join("net_buf.pftrace");
    common::convert(
        &[net_buf_trace::write(&dir).display().to_string()],
        &net_buf,
        &[],
    );

    let memory_bin = dir.join("memory.bin");
    let stream = tband_decode::encode::encode_stream(&stream::events());
    std::fs::write(&memory_bin, stream).unwrap();
    let memory = dir.join("memory.pftrace");
    common::convert(&[memory_bin.display().to_string()], &memory, &[]);

    let mut rows_shown = BTreeMap::<&str, usize>::new();
    for trace in [&served_trace, &lossy, &net_buf, &memory] {
        for ((id, statements, tab), report) in served.macros.iter().zip(&report_of_macro) {
            let sql = format!("{}\n{tab}\n", statements.join("\n"));
            let output = run_with_package(&shell, &package, &sql, trace);
            let direct = shell::run_queries(&shell, &reports[report], trace);
            let (shown, expected) = (last_set(&output), last_set(&direct));
            assert_eq!(shown, expected, "{id} on {}", trace.display());
            assert!(shown.starts_with('"'), "{id}: no header: {shown}");
            *rows_shown.entry(id).or_default() += shown.lines().count() - 1;
        }
    }
    println!("rows shown by each macro on the four traces: {rows_shown:?}");
    for (id, rows) in &rows_shown {
        assert!(*rows > 0, "{id} showed no rows on any trace");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The address `--serve` prints carries startup commands, which the UI
/// runs with no extension installed: the UI's stable automation commands
/// (all on its startup allowlist) that define every report's view, whose
/// rows must be the report's, and show one. The extension's module,
/// included after them as its macro does, replaces the view and gives the
/// same rows.
#[test]
fn the_links_startup_commands_define_every_view() {
    let dir = temp_dir("link");
    let trace = dir.join("demo.pftrace");
    let server = Server::start(
        &root().join("samples/demo.bin").display().to_string(),
        &trace,
    );
    let link = server.ui_link.clone();
    let served = fetch_extension(&server);
    drop(server);
    println!("the printed address is {} characters long", link.len());
    let (_, commands) = link.split_once("&startupCommands=").unwrap();
    let commands: Value = serde_json::from_str(&unescape(commands)).unwrap();
    let (views, tab) = macro_statements("startupCommands", commands.as_array().unwrap());
    assert_eq!(tab, "SELECT * FROM tband_cpu_load;");
    let reports = report_files();
    assert_eq!(views.len(), reports.len(), "a view per report");

    let Some(shell) = shell::trace_processor() else {
        return;
    };
    let package = dir.join("package");
    write_package(&package, "dev.tband", &served.modules);
    for (report, sql) in &reports {
        let select = format!("SELECT * FROM tband_{report};");
        let script = format!(
            "{}\n{select}\nINCLUDE PERFETTO MODULE dev.tband.{report};\n{select}\n",
            views.join("\n")
        );
        let output = run_with_package(&shell, &package, &script, &trace);
        let direct = shell::run_queries(&shell, sql, &trace);
        let sets: Vec<&str> = output.trim_end().rsplit("\n\n").take(2).collect();
        assert_eq!(sets, [last_set(&direct); 2], "{report}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every file under `dir`, by its path relative to `dir` (with `/`).
fn files_under(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(dir).unwrap();
                let relative = relative.to_string_lossy().replace('\\', "/");
                files.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// Runs `tband-perfetto extension DIR`.
fn write_extension(dir: &Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_tband-perfetto"))
        .arg("extension")
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_extension_command_writes_the_files_the_server_serves() {
    let dir = temp_dir("written");
    write_extension(&dir.join("ext"));
    let written = files_under(&dir.join("ext"));

    let server = Server::start(
        &root().join("samples/demo.bin").display().to_string(),
        &dir.join("demo.pftrace"),
    );
    let served = fetch_extension(&server);
    assert_eq!(
        written.keys().collect::<Vec<_>>(),
        served.bodies.keys().collect::<Vec<_>>()
    );
    for (path, body) in &served.bodies {
        assert!(written[path] == *body, "{path} differs from what is served");
    }
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `perfetto-extension/` is what users add as a GitHub extension server:
/// it must be what the command writes today, byte for byte, and nothing
/// more.
#[test]
fn the_committed_extension_is_what_the_command_writes() {
    let dir = temp_dir("committed");
    write_extension(&dir);
    let committed = files_under(&root().join("perfetto-extension"));
    let written = files_under(&dir);
    let refresh = "refresh it with `cargo run -p tband-perfetto -- extension perfetto-extension` \
                   (after removing the folder) and commit it";
    assert_eq!(
        committed.keys().collect::<Vec<_>>(),
        written.keys().collect::<Vec<_>>(),
        "perfetto-extension/ holds other files than the command writes: {refresh}"
    );
    for (path, body) in &written {
        assert!(
            committed[path] == *body,
            "perfetto-extension/{path} differs from what `tband-perfetto extension` writes: {refresh}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
