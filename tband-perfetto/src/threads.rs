//! How tasks appear to Perfetto: as threads of one process, with Linux-style
//! thread ids and priorities.

use tband_model::{Iter, Model, PriorityOrder, TaskKind, TaskPriority};

/// The process every task belongs to.
pub const PID: i32 = 1;

/// Linux's idle ("swapper") thread id; every core's idle task maps to it.
pub const IDLE_TID: i32 = 0;

/// Thread ids and priorities of a model's tasks.
pub struct Threads<'m> {
    model: &'m Model,
    /// Thread id by task index.
    tids: Vec<i32>,
    /// Highest RTOS priority in the trace, for inverting priorities.
    max_priority: u32,
    rtos_higher_is_more_important: bool,
}

impl<'m> Threads<'m> {
    pub fn new(model: &'m Model) -> Self {
        let tids = model
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| match t.kind {
                TaskKind::Idle => IDLE_TID,
                _ => i32::try_from(i).map_or(i32::MAX, |i| i.saturating_add(2)),
            })
            .collect();
        Threads {
            model,
            tids,
            max_priority: model
                .task_priorities
                .iter()
                .map(|p| p.priority)
                .max()
                .unwrap_or(0),
            rtos_higher_is_more_important: model.info.priority_order
                == PriorityOrder::HigherIsMoreImportant,
        }
    }

    /// The thread id of the task at index `task` of `model.tasks`: 0 for
    /// idle tasks, else 2 + its index (so no task shares the process id).
    pub fn tid(&self, task: u32) -> i32 {
        self.tid_at(Some(task as usize))
    }

    /// The thread id of the task at `task_index` (0 for none).
    pub fn tid_at(&self, task_index: Option<usize>) -> i32 {
        task_index
            .and_then(|i| self.tids.get(i).copied())
            .unwrap_or(IDLE_TID)
    }

    /// The name Perfetto shows for the task at `task_index` (empty for none).
    pub fn comm_at(&self, task_index: Option<usize>) -> &'m str {
        let model: &'m Model = self.model;
        task_index
            .and_then(|i| model.tasks.get(i))
            .map_or("", |t| t.name.as_str())
    }

    /// An RTOS priority as a Linux priority (lower is more important). An
    /// unknown priority counts as the least important one seen.
    pub fn linux_prio(&self, rtos_priority: Option<u32>) -> i32 {
        let p = rtos_priority.unwrap_or(if self.rtos_higher_is_more_important {
            0
        } else {
            self.max_priority
        });
        let linux = if self.rtos_higher_is_more_important {
            self.max_priority.saturating_sub(p)
        } else {
            p
        };
        i32::try_from(linux).unwrap_or(i32::MAX)
    }
}

/// The RTOS priority of each task as time advances (walks
/// `model.task_priorities` with a cursor; times must not go backwards).
pub struct PriorityCursor<'m> {
    changes: Iter<'m, TaskPriority>,
    /// The next change not applied yet (each row is unpacked once).
    next: Option<TaskPriority>,
    /// Its time (`u64::MAX` when there is none), so that asking between
    /// changes costs one comparison.
    next_ts: u64,
    /// By task index.
    current: Vec<Option<u32>>,
}

impl<'m> PriorityCursor<'m> {
    pub fn new(model: &'m Model) -> Self {
        let mut cursor = PriorityCursor {
            changes: model.task_priorities.iter(),
            next: None,
            next_ts: u64::MAX,
            current: vec![None; model.tasks.len()],
        };
        cursor.read_next();
        cursor
    }

    fn read_next(&mut self) {
        self.next = self.changes.next();
        self.next_ts = self.next.map_or(u64::MAX, |p| p.ts_ns);
    }

    /// The priority of `task_index` at `t` (changes at `t` included).
    #[inline]
    pub fn at(&mut self, t: u64, task_index: Option<usize>) -> Option<u32> {
        if t >= self.next_ts {
            self.apply_until(t);
        }
        task_index.and_then(|i| self.current.get(i).copied().flatten())
    }

    /// Applies the changes up to `t`.
    fn apply_until(&mut self, t: u64) {
        while let Some(p) = self.next.filter(|p| p.ts_ns <= t) {
            if let Some(slot) = self.current.get_mut(p.task as usize) {
                *slot = Some(p.priority);
            }
            self.read_next();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tband_model::{PriorityCause, Task, TaskPriority};

    fn task(task_id: u32, kind: TaskKind) -> Task {
        Task::new(task_id, format!("t{task_id}"), kind)
    }

    fn model() -> Model {
        let mut m = Model::default();
        m.info.format = "tband".into();
        m.info.priority_order = tband_model::PriorityOrder::HigherIsMoreImportant;
        m.tasks = vec![
            task(3, TaskKind::Idle),
            task(7, TaskKind::Normal),
            task(9, TaskKind::Normal),
        ];
        // Tasks 7 and 9 are at indices 1 and 2.
        for (ts_ns, task, priority) in [(0, 1, 1), (0, 2, 4), (50, 1, 5)] {
            m.task_priorities.push(TaskPriority {
                ts_ns,
                task,
                priority,
                cause: PriorityCause::Set,
            });
        }
        m
    }

    #[test]
    fn idle_tasks_are_tid_0_and_others_never_the_pid() {
        let m = model();
        let t = Threads::new(&m);
        assert_eq!(t.tid(0), IDLE_TID);
        assert_eq!(t.tid(1), 3);
        assert_eq!(t.tid(2), 4);
        assert_eq!(t.tid_at(None), IDLE_TID);
        assert!((0..3).all(|i| t.tid(i) != PID));
    }

    #[test]
    fn freertos_priorities_are_inverted() {
        let m = model();
        let t = Threads::new(&m);
        assert_eq!(t.linux_prio(Some(5)), 0);
        assert_eq!(t.linux_prio(Some(1)), 4);
        assert_eq!(t.linux_prio(None), 5);
    }

    #[test]
    fn priority_cursor_follows_changes() {
        let m = model();
        let mut c = PriorityCursor::new(&m);
        assert_eq!(c.at(10, Some(1)), Some(1));
        assert_eq!(c.at(50, Some(1)), Some(5));
        assert_eq!(c.at(60, Some(0)), None);
    }
}
