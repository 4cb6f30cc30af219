//! `--elf` that cannot serve: a missing file or a file that is not an ELF
//! each stop the opening with one sentence naming the file; an ELF without
//! defmt's table opens (it may still locate faults); without `--elf` a
//! trace opens as before. (The QEMU
//! embassy test decodes a real firmware's lines.)

use std::path::{Path, PathBuf};

use tband_model::AnomalyKind;
use tband_trace::{OpenOptions, Trace};

fn open_with_elf(elf: &Path) -> Result<Trace, String> {
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/../samples/demo.bin");
    let options = OpenOptions {
        elf: Some(elf.to_path_buf()),
        ..OpenOptions::default()
    };
    Trace::open(&[demo.to_string()], &options).map_err(|e| e.to_string())
}

#[test]
fn an_elf_that_cannot_serve_is_told_in_one_sentence() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let missing = dir.join("no-such-firmware.elf");
    let text = dir.join("firmware.txt");
    std::fs::write(&text, "not a firmware").unwrap();
    for (elf, why) in [(&missing, "No such file"), (&text, "it is not an ELF file")] {
        let message = open_with_elf(elf).err().expect("the ELF is refused");
        let start = format!("{}: cannot read the firmware's ELF: ", elf.display());
        assert!(message.starts_with(&start), "{message}");
        assert!(message.contains(why), "{message}");
        assert_eq!(message.lines().count(), 1, "{message}");
    }
}

#[test]
fn an_elf_without_defmt_opens() {
    // This test's own program: an ELF, without defmt.
    let no_defmt: PathBuf = std::env::current_exe().unwrap();
    let model = open_with_elf(&no_defmt).unwrap().model;
    assert!(model.logs.is_empty());
}

#[test]
fn a_trace_without_log_lines_opens_as_before() {
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/../samples/demo.bin");
    let model = Trace::open(&[demo.to_string()], &OpenOptions::default())
        .unwrap()
        .model;
    assert!(model.logs.is_empty());
    assert_eq!(model.anomaly_count(AnomalyKind::UndecodedLogs), 0);
}
