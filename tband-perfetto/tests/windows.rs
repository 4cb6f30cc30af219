//! Windows (`--from`/`--to`) and pieces (`--split`) of the export, made by
//! the `tband-perfetto` binary and read by Perfetto's trace processor: what
//! a window shows equals what the whole export shows in its time, cut to
//! it, and the pieces of a split together show the whole export.
//!
//! For each recording of `tests/corpus/` and `samples/`, a trace with a
//! stream buffer and a simulated trace of two cores with losses, the rows of `sched`, `thread_state`,
//! the IRQ slices, the track events' slices and instants and the counters
//! of the whole export, each cut to a window (a row that overlaps an edge
//! ends or begins there, a row still open at the window's end is open
//! there too, and each counter's last value before the window is its value
//! at the start), equal the window's own rows, exactly. What a window
//! cannot show the same way is left out of the comparison, on both sides:
//! the end state of a `sched` row open at the window's end (the window
//! does not know it yet); the priority of `sched` rows, which Perfetto
//! numbers against the highest priority the export holds (the `Priority`
//! counters are compared); a runnable task that was preempted before the
//! window, which a window can only show runnable (`R` for `R+`), and a
//! task deleted before it, which it shows as a zombie (`Z` for `X`); the
//! nesting depth of the trace-health regions, which lie on lanes of their
//! own. The book's Perfetto page says the same. A recording whose times
//! pass i64::MAX ns, after which Perfetto drops events, is left out.
//!
//! The shell is found as [`shell::trace_processor`] says; the checks of
//! bad arguments need none.

mod common;
#[path = "../../tests/golden/harness.rs"]
mod harness;
#[path = "../../tests/trace_processor/shell.rs"]
mod shell;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use tband::Event;
use tband_decode::encode::encode_stream;
use tband_perfetto::events::TRACE_END;
use tband_perfetto::trace_processor::{self, Value};
use tband_trace::{OpenOptions, Trace};

/// The rows compared, each with its track or thread and what it shows,
/// then its start and duration: `sched`, `thread_state`, IRQ slices, other slices, and
/// counters (whose duration is none).
const QUERIES: [(Table, &str); 5] = [
    (
        Table::Sched,
        "SELECT s.cpu, t.tid, s.end_state, s.ts, s.dur
         FROM sched s JOIN thread t USING (utid)",
    ),
    (
        Table::ThreadState,
        "SELECT t.tid, s.state, s.ts, s.dur
         FROM thread_state s JOIN thread t USING (utid) WHERE t.tid <> 0",
    ),
    (
        Table::Irqs,
        "SELECT c.cpu, s.name, s.depth, s.ts, s.dur
         FROM slice s JOIN cpu_track c ON s.track_id = c.id WHERE c.type = 'cpu_irq'",
    ),
    (
        Table::Slices,
        "SELECT coalesce(th.tid, -1) AS tid, coalesce(p.name, '') AS grp,
           coalesce(k.name, '') AS track, s.name,
           CASE WHEN k.name = 'Trace health' THEN -1 ELSE s.depth END AS depth, s.ts, s.dur
         FROM slice s JOIN track k ON s.track_id = k.id
         LEFT JOIN thread_track tt ON tt.id = k.id
         LEFT JOIN thread th ON th.utid = tt.utid
         LEFT JOIN track p ON p.id = k.parent_id
         WHERE k.type <> 'cpu_irq'",
    ),
    (
        Table::Counters,
        "SELECT coalesce(th.tid, -1) AS tid, coalesce(p.name, '') AS grp, k.name, c.value, c.ts
         FROM counter c JOIN counter_track k ON c.track_id = k.id
         LEFT JOIN thread_counter_track tt ON tt.id = k.id
         LEFT JOIN thread th ON th.utid = tt.utid
         LEFT JOIN track p ON p.id = k.parent_id",
    ),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Table {
    Sched,
    ThreadState,
    Irqs,
    Slices,
    Counters,
}

/// A row: its table, what it is on and shows (every field but its time),
/// its start and its end (`None`: open, or a counter value).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Row {
    table: Table,
    what: Vec<String>,
    start: i64,
    end: Option<i64>,
}

