//! Event and value markers, global and task-local.

use std::io::{self, Write};

use tband::Event;

use super::Simulator;
use crate::system::Measure;

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
    /// size and sign instead, so values of every varint length occur
    /// ([`Config::wide_values`](crate::Config::wide_values)).
    fn wide_sample(&mut self, state: &mut i64) -> i64 {
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

    /// What a value marker measuring `measure` starts from.
    pub(super) fn initial_value(&mut self, measure: Measure) -> i64 {
        let r = &mut self.value_rng;
        match measure {
            Measure::Adc12 => r.range(800, 3300) as i64,
            Measure::PinLevel => r.range(0, 1) as i64,
            Measure::RatePerSecond(nominal) => nominal,
            Measure::Counter(_)
            | Measure::Backlog(_)
            | Measure::CpuLoadPercent
            | Measure::WakeLatencyUs => 0,
            Measure::Iterations => r.range(400, 4000) as i64,
        }
    }

    /// The next sample of a value marker measuring `measure`, whose state
    /// (what `initial_value` gave, then what this left) is `state`, taken
    /// on `core` by task `task` (none in an interrupt).
    fn sample(&mut self, measure: Measure, state: &mut i64, core: usize, task: Option<u32>) -> i64 {
        if self.config.wide_values {
            return self.wide_sample(state);
        }
        let r = &mut self.value_rng;
        // Uniform in -k..=k.
        let mut step = |k: i64| r.range(0, 2 * k as u64) as i64 - k;
        match measure {
            Measure::Adc12 => {
                *state = (*state + step(4)).clamp(100, 3995);
                (*state + step(6)).clamp(0, 4095)
            }
            Measure::PinLevel => {
                if r.range(0, 99) >= 5 {
                    *state = 1 - *state;
                }
                *state
            }
            Measure::RatePerSecond(nominal) => {
                let k = (nominal / 100).max(1);
                *state = (*state + step(k)).clamp(nominal - nominal / 20, nominal + nominal / 20);
                *state
            }
            Measure::CpuLoadPercent => {
                let c = &mut self.cores[core];
                let idle = c.idle_time + c.idle_since.map_or(0, |s| self.now - s);
                let (t0, idle0) = std::mem::replace(&mut c.load_mark, (self.now, idle));
                if self.now > t0 {
                    let busy = (self.now - t0).saturating_sub(idle - idle0);
                    *state = ((busy * 100 + (self.now - t0) / 2) / (self.now - t0)) as i64;
                }
                *state
            }
            Measure::Counter(modulus) => {
                *state = (*state + 1) % modulus;
                *state
            }
            Measure::Backlog(Some(queue)) => i64::from(self.queues[queue as usize - 1].len),
            Measure::Backlog(None) => {
                *state = (*state + step(1)).clamp(0, 3);
                *state
            }
            Measure::WakeLatencyUs => match task {
                Some(t) => {
                    let ticks = self.tasks[t as usize - 1].wake_latency;
                    let ns = u128::from(ticks) * u128::from(self.config.ns_per_tick);
                    ((ns + 500) / 1000).min(i64::MAX as u128) as i64
                }
                None => 0,
            },
            Measure::Iterations => {
                *state = (*state + step((*state / 100).max(1))).clamp(100, 10_000);
                *state
            }
        }
    }

    pub(super) fn value(&mut self, core: usize, id: u32) -> io::Result<()> {
        let measure = self.system.values[id as usize - 1].1;
        let mut state = self.values[id as usize];
        let val = self.sample(measure, &mut state, core, None);
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
        let measure = self.local_measure(t, id);
        let mut state = self.tasks[t as usize - 1].local_value;
        let val = self.sample(measure, &mut state, core, Some(t));
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

    /// What task `t`'s value marker `id` measures.
    pub(super) fn local_measure(&self, t: u32, id: u32) -> Measure {
        self.system
            .tasks
            .get(t as usize - 1)
            .and_then(|spec| spec.local_values.iter().find(|v| v.0 == id))
            .map(|v| v.2)
            .expect("only the tasks of the built system have value markers")
    }
}
