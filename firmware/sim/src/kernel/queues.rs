//! Queues, semaphores and mutexes: operations with `len_after`, waiting
//! and waking, timeouts, and mutex priority inheritance.

use std::io::{self, Write};

use tband::Event;

use super::Simulator;
use crate::program::WAIT_FOREVER;
use crate::truth::{BlockReason, PriorityCause, TaskState};

/// What a task waits for on a queue.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Wait {
    Send,
    Receive,
    Peek,
}

impl<W: Write> Simulator<W> {
    /// Sends to (gives) `queue` if it has room; `task` is `None` from an ISR.
    pub(super) fn send(&mut self, core: usize, task: Option<u32>, queue: u32) -> io::Result<bool> {
        let q = &mut self.queues[queue as usize - 1];
        if q.len >= q.capacity {
            return Ok(false);
        }
        q.len += 1;
        let (len_after, is_mutex) = (q.len, q.kind.is_mutex());
        let event = match task {
            Some(_) => Event::QueueSend {
                queue_id: queue,
                len_after,
            },
            None => Event::QueueSendFromIsr {
                queue_id: queue,
                len_after,
            },
        };
        let ts = self.emit(core, event)?;
        self.record(|r| r.queue_level(queue, ts, len_after));
        if let (Some(t), true) = (task, is_mutex) {
            self.queues[queue as usize - 1].holder = None;
            let task = &self.tasks[t as usize - 1];
            if task.prio != task.base_prio {
                let base = task.base_prio;
                let ts = self.emit(
                    core,
                    Event::TaskPriorityDisinherit {
                        task_id: t,
                        priority: base,
                    },
                )?;
                self.set_priority(t, base, PriorityCause::Disinherit, ts);
                self.after_priority_change(core, t);
            }
        }
        self.wake_waiter(core, queue, true)?;
        Ok(true)
    }

    pub(super) fn overwrite(
        &mut self,
        core: usize,
        task: Option<u32>,
        queue: u32,
    ) -> io::Result<()> {
        let q = &mut self.queues[queue as usize - 1];
        q.len = q.capacity;
        let len_after = q.len;
        let event = match task {
            Some(_) => Event::QueueOverwrite {
                queue_id: queue,
                len_after,
            },
            None => Event::QueueOverwriteFromIsr {
                queue_id: queue,
                len_after,
            },
        };
        let ts = self.emit(core, event)?;
        self.record(|r| r.queue_level(queue, ts, len_after));
        self.wake_waiter(core, queue, true)
    }

    /// Receives from (takes) `queue` if it holds something.
    pub(super) fn receive(
        &mut self,
        core: usize,
        task: Option<u32>,
        queue: u32,
    ) -> io::Result<bool> {
        let q = &mut self.queues[queue as usize - 1];
        if q.len == 0 {
            return Ok(false);
        }
        q.len -= 1;
        let len_after = q.len;
        if q.kind.is_mutex() {
            q.holder = task;
        }
        let event = match task {
            Some(_) => Event::QueueReceive {
                queue_id: queue,
                len_after,
            },
            None => Event::QueueReceiveFromIsr {
                queue_id: queue,
                len_after,
            },
        };
        let ts = self.emit(core, event)?;
        self.record(|r| r.queue_level(queue, ts, len_after));
        self.wake_waiter(core, queue, false)?;
        Ok(true)
    }

    /// Wakes the highest-priority task waiting on `queue` (to receive when
    /// `receivers`, else to send).
    pub(super) fn wake_waiter(
        &mut self,
        core: usize,
        queue: u32,
        receivers: bool,
    ) -> io::Result<()> {
        let q = &self.queues[queue as usize - 1];
        let list = if receivers {
            &q.recv_waiters
        } else {
            &q.send_waiters
        };
        let mut best: Option<(usize, u32)> = None;
        for (i, &t) in list.iter().enumerate() {
            let prio = self.tasks[t as usize - 1].prio;
            if best.is_none_or(|(_, p)| prio > p) {
                best = Some((i, prio));
            }
        }
        let Some((i, _)) = best else {
            return Ok(());
        };
        let q = &mut self.queues[queue as usize - 1];
        let t = if receivers {
            q.recv_waiters.remove(i)
        } else {
            q.send_waiters.remove(i)
        };
        self.tasks[t as usize - 1].waiting_on = None;
        let ts = self.emit(core, Event::TaskToRdyState { task_id: t })?;
        self.make_ready(core, t, ts);
        Ok(())
    }

