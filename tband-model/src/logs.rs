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
    /// Decodes the frame of every log line not yet decoded with `decoder`
    /// (none: the frames cannot be read, for want of `missing`, the
    /// sentence saying what the user should give). The frames that stay
    /// undecoded are counted in one anomaly, never dropped silently.
    pub fn decode_logs(&mut self, decoder: Option<&dyn LogDecoder>, missing: &str) {
        let mut undecoded = 0;
        let mut first: Option<(u64, u64, String)> = None;
        for line in self.logs.iter_mut().filter(|l| l.message.is_none()) {
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

#[cfg(test)]
mod tests {
    use crate::{Actor, AnomalyKind, IsrKey, ModelBuilder};

    #[test]
    fn frames_are_kept_with_who_logged_them_and_counted_until_decoded() {
        let mut b = ModelBuilder::default();
        b.event_at(0, 10);
        b.task_switched_in(10, 0, 7);
        b.event_at(0, 20);
        b.log_frame(20, 0, &[1, 0, 42]);
        b.event_at(0, 30);
        b.isr_enter(30, 0, 3);
        b.event_at(0, 35);
        b.log_frame(35, 0, &[2, 0]);
        b.event_at(0, 40);
        b.isr_exit(40, 0, 3);
        let mut m = b.finish();
        let who: Vec<_> = m
            .logs
            .iter()
            .map(|l| (l.ts_ns, l.by, l.frame.clone()))
            .collect();
        let isr = IsrKey {
            core_id: 0,
            isr_id: 3,
        };
        assert_eq!(
            who,
            [
                (20, Some(Actor::Task(7)), vec![1, 0, 42]),
                (35, Some(Actor::Isr(isr)), vec![2, 0])
            ]
        );
        m.decode_logs(None, "give the ELF");
        m.decode_logs(None, "give the ELF");
        let undecoded: Vec<_> = (m.anomalies.iter())
            .filter(|a| a.kind == AnomalyKind::UndecodedLogs)
            .map(|a| (a.start_ns, a.end_ns, a.count, a.detail.as_str()))
            .collect();
        assert_eq!(
            undecoded,
            [(20, 35, 2, "2 defmt frame(s) not decoded: give the ELF")]
        );
    }
}
