//! The RTT transport: frames go into RTT up channel 1, named "tband", which
//! a debug probe or a GDB server reads while the firmware runs
//! (`tband-capture --gdb` against QEMU's gdbstub). Channel 0 is a text
//! terminal, where defmt logging would go (see the book's recording page).

use core::fmt::Write;

use rtt_target::{rtt_init, ChannelMode};
pub use crate::stream::{keep_recording, start};
use tband::rtt::WhenFull;

use crate::Counts;

/// Waiting on a full buffer: this firmware exists to be captured whole.
#[cfg(not(feature = "rtt-drop"))]
const WHEN_FULL: WhenFull = WhenFull::Wait;
#[cfg(not(feature = "rtt-drop"))]
const TBAND_BUFFER: usize = 4096;
/// A buffer that fills between two reads of the host, so that frames are
/// dropped and counted, as a firmware that must never wait would have it.
#[cfg(feature = "rtt-drop")]
const WHEN_FULL: WhenFull = WhenFull::Drop;
#[cfg(feature = "rtt-drop")]
const TBAND_BUFFER: usize = 512;

pub fn set_up() {
    let channels = rtt_init! {
        up: {
            0: {
                size: 256,
                mode: ChannelMode::NoBlockSkip,
                name: "Terminal"
            }
            1: {
                size: TBAND_BUFFER,
                name: "tband"
            }
        }
    };
    let mut terminal = channels.up.0;
    let _ = writeln!(terminal, "tband streams on RTT channel 1");
    tband::rtt::set_channel(0, channels.up.1, WHEN_FULL);
}

pub fn stream_write(core: usize, bytes: &[u8]) -> bool {
    tband::rtt::stream_write(core, bytes)
}

/// Waits until the host has read the whole stream, then reports.
pub fn finish(counts: &Counts) -> bool {
    tband::stop_streaming();
    tband::rtt::flush(0);
    crate::stream::report(counts);
    true
}
