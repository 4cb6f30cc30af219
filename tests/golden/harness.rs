//! Golden outputs: what every tool prints on every recording, byte for byte.
//!
//! Each tool's crate has an integration test `tests/golden.rs` that includes
//! this file (`#[path = "../../tests/golden/harness.rs"] mod harness;`),
//! lists its tool's commands over [`traces`] and calls [`check`] with its
//! binary (`env!("CARGO_BIN_EXE_<tool>")`: a test reaches only its own
//! package's binaries). [`check`] runs every command from the repository
//! root, with relative paths, no stdin and an empty environment (but for
//! `LD_LIBRARY_PATH`, so that a tool linked to a shared DuckDB finds it), on
//! as many threads as there are cores, and compares the outcome with what
//! is stored in `tests/golden/`:
//!
//! - the manifest `tests/golden/<tool>.txt`, one line per command, sorted by
//!   the arguments: `EXIT STDOUT STDERR ARGUMENTS...` (the exit code is
//!   `signal` for a process killed by one), where each output is `-` when
//!   empty, `text` when it is stored whole as a file, `excerpt:BYTES:FNV`
//!   when it is text stored in part, and `binary:BYTES:FNV` when it is not
//!   UTF-8 (Perfetto protobuf): stored as its length and hash only (FNV-1a,
//!   64 bits, in hex);
//! - the text outputs, as files `tests/golden/<tool>/<name>.stdout` and
//!   `<name>.stderr` (the name is the arguments with every run of
//!   characters other than letters, digits, `.`, `@` and `=` turned into one
//!   `_`), so that a change of output shows in `git diff` (`.gitattributes`
//!   keeps git from changing their line ends).
//!
//! A text longer than [`TEXT_LIMIT`] (48 KiB) is stored as an excerpt: its
//! first and its last lines, up to 24 KiB each, around a line that says how
//! much is left out, and the manifest holds the whole text's length and
//! hash. Those are the event listings and Chrome JSON exports of the bigger
//! recordings: stored whole they would be 10 MB, and a change of the
//! listing format a diff of 90,000 lines; their ends show such a change,
//! and the hash catches one in the middle. Stored this way the text files
//! are about 2.5 MB.
//!
//! A command whose exit code, text or hash differs, a command that is not
//! in the manifest, a line or a file that no command makes any more all
//! fail the test. The failure lists them, with the first lines that
//! differ of each changed text as a unified diff, writes the full outputs
//! of the changed and new commands to `$CARGO_TARGET_TMPDIR/golden/<tool>.actual/`
//! (`target/tmp/golden/...`) and gives the command to bless.
//!
//! Bless: `TBAND_BLESS=1 cargo test -p <package> --test golden` (or all four
//! crates at once: `-p tband-cli -p tband-perfetto -p tband-query -p
//! tband-tui`) rewrites the manifest and the text files, removes the files
//! no command makes any more, and writes every command's full output to
//! `$CARGO_TARGET_TMPDIR/golden/<tool>/`: there the outputs stored as
//! excerpts are whole, so that blessing on a clean checkout before a change
//! lets you `diff` them with the `.actual/` ones after it. `git diff
//! tests/golden` then shows what changed (`git checkout tests/golden`
//! undoes a bless).
//!
//! Normalisation: before storing, every occurrence of the repository's
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

use std::collections::{BTreeMap, BTreeSet};
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

