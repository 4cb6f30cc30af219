//! The start of a trace: the metadata dump of every core, in the chosen
//! layout, and the scheduler start.

use std::io::{self, Write};

use tband::Event;

use super::Simulator;
use crate::config::Layout;
use crate::system;
use crate::truth::QueueKind;

impl<W: Write> Simulator<W> {
    pub(super) fn write_metadata(&mut self) -> io::Result<()> {
        let cores = self.cores.len();
        match self.config.layout {
            Layout::Streaming => {
                for core in 0..cores {
                    self.streams[0].header_core_id(core as u32)?;
                    self.write_core_metadata(core, 0)?;
                }
                self.streams[0].header_core_id(0)?;
            }
            Layout::Snapshot => {
                for core in 0..cores {
                    self.write_core_metadata(core, core)?;
                }
            }
        }
        Ok(())
    }

    /// Writes what `core`'s metadata buffer holds into stream `out`.
    pub(super) fn write_core_metadata(&mut self, core: usize, out: usize) -> io::Result<()> {
        let s = &mut self.streams[out];
        let sys = &self.system;
        s.meta(&Event::TsResolutionNs {
            ns_per_ts: self.config.ns_per_tick,
        })?;
        if core == 0 {
            for (i, t) in sys.tasks.iter().enumerate() {
                s.meta(&Event::TaskName {
                    task_id: i as u32 + 1,
                    name: t.name.as_bytes(),
                })?;
            }
            for (c, &task_id) in sys.idle_tasks.iter().enumerate() {
                s.meta(&Event::TaskIsIdleTask {
                    task_id,
                    core_id: c as u32,
                })?;
            }
            s.meta(&Event::TaskIsTimerTask {
                task_id: sys.timer_task,
            })?;
            // The timer queue is created when the scheduler starts.
            for (i, q) in sys.queues.iter().enumerate().take(sys.queues.len() - 1) {
                let queue_id = i as u32 + 1;
                s.meta(&Event::QueueKind {
                    queue_id,
                    kind: q.kind.code(),
                })?;
                s.meta(&Event::QueueName {
                    queue_id,
                    name: q.name.as_bytes(),
                })?;
            }
            for (i, name) in sys.markers.iter().enumerate() {
                s.meta(&Event::EvtmarkerName {
                    evtmarker_id: i as u32 + 1,
                    name: name.as_bytes(),
                })?;
            }
            for (i, (name, _)) in sys.values.iter().enumerate() {
                s.meta(&Event::ValmarkerName {
                    valmarker_id: i as u32 + 1,
                    name: name.as_bytes(),
                })?;
            }
        }
        for isr in sys.isrs.iter().filter(|i| i.core as usize == core) {
            s.meta(&Event::IsrName {
                isr_id: isr.id,
                name: isr.name.as_bytes(),
            })?;
        }
        for (i, t) in sys.tasks.iter().enumerate() {
            if t.core as usize != core {
                continue;
            }
            let task_id = i as u32 + 1;
            for &(evtmarker_id, name) in &t.local_markers {
                s.meta(&Event::TaskEvtmarkerName {
                    evtmarker_id,
                    task_id,
                    name: name.as_bytes(),
                })?;
            }
            for &(valmarker_id, name, _) in &t.local_values {
                s.meta(&Event::TaskValmarkerName {
                    valmarker_id,
                    task_id,
                    name: name.as_bytes(),
                })?;
            }
        }
        Ok(())
    }

    /// `vTaskStartScheduler`: the timer queue is created, the tick starts
    /// and every core switches to its best task.
    pub(super) fn start_scheduler(&mut self) -> io::Result<()> {
        self.now = self.system_start_ts();
        let timer_queue = self.queues.len() as u32;
        let ts = self.emit(
            0,
            Event::QueueCreated {
                queue_id: timer_queue,
            },
        )?;
        self.record(|r| r.start(ts));
        self.meta(
            0,
            Event::QueueKind {
                queue_id: timer_queue,
                kind: QueueKind::Queue.code(),
            },
        )?;
        let ts = self.emit(
            0,
            Event::QueueCurLength {
                queue_id: timer_queue,
                length: 0,
            },
        )?;
        self.record(|r| r.queue_level(timer_queue, ts, 0));
        let name = self.system.queues[timer_queue as usize - 1].name.clone();
        self.meta(
            0,
            Event::QueueName {
                queue_id: timer_queue,
                name: name.as_bytes(),
            },
        )?;
        for i in 0..self.isrs.len() {
            let isr = &mut self.isrs[i];
            if isr.period > 0 {
                isr.next_arrival = if isr.id == system::TICK_ISR_ID {
                    self.config.tick_period()
                } else {
                    self.now + self.rng.range(1, isr.period)
                };
            }
        }
        for core in 0..self.cores.len() {
            self.reschedule(core)?;
        }
        Ok(())
    }
}
