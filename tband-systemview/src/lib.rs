//! SEGGER SystemView recordings: the raw stream a target's SystemView
//! recorder writes into its RTT up channel ("SysView"), as a capture of
//! that channel holds it — ten zero bytes to sync, then packets of an
//! event id, a payload and a timestamp delta.
//!
//! [`Recording::read`] checks the start of the stream and finds the
//! timestamp frequency; [`build_model`] (or [`SystemviewImport`]) turns the
//! packets into the trace model. Damage never stops the importer: a
//! recording cut inside a packet, a payload that ends inside a value and an
//! id SystemView does not define are anomalies, and everything else is
//! decoded.

mod events;
mod freertos;
mod interpret;
mod message;
mod packets;
mod raw_events;
mod varint;

use std::fmt;

pub use events::{event_name, is_event_name, Event, Level};
pub use interpret::{
    build_model, SystemviewImport, ERROR_MARKER_ID, IDLE_TASK_ID, LOG_MARKER_ID, WARNING_MARKER_ID,
};
pub use packets::{Packet, Packets};

/// How a recording starts: the sync (ten no-op packets) and the trace-start
/// packet's id.
const SYNC_LEN: usize = 10;
const TRACE_START_ID: u8 = 10;

const INIT_ID: u8 = 24;
/// How far into a stream captured from the middle a sync is looked for.
const SYNC_SEARCH_BYTES: usize = 64 * 1024;

/// Whether `bytes` are a SystemView recording: the sync, then the
/// trace-start packet; or, for a stream captured from its middle (a
/// post-mortem buffer, a capture attached late), bytes up to a sync that
/// the init packet follows, as the target's periodic sync information has
/// it.
pub fn looks_like(bytes: &[u8]) -> bool {
    first_sync(bytes).is_some_and(|at| {
        let next = bytes[at + SYNC_LEN];
        (at == 0 && next == TRACE_START_ID) || next == INIT_ID
    })
}

/// Where the first sync (ten zero bytes followed by a packet) begins.
fn first_sync(bytes: &[u8]) -> Option<usize> {
    let searched = &bytes[..bytes.len().min(SYNC_SEARCH_BYTES + SYNC_LEN + 1)];
    searched
        .windows(SYNC_LEN + 1)
        .position(|w| w[..SYNC_LEN].iter().all(|&b| b == 0) && w[SYNC_LEN] != 0)
}

/// Why a recording could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    Empty,
    /// The bytes do not start with the sync and the trace-start packet.
    NotSystemview,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Empty => f.write_str("the SystemView recording is empty"),
            ReadError::NotSystemview => f.write_str(
                "not a SystemView recording: it does not start with ten zero bytes and a trace-start packet (id 10), as a capture of the SysView RTT channel from the start does, nor has ten zero bytes and an init packet (id 24) in its first 64 KiB",
            ),
        }
    }
}

impl std::error::Error for ReadError {}

/// A recording's bytes from its first sync on, with the timestamp frequency
/// its init packet gives.
#[derive(Debug, Clone, Copy)]
pub struct Recording<'a> {
    pub bytes: &'a [u8],
    /// The bytes before the first sync, which cannot be read (a stream
    /// captured from its middle).
    pub skipped: usize,
    /// Timer ticks per second; `None` when the recording has no init packet.
    pub timestamp_hz: Option<u32>,
}

impl<'a> Recording<'a> {
    pub fn read(bytes: &'a [u8]) -> Result<Recording<'a>, ReadError> {
        if bytes.is_empty() {
            return Err(ReadError::Empty);
        }
        if !looks_like(bytes) {
            return Err(ReadError::NotSystemview);
        }
        let skipped = first_sync(bytes).unwrap_or(0);
        let bytes = &bytes[skipped..];
        // The target sends its init packet right after the sync.
        let timestamp_hz = Packets::new(bytes).find_map(|p| match Event::decode(&p) {
            Ok(Event::Init { timestamp_hz, .. }) if timestamp_hz > 0 => Some(timestamp_hz),
            _ => None,
        });
        Ok(Recording {
            bytes,
            skipped,
            timestamp_hz,
        })
    }
}