/// `args` (trace arguments relative to the repository root) as they are
/// given from anywhere: each joined to the root.
pub fn absolute(args: &[String]) -> Vec<String> {
    args.iter()
        .map(|a| root().join(a).display().to_string())
        .collect()
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
    /// A SEGGER SystemView recording (`.sysview`).
    Systemview,
    /// A Percepio TraceRecorder recording: a stream (`.psf`) or a
    /// RingBuffer dump (`.psfdump`).
    Tracerecorder,
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
        } else if name.ends_with(".sysview") {
            traces.push(Trace {
                kind: Kind::Systemview,
                args: vec![name],
            });
        } else if name.ends_with(".psf") || name.ends_with(".psfdump") {
            traces.push(Trace {
                kind: Kind::Tracerecorder,
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

/// Text outputs longer than this are stored as an excerpt (see the module comment).
pub const TEXT_LIMIT: usize = 48 * 1024;

/// How one output is kept: its field in the manifest and the contents of
/// its golden file, if it has one.
fn keep(bytes: &[u8]) -> (String, Option<Vec<u8>>) {
    if bytes.is_empty() {
        return ("-".to_string(), None);
    }
    let sum = format!("{}:{:016x}", bytes.len(), fnv1a(bytes));
    match std::str::from_utf8(bytes) {
        Err(_) => (format!("binary:{sum}"), None),
        Ok(_) if bytes.len() <= TEXT_LIMIT => ("text".to_string(), Some(bytes.to_vec())),
        Ok(text) => (format!("excerpt:{sum}"), Some(excerpt(text).into_bytes())),
    }
}

/// The first and the last whole lines of a text longer than [`TEXT_LIMIT`],
/// up to half of it each, around a line that says what is left out.
fn excerpt(text: &str) -> String {
    let half = TEXT_LIMIT / 2;
    let bytes = text.as_bytes();
    // Cut just after a newline, which is never inside a UTF-8 character.
    let head_end = bytes[..half]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |at| at + 1);
    let tail_from = bytes.len() - half;
    let tail_start = bytes[tail_from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |at| tail_from + at + 1);
    let left_out = &text[head_end..tail_start];
    format!(
        "{}[golden excerpt: {} lines ({} bytes) left out; the manifest has the whole output's length and hash]\n{}",
        &text[..head_end],
        left_out.lines().count(),
        left_out.len(),
        &text[tail_start..]
    )
}

#[test]
fn long_texts_are_stored_as_their_ends() {
    let line = "x".repeat(99) + "\n";
    let text = line.repeat(TEXT_LIMIT / 100 + 1);
    let (field, stored) = keep(text.as_bytes());
    assert_eq!(
        field,
        format!("excerpt:{}:{:016x}", text.len(), fnv1a(text.as_bytes()))
    );
    let stored = String::from_utf8(stored.unwrap()).unwrap();
    let kept = TEXT_LIMIT / 2 / 100;
    let expected = format!(
        "{}[golden excerpt: {} lines ({} bytes) left out; the manifest has the whole output's length and hash]\n{}",
        line.repeat(kept),
        TEXT_LIMIT / 100 + 1 - 2 * kept,
        (TEXT_LIMIT / 100 + 1 - 2 * kept) * 100,
        line.repeat(kept)
    );
    assert_eq!(stored, expected);

    let short = line.repeat(3);
    assert_eq!(
        keep(short.as_bytes()),
        ("text".to_string(), Some(short.into_bytes()))
    );
    assert_eq!(keep(b""), ("-".to_string(), None));
    assert_eq!(
        keep(b"\x0a\xff"),
        (format!("binary:2:{:016x}", fnv1a(b"\x0a\xff")), None)
    );
}

/// Equal lines shown around a difference.
const DIFF_CONTEXT: usize = 3;
/// Changed lines shown at most.
const DIFF_CHANGES: usize = 20;
/// Lines after the first difference searched for where the texts agree again.
const DIFF_WINDOW: usize = 200;

/// The start of a unified diff from `old` to `new`: the first lines that
/// differ, with up to [`DIFF_CONTEXT`] equal lines around them, at most
/// [`DIFF_CHANGES`] changed lines, and a last line saying whether more
/// differences follow. Empty when the texts are equal.
fn short_diff(old: &str, new: &str) -> String {
    let old: Vec<&str> = old.split_inclusive('\n').collect();
    let new: Vec<&str> = new.split_inclusive('\n').collect();
    let same = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    if same == old.len() && same == new.len() {
        return String::new();
    }
    let a = &old[same..(same + DIFF_WINDOW).min(old.len())];
    let b = &new[same..(same + DIFF_WINDOW).min(new.len())];
    // lcs[i][j]: the length of the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let start = same.saturating_sub(DIFF_CONTEXT);
    let mut body: Vec<String> = old[start..same].iter().map(|l| diff_line(' ', l)).collect();
    let (mut old_count, mut new_count) = (same - start, same - start);
    let (mut i, mut j, mut changes, mut equal_after) = (0, 0, 0, 0);
    while (i < a.len() || j < b.len()) && changes < DIFF_CHANGES && equal_after < DIFF_CONTEXT {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            body.push(diff_line(' ', a[i]));
            (i, j, old_count, new_count) = (i + 1, j + 1, old_count + 1, new_count + 1);
            equal_after += 1;
        } else {
            if j == b.len() || (i < a.len() && lcs[i + 1][j] >= lcs[i][j + 1]) {
                body.push(diff_line('-', a[i]));
                (i, old_count) = (i + 1, old_count + 1);
            } else {
                body.push(diff_line('+', b[j]));
                (j, new_count) = (j + 1, new_count + 1);
            }
            changes += 1;
            equal_after = 0;
        }
    }
    let more = if old[same + i..] == new[same + j..] {
        ""
    } else {
        "(more differences follow)\n"
    };
    format!(
        "@@ -{},{old_count} +{},{new_count} @@\n{}{more}",
        start + 1,
        start + 1,
        body.concat()
    )
}

/// One line of a diff, marked, with a note when the text does not end with a newline.
fn diff_line(mark: char, line: &str) -> String {
    match line.strip_suffix('\n') {
        Some(line) => format!("{mark}{line}\n"),
        None => format!("{mark}{line}\n\\ No newline at end of file\n"),
    }
}

#[test]
fn a_diff_shows_the_first_differing_lines() {
    let old: String = (1..=30).map(|n| format!("line {n}\n")).collect();
    let new = old
        .replace("line 10\n", "line ten\n")
        .replace("line 12\n", "")
        .replace("line 25\n", "line 25\nline 25b\n");
    assert_eq!(
        short_diff(&old, &new),
        "@@ -7,9 +7,8 @@\n line 7\n line 8\n line 9\n-line 10\n+line ten\n line 11\n-line 12\n line 13\n line 14\n line 15\n(more differences follow)\n"
    );
    assert_eq!(short_diff(&old, &old), "");
    assert_eq!(
        short_diff("a\nb", "a\nb\n"),
        "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
    );
    assert_eq!(short_diff("", "new\n"), "@@ -1,0 +1,1 @@\n+new\n");
}

/// What one command did.
struct Outcome {
    args: String,
    /// The name of its files, from [`file_name`].
    name: String,
    /// Its line in the manifest.
    line: String,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// Its golden files: name in `tests/golden/<tool>/` and contents.
    files: Vec<(String, Vec<u8>)>,
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
    let name = file_name(&args);
    let mut files = Vec::new();
    let mut fields = Vec::new();
    for (bytes, suffix) in [(&stdout, "stdout"), (&stderr, "stderr")] {
        let (field, file) = keep(bytes);
        fields.push(field);
        if let Some(file) = file {
            files.push((format!("{name}.{suffix}"), file));
        }
    }
    let line = format!("{code} {} {} {args}", fields[0], fields[1]);
    Outcome {
        args,
        name,
        line,
        stdout,
        stderr,
        files,
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

/// A file name for a command's outputs: its arguments with every run of
/// other characters than letters, digits, `.`, `@` and `=` as one `_`.
fn file_name(args: &str) -> String {
    let mut name = String::new();
    for c in args.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '@' | '=') {
            name.push(c);
        } else if !name.is_empty() && !name.ends_with('_') {
            name.push('_');
        }
    }
    let name = name.trim_end_matches('_');
    if name.len() > 180 {
        format!("{}~{:016x}", &name[..160], fnv1a(args.as_bytes()))
    } else {
        name.to_string()
    }
}

#[test]
fn file_names_are_the_arguments() {
    assert_eq!(
        file_name("-o - --format chrome-json samples/demo.bin"),
        "o_format_chrome_json_samples_demo.bin"
    );
    assert_eq!(
        file_name("tests/corpus/a.bin@0 tests/corpus/a.bin@1"),
        "tests_corpus_a.bin@0_tests_corpus_a.bin@1"
    );
}

/// Writes every command's full outputs to `dir`, which is emptied first.
fn write_outputs(dir: &Path, outcomes: &[&Outcome]) {
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for o in outcomes {
        fs::write(dir.join(format!("{}.stdout", o.name)), &o.stdout).unwrap();
        fs::write(dir.join(format!("{}.stderr", o.name)), &o.stderr).unwrap();
    }
}

/// The files in a directory by name; none when it does not exist.
fn read_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let Ok(entries) = fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .map(|entry| {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().expect("UTF-8 file names");
            (name, fs::read(entry.path()).unwrap())
        })
        .collect()
}

