//! Runs the binary on real recordings and checks the output with Perfetto's
//! official schema (tests/check_perfetto.py, using the PyPI package
//! `perfetto`), against counts taken straight from the trace model.
//!
//! Without python3 or the package the test prints why and passes, unless
//! TBAND_REQUIRE_PYTHON=1 (as in CI), where it fails.

mod common;
#[path = "../../tests/rtos_objects/stream.rs"]
mod stream;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;
use tband_model::{Model, StateReason, TaskKind, TaskStateKind};
use tband_perfetto::threads::Threads;
use tband_trace::{OpenOptions, Trace};

const CONFORMANCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/tband");
const ZEPHYR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/zephyr_ctf");
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/check_perfetto.py");

/// Whether the checker can run here; says why not otherwise.
fn python_ready() -> bool {
    let probe = Command::new("python3")
        .args([
            "-c",
            "import google.protobuf.unknown_fields, perfetto.protos.perfetto.trace.perfetto_trace_pb2",
        ])
        .output();
    let why = match probe {
        Ok(o) if o.status.success() => return true,
        Ok(o) => format!(
            "python3 cannot import Perfetto's protos ({}); install them with `python3 -m pip install perfetto protobuf`",
            String::from_utf8_lossy(&o.stderr).lines().last().unwrap_or("")
        ),
        Err(e) => format!("python3 is not available ({e})"),
    };
    assert!(
        std::env::var("TBAND_REQUIRE_PYTHON").as_deref() != Ok("1"),
        "{why}"
    );
    eprintln!("skipping the official-schema check: {why}");
    false
}

/// The counts the export must show, computed from the model alone.
fn expected(model: &Model) -> serde_json::Value {
    let threads = Threads::new(model);
    let is_idle = |task: u32| model.is_idle(task);
    let mut sched_ns = std::collections::BTreeMap::<String, u64>::new();
    for s in model.sched_slices.iter().filter(|s| !is_idle(s.task)) {
        *sched_ns.entry(threads.tid(s.task).to_string()).or_default() += s.end_ns - s.start_ns;
    }
    let wakings = model
        .task_states
        .iter()
        .filter(|s| s.state == TaskStateKind::Ready && s.reason != StateReason::Preempted)
        .count();
    let waits = model
        .task_states
        .iter()
        .filter(|s| matches!(s.state, TaskStateKind::Blocked | TaskStateKind::Suspended))
        .filter(|s| !is_idle(s.task))
        .count();
    let anomaly_regions = model
        .anomalies
        .iter()
        .filter(|a| a.start_ns < a.end_ns)
        .count();
    let priorities = model
        .task_priorities
        .iter()
        .filter(|p| !is_idle(p.task))
        .count();
    let levels = model
        .queue_ops
        .iter()
        .filter(|o| o.len_after.is_some())
        .count();
    // Notifications show on the notified task's track: a task of the
    // model that is not idle.
    let objects = &model.rtos_objects;
    let notifications = (objects.notifications.iter())
        .filter(|n| (model.task_by_id(n.task_id)).is_some_and(|t| t.kind != TaskKind::Idle))
        .count();
    let object_instants = notifications + objects.event_group_ops.len() + objects.timer_ops.len();
    json!({
        "duration_ns": model.info.duration_ns,
        "sched_ns_by_tid": sched_ns,
        "switches_to_tasks": model.sched_slices.iter().filter(|s| !is_idle(s.task)).count(),
        "threads": model.tasks.iter().filter(|t| t.kind != TaskKind::Idle).count(),
        "wakings": wakings,
        "irqs": model.isr_slices.len(),
        "slices": waits + model.marker_spans.len() + model.mutex_holds.len() + anomaly_regions,
        // The last instant says where the trace ends.
        "instants": model.marker_instants.len() + model.anomalies.len() - anomaly_regions
            + object_instants + 1,
        "counter_values": model.marker_values.len() + levels + priorities
            + objects.stream_buffer_ops.len(),
    })
}

