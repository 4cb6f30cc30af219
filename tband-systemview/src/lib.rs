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

/// Whether `bytes` start as a SystemView recording does: the sync, then
/// the trace-start packet.
pub fn looks_like(bytes: &[u8]) -> bool {
    bytes.len() > SYNC_LEN
        && bytes[..SYNC_LEN].iter().all(|&b| b == 0)
        && bytes[SYNC_LEN] == TRACE_START_ID
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
                "not a SystemView recording: it does not start with ten zero bytes and a trace-start packet (id 10), as a capture of the SysView RTT channel from the start does",
            ),
        }
    }
}

impl std::error::Error for ReadError {}

/// A recording's bytes, with the timestamp frequency its init packet gives.
#[derive(Debug, Clone, Copy)]
pub struct Recording<'a> {
    pub bytes: &'a [u8],
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
        // The target sends its init packet right after the trace start.
        let timestamp_hz = Packets::new(bytes).find_map(|p| match Event::decode(&p) {
            Ok(Event::Init { timestamp_hz, .. }) if timestamp_hz > 0 => Some(timestamp_hz),
            _ => None,
        });
        Ok(Recording {
            bytes,
            timestamp_hz,
        })
    }
}