/// A window's bounds in ns, the end `None` for the end of the trace.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    from: i64,
    to: Option<i64>,
}

fn text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::Int(i) => i.to_string(),
        Value::Real(r) => r.to_string(),
        Value::Text(t) => t.clone(),
    }
}

/// `rows` without the instants that say where the trace ends, and their times.
fn without_trace_end(rows: Vec<Row>) -> (Vec<Row>, Vec<i64>) {
    let (ends, rows): (Vec<Row>, Vec<Row>) = rows.into_iter().partition(|r| {
        r.table == Table::Slices && r.what.get(3).is_some_and(|name| name == TRACE_END)
    });
    (rows, ends.iter().map(|r| r.start).collect())
}

/// The rows trace_processor reads from `pftrace`.
fn rows(shell: &Path, pftrace: &Path) -> Vec<Row> {
    let queries: Vec<(&str, &str)> = QUERIES.iter().map(|(_, q)| ("", *q)).collect();
    let sets = trace_processor::queries(shell, &queries, pftrace)
        .unwrap_or_else(|e| panic!("trace_processor failed on {}: {e}", pftrace.display()));
    let mut rows = Vec::new();
    for ((table, _), set) in QUERIES.iter().zip(sets) {
        for values in set.rows {
            let int = |v: &Value| match v {
                Value::Int(i) => *i,
                other => panic!("{table:?}: {other:?} is not a time"),
            };
            let row = match table {
                Table::Counters => {
                    let (ts, what) = values.split_last().expect("a counter has a time");
                    Row {
                        table: *table,
                        what: what.iter().map(text).collect(),
                        start: int(ts),
                        end: None,
                    }
                }
                _ => {
                    let n = values.len();
                    let (ts, dur) = (int(&values[n - 2]), int(&values[n - 1]));
                    let what = values[..n - 2].iter().map(text).collect();
                    Row {
                        table: *table,
                        what,
                        start: ts,
                        end: (dur >= 0).then_some(ts + dur),
                    }
                }
            };
            rows.push(row);
        }
    }
    rows
}

/// The rows of `rows` in `bounds`, as a window of that time shows them.
fn cut(rows: &[Row], bounds: Bounds) -> Vec<Row> {
    let Bounds { from, to } = bounds;
    let before_end = |t: i64| to.is_none_or(|to| t < to);
    let mut cut = Vec::new();
    // Each counter's last value before the window, unless it has one at
    // its start.
    let mut in_effect = BTreeMap::<(Table, Vec<String>), Row>::new();
    let track = |r: &Row| (r.table, r.what[..r.what.len() - 1].to_vec());
    for r in rows.iter().filter(|r| r.table == Table::Counters) {
        if r.start < from {
            match in_effect.get(&track(r)) {
                Some(last) if last.start > r.start => {}
                _ => {
                    in_effect.insert(track(r), r.clone());
                }
            }
        }
    }
    for r in rows.iter().filter(|r| r.table == Table::Counters) {
        if r.start == from {
            in_effect.remove(&track(r));
        }
        if r.start >= from && before_end(r.start) {
            cut.push(r.clone());
        }
    }
    cut.extend(in_effect.into_values().map(|r| Row { start: from, ..r }));

    for r in rows.iter().filter(|r| r.table != Table::Counters) {
        let end = r.end.unwrap_or(i64::MAX);
        let instant = r.end == Some(r.start);
        let overlaps = end > from || (instant && r.start >= from);
        if !before_end(r.start) || !overlaps {
            continue;
        }
        let mut row = r.clone();
        row.start = r.start.max(from);
        // Open at the window's end, or ended there: a window cannot tell
        // (it ends what is open at its end there, as a trace does).
        if to.is_some_and(|to| end >= to) {
            row.end = None;
            if row.table == Table::Sched {
                // The end state of a run open at the window's end.
                let last = row.what.len() - 1;
                row.what[last] = String::new();
            }
        }
        if row.table == Table::ThreadState && row.start == from {
            let state = match row.what[1].as_str() {
                "R+" => "R",
                "X" => "Z",
                other => other,
            };
            row.what[1] = state.into();
        }
        cut.push(row);
    }
    cut.sort();
    cut
}

