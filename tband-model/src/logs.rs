//! Log lines: what the firmware logged, each an instant on the task or ISR
//! that was running. The tracer carries a log call as an encoded frame
//! (defmt's); the model keeps the frame and, once it is decoded with what
//! the firmware's build says (its ELF), the line's level, text and place.

use crate::{Actor, Anomaly, AnomalyKind, Model};

/// One log call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    pub ts_ns: u64,
    pub core_id: u32,
    /// What was running when it was logged.
    pub by: Option<Actor>,
    /// The frame as the firmware encoded it.
    pub frame: Vec<u8>,
    /// The line the frame decodes to; `None` until decoded, or when it
    /// could not be.
    pub message: Option<LogMessage>,
}

/// A decoded log line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogMessage {
    /// `trace`, `debug`, `info`, `warn` or `error`; `None` for a line
    /// printed without a level (defmt's `println!`).
    pub level: Option<LogLevel>,
    pub text: String,
    /// The source file and line of the log call, when the build says.
    pub file: Option<String>,
    pub line: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
}

impl LogLevel {
    pub const ALL: [LogLevel; 5] = [
        LogLevel::Trace,
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Warn,
        LogLevel::Error,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Trace => "trace",
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Warn => "warn",
            LogLevel::Error => "error",
        }
    }

    /// The level named `name` (as [`as_str`](Self::as_str) names it).
    pub fn from_name(name: &str) -> Option<LogLevel> {
        LogLevel::ALL.into_iter().find(|l| l.as_str() == name)
    }
}

/// What turns log frames into lines.
pub trait LogDecoder {
    /// The line `frame` encodes, or why it cannot be read (one sentence).
    fn decode(&self, frame: &[u8]) -> Result<LogMessage, String>;
}

impl Model {
    /// Decodes every log line's frame with `decoder` (none: the frames
    /// cannot be read, for want of `missing`, the sentence saying what the
    /// user should give). The frames that stay undecoded are counted in
    /// one anomaly, never dropped silently.
    pub fn decode_logs(&mut self, decoder: Option<&dyn LogDecoder>, missing: &str) {
        let mut undecoded = 0;
        let mut first: Option<(u64, u64, String)> = None;
        for line in &mut self.logs {
            let why = match decoder {
                Some(d) => match d.decode(&line.frame) {
                    Ok(message) => {
                        line.message = Some(message);
                        continue;
                    }
                    Err(why) => why,
                },
                None => missing.to_string(),
            };
            line.message = None;
            undecoded += 1;
            let (start, end, _) = first.get_or_insert((line.ts_ns, line.ts_ns, why));
            *start = (*start).min(line.ts_ns);
            *end = (*end).max(line.ts_ns);
        }
        self.anomalies
            .retain(|a| a.kind != AnomalyKind::UndecodedLogs);
        if let Some((start_ns, end_ns, why)) = first {
            self.anomalies.push(Anomaly {
                start_ns,
                end_ns,
                core_id: None,
                kind: AnomalyKind::UndecodedLogs,
                count: undecoded,
                detail: format!("{undecoded} defmt frame(s) not decoded: {why}"),
            });
            self.anomalies
                .sort_by_key(|a| (a.end_ns, a.start_ns, a.kind));
        }
    }
}
