//! For the embassy tests: futures that count their polls and yield once,
//! and what the tests read from a trace's model, the polls of each task
//! and whether a task waited.
//!
//! Each poll is a running slice of its task that follows its executor's
//! slice (the executor picked it). A poll interrupted by an interrupt
//! executor goes on in a second slice, which follows that executor's going
//! idle (blocked): a resumption, not a poll.

use std::collections::BTreeMap;

use tband_model::{Model, TaskStateKind};
pub use tband_poll_count::{counted, yield_once};

/// Opens the per-core traces `(core, bytes)` and builds their model.
pub fn model_of(cores: &[(usize, Vec<u8>)]) -> Model {
    let dir = std::env::temp_dir().join(format!("tband-embassy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let args: Vec<String> = cores
        .iter()
        .map(|(core, bytes)| {
            let path = dir.join(format!("core{core}.bin"));
            std::fs::write(&path, bytes).unwrap();
            format!("{}@{core}", path.display())
        })
        .collect();
    let trace = tband_trace::Trace::open(&args, &tband_trace::OpenOptions::default());
    std::fs::remove_dir_all(&dir).unwrap();
    trace.expect("the trace opens").model
}

/// Polls per task name, for the tasks named in `tasks`.
pub fn polls_per_task(model: &Model, tasks: &[&str]) -> BTreeMap<String, u32> {
    let mut polls: BTreeMap<String, u32> = tasks.iter().map(|t| (t.to_string(), 0)).collect();
    let mut previous_end_state = BTreeMap::new();
    for slice in &model.sched_slices {
        let name = &model.tasks[slice.task as usize].name;
        let resumed = previous_end_state.get(&slice.core_id) == Some(&Some(TaskStateKind::Blocked));
        if let Some(count) = polls.get_mut(name) {
            if !resumed {
                *count += 1;
            }
        }
        previous_end_state.insert(slice.core_id, slice.end_state);
    }
    polls
}

/// Whether the task named `name` ever waited (blocked) between polls.
pub fn waited(model: &Model, name: &str) -> bool {
    model
        .tasks
        .iter()
        .any(|task| task.name == name && task.ever_waited)
}
