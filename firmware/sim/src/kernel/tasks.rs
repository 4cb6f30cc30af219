//! Task programs: running the next operation of the current task, and the
//! task-management calls (delay, suspend, resume, create, delete).

use std::io::{self, Write};

use tband::Event;

use super::queues::Wait;
use super::{Simulator, Task, FOREVER, MAX_CHILDREN};
use crate::program::{short_lived_program, Op};
use crate::truth::{BlockReason, PriorityCause, TaskInfo, TaskKind, TaskState, Ts};

impl<W: Write> Simulator<W> {
    pub(super) fn step_task(&mut self, core: usize) -> io::Result<()> {
        let t = self.cores[core].current;
        let task = &self.tasks[t as usize - 1];
        let pc = task.pc;
        let op = task.program[pc];
        let next = (pc + 1) % task.program.len();
        // Where the program goes on; a blocking op that must retry stays.
        let mut goto = Some(next);
        match op {
            Op::Compute { min, max } => {
                let mut d = self.rng.range(min, max);
                if let Some((_, percent)) = self.work_scale.filter(|&(task, _)| task == t) {
                    d = (d * percent / 100).max(1);
                }
                let task = &mut self.tasks[t as usize - 1];
                task.remaining = d;
                task.pc = next;
                self.cores[core].run_start = self.now;
                return Ok(());
            }
            Op::Idle => {
                self.tasks[t as usize - 1].remaining = FOREVER;
                self.cores[core].run_start = self.now;
                return Ok(());
            }
            Op::Delay { min, max } => {
                let ticks = self.rng.range(u64::from(min), u64::from(max)) as u32;
                self.emit(core, Event::CurtaskDelay { ticks })?;
                self.delay(
                    core,
                    t,
                    u64::from(ticks),
                    BlockReason::Delay { ticks },
                    next,
                )?;
                goto = None;
            }
            Op::DelayUntil { period } => {
                let task = &mut self.tasks[t as usize - 1];
                let mut wake = task.last_wake + u64::from(period);
                if wake <= self.tick_count {
                    wake = self.tick_count + u64::from(period);
                }
                task.last_wake = wake;
                let time_to_wake = wake as u32;
                self.emit(core, Event::CurtaskDelayUntil { time_to_wake })?;
                let ticks = wake - self.tick_count;
                self.delay(
                    core,
                    t,
                    ticks,
                    BlockReason::DelayUntil { time_to_wake },
                    next,
                )?;
                goto = None;
            }
            Op::Send {
                queue,
                timeout,
                on_fail,
            } => {
                if self.send(core, Some(t), queue)? {
                    self.op_done(t);
                } else if let Some(ticks) = self.ticks_to_wait(t, timeout) {
                    self.wait_on_queue(core, t, queue, Wait::Send, ticks)?;
                    goto = None;
                } else {
                    self.op_done(t);
                    goto = Some(on_fail.unwrap_or(next));
                }
            }
            Op::Receive {
                queue,
                timeout,
                on_fail,
            } => {
                if self.receive(core, Some(t), queue)? {
                    self.op_done(t);
                } else if let Some(ticks) = self.ticks_to_wait(t, timeout) {
                    self.wait_on_queue(core, t, queue, Wait::Receive, ticks)?;
                    goto = None;
                } else {
                    let timed_out = self.tasks[t as usize - 1].timed_out;
                    if timed_out && self.queues[queue as usize - 1].kind.is_mutex() {
                        self.disinherit_after_timeout(core, queue)?;
                    }
                    self.op_done(t);
                    goto = Some(on_fail.unwrap_or(next));
                }
            }
            Op::Peek { queue, timeout } => {
                if self.queues[queue as usize - 1].len > 0 {
                    self.op_done(t);
                } else if let Some(ticks) = self.ticks_to_wait(t, timeout) {
                    self.wait_on_queue(core, t, queue, Wait::Peek, ticks)?;
                    goto = None;
                } else {
                    self.op_done(t);
                }
            }
            Op::Overwrite { queue } => self.overwrite(core, Some(t), queue)?,
            Op::MarkerBegin { id, msg } => self.span_begin(core, None, id, msg)?,
            Op::MarkerEnd { id } => self.span_end(core, None, id)?,
            Op::MarkerInstant { id, msg } => self.instant(core, None, id, msg)?,
            Op::Value { id } => self.value(core, id)?,
            Op::LocalBegin { id, msg } => self.span_begin(core, Some(t), id, msg)?,
            Op::LocalEnd { id } => self.span_end(core, Some(t), id)?,
            Op::LocalInstant { id, msg } => self.instant(core, Some(t), id, msg)?,
            Op::LocalValue { id } => self.local_value(core, t, id)?,
            Op::RegisterLocalMarker { id, name } => self.meta(
                core,
                Event::TaskEvtmarkerName {
                    evtmarker_id: id,
                    task_id: t,
                    name: name.as_bytes(),
                },
            )?,
            Op::SuspendSelf => {
                self.emit(core, Event::TaskSuspended { task_id: t })?;
                self.tasks[t as usize - 1].pc = next;
                self.tasks[t as usize - 1].remaining = self.gap();
                self.block(core, t, TaskState::Suspended)?;
                goto = None;
            }
            Op::DeleteSelf => {
                self.delete(core, t)?;
                self.block(core, t, TaskState::Deleted)?;
                goto = None;
            }
            Op::Suspend { task } => self.suspend_other(core, task)?,
            Op::Resume { task } => self.resume(core, task, false)?,
            Op::TogglePriority { task, low, high } => {
                let target = &self.tasks[task as usize - 1];
                let new = if target.base_prio == low { high } else { low };
                let inherited = target.prio != target.base_prio;
                let ts = self.emit(
                    core,
                    Event::TaskPrioritySet {
                        task_id: task,
                        priority: new,
                    },
                )?;
                let target = &mut self.tasks[task as usize - 1];
                target.base_prio = new;
                let effective = if inherited { target.prio.max(new) } else { new };
                self.set_priority(task, effective, PriorityCause::Set, ts);
                self.after_priority_change(core, task);
            }
            Op::Spawn => self.spawn(core, t)?,
            Op::ReapChildren => self.reap_children(core, t)?,
        }
        if let Some(pc) = goto {
            let gap = self.gap();
            let task = &mut self.tasks[t as usize - 1];
            task.pc = pc % task.program.len();
            task.remaining = gap;
            self.cores[core].run_start = self.now;
        }
        Ok(())
    }

