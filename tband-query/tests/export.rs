//! Parquet export: the files read back with the parquet crate hold the rows
//! and types of the SQL tables; the command lays them out by table and trace.

#[path = "../../tests/memory/stream.rs"]
mod stream;

use std::fs::File;
use std::path::Path;
use std::process::Command;

use arrow_array::{Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use tband_decode::encode::encode_stream;
use tband_query::export::{self, Tag};
use tband_query::schema::{ColumnType, Table};
use tband_query::tables::TraceInfo;
use tband_query::{engine, Engine, Value};
use tband_trace::input::Input;
use tband_trace::{OpenOptions, Trace};

fn simulated(cores: u32) -> Vec<Vec<u8>> {
    let config = tband_sim::Config {
        cores,
        size: 192 << 10,
        wide_values: true,
        ..tband_sim::Config::default()
    };
    tband_sim::generate(&config).unwrap().0
}

fn model(streams: &[Vec<u8>]) -> tband_model::Model {
    let inputs = Input::per_core("sim", streams.to_vec());
    Trace::from_inputs(inputs, &OpenOptions::default())
        .unwrap()
        .model
}

/// A Parquet file's column names, types and rows.
fn read(path: &Path) -> (Vec<(String, DataType)>, Vec<Vec<Value>>) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
    let columns = builder
        .schema()
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect();
    let mut rows = Vec::new();
    for batch in builder.build().unwrap() {
        let batch: RecordBatch = batch.unwrap();
        for r in 0..batch.num_rows() {
            let row = batch
                .columns()
                .iter()
                .map(|c| {
                    if c.is_null(r) {
                        Value::Null
                    } else if let Some(ints) = c.as_any().downcast_ref::<Int64Array>() {
                        Value::Int(ints.value(r))
                    } else {
                        let texts = c.as_any().downcast_ref::<StringArray>().unwrap();
                        Value::Text(texts.value(r).to_string())
                    }
                })
                .collect();
            rows.push(row);
        }
    }
    (columns, rows)
}

#[test]
fn every_table_reads_back_as_its_sql_rows_and_types() {
    for cores in [1, 2] {
        let streams = simulated(cores);
        let tables = export::tables();
        let mut db = Engine::Sqlite.open(None).unwrap();
        engine::load(db.as_mut(), &model(&streams), &tables).unwrap();

        let dir = tempfile::tempdir().unwrap();
        let tags = ["firmware=1.4.2", "board=revB"].map(|t| t.parse::<Tag>().unwrap());
        let written = export::export(dir.path(), "sim", model(&streams), &tags).unwrap();

        let mut rows_read = 0;
        let mut bytes = 0;
        for table in &tables {
            let path = export::file(dir.path(), table.name(), "sim");
            bytes += std::fs::metadata(&path).unwrap().len();
            let (columns, rows) = read(&path);
            let sql = db
                .query(&format!("SELECT * FROM {}", table.name()), &[])
                .unwrap();
            let names: Vec<&str> = columns.iter().map(|(n, _)| n.as_str()).collect();
            let expected: Vec<DataType> = table
                .columns()
                .iter()
                .map(|c| match c.ty {
                    ColumnType::BigInt => DataType::Int64,
                    ColumnType::Text => DataType::Utf8,
                })
                .collect();
            let types: Vec<DataType> = columns.iter().map(|(_, t)| t.clone()).collect();
            if table.name() == TraceInfo.name() {
                assert_eq!(names[sql.columns.len()..], ["firmware", "board"]);
                assert_eq!(rows.len(), 1);
                assert_eq!(
                    rows[0][sql.columns.len()..],
                    [Value::Text("1.4.2".into()), Value::Text("revB".into())]
                );
                let own: Vec<Vec<Value>> = rows
                    .iter()
                    .map(|r| r[..sql.columns.len()].to_vec())
                    .collect();
                assert_eq!(own, sql.rows);
                assert_eq!(types[..expected.len()], expected);
            } else {
                assert_eq!(names, sql.columns, "{}", table.name());
                assert_eq!(types, expected, "{}", table.name());
                assert_eq!(rows.len(), sql.rows.len(), "{}", table.name());
                assert!(rows == sql.rows, "{}: rows differ", table.name());
            }
            rows_read += rows.len() as u64;
        }
        assert!(rows_read > 10_000, "{rows_read}");
        assert_eq!(written.rows, rows_read);
        assert_eq!(written.bytes, bytes);
    }
}