/// The differences between `expected` and `actual` (sorted), a few of each.
fn differences(expected: &[Row], actual: &[Row]) -> Vec<String> {
    let mut left = BTreeMap::<&Row, i64>::new();
    for r in expected {
        *left.entry(r).or_default() += 1;
    }
    for r in actual {
        *left.entry(r).or_default() -= 1;
    }
    left.into_iter()
        .filter(|&(_, n)| n != 0)
        .take(12)
        .map(|(r, n)| {
            let what = if n > 0 { "missing" } else { "unexpected" };
            format!("{what}: {r:?}")
        })
        .collect()
}

/// The recordings of the corpus and the samples, a trace with a stream
/// buffer (which none of them has) and a simulated trace of two cores with
/// losses, the last two written to `dir`: the inputs of each.
fn traces(dir: &Path) -> Vec<Vec<String>> {
    let mut traces: Vec<Vec<String>> = harness::traces()
        .iter()
        .map(|t| harness::absolute(&t.args))
        .collect();
    let config = tband_sim::Config {
        seed: 7,
        cores: 2,
        size: 256 << 10,
        drops: Some(tband_sim::DropConfig::default()),
        ..tband_sim::Config::default()
    };
    traces.push(vec![stream_buffer_trace(dir)]);
    traces.push(common::simulated_inputs(&config, &dir.join("sim2.bin")));
    traces
}

/// A trace of two tasks taking turns to fill and drain a stream buffer,
/// written to `dir`: its file.
fn stream_buffer_trace(dir: &Path) -> String {
    let mut events = vec![
        (0, Event::TsResolutionNs { ns_per_ts: 1 }),
        (
            0,
            Event::TaskName {
                task_id: 1,
                name: b"writer",
            },
        ),
        (
            0,
            Event::TaskName {
                task_id: 2,
                name: b"reader",
            },
        ),
        (
            0,
            Event::StreamBufferName {
                buffer_id: 1,
                name: b"log",
            },
        ),
        (1, Event::TaskSwitchedIn { task_id: 1 }),
        (
            2,
            Event::StreamBufferCreated {
                buffer_id: 1,
                kind: 0,
            },
        ),
    ];
    let mut bytes = 0;
    for i in 0..40u64 {
        let t = 10 + i * 10;
        let task_id = 1 + (i % 2) as u32;
        events.push((t, Event::TaskSwitchedIn { task_id }));
        let event = if task_id == 1 {
            bytes += 7;
            Event::StreamBufferSend {
                buffer_id: 1,
                len_after: bytes,
            }
        } else {
            bytes -= 3;
            Event::StreamBufferReceive {
                buffer_id: 1,
                len_after: bytes,
            }
        };
        events.push((t + 1, event));
    }
    let path = dir.join("stream_buffer.bin");
    std::fs::write(&path, encode_stream(&events)).unwrap();
    path.display().to_string()
}

/// The pieces a split wrote next to `out` (`out.001.pftrace`, ...), in order.
fn pieces(out: &Path) -> Vec<PathBuf> {
    let dir = out.parent().unwrap();
    let stem = out.file_stem().unwrap().to_string_lossy().into_owned();
    let mut pieces: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with(&format!("{stem}.")) && name.ends_with(".pftrace") && p != out
        })
        .collect();
    pieces.sort();
    pieces
}

