//! The `tband-sim` binary: files, messages, errors, and the committed
//! samples that it must regenerate byte for byte.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_tband-sim");
const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tband-sim-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// The files a run reports on stdout (`path<TAB>N bytes` lines).
fn reported_files(out: &Output) -> Vec<String> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| l.split('\t').next().unwrap().to_owned())
        .collect()
}

#[test]
fn committed_samples_equal_a_fresh_generation() {
    let readme = std::fs::read_to_string(format!("{REPO}/samples/README.md")).unwrap();
    let commands: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("tband-sim "))
        .collect();
    assert!(commands.len() >= 2);
    let dir = scratch_dir("samples");
    std::fs::create_dir(dir.join("samples")).unwrap();
    let mut checked = 0;
    for cmd in commands {
        let args: Vec<&str> = cmd.split_whitespace().collect();
        let out = run_in(&dir, &args);
        assert!(out.status.success(), "{cmd}");
        for file in reported_files(&out) {
            let fresh = std::fs::read(dir.join(&file)).unwrap();
            let committed = std::fs::read(Path::new(REPO).join(&file))
                .unwrap_or_else(|e| panic!("{file} is not committed: {e}"));
            assert!(
                fresh == committed,
                "{file} is stale: rerun `tband-sim {cmd}`"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 3);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn several_cores_write_one_named_file_each() {
    let dir = scratch_dir("cores");
    let out = run_in(
        &dir,
        &[
            "--size", "20K", "--cores", "3", "--layout", "snapshot", "--drops", "-o", "t.bin",
        ],
    );
    assert!(out.status.success());
    assert_eq!(reported_files(&out), ["t.c0.bin", "t.c1.bin", "t.c2.bin"]);
    let total: u64 = ["t.c0.bin", "t.c1.bin", "t.c2.bin"]
        .iter()
        .map(|f| std::fs::metadata(dir.join(f)).unwrap().len())
        .sum();
    assert!(total >= 20 << 10);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("events") && stderr.contains("MB/s"),
        "{stderr}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_options_fail_with_one_sentence() {
    let dir = scratch_dir("errors");
    for (args, says) in [
        (&["--cores", "0"][..], "at least one core"),
        (&["--size", "12X"][..], "not a size"),
        (&["--ns-per-tick", "0"][..], "at least 1 ns"),
        (&["-o", "no/such/dir/t.bin"][..], "cannot create"),
    ] {
        let out = run_in(&dir, args);
        assert!(!out.status.success(), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn dash_writes_one_core_to_stdout() {
    let dir = scratch_dir("stdout");
    let out = run_in(&dir, &["--size", "8K", "-o", "-"]);
    assert!(out.status.success());
    let file = run_in(&dir, &["--size", "8K", "-o", "t.bin"]);
    assert_eq!(out.stdout, std::fs::read(dir.join("t.bin")).unwrap());
    assert_eq!(reported_files(&file), ["t.bin"]);
    let several = run_in(&dir, &["--size", "8K", "--cores", "2", "-o", "-"]);
    assert!(!several.status.success());
    assert!(String::from_utf8(several.stderr)
        .unwrap()
        .contains("need a file name"));
    std::fs::remove_dir_all(dir).unwrap();
}
