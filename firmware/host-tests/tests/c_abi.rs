//! C programs compiled with gcc against the `tband-c` static library
//! record traces that `tband-decode` reads back exactly as the programs
//! wrote them: one with the streaming backend, one with the post-mortem
//! backend (each library build in its own target directory).

use std::path::{Path, PathBuf};
use std::process::Command;

use tband_host_tests::{decode, run};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The target directory for builds this test starts (never the one cargo
/// is building the test in, whose lock it holds).
fn own_target_dir(name: &str) -> PathBuf {
    let base = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"));
    base.join(name)
}

/// Runs a command to its end; its stdout.
fn stdout_of(cmd: &mut Command) -> String {
    String::from_utf8_lossy(&run(cmd).stdout).into_owned()
}

/// Builds the static library with `features` and `env`, compiles
/// `c/<program>.c` against it, runs it with an output file and returns its
/// stdout and the file's decoded listing (`@ts kind fields`).
fn build_and_run(program: &str, features: &str, env: &[(&str, &str)]) -> (String, Vec<String>) {
    let target = own_target_dir(&format!("tband-c-{program}"));
    run(Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--manifest-path"])
        .arg(repo().join("tband-c/Cargo.toml"))
        .args(["--features", features])
        .arg("--target-dir")
        .arg(&target)
        .env("TBAND_CORES", "1")
        .envs(env.iter().copied()));
    let exe = target.join(program);
    run(Command::new("gcc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-o"])
        .arg(&exe)
        .arg(repo().join(format!("firmware/host-tests/c/{program}.c")))
        .arg("-I")
        .arg(repo().join("tband/include"))
        .arg(target.join("debug/libtband_c.a"))
        .args(["-lpthread", "-ldl", "-lm"]));
    let trace = target.join(format!("{program}.bin"));
    let stdout = stdout_of(Command::new(&exe).arg(&trace));
    let bytes = std::fs::read(&trace).unwrap();
    let listing = decode(&bytes, 0)
        .unwrap()
        .iter()
        .map(|f| {
            let ts = f.ts.map(|t| format!("@{t} ")).unwrap_or_default();
            format!("{ts}{} {}", f.kind.name(), f.fields)
        })
        .collect();
    (stdout, listing)
}

#[test]
fn streaming_c_program_trace_decodes_exactly() {
    let (stdout, listing) = build_and_run(
        "host_trace",
        "streaming,isr,markers,freertos,metadata-buf",
        &[("TBAND_MAX_STR_LEN", "20"), ("TBAND_DROP_CNT_EVERY", "0")],
    );
    assert_eq!(stdout, "stack margin 240\ndropped 1\n");
    assert_eq!(
        listing,
        [
            "@0 core_id core_id=0",
            "ts_resolution_ns ns_per_ts=1000",
            "isr_name isr_id=3 name=uart",
            "evtmarker_name evtmarker_id=1 name=work",
            "valmarker_name valmarker_id=2 name=level",
            "@0 core_id core_id=0",
            "@1 isr_enter isr_id=3",
            "@2 isr_exit isr_id=3",
            "@3 evtmarker_begin evtmarker_id=1 msg=a message longer tha",
            "@4 valmarker valmarker_id=2 val=-42",
            "@5 evtmarker_end evtmarker_id=1",
            "@6 evtmarker evtmarker_id=1 msg=",
            // ts 7 was refused: counted, and reported once it gets through.
            "@8 dropped_evt_cnt cnt=1",
            "@8 valmarker valmarker_id=2 val=2",
            "@9 valmarker valmarker_id=2 val=3",
            "@10 task_created task_id=1",
            "task_name task_id=1 name=worker",
            "@11 task_priority_set task_id=1 priority=4",
            "@12 queue_created queue_id=1",
            "queue_kind queue_id=1 kind=0",
            "@13 task_switched_in task_id=1",
            "@14 queue_send queue_id=1 len_after=1",
            "@15 queue_receive queue_id=1 len_after=0",
            "@16 task_valmarker valmarker_id=1 val=1000000",
            "heap_name heap_id=0 total_size=65536 name=sram",
            "@17 heap_alloc heap_id=0 addr=4294967312 size=48",
            "@18 heap_alloc heap_id=0 addr=0 size=1048576",
            "@19 heap_free heap_id=0 addr=4294967312 size=48",
            "task_stack_size task_id=1 size=256",
            "@20 task_stack_free task_id=1 free=240",
        ]
    );
}

#[test]
fn postmortem_c_program_keeps_the_last_events() {
    let (stdout, listing) = build_and_run(
        "postmortem_trace",
        "postmortem,markers,metadata-buf",
        &[("TBAND_BUF_BYTES", "64"), ("TBAND_DROP_CNT_EVERY", "0")],
    );
    assert_eq!(stdout, "");
    // Metadata first, then whole frames up to the last value recorded
    // before the stop: value 999 at ts 1000. These values are 8-byte
    // frames, so the 64-byte ring holds exactly 8 of them, all read: the
    // ring drops whole frames to make room.
    let values: Vec<_> = (992..1000)
        .map(|i| format!("@{} valmarker valmarker_id=1 val={i}", i + 1))
        .collect();
    let mut expected = vec![
        "ts_resolution_ns ns_per_ts=1".to_string(),
        "valmarker_name valmarker_id=1 name=step".to_string(),
    ];
    expected.extend(values);
    assert_eq!(listing, expected);
}