fn convert_and_check(dir: &Path, inputs: &[String], out_name: &str, extra_args: &[&str]) {
    let out: PathBuf = dir.join(out_name);
    common::convert(inputs, &out, extra_args);

    let trace = Trace::open(inputs, &OpenOptions::default()).unwrap();
    let expected_path = out.with_extension("expected.json");
    std::fs::write(&expected_path, expected(&trace.model).to_string()).unwrap();
    let result = Command::new("python3")
        .arg(SCRIPT)
        .arg(&out)
        .arg(&expected_path)
        .output()
        .unwrap();
    print!("{}", String::from_utf8_lossy(&result.stdout));
    assert!(
        result.status.success(),
        "check_perfetto.py found problems in {}:\n{}{}",
        out.display(),
        String::from_utf8_lossy(&result.stdout),
        String::from_utf8_lossy(&result.stderr)
    );
}

fn recording(name: &str) -> String {
    Path::new(CONFORMANCE).join(name).display().to_string()
}

#[test]
fn conformance_recordings_pass_the_official_schema_checks() {
    if !python_ready() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("tband-perfetto-schema-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in [
        "freertos_small",
        "freertos_lossy",
        "baremetal_basic",
        "baremetal_longstr",
    ] {
        let input = recording(&format!("{name}.bin"));
        convert_and_check(
            &dir,
            std::slice::from_ref(&input),
            &format!("{name}.pftrace"),
            &[],
        );
        convert_and_check(
            &dir,
            &[input],
            &format!("{name}.events.pftrace.gz"),
            &["--sched-format", "events"],
        );
    }
    for name in ["hello_sem", "workload"] {
        let input = Path::new(ZEPHYR)
            .join(name)
            .join("channel0_0")
            .display()
            .to_string();
        convert_and_check(&dir, &[input], &format!("zephyr_{name}.pftrace"), &[]);
    }
    for kind in ["2core", "2core_snap"] {
        let inputs =
            [0, 1].map(|c| format!("{}@{c}", recording(&format!("baremetal_{kind}_c{c}.bin"))));
        convert_and_check(&dir, &inputs, &format!("{kind}.pftrace"), &[]);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Notifications, an event group, a stream buffer and a timer: the tracks
/// of the RTOS objects.
#[test]
fn a_trace_with_rtos_objects_passes_the_official_schema_checks() {
    if !python_ready() {
        return;
    }
    let dir = std::env::temp_dir().join(format!(
        "tband-perfetto-schema-objects-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("objects.bin");
    std::fs::write(
        &trace,
        tband_decode::encode::encode_stream(&stream::events()),
    )
    .unwrap();
    let input = trace.display().to_string();
    convert_and_check(&dir, &[input], "objects.pftrace", &[]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_damaged_recording_passes_the_official_schema_checks() {
    if !python_ready() {
        return;
    }
    let dir = std::env::temp_dir().join(format!(
        "tband-perfetto-schema-damaged-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut bytes = std::fs::read(recording("freertos_lossy.bin")).unwrap();
    // Overwrite one byte in 100 with arbitrary values (a fixed LCG sequence).
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..bytes.len() / 100 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let at = (x >> 33) as usize % bytes.len();
        bytes[at] = (x >> 17) as u8;
    }
    let damaged = dir.join("damaged.bin");
    std::fs::write(&damaged, &bytes).unwrap();
    let input = damaged.display().to_string();
    convert_and_check(&dir, std::slice::from_ref(&input), "damaged.pftrace", &[]);
    convert_and_check(
        &dir,
        &[input],
        "damaged.events.pftrace",
        &["--sched-format", "events"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_simulated_two_core_trace_with_losses_passes_the_official_schema_checks() {
    if !python_ready() {
        return;
    }
    let dir =
        std::env::temp_dir().join(format!("tband-perfetto-schema-sim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = tband_sim::Config {
        size: 512 << 10,
        cores: 2,
        drops: Some(tband_sim::DropConfig::default()),
        // Counter values of every size, down to i64::MIN.
        wide_values: true,
        ..tband_sim::Config::default()
    };
    let inputs = common::simulated_inputs(&config, &dir.join("sim.bin"));
    convert_and_check(&dir, &inputs, "sim.pftrace", &[]);
    convert_and_check(
        &dir,
        &inputs,
        "sim.events.pftrace",
        &["--sched-format", "events"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
