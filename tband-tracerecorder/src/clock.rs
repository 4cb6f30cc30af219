//! Time from the recorder's 32-bit timestamps, in ns since the first
//! event, by the kind of timer the recorder read.
//!
//! A free-running or custom timer's count wraps at 2^32 (counting up or
//! down). An OS timer (SysTick on Cortex-M) gives the count within the
//! current tick in the low 24 bits and the tick count's low 8 bits above
//! them; its period is the timer's frequency over the tick rate. Its
//! counter reloads before the kernel counts the tick, so an event in
//! between reads as a period early: a time that would go back is taken
//! as one period later.

use trace_recorder_parser::types::TimerCounter;

pub struct Clock {
    kind: TimerCounter,
    hz: u64,
    /// Timer counts per OS tick (OS timers).
    period: u64,
    /// The timer's count since the first event, at the last event.
    last: Option<u64>,
    /// The last raw timestamp (free-running timers), or the full OS tick
    /// count at the last event (OS timers).
    last_raw: u32,
    first: u64,
}

impl Clock {
    pub fn new(kind: TimerCounter, hz: u32, os_tick_hz: u32) -> Clock {
        Clock {
            kind,
            // A recording that gives no frequency is read at 1 ns a count.
            hz: if hz == 0 {
                1_000_000_000
            } else {
                u64::from(hz)
            },
            period: u64::from((hz / os_tick_hz.max(1)).max(1)),
            last: None,
            last_raw: 0,
            first: 0,
        }
    }

    pub fn hz(&self) -> u64 {
        self.hz
    }

    /// The OS tick count is `ticks` at the event just timed (the
    /// recorder's tick event). A recording that starts in the middle of
    /// a run (a RingBuffer dump) gives the tick's high bits only here: the
    /// ticks counted so far are renumbered, the times kept.
    pub fn os_tick(&mut self, ticks: u32) {
        if !matches!(self.kind, TimerCounter::OsIncr | TimerCounter::OsDecr) {
            return;
        }
        let shift = (u64::from(ticks).wrapping_sub(u64::from(self.last_raw)) as i64)
            .saturating_mul(self.period as i64);
        if shift > 0 {
            self.first += shift as u64;
            self.last = self.last.map(|l| l + shift as u64);
            self.last_raw = ticks;
        }
    }

    /// The timer's count of `raw`, since the start of the timer.
    fn count(&mut self, raw: u32) -> u64 {
        match self.kind {
            TimerCounter::FreeRunning32Incr | TimerCounter::CustomIncr => {
                let delta = raw.wrapping_sub(self.last_raw);
                self.last_raw = raw;
                self.last.map_or(u64::from(raw), |l| l + u64::from(delta))
            }
            TimerCounter::FreeRunning32Decr | TimerCounter::CustomDecr => {
                let delta = self.last_raw.wrapping_sub(raw);
                self.last_raw = raw;
                self.last
                    .map_or(u64::from(u32::MAX - raw), |l| l + u64::from(delta))
            }
            TimerCounter::OsIncr | TimerCounter::OsDecr => {
                let low = raw >> 24;
                let counter = u64::from(raw & 0x00FF_FFFF);
                // The full tick count nearest the last one with these low bits.
                let step = (low.wrapping_sub(self.last_raw) & 0xFF) as i64;
                let step = if step >= 128 { step - 256 } else { step };
                let tick = match self.last {
                    None => low,
                    Some(_) => (i64::from(self.last_raw) + step).max(0) as u32,
                };
                self.last_raw = tick;
                // Counting down, the count reaches 0 at the tick's end.
                let within = if self.kind == TimerCounter::OsDecr {
                    self.period - counter % self.period
                } else {
                    counter
                };
                let count = u64::from(tick) * self.period + within;
                match self.last {
                    Some(last) if count < last && count + self.period >= last => {
                        count + self.period
                    }
                    _ => count,
                }
            }
        }
    }

    /// The time of an event stamped `raw`, in ns since the first event,
    /// and whether it is stamped before the event before (it is then given
    /// that event's time).
    pub fn at(&mut self, raw: u32) -> (u64, bool) {
        let count = self.count(raw);
        let (count, went_back) = match self.last {
            None => {
                self.first = count;
                (count, false)
            }
            Some(last) => (count.max(last), count < last),
        };
        self.last = Some(count);
        let since_first = count - self.first;
        (
            (u128::from(since_first) * 1_000_000_000 / u128::from(self.hz)) as u64,
            went_back,
        )
    }

    /// The timer's count at the first event.
    pub fn first_count(&self) -> u64 {
        self.first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_os_timer_counting_down_gives_the_tick_and_the_count_within_it() {
        // 25 MHz, 1 kHz ticks: 25,000 counts a tick, 40 ns a count.
        let mut clock = Clock::new(TimerCounter::OsDecr, 25_000_000, 1000);
        let stamp = |tick: u32, value: u32| (tick << 24) | value;
        assert_eq!(clock.at(stamp(20, 24_999)).0, 0);
        assert_eq!(clock.at(stamp(20, 14_999)).0, 400_000);
        // Reloaded, the tick not yet counted: the next tick's start.
        assert_eq!(clock.at(stamp(20, 24_990)).0, 1_000_360);
        assert_eq!(clock.at(stamp(21, 24_980)).0, 1_000_760);
        clock.os_tick(21);
        // 256 ticks later the low bits are the same again.
        for tick in 22..=277u32 {
            clock.at(stamp(tick & 0xFF, 24_999));
            clock.os_tick(tick);
        }
        assert_eq!(clock.at(stamp(277 & 0xFF, 0)).0, 258 * 1_000_000 - 40);
    }

    #[test]
    fn a_recording_from_the_middle_of_a_run_learns_the_ticks_high_bits() {
        let mut clock = Clock::new(TimerCounter::OsDecr, 25_000_000, 1000);
        assert_eq!(clock.at((200 << 24) | 24_999).0, 0);
        assert_eq!(clock.at((201 << 24) | 24_999).0, 1_000_000);
        clock.os_tick(1225);
        assert_eq!(clock.at((202 << 24) | 24_999).0, 2_000_000);
    }

    #[test]
    fn a_free_running_timer_wraps_at_two_to_the_32() {
        let mut clock = Clock::new(TimerCounter::FreeRunning32Incr, 1_000_000_000, 1000);
        assert_eq!(clock.at(u32::MAX - 9).0, 0);
        assert_eq!(clock.at(5).0, 15);
    }
}