#[test]
fn windows_and_pieces_show_the_whole_export_cut_to_their_time() {
    let Some(shell) = shell::trace_processor() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tband-perfetto-windows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut report = Vec::new();
    let mut most_pieces = 0;
    for (n, inputs) in traces(&dir).iter().enumerate() {
        let model = Trace::open(inputs, &OpenOptions::default())
            .unwrap_or_else(|e| panic!("{inputs:?}: {e}"))
            .model;
        // Perfetto drops what comes after i64::MAX ns (a recording whose
        // clock jumps there), so the comparison would not be of the same.
        let Ok(end) = i64::try_from(model.info.duration_ns) else {
            continue;
        };
        let full = dir.join(format!("{n}.pftrace"));
        common::convert(inputs, &full, &[]);
        let (full_rows, full_end) = without_trace_end(rows(&shell, &full));
        assert_eq!(full_end, vec![end], "{inputs:?}: the export's end");
        let mut check = |what: String, bounds: Bounds, rows: Vec<Row>| {
            // Each export says where it ends: a window where it was cut.
            let (rows, ends) = without_trace_end(rows);
            if ends != vec![bounds.to.unwrap_or(end)] {
                report.push(format!(
                    "{} {what}: ends at {ends:?}, not at its end",
                    inputs.join(" ")
                ));
            }
            // Nothing before the window or after it, but where a task's
            // run ends at its end.
            let outside: Vec<String> = rows
                .iter()
                .filter(|r| {
                    let after = bounds.to.is_some_and(|to| {
                        let switched_out = matches!(r.table, Table::Sched | Table::ThreadState);
                        r.start > to || (r.start == to && !switched_out)
                    });
                    r.start < bounds.from || after
                })
                .take(12)
                .map(|r| format!("outside the window: {r:?}"))
                .collect();
            if !outside.is_empty() {
                report.push(format!(
                    "{} {what}:\n  {}",
                    inputs.join(" "),
                    outside.join("\n  ")
                ));
            }
            let mut rows = cut(&rows, bounds);
            rows.sort();
            let problems = differences(&cut(&full_rows, bounds), &rows);
            if !problems.is_empty() {
                report.push(format!(
                    "{} {what}:\n  {}",
                    inputs.join(" "),
                    problems.join("\n  ")
                ));
            }
        };

        for (from, to) in [
            (end / 3, Some(2 * end / 3)),
            (end / 2, None),
            (0, Some(end / 4)),
        ] {
            if to.is_some_and(|to| to <= from) || from >= end && from > 0 {
                continue;
            }
            let out = dir.join(format!("{n}.window.pftrace"));
            let mut args = vec!["--from".to_string(), from.to_string()];
            if let Some(to) = to {
                args.extend(["--to".to_string(), to.to_string()]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            common::convert(inputs, &out, &args);
            let bounds = Bounds { from, to };
            check(
                format!("--from {from} --to {to:?}"),
                bounds,
                rows(&shell, &out),
            );
        }

        // Pieces of a quarter of the export each, or of half of it where a
        // quarter is not above what each piece repeats (a small trace).
        let out = dir.join(format!("{n}.split.pftrace"));
        let split = [4, 2].into_iter().find(|parts| {
            let size = (std::fs::metadata(&full).unwrap().len() / parts).to_string();
            let output = Command::new(env!("CARGO_BIN_EXE_tband-perfetto"))
                .args(inputs)
                .args(["--split", &size, "-o"])
                .arg(&out)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                output.status.success() || stderr.contains("cannot hold what every piece repeats"),
                "{inputs:?} --split {size}: {stderr}"
            );
            output.status.success()
        });
        if split.is_none() {
            continue;
        }
        let pieces: Vec<Vec<Row>> = pieces(&out).iter().map(|p| rows(&shell, p)).collect();
        most_pieces = most_pieces.max(pieces.len());
        // Each piece starts at its first row (the state at its start).
        let starts: Vec<i64> = pieces
            .iter()
            .enumerate()
            .map(|(i, rows)| match i {
                0 => 0,
                _ => rows
                    .iter()
                    .map(|r| r.start)
                    .min()
                    .unwrap_or_else(|| panic!("{inputs:?}: piece {} is empty", i + 1)),
            })
            .collect();
        for (i, piece) in pieces.into_iter().enumerate() {
            let bounds = Bounds {
                from: starts[i],
                to: starts.get(i + 1).copied(),
            };
            assert!(
                bounds.to.is_none_or(|to| to > bounds.from),
                "{inputs:?}: piece {} starts at {} and ends at {:?}",
                i + 1,
                bounds.from,
                bounds.to
            );
            check(format!("piece {} ({bounds:?})", i + 1), bounds, piece);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        most_pieces >= 4,
        "no trace was split in four pieces or more"
    );
    assert!(
        report.is_empty(),
        "windows differ from the whole export:\n{}",
        report.join("\n")
    );
}

#[test]
fn bad_times_and_sizes_are_one_sentence_and_a_failure() {
    let trace = harness::root().join("tests/corpus/tband/freertos_small.bin");
    let dir = std::env::temp_dir().join(format!("tband-perfetto-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.pftrace");
    let out = out.to_str().unwrap();
    // The trace lasts 89.84 ms.
    let cases: [(&[&str], &str); 8] = [
        (
            &["--from", "89.84 ms"],
            "--from 89.84 ms is not before the end of the trace (89.84 ms)",
        ),
        (
            &["--to", "95ms"],
            "--to 95.00 ms is after the end of the trace (89.84 ms)",
        ),
        (
            &["--from", "50 ms", "--to", "40 ms"],
            "--to 40.00 ms is not after --from 50.00 ms",
        ),
        (&["--from", "soon"], "`soon` is not a time like 89.84 ms"),
        (&["--to", "3 min"], "`3 min` is not a time like 89.84 ms"),
        (&["--split", "0"], "--split needs a size above 0"),
        (&["--split", "lots"], "`lots` is not a size like 4096"),
        (
            &["--split", "100", "--from", "1 ms"],
            "pieces of 100 bytes cannot hold what every piece repeats",
        ),
    ];
    for (args, message) in cases {
        let output = Command::new(env!("CARGO_BIN_EXE_tband-perfetto"))
            .arg(&trace)
            .args(["-o", out])
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?} succeeded");
        // The sentence is the first line (after it, clap's errors add a hint).
        let first = stderr.lines().next().unwrap_or("");
        assert!(first.contains(message), "{args:?}: {stderr}");
        assert!(!Path::new(out).exists(), "{args:?} wrote {out}");
        assert!(pieces(Path::new(out)).is_empty(), "{args:?} wrote pieces");
    }
    let output = Command::new(env!("CARGO_BIN_EXE_tband-perfetto"))
        .arg(&trace)
        .args(["--split", "1M", "-o", "-"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "tband-perfetto: --split writes files named after -o FILE; give a file name, not -\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_window_is_split_from_its_start_to_its_end() {
    let trace = harness::root().join("tests/corpus/tband/freertos_small.bin");
    let dir = std::env::temp_dir().join(format!("tband-perfetto-split-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("part.pftrace");
    let stderr = common::convert(
        &[trace.display().to_string()],
        &out,
        &["--from", "20 ms", "--to", "60 ms", "--split", "8K"],
    );
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("piece ")).collect();
    assert!(lines.len() >= 2, "{stderr}");
    assert!(lines[0].contains(": 20.00 ms to "), "{stderr}");
    assert!(lines[lines.len() - 1].ends_with(" to 60.00 ms"), "{stderr}");
    assert_eq!(pieces(&out).len(), lines.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn times_as_the_summary_prints_them_are_nanoseconds() {
    let trace = harness::root().join("tests/corpus/tband/freertos_small.bin");
    let dir = std::env::temp_dir().join(format!("tband-perfetto-times-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let inputs = [trace.display().to_string()];
    let (printed, plain) = (dir.join("printed.pftrace"), dir.join("plain.pftrace"));
    common::convert(
        &inputs,
        &printed,
        &["--from", "20.50 ms", "--to", "61.25ms"],
    );
    common::convert(&inputs, &plain, &["--from", "20500000", "--to", "61250000"]);
    let whole = dir.join("whole.pftrace");
    common::convert(&inputs, &whole, &[]);
    let bytes = |p: &Path| std::fs::read(p).unwrap();
    assert_eq!(bytes(&printed), bytes(&plain));
    assert!(bytes(&printed).len() < bytes(&whole).len());
    std::fs::remove_dir_all(&dir).unwrap();
}
