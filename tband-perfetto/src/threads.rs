//! How tasks appear to Perfetto: as threads of one process, with Linux-style
//! thread ids and priorities.

use tband_model::{IdIndex, Iter, Model, PriorityOrder, TaskKind, TaskPriority};

/// The process every task belongs to.
pub const PID: i32 = 1;

/// Linux's idle ("swapper") thread id; every core's idle task maps to it.
pub const IDLE_TID: i32 = 0;

/// Ids below this are looked up in a vector (of at most 512 KiB).
pub const DENSE_IDS: usize = 1 << 16;

/// Where the rows of a model list (tasks, queues) are, by id.
pub fn rows_by_id(ids: impl Iterator<Item = u32>) -> IdIndex<u32, usize> {
    let mut rows = IdIndex::with_limit(DENSE_IDS);
    for (row, id) in ids.enumerate() {
        rows.insert(id, row);
    }
    rows
}

/// Thread ids and priorities of a model's tasks.
pub struct Threads<'m> {
    model: &'m Model,
    /// Thread id by task index.
    tids: Vec<i32>,
    /// Task index by task id.
    index_by_id: IdIndex<u32, usize>,
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
            index_by_id: rows_by_id(model.tasks.iter().map(|t| t.task_id)),
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

    /// Index of a task in `model.tasks`.
    #[inline]
    pub fn task_index(&self, task_id: u32) -> Option<usize> {
        self.index_by_id.get(task_id).copied()
    }

    /// The thread id of a task: 0 for idle tasks, else 2 + its index (so no
    /// task shares the process id).
    pub fn tid(&self, task_id: u32) -> i32 {
        self.tid_at(self.task_index(task_id))
    }

    /// The thread id of the task at `task_index` (0 for none).
    pub fn tid_at(&self, task_index: Option<usize>) -> i32 {
        task_index
            .and_then(|i| self.tids.get(i).copied())
            .unwrap_or(IDLE_TID)
    }

    /// The name Perfetto shows for a task.
    pub fn comm(&self, task_id: u32) -> &'m str {
        self.comm_at(self.task_index(task_id))
    }

    /// The name of the task at `task_index` (empty for none).
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
    pub fn at(&mut self, threads: &Threads<'_>, t: u64, task_index: Option<usize>) -> Option<u32> {
        if t >= self.next_ts {
            self.apply_until(threads, t);
        }
        task_index.and_then(|i| self.current.get(i).copied().flatten())
    }

    /// Applies the changes up to `t`.
    fn apply_until(&mut self, threads: &Threads<'_>, t: u64) {
        while let Some(p) = self.next.filter(|p| p.ts_ns <= t) {
            if let Some(slot) = threads
                .task_index(p.task_id)
                .and_then(|i| self.current.get_mut(i))
            {
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
        for (ts_ns, task_id, priority) in [(0, 7, 1), (0, 9, 4), (50, 7, 5)] {
            m.task_priorities.push(TaskPriority {
                ts_ns,
                task_id,
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
        assert_eq!(t.tid(3), IDLE_TID);
        assert_eq!(t.tid(7), 3);
        assert_eq!(t.tid(9), 4);
        assert_eq!(t.tid(42), IDLE_TID);
        assert_eq!(t.task_index(8), None);
        assert!((0..3).all(|i| t.tid(m.tasks[i].task_id) != PID));
    }

    #[test]
    fn large_task_ids_are_found_without_a_table() {
        let mut m = model();
        m.tasks.push(task(1 << 30, TaskKind::Normal));
        let t = Threads::new(&m);
        assert_eq!(t.task_index(1 << 30), Some(3));
        assert_eq!(t.task_index(9), Some(2));
        assert_eq!(t.task_index(8), None);
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
        let t = Threads::new(&m);
        let mut c = PriorityCursor::new(&m);
        let i7 = t.task_index(7);
        assert_eq!(c.at(&t, 10, i7), Some(1));
        assert_eq!(c.at(&t, 50, i7), Some(5));
        assert_eq!(c.at(&t, 60, t.task_index(3)), None);
    }
}
