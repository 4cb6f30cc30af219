//! A fleet folder read by Apache Spark: simulated traces with different
//! tags are exported, every fleet form of a canned report
//! (`queries/fleet/*.sql`) is run by Spark SQL in local mode
//! (`tests/spark/fleet.py`), and its rows, with each trace's tags joined
//! from `trace_info`, must be `tband-query --fleet`'s, row for row.
//!
//! Without java or PySpark the test prints why and passes, unless
//! TBAND_REQUIRE_SPARK=1 (as in CI), where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/spark/fleet.py");
const FORMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../queries/fleet");

/// Whether Spark can run here; says why not otherwise.
fn spark_ready() -> bool {
    let java = Command::new("java").arg("-version").output();
    let pyspark = Command::new("python3")
        .args(["-c", "import pyspark"])
        .output();
    let why =
        match (java, pyspark) {
            (Ok(j), _) if !j.status.success() => "java does not run".to_string(),
            (Err(e), _) => {
                format!("java is not available ({e}); install a JRE (openjdk-17-jre-headless)")
            }
            (_, Ok(p)) if p.status.success() => return true,
            (_, Ok(p)) => format!(
            "python3 cannot import pyspark ({}); install it with `python3 -m pip install pyspark`",
            String::from_utf8_lossy(&p.stderr).lines().last().unwrap_or("")
        ),
            (_, Err(e)) => format!("python3 is not available ({e})"),
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
fn simulate(dir: &Path, name: &str, config: tband_sim::Config) -> String {
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

fn forms() -> Vec<PathBuf> {
    let mut forms: Vec<PathBuf> = std::fs::read_dir(FORMS)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .collect();
    forms.sort();
    assert!(!forms.is_empty(), "no fleet form in {FORMS}");
    forms
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
        let trace = simulate(dir.path(), name, config);
        let mut args = vec!["export", fleet_arg, &trace];
        for tag in tags.split(' ') {
            args.extend(["--tag", tag]);
        }
        tband_query(&args);
    }

    let forms = forms();
    let o = Command::new("python3")
        .arg(SCRIPT)
        .arg(&fleet)
        .args(["--tags", "firmware,board,test"])
        .args(&forms)
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
    assert_eq!(results.len(), forms.len());

    for spark in &results {
        let report = spark["report"].as_str().unwrap();
        let columns: Vec<String> = tband_query(&["--fleet", fleet_arg, report, "--format", "csv"])
            .lines()
            .next()
            .unwrap()
            .split(',')
            .map(str::to_string)
            .collect();
        assert_eq!(spark["columns"], serde_json::json!(columns), "{report}");
        let fleet_rows: Vec<serde_json::Map<String, Value>> =
            serde_json::from_str(&tband_query(&[
                "--fleet", fleet_arg, report, "--format", "json",
            ]))
            .unwrap();
        let expected: Vec<Value> = fleet_rows
            .iter()
            .map(|row| Value::Array(columns.iter().map(|c| row[c].clone()).collect()))
            .collect();
        let rows = spark["rows"].as_array().unwrap();
        assert!(rows.len() > 4, "{report}: {} rows", rows.len());
        assert_eq!(rows.len(), expected.len(), "{report}");
        for (spark_row, row) in rows.iter().zip(&expected) {
            assert_eq!(spark_row, row, "{report}: Spark's row, then tband-query's");
        }
    }
}