    /// A queue operation of `t` finished (done or given up).
    pub(super) fn op_done(&mut self, t: u32) {
        let task = &mut self.tasks[t as usize - 1];
        task.deadline = None;
        task.timed_out = false;
    }

    /// Blocks the running task for `ticks` RTOS ticks.
    pub(super) fn delay(
        &mut self,
        core: usize,
        t: u32,
        ticks: u64,
        reason: BlockReason,
        next: usize,
    ) -> io::Result<()> {
        let remaining = self.gap();
        let task = &mut self.tasks[t as usize - 1];
        task.wake_tick = Some(self.tick_count + ticks);
        task.pc = next;
        task.remaining = remaining;
        self.delayed.push(t);
        self.block(core, t, TaskState::Blocked(reason))
    }

    /// `vTaskSuspend` of another task, when it is ready or delayed.
    pub(super) fn suspend_other(&mut self, core: usize, t: u32) -> io::Result<()> {
        let task = &self.tasks[t as usize - 1];
        let suspendable = matches!(
            task.state,
            TaskState::Ready
                | TaskState::Blocked(BlockReason::Delay { .. } | BlockReason::DelayUntil { .. })
        );
        if !suspendable {
            return Ok(());
        }
        let ts = self.emit(core, Event::TaskSuspended { task_id: t })?;
        let task = &mut self.tasks[t as usize - 1];
        task.state = TaskState::Suspended;
        if task.wake_tick.take().is_some() {
            self.delayed.retain(|&d| d != t);
        }
        self.record(|r| r.state(t, TaskState::Suspended, ts));
        Ok(())
    }

