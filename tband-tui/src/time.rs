//! Reading and writing times: axis labels, exact cursor times, and the
//! `10ms`, `1.5s`, `250us` forms accepted on the command line.

use std::fmt;

const UNITS: [(&str, u64); 5] = [
    ("s", 1_000_000_000),
    ("ms", 1_000_000),
    ("us", 1_000),
    ("µs", 1_000),
    ("ns", 1),
];

/// A time span written as `10ms`, `1.5s`, `250us`, `42ns` or a bare number
/// of nanoseconds.
pub fn parse_time(text: &str) -> Result<u64, TimeError> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let scale = if unit.is_empty() {
        1
    } else {
        UNITS
            .iter()
            .find(|(name, _)| *name == unit.trim())
            .map(|&(_, scale)| scale)
            .ok_or_else(|| TimeError::NotATime(text.to_string()))?
    };
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && frac.is_empty() {
        return Err(TimeError::NotATime(text.to_string()));
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole
            .parse()
            .map_err(|_| TimeError::NotATime(text.to_string()))?
    };
    // Fractions beyond nanoseconds are cut, not rounded.
    let mut frac_ns = 0u64;
    let mut place = scale;
    for c in frac.chars() {
        let digit = c
            .to_digit(10)
            .ok_or_else(|| TimeError::NotATime(text.to_string()))?;
        place /= 10;
        frac_ns += u64::from(digit) * place;
    }
    whole
        .checked_mul(scale)
        .and_then(|ns| ns.checked_add(frac_ns))
        .ok_or_else(|| TimeError::NotATime(text.to_string()))
}

/// `START..END` with either side optional (`..5ms`, `1s..`).
pub fn parse_range(text: &str) -> Result<(Option<u64>, Option<u64>), TimeError> {
    let (start, end) = text
        .split_once("..")
        .ok_or_else(|| TimeError::NotATime(text.to_string()))?;
    let side = |s: &str| {
        if s.trim().is_empty() {
            Ok(None)
        } else {
            parse_time(s).map(Some)
        }
    };
    match (side(start)?, side(end)?) {
        (Some(s), Some(e)) if e <= s => Err(TimeError::EmptyRange(text.to_string())),
        range => Ok(range),
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeError {
    NotATime(String),
    /// A range whose end is not after its start.
    EmptyRange(String),
}

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeError::NotATime(text) => write!(
                f,
                "`{text}` is not a time; write it like 250us, 10ms, 1.5s or 42ns"
            ),
            TimeError::EmptyRange(text) => {
                write!(f, "the range `{text}` ends before it starts")
            }
        }
    }
}

impl std::error::Error for TimeError {}

/// A time to the nanosecond, grouped for reading: `12.345 678 901 s`.
pub fn exact(ns: u64) -> String {
    let secs = ns / 1_000_000_000;
    let rest = ns % 1_000_000_000;
    format!(
        "{secs}.{:03} {:03} {:03} s",
        rest / 1_000_000,
        rest / 1_000 % 1_000,
        rest % 1_000
    )
}

/// A duration with a unit and up to 4 significant digits: `1.5ms`, `250us`.
pub fn short(ns: u64) -> String {
    let (scale, unit) = match ns {
        0..=999 => return format!("{ns}ns"),
        1_000..=999_999 => (1e3, "us"),
        1_000_000..=999_999_999 => (1e6, "ms"),
        _ => (1e9, "s"),
    };
    let value = ns as f64 / scale;
    let digits = if value >= 100.0 {
        1
    } else if value >= 10.0 {
        2
    } else {
        3
    };
    let text = format!("{value:.digits$}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}{unit}")
}

/// An axis label for time `t` on an axis ticked every `step`: the unit
/// fits `t`, with just enough decimals to tell neighbouring ticks apart.
pub fn axis_label(t: u64, step: u64) -> String {
    let (scale, unit) = match t {
        0 => return "0".to_string(),
        1..=999 => (1, "ns"),
        1_000..=999_999 => (1_000, "us"),
        1_000_000..=999_999_999 => (1_000_000, "ms"),
        _ => (1_000_000_000, "s"),
    };
    let mut decimals = 0usize;
    let mut place = scale;
    while place > 1 && !step.is_multiple_of(place) {
        place /= 10;
        decimals += 1;
    }
    let whole = t / scale;
    if decimals == 0 {
        return format!("{whole}{unit}");
    }
    let frac = t % scale / place;
    format!("{whole}.{frac:0decimals$}{unit}")
}

/// The spacing of axis labels: the smallest 1-2-5 step at least `min_ns`.
pub fn tick_step(min_ns: u64) -> u64 {
    let mut decade = 1u64;
    loop {
        for m in [1, 2, 5] {
            let step = decade.saturating_mul(m);
            if step >= min_ns || step == u64::MAX {
                return step;
            }
        }
        decade = decade.saturating_mul(10);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units_and_fractions() {
        assert_eq!(parse_time("10ms"), Ok(10_000_000));
        assert_eq!(parse_time("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_time("250us"), Ok(250_000));
        assert_eq!(parse_time("250µs"), Ok(250_000));
        assert_eq!(parse_time("42"), Ok(42));
        assert_eq!(parse_time(".5ms"), Ok(500_000));
        assert_eq!(parse_time("1.0000000009s"), Ok(1_000_000_000));
        assert!(parse_time("10 parsecs").is_err());
        assert!(parse_time("").is_err());
        assert!(parse_time("ms").is_err());
        assert!(parse_time("99999999999999999999s").is_err());
        assert!(parse_time("1.2.3s").is_err());
    }

    #[test]
    fn parses_ranges() {
        assert_eq!(
            parse_range("1ms..2ms"),
            Ok((Some(1_000_000), Some(2_000_000)))
        );
        assert_eq!(parse_range("..5us"), Ok((None, Some(5_000))));
        assert_eq!(parse_range("1s.."), Ok((Some(1_000_000_000), None)));
        assert!(parse_range("1ms").is_err());
        assert_eq!(
            parse_range("5ms..1ms"),
            Err(TimeError::EmptyRange("5ms..1ms".into()))
        );
        assert!(parse_range("1ms..1ms").is_err());
    }

    #[test]
    fn formats() {
        assert_eq!(exact(1_234_567_890), "1.234 567 890 s");
        assert_eq!(short(0), "0ns");
        assert_eq!(short(1_500), "1.5us");
        assert_eq!(short(250_000), "250us");
        assert_eq!(short(10_000_000), "10ms");
        assert_eq!(short(1_234_567), "1.235ms");
        assert_eq!(short(2_000_000_000), "2s");
        assert_eq!(axis_label(0, 10), "0");
        assert_eq!(axis_label(12_340_000, 10_000), "12.34ms");
        assert_eq!(axis_label(12_342_000, 2_000), "12.342ms");
        assert_eq!(axis_label(20_000_000, 5_000_000), "20ms");
        assert_eq!(axis_label(1_500_000_000, 500_000_000), "1.5s");
        assert_eq!(axis_label(700, 100), "700ns");
        assert_eq!(tick_step(7), 10);
        assert_eq!(tick_step(11), 20);
        assert_eq!(tick_step(3_000_000), 5_000_000);
        assert_eq!(tick_step(u64::MAX), u64::MAX);
    }
}
