//! Turning raw timestamps into a monotonic tick count: mask, counting
//! direction, overflow.

/// Which way the target's time source counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerDirection {
    Up,
    Down,
}

impl TimerDirection {
    pub const ALL: [TimerDirection; 2] = [TimerDirection::Up, TimerDirection::Down];

    pub fn as_str(self) -> &'static str {
        match self {
            TimerDirection::Up => "up",
            TimerDirection::Down => "down",
        }
    }
}

/// How the buffer's raw timestamps are turned into time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timer {
    /// The header's timer-valid mask: only these bits of a timestamp count.
    pub mask: u32,
    pub direction: TimerDirection,
    /// Whether `direction` was detected from the timestamps (rather than
    /// given by the caller).
    pub direction_detected: bool,
    /// Nanoseconds per tick. ThreadX does not record it.
    pub tick_ns: f64,
    /// Whether `tick_ns` was given by the caller (else 1 is assumed).
    pub tick_ns_given: bool,
}

impl Timer {
    /// Ticks from `from` to `to`, both raw timestamps, in the counting
    /// direction (modulo the timer's range).
    pub fn step(&self, from: u32, to: u32) -> u32 {
        match self.direction {
            TimerDirection::Up => to.wrapping_sub(from) & self.mask,
            TimerDirection::Down => from.wrapping_sub(to) & self.mask,
        }
    }

    /// Whether a step is too long to tell from the timer running backwards:
    /// more than half the timer's range.
    pub fn is_jump(&self, step: u32) -> bool {
        step > self.mask / 2
    }

    pub fn ticks_to_ns(&self, ticks: u64) -> u64 {
        if self.tick_ns == 1.0 {
            return ticks;
        }
        // Float scaling because tick lengths are often fractional (a 48 MHz
        // timer ticks every 20.83 ns); + 0.5 rounds (the product is positive).
        (ticks as f64 * self.tick_ns + 0.5) as u64
    }
}

/// Whether `mask` is a run of low bits (the only kind modular differences
/// work on).
pub fn is_low_bit_mask(mask: u32) -> bool {
    mask != 0 && mask & mask.wrapping_add(1) == 0
}

/// Guesses the counting direction from consecutive raw timestamps: between
/// close events the short way round the timer is the right one. `None`
/// when no pair of timestamps differs.
pub fn detect_direction(
    timestamps: impl IntoIterator<Item = u32>,
    mask: u32,
) -> Option<TimerDirection> {
    let mut up = 0u64;
    let mut down = 0u64;
    let mut previous = None;
    for timestamp in timestamps {
        if let Some(previous) = previous {
            let forward = timestamp.wrapping_sub(previous) & mask;
            let backward = previous.wrapping_sub(timestamp) & mask;
            if forward < backward {
                up += 1;
            } else if backward < forward {
                down += 1;
            }
        }
        previous = Some(timestamp);
    }
    match up.cmp(&down) {
        std::cmp::Ordering::Greater => Some(TimerDirection::Up),
        std::cmp::Ordering::Less => Some(TimerDirection::Down),
        std::cmp::Ordering::Equal => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timer(mask: u32, direction: TimerDirection) -> Timer {
        Timer {
            mask,
            direction,
            direction_detected: false,
            tick_ns: 1.0,
            tick_ns_given: false,
        }
    }

    #[test]
    fn detects_a_down_counting_16_bit_timer_with_garbage_high_bits() {
        let raw = [0xABCD_0010, 0x1234_0005, 0xFFFF_FFF0, 0x0000_FF00];
        assert_eq!(detect_direction(raw, 0xFFFF), Some(TimerDirection::Down));
        assert_eq!(
            detect_direction([5, 9, 2, 30], u32::MAX),
            Some(TimerDirection::Up)
        );
        assert_eq!(detect_direction([7, 7], u32::MAX), None);
    }

    #[test]
    fn steps_wrap_in_the_counting_direction() {
        let down = timer(0xFFFF, TimerDirection::Down);
        assert_eq!(down.step(0xAB00_0005, 0x0000_FFF0), 0x15);
        let up = timer(u32::MAX, TimerDirection::Up);
        assert_eq!(up.step(0xFFFF_FFF0, 0x10), 0x20);
        assert!(!up.is_jump(0x20));
        assert!(up.is_jump(0xFFFF_FFF0));
    }

    #[test]
    fn masks_must_be_low_bit_runs() {
        assert!(is_low_bit_mask(0xFFFF));
        assert!(is_low_bit_mask(u32::MAX));
        assert!(!is_low_bit_mask(0));
        assert!(!is_low_bit_mask(0xFF00));
    }

    #[test]
    fn scales_fractional_ticks() {
        let mut timer = timer(u32::MAX, TimerDirection::Up);
        timer.tick_ns = 20.833;
        assert_eq!(timer.ticks_to_ns(1000), 20833);
    }
}