#[test]
fn the_command_writes_hive_folders_by_table_and_trace() {
    let dir = tempfile::tempdir().unwrap();
    let streams = simulated(2);
    let mut args = vec![];
    for (i, s) in streams.iter().enumerate() {
        let path = dir.path().join(format!("board-a.c{i}.bin"));
        std::fs::write(&path, s).unwrap();
        args.push(format!("{}@{i}", path.display()));
    }
    let single = dir.path().join("single.bin");
    std::fs::write(&single, &simulated(1)[0]).unwrap();
    let out = dir.path().join("fleet");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_tband-query"))
            .arg("export")
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&[
        &args.join(","),
        single.to_str().unwrap(),
        "--tag",
        "board=revB",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines = String::from_utf8(o.stdout).unwrap();
    assert!(lines.starts_with("trace=board-a\t"), "{lines}");
    assert!(
        lines.lines().nth(1).unwrap().starts_with("trace=single\t"),
        "{lines}"
    );
    for table in export::tables() {
        for id in ["board-a", "single"] {
            assert!(
                export::file(&out, table.name(), id).is_file(),
                "{} {id}",
                table.name()
            );
        }
    }
    let (_, cores) = read(&export::file(&out, "cores", "board-a"));
    assert_eq!(cores.len(), 2);
    let (columns, info) = read(&export::file(&out, "trace_info", "single"));
    assert_eq!(columns.last().unwrap().0, "board");
    assert_eq!(info[0].last(), Some(&Value::Text("revB".into())));

    let o = run(&[single.to_str().unwrap(), single.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        "tband-query: two traces would be trace=single: their first files have the same name\n"
    );
    let o = run(&[single.to_str().unwrap(), "--tag", "cores=2"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn every_report_over_a_fleet_is_its_rows_on_each_trace_with_id_and_tags() {
    let dir = tempfile::tempdir().unwrap();
    let fleet = dir.path().join("fleet");
    let tband_query = |args: &[&str]| {
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
    };
    // The memory stream's trace, for rows of the heap and stack reports;
    // first, as the fleet gives traces in id order.
    let memory = dir.path().join("memory.bin");
    std::fs::write(&memory, encode_stream(&stream::events())).unwrap();
    let memory = memory.to_str().unwrap().to_string();
    tband_query(&[
        "export",
        fleet.to_str().unwrap(),
        &memory,
        "--tag",
        "firmware=1.1",
    ]);
    let mut traces = vec![("memory".to_string(), "1.1", memory)];
    for (seed, firmware) in [(1, "1.0"), (2, "1.0"), (3, "1.1")] {
        let config = tband_sim::Config {
            seed,
            size: 96 << 10,
            ..tband_sim::Config::default()
        };
        let path = dir.path().join(format!("run{seed}.bin"));
        std::fs::write(&path, &tband_sim::generate(&config).unwrap().0[0]).unwrap();
        let path = path.to_str().unwrap().to_string();
        let tag = format!("firmware={firmware}");
        tband_query(&["export", fleet.to_str().unwrap(), &path, "--tag", &tag]);
        traces.push((format!("run{seed}"), firmware, path));
    }
    // SQLite loads the traces one by one; DuckDB, when built in, reads the
    // folder at once and runs each report's fleet form.
    let engines: &[&str] = if cfg!(feature = "duckdb-engine") {
        &["sqlite", "duckdb"]
    } else {
        &["sqlite"]
    };
    for (report, _) in tband_query::reports::CANNED {
        let mut expected = Vec::new();
        let mut own_header = String::new();
        for (id, firmware, path) in &traces {
            let own = tband_query(&[path, report, "--format", "csv"]);
            let mut own = own.lines();
            own_header = format!("trace,firmware,{}", own.next().unwrap());
            expected.extend(own.map(|l| format!("{id},{firmware},{l}")));
        }
        for engine in engines {
            let merged = tband_query(&[
                "--fleet",
                fleet.to_str().unwrap(),
                "--engine",
                engine,
                report,
                "--format",
                "csv",
            ]);
            let mut lines = merged.lines();
            assert_eq!(lines.next().unwrap(), own_header, "{report} on {engine}");
            assert_eq!(lines.collect::<Vec<_>>(), expected, "{report} on {engine}");
        }
    }
    if cfg!(feature = "duckdb-engine") {
        // SQL of one's own runs once over every trace of the folder.
        let per_firmware = tband_query(&[
            "--fleet",
            fleet.to_str().unwrap(),
            "-e",
            "SELECT i.firmware, COUNT(*) AS slices, COUNT(DISTINCT s.trace) AS traces \
             FROM isr_slices s JOIN trace_info i USING (trace) GROUP BY i.firmware ORDER BY 1",
            "--format",
            "csv",
        ]);
        let count = |path: &str| {
            let out = tband_query(&[
                path,
                "-e",
                "SELECT COUNT(*) FROM isr_slices",
                "--format",
                "csv",
            ]);
            out.lines().nth(1).unwrap().parse::<u64>().unwrap()
        };
        let (old, new): (Vec<_>, Vec<_>) = traces.iter().partition(|(_, f, _)| *f == "1.0");
        let sum = |t: &[&(String, &str, String)]| t.iter().map(|(_, _, p)| count(p)).sum::<u64>();
        assert_eq!(
            per_firmware,
            format!(
                "firmware,slices,traces\n1.0,{},2\n1.1,{},2\n",
                sum(&old),
                sum(&new)
            )
        );
    }
}
