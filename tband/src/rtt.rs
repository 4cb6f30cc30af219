//! Streaming into a SEGGER RTT up channel, for a debug probe or a GDB
//! server to read while the target runs.
//!
//! The firmware sets RTT up itself with `rtt_target::rtt_init!`, so that one
//! control block (`_SEGGER_RTT`) serves tband on a channel of its own and,
//! on channel 0, defmt logging through rtt-target's `defmt` feature (used in
//! place of `defmt-rtt`, which would bring a second control block). It hands
//! tband each core's up channel with [`set_channel`] and sends its stream
//! with [`stream_write`] from its [`Port`](crate::Port).

use core::cell::RefCell;

use critical_section::Mutex;
use rtt_target::ChannelMode;
pub use rtt_target::UpChannel;

use crate::config::CORES;

/// What writing a frame does when the channel's buffer has no room for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhenFull {
    /// The frame is left out and counted as a dropped event, as when any
    /// streaming send function refuses a frame; the firmware never waits.
    Drop,
    /// The write waits until the host has read enough. Nothing is lost, but
    /// the firmware stands still, interrupts masked, while no host reads.
    Wait,
}

static CHANNELS: Mutex<RefCell<[Option<UpChannel>; CORES]>> =
    Mutex::new(RefCell::new([const { None }; CORES]));

/// Sends `core`'s stream to `channel` from now on. A core above
/// `TBAND_CORES` is ignored.
pub fn set_channel(core: usize, mut channel: UpChannel, when_full: WhenFull) {
    // NoBlockSkip writes a frame whole or not at all: a frame cut short by a
    // full buffer (NoBlockTrim) would reach the host as an invalid frame.
    channel.set_mode(match when_full {
        WhenFull::Drop => ChannelMode::NoBlockSkip,
        WhenFull::Wait => ChannelMode::BlockIfFull,
    });
    critical_section::with(|cs| {
        if let Some(slot) = CHANNELS.borrow_ref_mut(cs).get_mut(core) {
            *slot = Some(channel);
        }
    });
}

/// Writes whole frames of `core`'s stream to its channel: `false` if the
/// core has no channel or the frames did not fit (then none of them is
/// written). For [`Port::stream_write`](crate::Port::stream_write).
pub fn stream_write(core: usize, bytes: &[u8]) -> bool {
    critical_section::with(|cs| {
        let mut channels = CHANNELS.borrow_ref_mut(cs);
        let Some(channel) = channels.get_mut(core).and_then(Option::as_mut) else {
            return false;
        };
        // A skipped write returns what it copied before finding the buffer
        // full, without making it visible to the host: all of it, or nothing.
        channel.write(bytes) == bytes.len()
    })
}

/// Waits until the host has read everything written to `core`'s channel
/// (returns at once if it has none), e.g. before the firmware stops.
pub fn flush(core: usize) {
    while !critical_section::with(|cs| {
        CHANNELS
            .borrow_ref(cs)
            .get(core)
            .and_then(Option::as_ref)
            .is_none_or(UpChannel::is_empty)
    }) {
        core::hint::spin_loop();
    }
}
