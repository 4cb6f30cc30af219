//! Golden outputs: what every tool prints on every recording, byte for byte.
//!
//! Each tool's crate has an integration test `tests/golden.rs` that includes
//! this file (`#[path = "../../tests/golden/harness.rs"] mod harness;`),
//! lists its tool's commands over [`traces`] and calls [`check`] with its
//! binary (`env!("CARGO_BIN_EXE_<tool>")`: a test reaches only its own
//! package's binaries). [`check`] runs every command from the repository
//! root, with relative paths, no stdin and an empty environment (but for
//! `LD_LIBRARY_PATH`, so that a tool linked to a shared DuckDB finds it), on
//! as many threads as there are cores, and compares the outcome with the manifest
//! `tests/golden/<tool>.txt`: one line per command,
//!
//! ```text
//! EXIT STDOUT_BYTES STDOUT_FNV STDERR_BYTES STDERR_FNV ARGUMENTS...
//! ```
//!
//! (FNV-1a, 64 bits, in hex; the exit code is `signal` for a process
//! killed by one), sorted by the arguments. A command whose line differs, a
//! line no command produces any more and a command with no line all fail
//! the test, which lists them with the new lengths and hashes and writes
//! the full outputs of the changed and new commands to
//! `$CARGO_TARGET_TMPDIR/golden/<tool>.actual/` (`target/tmp/golden/...`).
//!
//! Bless: `TBAND_BLESS=1 cargo test -p <package> --test golden` (or all four
//! crates at once: `-p tband-decode -p tband-perfetto -p tband-query -p
//! tband-tui`) rewrites the manifest and writes every command's full output
//! to `$CARGO_TARGET_TMPDIR/golden/<tool>/` as `<name>.stdout` and
//! `<name>.stderr` (the name is the arguments with every character other
//! than letters, digits, `.`, `@` and `=` turned into `_`). To see what a
//! change does to the outputs, bless before it (on a clean checkout, then
//! the manifests do not change) and run the test after it: each changed
//! command's old output is in `<tool>/<name>.stdout` and its new one in
//! `<tool>.actual/<name>.stdout`. Or copy the blessed directory aside, bless
//! after the change and `diff -r` the two; `git diff tests/golden` then shows
//! which commands changed (`git checkout tests/golden` undoes a bless).
//!
//! Normalisation: before hashing, every occurrence of the repository's
//! absolute path in stdout and stderr is replaced by `$ROOT`, so that an
//! output that names it (none does when the tools are given relative paths,
//! which they are) is the same in every clone. Nothing else is changed: the
//! tools print no time of day, and a command whose output is not the same
//! every run is a bug to fix, not to normalise.
//!
//! The traces are found, not listed: every tband stream (`*.bin`), ThreadX
//! buffer (`*.trx`) and CTF directory (one with a `metadata` file) under
//! `tests/corpus/` and `samples/`, with the per-core streams of one
//! recording (`NAME_c0.bin`, `NAME_c1.bin` or `NAME.c0.bin`, ...) given
//! together as `FILE@0 FILE@1`. A recording added there is a new command
//! and fails the test until it is blessed.

#![allow(dead_code)] // each crate's test uses a part of it

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The repository root: every command runs there, and names files relative to it.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("a crate of the workspace")
        .to_path_buf()
}

/// Where the full outputs go.
fn output_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("golden")
}

/// What kind of recording a trace is; a tool may not apply every mode to every kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One tband stream.
    Tband,
    /// The streams of several cores of one tband recording.
    TbandCores,
    /// A ThreadX event-trace buffer (`.trx`).
    Threadx,
    /// A CTF (Zephyr) trace directory.
    Ctf,
}

/// One recording, as the tools are given it.
#[derive(Clone, Debug)]
pub struct Trace {
    pub kind: Kind,
    /// The trace arguments, relative to the repository root.
    pub args: Vec<String>,
}

impl Trace {
    pub fn args(&self) -> Vec<&str> {
        self.args.iter().map(String::as_str).collect()
    }
}

/// Every recording in `tests/corpus/` and `samples/`, in the order of their arguments.
pub fn traces() -> Vec<Trace> {
    let mut traces = Vec::new();
    for dir in ["tests/corpus", "samples"] {
        collect(Path::new(dir), &mut traces);
    }
    traces.sort_by(|a, b| a.args.cmp(&b.args));
    assert!(traces.len() >= 15, "recordings are missing: {traces:?}");
    traces
}

