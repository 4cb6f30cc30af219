//! The repository stands on its own: every recording the tests read is in
//! `tests/corpus/` and described in its README, and no file reaches outside
//! the clone for test data.

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn corpus() -> PathBuf {
    root().join("tests/corpus")
}

/// Every file below `dir`, skipping build output and version control.
fn files_below(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy();
        if path.is_dir() {
            if !matches!(
                name.as_ref(),
                ".git" | "target" | "book" | "node_modules" | "dist"
            ) {
                files_below(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

#[test]
fn the_corpus_readme_describes_every_recording() {
    let readme = fs::read_to_string(corpus().join("README.md")).unwrap();
    let mut files = Vec::new();
    files_below(&corpus(), &mut files);
    let recordings: Vec<_> = files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "bin" || e == "trx"))
        .collect();
    assert!(
        recordings.len() >= 12,
        "recordings are missing from tests/corpus"
    );
    for path in recordings {
        let stem = path.file_stem().unwrap().to_string_lossy();
        // The README names a pair of per-core files as `NAME_c0.bin`, `_c1.bin`.
        let named = readme.contains(&*stem)
            || stem
                .strip_suffix("_c1")
                .is_some_and(|pair| readme.contains(&format!("{pair}_c0.bin")));
        assert!(named, "tests/corpus/README.md does not describe {stem}");
    }
    for dir in ["hello_sem", "workload"] {
        let ctf = corpus().join("zephyr_ctf").join(dir);
        assert!(ctf.join("metadata").is_file() && ctf.join("channel0_0").is_file());
        assert!(
            readme.contains(&format!("`{dir}`")),
            "{dir} is not described"
        );
    }
}

#[test]
fn nothing_in_the_repository_reads_outside_the_clone() {
    // The folder beside the clone that holds the recordings' originals and
    // the test tools; spelled in two pieces so that this file does not match.
    let outside = ["shared", "/"].concat();
    let mut files = Vec::new();
    files_below(&root(), &mut files);
    let ci_script = root().join(".ci");
    let offenders: Vec<_> = files
        .iter()
        .filter(|p| !p.starts_with(&ci_script))
        .filter(|p| {
            fs::read(p)
                .ok()
                .and_then(|bytes| String::from_utf8(bytes).ok())
                .is_some_and(|text| text.contains(&outside))
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "these files name {outside} (only .ci/run may pass test tools in from there): {offenders:?}"
    );
}
