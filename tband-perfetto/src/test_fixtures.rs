//! Model pieces the export tests share.

use tband_model::{Task, TaskKind};

/// Task 4, "worker": the task the marker tests put their task-local tracks under.
pub fn worker_task() -> Task {
    Task {
        task_id: 4,
        name: "worker".into(),
        kind: TaskKind::Normal,
        created_ns: None,
        deleted_ns: None,
        stack_size: None,
        ever_waited: false,
    }
}