fn collect(dir: &Path, traces: &mut Vec<Trace>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| dir.join(entry.unwrap().file_name()))
        .collect();
    entries.sort();
    // Per-core streams by the name they share: (prefix, [(core, file)]).
    let mut sets: BTreeMap<String, Vec<(u32, String)>> = BTreeMap::new();
    for path in entries {
        let name = path.to_str().expect("UTF-8 paths").to_string();
        if root().join(&path).is_dir() {
            if root().join(&path).join("metadata").is_file() {
                traces.push(Trace {
                    kind: Kind::Ctf,
                    args: vec![name],
                });
            } else {
                collect(&path, traces);
            }
        } else if name.ends_with(".trx") {
            traces.push(Trace {
                kind: Kind::Threadx,
                args: vec![name],
            });
        } else if let Some(stem) = name.strip_suffix(".bin") {
            match core_of(stem) {
                Some((prefix, core)) => sets.entry(prefix).or_default().push((core, name)),
                None => traces.push(Trace {
                    kind: Kind::Tband,
                    args: vec![name],
                }),
            }
        }
    }
    for (_, mut cores) in sets {
        cores.sort();
        if let [(_, single)] = &cores[..] {
            traces.push(Trace {
                kind: Kind::Tband,
                args: vec![single.clone()],
            });
        } else {
            traces.push(Trace {
                kind: Kind::TbandCores,
                args: cores
                    .iter()
                    .map(|(core, file)| format!("{file}@{core}"))
                    .collect(),
            });
        }
    }
}

/// `NAME_c1` or `NAME.c1`: one core's stream of recording NAME.
fn core_of(stem: &str) -> Option<(String, u32)> {
    let at = stem.rfind(['_', '.'])?;
    let digits = stem[at + 1..].strip_prefix('c')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((stem[..at].to_string(), digits.parse().ok()?))
}

/// Inputs that are not traces, for the tools' error messages: a file that
/// is something else (text, and a corpus file, so that it never changes)
/// and a file that does not exist.
pub const NOT_TRACES: [&str; 2] = [
    "tests/corpus/zephyr_ctf/hello_sem.listing.txt",
    "tests/corpus/no_such_trace.bin",
];

/// One command's arguments from pieces: e.g. `command(&[&["--summary"], &trace.args()])`.
pub fn command(parts: &[&[&str]]) -> Vec<String> {
    parts
        .iter()
        .flat_map(|p| p.iter().map(|s| s.to_string()))
        .collect()
}

/// 64-bit FNV-1a.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// `bytes` with every occurrence of `from` replaced by `to`.
fn replace(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    if from.is_empty() {
        return bytes.to_vec();
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(at) = rest.windows(from.len()).position(|w| w == from) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to);
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
    out
}

/// Replaces the repository's absolute path (as given and canonical) by
/// `$ROOT`; true if there was one.
fn normalise(bytes: &mut Vec<u8>, roots: &[String]) -> bool {
    let mut found = false;
    for r in roots {
        if bytes.windows(r.len()).any(|w| w == r.as_bytes()) {
            *bytes = replace(bytes, r.as_bytes(), b"$ROOT");
            found = true;
        }
    }
    found
}

#[test]
fn the_repository_path_is_normalised() {
    let roots = ["/src/tband".to_string(), "/home/me/tband".to_string()];
    let mut bytes = b"cannot read /src/tband/a.bin or /home/me/tband/b.bin".to_vec();
    assert!(normalise(&mut bytes, &roots));
    assert_eq!(bytes, b"cannot read $ROOT/a.bin or $ROOT/b.bin");
    assert!(!normalise(&mut bytes, &roots));
    assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
}

/// What one command did.
struct Outcome {
    args: String,
    line: String,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// Whether the output named the repository's absolute path.
    normalised: bool,
}

fn run(exe: &str, args: &[String], roots: &[String]) -> Outcome {
    let mut command = Command::new(exe);
    command.env_clear();
    // A tool linked to a prebuilt shared library (DuckDB's) must still find it.
    if let Some(path) = std::env::var_os("LD_LIBRARY_PATH") {
        command.env("LD_LIBRARY_PATH", path);
    }
    let output = command
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {exe}: {e}"));
    let code = output
        .status
        .code()
        .map_or_else(|| "signal".to_string(), |c| c.to_string());
    let (mut stdout, mut stderr) = (output.stdout, output.stderr);
    let normalised = normalise(&mut stdout, roots) | normalise(&mut stderr, roots);
    let args = args.join(" ");
    let line = format!(
        "{code} {} {:016x} {} {:016x} {args}",
        stdout.len(),
        fnv1a(&stdout),
        stderr.len(),
        fnv1a(&stderr)
    );
    Outcome {
        args,
        line,
        stdout,
        stderr,
        normalised,
    }
}