    /// Ticks left to wait for the running task's queue operation, or
    /// `None` when it must give up now.
    pub(super) fn ticks_to_wait(&mut self, t: u32, timeout: u32) -> Option<u32> {
        let tick = self.tick_count;
        let task = &mut self.tasks[t as usize - 1];
        if timeout == 0 || task.timed_out {
            return None;
        }
        if timeout == WAIT_FOREVER {
            return Some(timeout);
        }
        let deadline = *task.deadline.get_or_insert(tick + u64::from(timeout));
        let left = deadline.checked_sub(tick).filter(|&l| l > 0)?;
        Some(u32::try_from(left).unwrap_or(u32::MAX - 1))
    }

    /// The running task `t` announces that it waits (`ticks` at most) on
    /// `queue`, lends its priority to a mutex holder, joins the queue's
    /// waiters and gives up the core. It retries its operation when it runs
    /// again.
    pub(super) fn wait_on_queue(
        &mut self,
        core: usize,
        t: u32,
        queue: u32,
        wait: Wait,
        ticks: u32,
    ) -> io::Result<()> {
        let queue_id = queue;
        let ticks_to_wait = ticks;
        let (event, reason) = match wait {
            Wait::Send => (
                Event::CurtaskBlockOnQueueSend {
                    queue_id,
                    ticks_to_wait,
                },
                BlockReason::QueueSend { queue_id },
            ),
            Wait::Receive => (
                Event::CurtaskBlockOnQueueReceive {
                    queue_id,
                    ticks_to_wait,
                },
                BlockReason::QueueReceive { queue_id },
            ),
            Wait::Peek => (
                Event::CurtaskBlockOnQueuePeek {
                    queue_id,
                    ticks_to_wait,
                },
                BlockReason::QueuePeek { queue_id },
            ),
        };
        self.emit(core, event)?;
        if wait == Wait::Receive {
            self.inherit(core, t, queue)?;
        }
        let task = &mut self.tasks[t as usize - 1];
        task.remaining = 0;
        task.waiting_on = Some(queue);
        if let Some(deadline) = task.deadline {
            task.wake_tick = Some(deadline);
            self.delayed.push(t);
        }
        let q = &mut self.queues[queue as usize - 1];
        match wait {
            Wait::Send => q.send_waiters.push(t),
            Wait::Receive | Wait::Peek => q.recv_waiters.push(t),
        }
        self.block(core, t, TaskState::Blocked(reason))
    }

    /// A task blocking on a held mutex lends its priority to the holder.
    pub(super) fn inherit(&mut self, core: usize, t: u32, queue: u32) -> io::Result<()> {
        let Some(holder) = self.queues[queue as usize - 1].holder else {
            return Ok(());
        };
        let prio = self.tasks[t as usize - 1].prio;
        if self.tasks[holder as usize - 1].prio >= prio {
            return Ok(());
        }
        let ts = self.emit(
            core,
            Event::TaskPriorityInherit {
                task_id: holder,
                priority: prio,
            },
        )?;
        self.set_priority(holder, prio, PriorityCause::Inherit, ts);
        self.after_priority_change(core, holder);
        Ok(())
    }

    /// A failed mutex take after a timeout lowers the holder's inherited
    /// priority to what the remaining waiters need.
    pub(super) fn disinherit_after_timeout(&mut self, core: usize, queue: u32) -> io::Result<()> {
        let q = &self.queues[queue as usize - 1];
        let Some(holder) = q.holder else {
            return Ok(());
        };
        let needed = q
            .recv_waiters
            .iter()
            .map(|&w| self.tasks[w as usize - 1].prio)
            .max()
            .unwrap_or(0);
        let h = &self.tasks[holder as usize - 1];
        let new = needed.max(h.base_prio);
        if new < h.prio {
            let ts = self.emit(
                core,
                Event::TaskPriorityDisinherit {
                    task_id: holder,
                    priority: new,
                },
            )?;
            self.set_priority(holder, new, PriorityCause::Disinherit, ts);
            self.after_priority_change(core, holder);
        }
        Ok(())
    }
}