/// Makes `dir` hold exactly `files`.
fn store_files(dir: &Path, files: &BTreeMap<&str, &[u8]>) {
    fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for name in read_files(dir).keys() {
        if !files.contains_key(name.as_str()) {
            fs::remove_file(dir.join(name)).unwrap();
        }
    }
    for (name, bytes) in files {
        fs::write(dir.join(name), bytes).unwrap();
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
         # exit stdout stderr arguments (run from the repository root); an output is\n\
         #   -                 empty\n\
         #   text              stored whole in {tool}/<arguments>.stdout or .stderr\n\
         #   excerpt:BYTES:FNV text stored as its first and last lines in that file, the whole's length and FNV-1a 64 hash here\n\
         #   binary:BYTES:FNV  not UTF-8: its length and FNV-1a 64 hash only\n"
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
            let args = l.splitn(4, ' ').nth(3).unwrap_or("");
            (args.to_string(), l.to_string())
        })
        .collect()
}

/// Diffs shown in full in a failure; the other changed files are named.
const DIFFS_SHOWN: usize = 8;

/// How a command's golden files differ from those stored, the first
/// [`DIFFS_SHOWN`] of a run (counted in `shown`) as diffs; empty when they
/// do not.
fn file_diffs(
    tool: &str,
    outcome: &Outcome,
    stored: &BTreeMap<String, Vec<u8>>,
    shown: &mut usize,
) -> String {
    let mut diffs = String::new();
    for suffix in ["stdout", "stderr"] {
        let file = format!("{}.{suffix}", outcome.name);
        // An output without a file is empty (or binary: then its manifest line says so).
        let old = stored.get(&file).map_or(&[][..], Vec::as_slice);
        let new = outcome
            .files
            .iter()
            .find(|(name, _)| *name == file)
            .map_or(&[][..], |(_, bytes)| bytes.as_slice());
        if old == new {
            continue;
        }
        if *shown < DIFFS_SHOWN {
            *shown += 1;
            diffs.push_str(&format!(
                "--- tests/golden/{tool}/{file}\n+++ new output\n{}",
                short_diff(&String::from_utf8_lossy(old), &String::from_utf8_lossy(new))
            ));
        } else {
            diffs.push_str(&format!("(tests/golden/{tool}/{file} differs too)\n"));
        }
    }
    diffs
}

