//! Event and value markers, global and task-local.

use std::io::{self, Write};

use tband::Event;

use super::Simulator;

impl<W: Write> Simulator<W> {
    pub(super) fn span_begin(
        &mut self,
        core: usize,
        task: Option<u32>,
        id: u32,
        msg: &str,
    ) -> io::Result<()> {
        let event = match task {
            Some(_) => Event::TaskEvtmarkerBegin {
                evtmarker_id: id,
                msg: msg.as_bytes(),
            },
            None => Event::EvtmarkerBegin {
                evtmarker_id: id,
                msg: msg.as_bytes(),
            },
        };
        let ts = self.emit(core, event)?;
        self.record(|r| r.span_begin(task, id, core as u32, ts, msg));
        Ok(())
    }

    pub(super) fn span_end(&mut self, core: usize, task: Option<u32>, id: u32) -> io::Result<()> {
        let event = match task {
            Some(_) => Event::TaskEvtmarkerEnd { evtmarker_id: id },
            None => Event::EvtmarkerEnd { evtmarker_id: id },
        };
        let ts = self.emit(core, event)?;
        self.record(|r| r.span_end(task, id, ts));
        Ok(())
    }

    pub(super) fn instant(
        &mut self,
        core: usize,
        task: Option<u32>,
        id: u32,
        msg: &str,
    ) -> io::Result<()> {
        let event = match task {
            Some(_) => Event::TaskEvtmarker {
                evtmarker_id: id,
                msg: msg.as_bytes(),
            },
            None => Event::Evtmarker {
                evtmarker_id: id,
                msg: msg.as_bytes(),
            },
        };
        let ts = self.emit(core, event)?;
        self.record(|r| r.instant(task, id, core as u32, ts, msg));
        Ok(())
    }

    /// A sample of a random walk (`state`); now and then an outlier of any
    /// size and sign instead, so values of every varint length occur.
    pub(super) fn sample(&mut self, state: &mut i64) -> i64 {
        match self.rng.range(0, 999) {
            0 => i64::MIN,
            1 => i64::MAX,
            2..=11 => (self.rng.next_u64() as i64) >> self.rng.range(0, 62),
            _ => {
                let step = self.rng.range(0, 200) as i64 - 100;
                *state = state.saturating_add(step).clamp(-1_000_000, 1_000_000);
                *state
            }
        }
    }

    pub(super) fn value(&mut self, core: usize, id: u32) -> io::Result<()> {
        let mut state = self.values[id as usize];
        let val = self.sample(&mut state);
        self.values[id as usize] = state;
        let ts = self.emit(
            core,
            Event::Valmarker {
                valmarker_id: id,
                val,
            },
        )?;
        self.record(|r| r.value(None, id, core as u32, ts, val));
        Ok(())
    }

    pub(super) fn local_value(&mut self, core: usize, t: u32, id: u32) -> io::Result<()> {
        let mut state = self.tasks[t as usize - 1].local_value;
        let val = self.sample(&mut state);
        self.tasks[t as usize - 1].local_value = state;
        let ts = self.emit(
            core,
            Event::TaskValmarker {
                valmarker_id: id,
                val,
            },
        )?;
        self.record(|r| r.value(Some(t), id, core as u32, ts, val));
        Ok(())
    }
}
