//! What both streaming transports share: how long they record and the
//! counts they print at the end.

use cortex_m_semihosting::hprintln;

use crate::Counts;

/// Long enough for a few thousand events; a stream has no buffer to fill.
const TICKS_TO_STREAM: u32 = 200;

pub fn start() {
    // Streaming starts only once the port can send; a refusal here would
    // show as no stream at all, which the host reports.
    let _ = tband::start_streaming();
}

pub fn keep_recording(ticks: u32) -> bool {
    ticks < TICKS_TO_STREAM
}

/// Prints what was traced, in one line the host checks the captured
/// stream against.
pub fn report(counts: &Counts) {
    hprintln!(
        "tband emitted: isr_enter={} isr_exit={} evtmarker_begin={} evtmarker_end={} evtmarker={} valmarker={} dropped={}",
        counts.isr_enter,
        counts.isr_exit,
        counts.evtmarker_begin,
        counts.evtmarker_end,
        counts.evtmarker,
        counts.valmarker,
        tband::dropped_events(0)
    );
}
