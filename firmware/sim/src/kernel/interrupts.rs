//! Interrupts: entering (nesting by priority), running the handler body,
//! leaving, and the RTOS tick.

use std::io::{self, Write};

use tband::Event;

use super::{IsrFrame, Simulator};
use crate::program::IsrOp;
use crate::system;
use crate::truth::TaskState;

impl<W: Write> Simulator<W> {
    pub(super) fn enter_isr(&mut self, core: usize, isr: usize) -> io::Result<()> {
        self.charge_top(core);
        let isr_id = self.isrs[isr].id;
        let ts = self.emit(core, Event::IsrEnter { isr_id })?;
        self.record(|r| r.isr_enter(core as u32, isr_id, ts));
        let i = &mut self.isrs[isr];
        i.next_arrival = if i.period == 0 {
            u64::MAX
        } else if i.id == system::TICK_ISR_ID {
            let mut next = i.next_arrival + i.period;
            while next <= self.now {
                next += i.period;
            }
            next
        } else {
            let p = i.period;
            self.now + self.rng.range(p / 2, p + p / 2)
        };
        let remaining = self.gap();
        let c = &mut self.cores[core];
        c.isr_stack.push(IsrFrame {
            isr,
            step: 0,
            remaining,
        });
        c.run_start = self.now;
        Ok(())
    }

    pub(super) fn step_isr(&mut self, core: usize) -> io::Result<()> {
        let Some(top) = self.cores[core].isr_stack.last() else {
            return Ok(());
        };
        let (isr, step) = (top.isr, top.step);
        match self.isrs[isr].body.get(step).copied() {
            Some(op) => {
                self.isr_op(core, op)?;
                let remaining = self.gap();
                let c = &mut self.cores[core];
                if let Some(top) = c.isr_stack.last_mut() {
                    top.step += 1;
                    top.remaining = remaining;
                }
                c.run_start = self.now;
            }
            None => {
                let isr_id = self.isrs[isr].id;
                let ts = self.emit(core, Event::IsrExit { isr_id })?;
                self.record(|r| r.isr_exit(core as u32, ts));
                let c = &mut self.cores[core];
                c.isr_stack.pop();
                c.run_start = self.now;
            }
        }
        Ok(())
    }

    pub(super) fn isr_op(&mut self, core: usize, op: IsrOp) -> io::Result<()> {
        match op {
            IsrOp::Tick => self.tick(core)?,
            IsrOp::Yield => self.cores[core].yield_pending = true,
            IsrOp::Send { queue } => {
                self.send(core, None, queue)?;
            }
            IsrOp::Overwrite { queue } => self.overwrite(core, None, queue)?,
            IsrOp::Receive { queue } => {
                self.receive(core, None, queue)?;
            }
            IsrOp::Resume { task } => self.resume(core, task, true)?,
            IsrOp::Value { id } => self.value(core, id)?,
            IsrOp::Instant { id, msg } => self.instant(core, None, id, msg)?,
            IsrOp::SpanBegin { id, msg } => self.span_begin(core, None, id, msg)?,
            IsrOp::SpanEnd { id } => self.span_end(core, None, id)?,
        }
        Ok(())
    }

    /// The RTOS tick: wakes tasks whose delay or timeout ended and asks
    /// cores to rotate among equal priorities.
    pub(super) fn tick(&mut self, core: usize) -> io::Result<()> {
        self.tick_count += 1;
        let mut i = 0;
        while i < self.delayed.len() {
            let t = self.delayed[i];
            let task = &mut self.tasks[t as usize - 1];
            if task.wake_tick.is_some_and(|w| w <= self.tick_count) {
                self.delayed.swap_remove(i);
                task.wake_tick = None;
                if let Some(q) = task.waiting_on.take() {
                    task.timed_out = true;
                    let queue = &mut self.queues[q as usize - 1];
                    queue.send_waiters.retain(|&w| w != t);
                    queue.recv_waiters.retain(|&w| w != t);
                }
                let ts = self.emit(core, Event::TaskToRdyState { task_id: t })?;
                self.make_ready(core, t, ts);
            } else {
                i += 1;
            }
        }
        for c in 0..self.cores.len() {
            let cur = self.cores[c].current;
            if cur == 0 {
                continue;
            }
            let prio = self.tasks[cur as usize - 1].prio;
            let peer = self.cores[c].tasks.iter().any(|&t| {
                let task = &self.tasks[t as usize - 1];
                t != cur && task.state == TaskState::Ready && task.prio == prio
            });
            if peer {
                self.cores[c].slice_pending = true;
                self.request_yield(core, c);
            }
        }
        Ok(())
    }
}
