//! A fleet folder read by Apache Spark: simulated traces with different
//! tags, the network-buffer trace (for the object reports) and the memory
//! stream's trace (for the heap and stack reports) are exported,
//! the fleet form of every canned report (`queries/fleet/`) is run by Spark
//! SQL in local mode (`tests/spark/fleet.py`), and its rows, with each
//! trace's tags joined from `trace_info`, must be `tband-query --fleet`'s,
//! row for row.
//!
//! Without java or PySpark the test prints why and passes, unless
//! TBAND_REQUIRE_SPARK=1 (as in CI), where it fails.

#[path = "../../tests/lifetimes/net_buf_trace.rs"]
mod net_buf_trace;
#[path = "../../tests/memory/stream.rs"]
mod stream;

use std::process::Command;

use serde_json::Value;
use tband_decode::encode::encode_stream;
use tband_query::reports::CANNED;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/spark/fleet.py");
const FORMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../queries/fleet");

/// Budgets tight enough that the simulated traces break them.
const PARAMS: &[(&str, &str)] = &[
    ("ci/isr_budget", "max_ns=20000"),
    ("ci/task_budget", "max_load_pct=5"),
    ("ci/task_budget", "max_ready_ns=100000"),
    ("ci/heap_budget", "max_peak_bytes=256"),
];

/// Whether Spark can run here; says why not otherwise.
fn spark_ready() -> bool {
    let python = || {
        let o = Command::new("python3")
            .args(["-c", "import pyspark"])
            .output()
            .map_err(|e| format!("python3 is not available ({e})"))?;
        if o.status.success() {
            return Ok(());
        }
        let error = String::from_utf8_lossy(&o.stderr);
        Err(format!(
            "python3 cannot import pyspark ({}); install it with \
             `python3 -m pip install pyspark==4.3.0`",
            error.lines().last().unwrap_or("")
        ))
    };
    let why = match Command::new("java").arg("-version").output() {
        Err(e) => format!("java is not available ({e}); install a Java 17 runtime"),
        Ok(o) if !o.status.success() => "`java -version` fails".to_string(),
        Ok(_) => match python() {
            Ok(()) => return true,
            Err(why) => why,
        },
    };
    assert!(
        std::env::var("TBAND_REQUIRE_SPARK").as_deref() != Ok("1"),
        "{why}"
    );
    eprintln!("skipping the Spark fleet check: {why}");
    false
}

fn tband_query(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_tband-query"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// One simulated trace, written to `dir` as `NAME.bin` (`NAME.c<N>.bin` per
/// core); returns the TRACE argument of `tband-query export`.
fn simulate(dir: &std::path::Path, name: &str, config: tband_sim::Config) -> String {
    let (streams, _) = tband_sim::generate(&config).unwrap();
    let cores = streams.len() as u32;
    let files: Vec<String> = streams
        .iter()
        .enumerate()
        .map(|(core, bytes)| {
            let path =
                tband_sim::core_file_name(&dir.join(format!("{name}.bin")), core as u32, cores);
            std::fs::write(&path, bytes).unwrap();
            format!("{}@{core}", path.display())
        })
        .collect();
    files.join(",")
}

/// Equal values; reals within the rounding the reports apply (the engines
/// may round a value on a boundary of the last digit either way).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if a.is_f64() && b.is_f64() => (x - y).abs() <= 0.01 + 1e-9,
        _ => a == b,
    }
}

#[test]
fn spark_sql_over_a_fleet_folder_gives_tband_query_fleet_rows() {
    if !spark_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fleet = dir.path().join("fleet");
    let fleet_arg = fleet.to_str().unwrap();
    // Ids made of digits, as build numbers are: Spark must keep `trace` a
    // string.
    let traces = [
        ("811", 1, 1, None, "firmware=1.0 board=revA"),
        ("812", 2, 2, None, "firmware=1.0 board=revB"),
        ("813", 3, 1, Some(300), "firmware=1.1 board=revA"),
        ("814", 4, 2, None, "firmware=1.1 board=revB test=soak"),
    ];
    let mut exports = Vec::new();
    for (name, seed, cores, work, tags) in traces {
        let config = tband_sim::Config {
            seed,
            cores,
            size: 64 << 10,
            work_scale: work.map(|percent| tband_sim::WorkScale {
                task: "mtxlo0".into(),
                percent,
            }),
            ..tband_sim::Config::default()
        };
        exports.push((simulate(dir.path(), name, config), tags));
    }
    let net_buf = dir.path().join("815");
    std::fs::rename(net_buf_trace::write(&dir.path().join("ctf")), &net_buf).unwrap();
    exports.push((net_buf.display().to_string(), "firmware=2.0 board=qemu_x86"));
    let memory = dir.path().join("816.bin");
    std::fs::write(&memory, encode_stream(&stream::events())).unwrap();
    exports.push((memory.display().to_string(), "firmware=2.0 board=revB"));
    for (trace, tags) in &exports {
        let mut args = vec!["export", fleet_arg, trace];
        for tag in tags.split(' ') {
            args.extend(["--tag", tag]);
        }
        tband_query(&args);
    }

    let reports: Vec<&str> = CANNED.iter().map(|(name, _)| *name).collect();
    let o = Command::new("python3")
        .arg(SCRIPT)
        .args([fleet_arg, FORMS, "--tags", "firmware,board,test"])
        .args(PARAMS.iter().flat_map(|(_, p)| ["--param", p]))
        .args(&reports)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{SCRIPT}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let results: Vec<Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(results.len(), reports.len());

    for (spark, report) in results.iter().zip(&reports) {
        assert_eq!(spark["report"], *report);
        let fleet = |format| {
            let mut args = vec!["--fleet", fleet_arg, report, "--format", format];
            for (_, p) in PARAMS.iter().filter(|(r, _)| r == report) {
                args.extend(["--param", p]);
            }
            tband_query(&args)
        };
        let columns: Vec<String> = fleet("csv")
            .lines()
            .next()
            .unwrap()
            .split(',')
            .map(str::to_string)
            .collect();
        assert_eq!(spark["columns"], serde_json::json!(columns), "{report}");
        let fleet_rows: Vec<serde_json::Map<String, Value>> =
            serde_json::from_str(&fleet("json")).unwrap();
        let expected: Vec<Value> = fleet_rows
            .iter()
            .map(|row| Value::Array(columns.iter().map(|c| row[c].clone()).collect()))
            .collect();
        let rows = spark["rows"].as_array().unwrap();
        assert!(!rows.is_empty(), "{report}: no rows");
        assert_eq!(rows.len(), expected.len(), "{report}");
        for (spark_row, row) in rows.iter().zip(&expected) {
            let same = spark_row
                .as_array()
                .unwrap()
                .iter()
                .zip(row.as_array().unwrap())
                .all(|(a, b)| same_value(a, b));
            assert!(same, "{report}: Spark {spark_row} vs tband-query {row}");
        }
    }
}
