//! What the benches measure with: wall-clock and CPU time, peak memory.

use std::time::{Duration, Instant};

pub fn peak_rss_mb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

pub fn per_second(n: u64, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

/// CPU time (user + system) this process has used so far.
pub fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are the
    // 12th and 13th of them, in clock ticks (100 per second on Linux).
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: u64 = after_name
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|f| f.parse::<u64>().ok())
        .sum();
    Duration::from_millis(ticks * 10)
}

/// Wall-clock and CPU time of `f`.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration, Duration) {
    let (wall, cpu) = (Instant::now(), cpu_time());
    let value = f();
    (value, wall.elapsed(), cpu_time() - cpu)
}
