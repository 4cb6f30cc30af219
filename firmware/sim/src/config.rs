//! What to simulate: the size of the system, the stream layout, dropped-event
//! episodes and when to stop.

use std::fmt;

/// How the per-core streams are laid out (docs/src/format.md, "Cores").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Core 0's stream opens with every core's metadata, each announced by a
    /// `core_id` frame, then `core_id 0`; other cores' streams hold only their
    /// events.
    Streaming,
    /// Each core's stream is that core's metadata followed by its events, with
    /// no `core_id` frames.
    Snapshot,
}

/// Stretches where the sink refuses events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DropConfig {
    /// Mean number of events a core writes between two episodes.
    pub mean_gap_events: u32,
    /// Longest episode, in lost events (each episode loses 1..=this many).
    pub max_lost_events: u32,
}

impl Default for DropConfig {
    fn default() -> Self {
        DropConfig {
            mean_gap_events: 5_000,
            max_lost_events: 40,
        }
    }
}

/// Everything that determines a simulated trace. Equal configs give equal
/// bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub seed: u64,
    /// Application tasks at start (besides the idle tasks, the timer task and
    /// short-lived tasks created while running).
    pub tasks: u32,
    /// Application queues, semaphores and mutexes (besides the timer queue).
    pub queues: u32,
    /// Device interrupts (besides the tick and, with several cores, one
    /// inter-core interrupt per core).
    pub isrs: u32,
    pub cores: u32,
    pub layout: Layout,
    pub drops: Option<DropConfig>,
    /// `dropped_evt_cnt` is re-sent every this many events per core
    /// (0: only when it changed).
    pub heartbeat: u32,
    /// Nanoseconds per timestamp tick.
    pub ns_per_tick: u64,
    /// Period of the RTOS tick interrupt in nanoseconds (1 ms: 1 kHz).
    pub tick_period_ns: u64,
    /// Stop once the streams hold this many bytes in total.
    pub size: u64,
    /// Keep a [`GroundTruth`](crate::GroundTruth) of what was scheduled.
    pub record_truth: bool,
    /// Value markers draw from the whole `i64` range instead of looking like
    /// firmware: a random walk within ±1,000,000 and, 12 samples in 1000, an
    /// outlier of any size and sign (`i64::MIN` and `i64::MAX` included), so
    /// that values of every varint length occur. For tests and
    /// benchmarks; these traces are byte for byte those that the simulator
    /// wrote by default before this option existed.
    pub wide_values: bool,
    /// One task does this share of the work it draws, everything else being
    /// drawn as without it: two traces that differ in that task's load.
    pub work_scale: Option<WorkScale>,
}

/// [`Config::work_scale`]: which task, and the percent of its drawn work
/// it does (100: as drawn).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkScale {
    pub task: String,
    pub percent: u32,
}

impl std::str::FromStr for WorkScale {
    type Err = String;

    fn from_str(s: &str) -> Result<WorkScale, String> {
        let (task, percent) = s
            .split_once('=')
            .ok_or_else(|| format!("`{s}` is not TASK=PERCENT"))?;
        let percent = percent
            .trim()
            .trim_end_matches('%')
            .parse()
            .map_err(|_| format!("`{percent}` is not a whole percent"))?;
        Ok(WorkScale {
            task: task.trim().to_string(),
            percent,
        })
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            seed: 1,
            tasks: 8,
            queues: 8,
            isrs: 5,
            cores: 1,
            layout: Layout::Streaming,
            drops: None,
            heartbeat: 100,
            ns_per_tick: 10,
            tick_period_ns: 1_000_000,
            size: 1 << 20,
            record_truth: false,
            wide_values: false,
            work_scale: None,
        }
    }
}

/// A config the simulator cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    NoCores,
    TooManyCores(u32),
    SinkCount {
        cores: u32,
        sinks: usize,
    },
    TickShorterThanResolution,
    ZeroResolution,
    TooManyObjects,
    /// A task named in [`Config::work_scale`] that the system does not have.
    UnknownTask(String),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::NoCores => write!(f, "the simulated system needs at least one core"),
            ConfigError::TooManyCores(n) => {
                write!(f, "{n} cores requested; at most {MAX_CORES} are supported")
            }
            ConfigError::SinkCount { cores, sinks } => {
                write!(f, "{cores} cores need {cores} output streams, got {sinks}")
            }
            ConfigError::TickShorterThanResolution => {
                write!(f, "the RTOS tick period must be at least one timestamp tick long")
            }
            ConfigError::ZeroResolution => write!(f, "the timestamp resolution must be at least 1 ns"),
            ConfigError::TooManyObjects => write!(
                f,
                "at most {MAX_OBJECTS} tasks, {MAX_OBJECTS} queues and {MAX_OBJECTS} interrupts are supported"
            ),
            ConfigError::UnknownTask(name) => write!(
                f,
                "the simulated system has no application task named `{name}` (they are named by role and number: prod0, cons0, work0, …)"
            ),
        }
    }
}

impl std::error::Error for ConfigError {}

pub const MAX_CORES: u32 = 64;
pub const MAX_OBJECTS: u32 = 10_000;

impl Config {
    /// The RTOS tick period in timestamp ticks.
    pub fn tick_period(&self) -> u64 {
        (self.tick_period_ns / self.ns_per_tick.max(1)).max(1)
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.cores == 0 {
            return Err(ConfigError::NoCores);
        }
        if self.cores > MAX_CORES {
            return Err(ConfigError::TooManyCores(self.cores));
        }
        if self.ns_per_tick == 0 {
            return Err(ConfigError::ZeroResolution);
        }
        if self.tick_period_ns < self.ns_per_tick {
            return Err(ConfigError::TickShorterThanResolution);
        }
        if self.tasks > MAX_OBJECTS || self.queues > MAX_OBJECTS || self.isrs > MAX_OBJECTS {
            return Err(ConfigError::TooManyObjects);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation() {
        assert_eq!(Config::default().validate(), Ok(()));
        let bad = Config {
            cores: 0,
            ..Config::default()
        };
        assert_eq!(bad.validate(), Err(ConfigError::NoCores));
    }
}
