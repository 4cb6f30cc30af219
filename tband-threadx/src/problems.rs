//! What was wrong with a buffer: the parts that could not be decoded.

use std::fmt;

/// What kind of damage a [`Problem`] describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    /// A header pointer lies before the base address, outside the file or
    /// out of order with the other pointers.
    HeaderPointer,
    /// The registry span is not a whole number of entries or runs past the
    /// end of the file.
    RegistryLayout,
    /// The trace area is not a whole number of 32-byte slots.
    BufferLayout,
    /// Part of the trace area lies beyond the end of the file.
    BufferTruncated,
    /// The current pointer is outside the trace area or not on a slot.
    CurrentPointer,
    /// The timer-valid mask is not a contiguous run of low bits.
    TimerMask,
    /// An entry's event id is neither a known ThreadX/FileX/NetX event, in
    /// the USBX range, nor a user event.
    UnknownEvent,
    /// An entry's thread word is neither a registered thread, the interrupt
    /// marker nor the initialization marker.
    UnregisteredThread,
    /// Two consecutive timestamps are more than half the timer range apart
    /// in the counting direction: either a gap longer than the timer can
    /// measure or time running backwards.
    TimestampJump,
}

impl ProblemKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemKind::HeaderPointer => "header_pointer",
            ProblemKind::RegistryLayout => "registry_layout",
            ProblemKind::BufferLayout => "buffer_layout",
            ProblemKind::BufferTruncated => "buffer_truncated",
            ProblemKind::CurrentPointer => "current_pointer",
            ProblemKind::TimerMask => "timer_mask",
            ProblemKind::UnknownEvent => "unknown_event",
            ProblemKind::UnregisteredThread => "unregistered_thread",
            ProblemKind::TimestampJump => "timestamp_jump",
        }
    }
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One kind of damage: where it was first seen (byte offset in the file,
/// and the entry's time for problems in entries), how often it occurred,
/// and a sentence about the first occurrence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub kind: ProblemKind,
    pub position: usize,
    /// Time of the first entry with this problem, in ns since the first entry.
    pub time_ns: Option<u64>,
    pub count: u64,
    pub detail: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at byte {}: {}",
            self.kind, self.position, self.detail
        )?;
        if self.count > 1 {
            write!(f, " ({} times)", self.count)?;
        }
        Ok(())
    }
}

/// Collects problems; per-entry kinds are folded into one problem each so a
/// buffer full of garbage yields a short list.
#[derive(Debug, Default, Clone)]
pub(crate) struct ProblemLog {
    problems: Vec<Problem>,
}

impl ProblemLog {
    /// Records a problem that stands on its own.
    pub(crate) fn record(&mut self, kind: ProblemKind, position: usize, detail: String) {
        self.problems.push(Problem {
            kind,
            position,
            time_ns: None,
            count: 1,
            detail,
        });
    }

    /// Counts one more occurrence of `kind` in the entry at `position`
    /// (time `time_ns`); only the first occurrence's place and detail are kept.
    pub(crate) fn count(
        &mut self,
        kind: ProblemKind,
        position: usize,
        time_ns: u64,
        detail: impl FnOnce() -> String,
    ) {
        match self.problems.iter_mut().find(|p| p.kind == kind) {
            Some(problem) => problem.count += 1,
            None => self.problems.push(Problem {
                kind,
                position,
                time_ns: Some(time_ns),
                count: 1,
                detail: detail(),
            }),
        }
    }

    pub(crate) fn into_vec(self) -> Vec<Problem> {
        self.problems
    }

    pub(crate) fn as_slice(&self) -> &[Problem] {
        &self.problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counted_problems_fold_into_the_first() {
        let mut log = ProblemLog::default();
        log.count(ProblemKind::UnknownEvent, 100, 5, || "first".into());
        log.count(ProblemKind::UnknownEvent, 132, 6, || "second".into());
        log.record(ProblemKind::HeaderPointer, 12, "bad".into());
        let problems = log.into_vec();
        assert_eq!(problems.len(), 2);
        assert_eq!(problems[0].count, 2);
        assert_eq!((problems[0].position, problems[0].time_ns), (100, Some(5)));
        assert_eq!(problems[0].detail, "first");
        assert_eq!(
            problems[0].to_string(),
            "unknown_event at byte 100: first (2 times)"
        );
    }
}