/// Runs `commands` with the tool `exe` and checks their outcomes against
/// `tests/golden/<tool>.txt` and `tests/golden/<tool>/`, or rewrites them
/// when `TBAND_BLESS` is set.
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
            "note: the output of `{tool} {}` names the repository's absolute path (stored as $ROOT)",
            o.args
        );
    }
    let mut lines: BTreeMap<&str, &str> = BTreeMap::new();
    let mut names = BTreeSet::new();
    for o in &outcomes {
        assert!(
            lines.insert(&o.args, &o.line).is_none(),
            "the command {} is listed twice",
            o.args
        );
        assert!(
            names.insert(o.name.as_str()),
            "two commands write {}",
            o.name
        );
    }
    let files: BTreeMap<&str, &[u8]> = outcomes
        .iter()
        .flat_map(|o| &o.files)
        .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
        .collect();
    let text = manifest_text(tool, &lines);
    let manifest = root().join("tests/golden").join(format!("{tool}.txt"));
    let golden_dir = root().join("tests/golden").join(tool);
    let bless = format!("TBAND_BLESS=1 cargo test -p {PACKAGE} --test golden");

    if std::env::var_os("TBAND_BLESS").is_some_and(|v| !v.is_empty() && v != "0") {
        fs::write(&manifest, &text).unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
        store_files(&golden_dir, &files);
        let full_dir = output_dir().join(tool);
        write_outputs(&full_dir, &outcomes.iter().collect::<Vec<_>>());
        println!(
            "blessed {} ({} commands) and {} ({} files); full outputs in {}",
            manifest.display(),
            lines.len(),
            golden_dir.display(),
            files.len(),
            full_dir.display()
        );
        return;
    }

    let actual_dir = output_dir().join(format!("{tool}.actual"));
    let _ = fs::remove_dir_all(&actual_dir);
    let old_text = fs::read_to_string(&manifest)
        .unwrap_or_else(|e| panic!("{}: {e}; write it with {bless}", manifest.display()));
    let old_lines = parse_manifest(&old_text);
    let old_files = read_files(&golden_dir);
    let mut report = String::new();
    let mut differing = Vec::new();
    let mut diffs_shown = 0;
    for o in &outcomes {
        let diffs = file_diffs(tool, o, &old_files, &mut diffs_shown);
        match old_lines.get(&o.args) {
            Some(was) if *was == o.line && diffs.is_empty() => continue,
            Some(was) if *was == o.line => report.push_str(&format!("changed: {}\n", o.args)),
            Some(was) => report.push_str(&format!(
                "changed: {}\n    was {was}\n    now {}\n",
                o.args, o.line
            )),
            None => report.push_str(&format!("new (not in the manifest): {}\n", o.line)),
        }
        report.push_str(&diffs);
        differing.push(o);
    }
    for (args, was) in &old_lines {
        if !lines.contains_key(args.as_str()) {
            report.push_str(&format!("no longer run: {was}\n"));
        }
    }
    for file in old_files.keys() {
        let command = file
            .strip_suffix(".stdout")
            .or_else(|| file.strip_suffix(".stderr"));
        if !command.is_some_and(|name| names.contains(name)) {
            report.push_str(&format!("made by no command: tests/golden/{tool}/{file}\n"));
        }
    }
    if report.is_empty() && old_text == text {
        return;
    }
    if report.is_empty() {
        report.push_str("the lines are the same but the manifest is not in its blessed form (order, header or blank lines)\n");
    }
    if !differing.is_empty() {
        write_outputs(&actual_dir, &differing);
        report.push_str(&format!(
            "the full outputs of the changed and new commands are in {}\n",
            actual_dir.display()
        ));
    }
    panic!(
        "{tool}: outputs differ from {} and {}:\n{report}\
         An unintended change is a bug. After an intended one, bless: {bless}",
        manifest.display(),
        golden_dir.display()
    );
}