    pub(super) fn resume(&mut self, core: usize, t: u32, from_isr: bool) -> io::Result<()> {
        if self.tasks[t as usize - 1].state != TaskState::Suspended {
            return Ok(());
        }
        let event = if from_isr {
            Event::TaskResumedFromIsr { task_id: t }
        } else {
            Event::TaskResumed { task_id: t }
        };
        let ts = self.emit(core, event)?;
        self.emit(core, Event::TaskToRdyState { task_id: t })?;
        self.make_ready(core, t, ts);
        Ok(())
    }

    pub(super) fn delete(&mut self, core: usize, t: u32) -> io::Result<Ts> {
        let ts = self.emit(core, Event::TaskDeleted { task_id: t })?;
        self.record(|r| r.task_deleted(t, ts));
        let home = self.tasks[t as usize - 1].core;
        self.cores[home].tasks.retain(|&x| x != t);
        Ok(ts)
    }

    pub(super) fn spawn(&mut self, core: usize, parent: u32) -> io::Result<()> {
        let id = self.tasks.len() as u32 + 1;
        let p = &mut self.tasks[parent as usize - 1];
        if p.children.len() >= MAX_CHILDREN {
            return Ok(());
        }
        p.children.push(id);
        let home = (p.core + self.spawned as usize) % self.cores.len();
        let name = format!("tmp{}", (b'A' + (self.spawned % 26) as u8) as char);
        self.spawned += 1;
        let prio = self.rng.range(1, 4) as u32;
        let ns = self.config.ns_per_tick;
        let program = short_lived_program(|us| (us * 1000 / ns).max(1));
        self.tasks.push(Task {
            core: home,
            base_prio: prio,
            prio,
            state: TaskState::Ready,
            ready_seq: 0,
            program,
            pc: 0,
            remaining: 0,
            wake_tick: None,
            deadline: None,
            timed_out: false,
            waiting_on: None,
            last_wake: 0,
            children: Vec::new(),
            local_value: 0,
            readied_at: None,
            wake_latency: 0,
        });
        self.cores[home].tasks.push(id);
        let created = self.emit(core, Event::TaskCreated { task_id: id })?;
        let prio_ts = self.emit(
            core,
            Event::TaskPrioritySet {
                task_id: id,
                priority: prio,
            },
        )?;
        self.meta(
            core,
            Event::TaskName {
                task_id: id,
                name: name.as_bytes(),
            },
        )?;
        self.record(|r| {
            r.task(TaskInfo {
                task_id: id,
                name,
                kind: TaskKind::Normal,
                core: home as u32,
                base_priority: prio,
                created_at: Some(created),
                deleted_at: None,
            });
            r.priority(id, prio_ts, prio, PriorityCause::Set);
        });
        let ts = self.emit(core, Event::TaskToRdyState { task_id: id })?;
        self.make_ready(core, id, ts);
        Ok(())
    }

    /// Resumes or deletes the suspended children of `parent`.
    pub(super) fn reap_children(&mut self, core: usize, parent: u32) -> io::Result<()> {
        let children = std::mem::take(&mut self.tasks[parent as usize - 1].children);
        let mut alive = Vec::with_capacity(children.len());
        for child in children {
            match self.tasks[child as usize - 1].state {
                TaskState::Deleted => {}
                TaskState::Suspended if self.rng.percent(30) => {
                    let ts = self.delete(core, child)?;
                    self.tasks[child as usize - 1].state = TaskState::Deleted;
                    self.record(|r| r.state(child, TaskState::Deleted, ts));
                }
                TaskState::Suspended => {
                    self.resume(core, child, false)?;
                    alive.push(child);
                }
                _ => alive.push(child),
            }
        }
        self.tasks[parent as usize - 1].children = alive;
        Ok(())
    }
}