/// Runs the commands, each on its own thread's turn, keeping their order.
fn run_all(exe: &str, commands: &[Vec<String>]) -> Vec<Outcome> {
    let given = root().to_str().expect("a UTF-8 path").to_string();
    let mut roots = vec![given.clone()];
    if let Some(canonical) = root()
        .canonicalize()
        .ok()
        .and_then(|p| p.to_str().map(String::from))
    {
        if canonical != given {
            roots.push(canonical);
        }
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(commands.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new(commands.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(args) = commands.get(i) else { break };
                let outcome = run(exe, args, &roots);
                results.lock().unwrap()[i] = Some(outcome);
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|o| o.expect("every command ran"))
        .collect()
}

/// A file name for a command's outputs.
fn file_name(args: &str) -> String {
    let name: String = args
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '@' | '=') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.len() > 180 {
        format!("{}~{:016x}", &name[..160], fnv1a(args.as_bytes()))
    } else {
        name
    }
}

fn write_outputs(dir: &Path, outcomes: &[&Outcome]) {
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut names = std::collections::BTreeSet::new();
    for o in outcomes {
        let name = file_name(&o.args);
        assert!(names.insert(name.clone()), "two commands write {name}");
        fs::write(dir.join(format!("{name}.stdout")), &o.stdout).unwrap();
        fs::write(dir.join(format!("{name}.stderr")), &o.stderr).unwrap();
    }
}

/// The package whose tests include this harness (the tool's package).
const PACKAGE: &str = env!("CARGO_PKG_NAME");

fn manifest_text(tool: &str, lines: &BTreeMap<&str, &str>) -> String {
    let package = PACKAGE;
    let mut text = format!(
        "# Golden outputs of {tool} on every recording in tests/corpus/ and samples/,\n\
         # checked by {package}/tests/golden.rs (see tests/golden/harness.rs).\n\
         # Rewrite after an intended output change: TBAND_BLESS=1 cargo test -p {package} --test golden\n\
         # exit stdout-bytes stdout-fnv1a64 stderr-bytes stderr-fnv1a64 arguments (run from the repository root)\n"
    );
    for line in lines.values() {
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// The manifest's lines by their arguments.
fn parse_manifest(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let args = l.splitn(6, ' ').nth(5).unwrap_or("");
            (args.to_string(), l.to_string())
        })
        .collect()
}

/// Runs `commands` with the tool `exe` and checks their outcomes against
/// `tests/golden/<tool>.txt`, or rewrites it when `TBAND_BLESS` is set.
pub fn check(tool: &str, exe: &str, commands: &[Vec<String>]) {
    for args in commands {
        assert!(
            args.iter()
                .all(|a| !a.is_empty() && !a.contains(char::is_whitespace)),
            "arguments with spaces cannot be written in the manifest: {args:?}"
        );
    }
    let started = Instant::now();
    let outcomes = run_all(exe, commands);
    println!(
        "{tool}: {} commands in {:.1} s",
        outcomes.len(),
        started.elapsed().as_secs_f64()
    );
    for o in outcomes.iter().filter(|o| o.normalised) {
        println!(
            "note: the output of `{tool} {}` names the repository's absolute path (hashed as $ROOT)",
            o.args
        );
    }
    let mut lines: BTreeMap<&str, &str> = BTreeMap::new();
    for o in &outcomes {
        assert!(
            lines.insert(&o.args, &o.line).is_none(),
            "the command {} is listed twice",
            o.args
        );
    }
    let text = manifest_text(tool, &lines);
    let manifest = root().join("tests/golden").join(format!("{tool}.txt"));
    let by_args: BTreeMap<&str, &Outcome> = outcomes.iter().map(|o| (o.args.as_str(), o)).collect();

    if std::env::var_os("TBAND_BLESS").is_some_and(|v| !v.is_empty() && v != "0") {
        fs::write(&manifest, &text).unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
        let dir = output_dir().join(tool);
        write_outputs(&dir, &by_args.values().copied().collect::<Vec<_>>());
        println!(
            "blessed {} ({} commands); full outputs in {}",
            manifest.display(),
            lines.len(),
            dir.display()
        );
        return;
    }

    let actual_dir = output_dir().join(format!("{tool}.actual"));
    let _ = fs::remove_dir_all(&actual_dir);
    let old_text = fs::read_to_string(&manifest).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; write it with TBAND_BLESS=1 cargo test -p {PACKAGE} --test golden",
            manifest.display()
        )
    });
    if old_text == text {
        return;
    }
    let old = parse_manifest(&old_text);
    let mut report = String::new();
    let mut differing = Vec::new();
    for (args, line) in &lines {
        match old.get(*args) {
            Some(was) if was == line => {}
            Some(was) => {
                report.push_str(&format!("changed: {args}\n    was {was}\n    now {line}\n"));
                differing.push(by_args[args]);
            }
            None => {
                report.push_str(&format!("new (not in the manifest): {line}\n"));
                differing.push(by_args[args]);
            }
        }
    }
    for (args, was) in &old {
        if !lines.contains_key(args.as_str()) {
            report.push_str(&format!("no longer run: {was}\n"));
        }
    }
    if report.is_empty() {
        report.push_str("the lines are the same but the manifest is not in its blessed form (order, header or blank lines)\n");
    } else if !differing.is_empty() {
        write_outputs(&actual_dir, &differing);
        report.push_str(&format!(
            "the outputs of the changed and new commands are in {}\n",
            actual_dir.display()
        ));
    }
    panic!(
        "{tool}: outputs differ from {}:\n{report}\
         An unintended change is a bug. After an intended one, bless: \
         TBAND_BLESS=1 cargo test -p {PACKAGE} --test golden",
        manifest.display()
    );
}
