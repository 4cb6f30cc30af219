//! Model pieces the export tests share.

use tband_model::{Task, TaskKind};

/// Task 4, "worker": the task the marker tests put their task-local tracks under.
pub fn worker_task() -> Task {
    Task::new(4, "worker", TaskKind::Normal)
}
