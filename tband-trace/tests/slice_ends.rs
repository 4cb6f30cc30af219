//! On every recording, of every format, each scheduling slice ends in the
//! state its task is in at the slice's end as the task states tell it, and
//! a task has waited exactly when one of its states is blocked or suspended.

use std::collections::HashMap;

use tband_model::{Model, StateReason, TaskStateKind};
use tband_trace::{OpenOptions, Trace};

/// Every recording of the corpus and every sample, as the tools are given them.
const RECORDINGS: &[&[&str]] = &[
    &["tests/corpus/tband/freertos_small.bin"],
    &["tests/corpus/tband/freertos_lossy.bin"],
    &["tests/corpus/tband/baremetal_basic.bin"],
    &["tests/corpus/tband/baremetal_longstr.bin"],
    &[
        "tests/corpus/tband/baremetal_2core_c0.bin",
        "tests/corpus/tband/baremetal_2core_c1.bin@1",
    ],
    &[
        "tests/corpus/tband/baremetal_2core_snap_c0.bin",
        "tests/corpus/tband/baremetal_2core_snap_c1.bin@1",
    ],
    &["tests/corpus/threadx/threadx_demo_small.trx"],
    &["tests/corpus/threadx/threadx_demo_startup.trx"],
    &["tests/corpus/threadx/tracex_samples/demo_threadx.trx"],
    &["tests/corpus/threadx/tracex_samples/demo_filex.trx"],
    &["tests/corpus/zephyr_ctf/hello_sem"],
    &["tests/corpus/zephyr_ctf/workload"],
    &["samples/demo.bin"],
    &["samples/demo_2core.c0.bin", "samples/demo_2core.c1.bin@1"],
    &["samples/qemu_lm3s6965.bin"],
];

type End = (Option<TaskStateKind>, StateReason);

/// Each slice's end as the task states tell it: the state and reason of
/// the last of its task's states that starts at or before its end (none
/// for a truncated slice).
fn ends_from_states(m: &Model) -> Vec<End> {
    let mut states: HashMap<u32, Vec<(u64, End)>> = HashMap::new();
    for s in m.task_states.iter() {
        let end = (Some(s.state), s.reason);
        states.entry(s.task).or_default().push((s.start_ns, end));
    }
    m.sched_slices
        .iter()
        .map(|slice| {
            let of_task = states.get(&slice.task).map_or(&[][..], Vec::as_slice);
            let started = of_task.partition_point(|&(start, _)| start <= slice.end_ns);
            match started.checked_sub(1) {
                Some(last) if !slice.truncated => of_task[last].1,
                _ => (None, StateReason::None),
            }
        })
        .collect()
}

#[test]
fn slices_end_in_their_tasks_state_at_their_end_and_tasks_waited_if_a_state_says_so() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../");
    let mut slices = 0;
    for recording in RECORDINGS {
        let args: Vec<String> = recording.iter().map(|a| format!("{root}{a}")).collect();
        let m = Trace::open(&args, &OpenOptions::default())
            .unwrap_or_else(|e| panic!("{recording:?}: {e}"))
            .model;
        let ends: Vec<End> = m
            .sched_slices
            .iter()
            .map(|s| (s.end_state, s.end_reason))
            .collect();
        assert_eq!(ends, ends_from_states(&m), "{recording:?}");
        slices += ends.len();
        for (i, task) in (0..).zip(&m.tasks) {
            let waits = m
                .task_states
                .iter()
                .any(|s| s.task == i && s.state.is_waiting());
            assert_eq!(task.ever_waited, waits, "{recording:?} {}", task.name);
        }
    }
    assert!(slices > 3_000, "{slices} slices");
}
