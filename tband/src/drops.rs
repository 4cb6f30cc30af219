//! Dropped-event accounting (docs/src/format.md, "Lost events"): a running total
//! of events the backend refused, re-sent before each following event until
//! it gets through, and sent as a heartbeat every `every` events.

/// The accounting of one core. A loss makes a report due at once by
/// raising the count of events since the last report to the heartbeat
/// threshold, so that whether a report is due is a single comparison.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DropCounter {
    total: u32,
    since_report: u32,
}

/// The `since_report` at which a report is due: every `every` events, or
/// (`every` 0) only after a loss.
const fn threshold(every: u32) -> u32 {
    if every == 0 {
        1
    } else {
        every
    }
}

impl DropCounter {
    pub const fn new() -> Self {
        DropCounter {
            total: 0,
            since_report: 0,
        }
    }

    /// Events lost so far.
    #[inline]
    pub const fn total(&self) -> u32 {
        self.total
    }

    /// Whether the total must go out before the next event: it grew since
    /// it last got through, or `every` (non-zero) events passed since then.
    #[inline(always)]
    pub const fn report_due(&self, every: u32) -> bool {
        self.since_report >= threshold(every)
    }

    /// The total got through to the backend.
    #[inline(always)]
    pub fn reported(&mut self) {
        self.since_report = 0;
    }

    /// An event was handed to the backend and stored. (Counted only for a
    /// heartbeat; the count is reset by every report, so wrapping would take
    /// 2^32 events without one.)
    #[inline(always)]
    pub fn stored(&mut self, every: u32) {
        if every != 0 {
            self.since_report = self.since_report.wrapping_add(1);
        }
    }

    /// An event was lost: a report is due.
    #[inline]
    pub fn lost(&mut self, every: u32) {
        self.total = self.total.wrapping_add(1);
        self.since_report = self.since_report.max(threshold(every));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drop_is_reported_once_it_gets_through() {
        let mut d = DropCounter::new();
        assert!(!d.report_due(0));
        d.lost(0);
        assert!(d.report_due(0));
        // The report itself could not be sent: still due.
        d.stored(0);
        assert!(d.report_due(0));
        d.reported();
        assert!(!d.report_due(0));
        // Not re-sent before every later event.
        for _ in 0..100 {
            d.stored(0);
            assert!(!d.report_due(0));
        }
        assert_eq!(d.total(), 1);
    }

    #[test]
    fn heartbeat_every_n_events() {
        let mut d = DropCounter::new();
        for _ in 0..2 {
            for _ in 0..3 {
                assert!(!d.report_due(3));
                d.stored(3);
            }
            assert!(d.report_due(3));
            d.reported();
        }
        d.stored(3);
        assert!(!d.report_due(3));
    }

    #[test]
    fn a_drop_between_heartbeats_is_reported_at_once() {
        let mut d = DropCounter::new();
        d.stored(3);
        d.lost(3);
        assert!(d.report_due(3));
        for _ in 0..5 {
            d.stored(3);
            assert!(d.report_due(3), "due until it gets through");
        }
        d.reported();
        for _ in 0..3 {
            assert!(!d.report_due(3));
            d.stored(3);
        }
        assert!(d.report_due(3));
        assert_eq!(d.total(), 1);
    }
}
