//! Scheduling: the best ready task of a core, preemption requests (across
//! cores through the inter-core interrupt) and context switches.

use std::io::{self, Write};

use tband::Event;

use super::Simulator;
use crate::truth::{PriorityCause, TaskState, Ts};

impl<W: Write> Simulator<W> {
    pub(super) fn best_ready(&self, core: usize) -> Option<u32> {
        let mut best: Option<(u32, u32, u64)> = None;
        for &t in &self.cores[core].tasks {
            let task = &self.tasks[t as usize - 1];
            if task.state != TaskState::Ready {
                continue;
            }
            let better = match best {
                None => true,
                Some((_, prio, seq)) => {
                    task.prio > prio || (task.prio == prio && task.ready_seq < seq)
                }
            };
            if better {
                best = Some((t, task.prio, task.ready_seq));
            }
        }
        best.map(|(t, _, _)| t)
    }

    /// Whether a ready task should preempt the running task of `core`.
    pub(super) fn needs_preempt(&self, core: usize) -> bool {
        let cur = self.cores[core].current;
        let Some(best) = self.best_ready(core) else {
            return false;
        };
        if cur == 0 {
            return true;
        }
        let cur = &self.tasks[cur as usize - 1];
        !matches!(cur.state, TaskState::Running { .. })
            || self.tasks[best as usize - 1].prio > cur.prio
    }

    /// Asks `target` to reschedule: on the executing core at the next
    /// task-level moment, on another core through its inter-core interrupt.
    pub(super) fn request_yield(&mut self, executing: usize, target: usize) {
        if target == executing {
            self.cores[target].yield_pending = true;
            return;
        }
        let latency = self.gap();
        let now = self.now;
        if let Some(&ipi) = self.cores[target]
            .isrs
            .iter()
            .find(|&&i| self.isrs[i].period == 0)
        {
            let isr = &mut self.isrs[ipi];
            if isr.next_arrival == u64::MAX {
                isr.next_arrival = now + latency;
            }
        }
    }

    pub(super) fn check_preempt(&mut self, executing: usize, target: usize) {
        if self.needs_preempt(target) {
            self.request_yield(executing, target);
        }
    }

    /// The task `core` should run next if it is not the running one (which
    /// stays if it can still run and is not outranked, or equalled when
    /// the tick asked for time slicing).
    fn next_task(&mut self, core: usize) -> Option<u32> {
        let c = &mut self.cores[core];
        c.yield_pending = false;
        let slice = std::mem::take(&mut c.slice_pending);
        let cur = c.current;
        let best = self.best_ready(core)?;
        if cur != 0 {
            let task = &self.tasks[cur as usize - 1];
            let running = matches!(task.state, TaskState::Running { .. });
            let best_prio = self.tasks[best as usize - 1].prio;
            if running && (best_prio < task.prio || (best_prio == task.prio && !slice)) {
                return None;
            }
        }
        Some(best)
    }

    /// The pended context switch of `core`: like FreeRTOS it traces a
    /// switch-in even when the running task is chosen again.
    pub(super) fn context_switch(&mut self, core: usize) -> io::Result<()> {
        match self.next_task(core) {
            Some(next) => self.switch_to(core, next),
            None => {
                let task_id = self.cores[core].current;
                self.emit(core, Event::TaskSwitchedIn { task_id })?;
                Ok(())
            }
        }
    }

    /// Switches `core` to its best task if that is not the running one.
    pub(super) fn reschedule(&mut self, core: usize) -> io::Result<()> {
        match self.next_task(core) {
            Some(next) => self.switch_to(core, next),
            None => Ok(()),
        }
    }

    fn switch_to(&mut self, core: usize, next: u32) -> io::Result<()> {
        let cur = self.cores[core].current;
        if cur != 0 {
            self.charge_top(core);
            let task = &mut self.tasks[cur as usize - 1];
            if matches!(task.state, TaskState::Running { .. }) {
                task.state = TaskState::Ready;
                task.ready_seq = self.ready_seq;
                self.ready_seq += 1;
            }
        }
        let ts = self.emit(core, Event::TaskSwitchedIn { task_id: next })?;
        let core_id = core as u32;
        let running = TaskState::Running { core: core_id };
        if cur != 0 {
            let state = self.tasks[cur as usize - 1].state;
            self.record(|r| r.state(cur, state, ts));
        }
        self.record(|r| {
            r.switch(core_id, next, ts);
            r.state(next, running, ts);
        });
        let task = &mut self.tasks[next as usize - 1];
        task.state = running;
        if let Some(readied) = task.readied_at.take() {
            task.wake_latency = ts - readied;
        }
        let idle = self.system.idle_tasks[core];
        let c = &mut self.cores[core];
        if cur == idle {
            c.idle_time += ts - c.idle_since.take().unwrap_or(ts);
        }
        if next == idle {
            c.idle_since = Some(ts);
        }
        c.current = next;
        c.run_start = self.now;
        Ok(())
    }

    /// `t` became ready at `ts` (its event was emitted by the caller).
    pub(super) fn make_ready(&mut self, executing: usize, t: u32, ts: Ts) {
        let task = &mut self.tasks[t as usize - 1];
        task.state = TaskState::Ready;
        task.ready_seq = self.ready_seq;
        self.ready_seq += 1;
        task.readied_at = Some(ts);
        if task.wake_tick.take().is_some() {
            self.delayed.retain(|&d| d != t);
        }
        let target = task.core;
        self.record(|r| r.state(t, TaskState::Ready, ts));
        self.check_preempt(executing, target);
    }

    /// The running task of `core` announced `state` and gives up the core.
    pub(super) fn block(&mut self, core: usize, t: u32, state: TaskState) -> io::Result<()> {
        self.tasks[t as usize - 1].state = state;
        self.reschedule(core)
    }

    pub(super) fn set_priority(&mut self, t: u32, prio: u32, cause: PriorityCause, ts: Ts) {
        self.tasks[t as usize - 1].prio = prio;
        self.record(|r| r.priority(t, ts, prio, cause));
    }

    /// After `t`'s priority changed: the core it runs on or waits for may
    /// need another task.
    pub(super) fn after_priority_change(&mut self, executing: usize, t: u32) {
        let task = &self.tasks[t as usize - 1];
        match task.state {
            TaskState::Ready => self.check_preempt(executing, task.core),
            TaskState::Running { core } => self.check_preempt(executing, core as usize),
            _ => {}
        }
    }
}
