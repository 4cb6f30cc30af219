//! Percepio TraceRecorder streaming recordings: the PSF stream a target's
//! recorder (v4) writes through its stream port (Jlink_RTT's `TzData`
//! channel, a file, a socket), as a capture of it from the start holds it
//! — the `PSF` word, the header, the timestamp configuration and the entry
//! table of named objects, then events of a 16-bit code, a 16-bit count, a
//! 32-bit timestamp and up to 15 parameter words.
//!
//! The header, the entry table and most events are decoded by the
//! `trace-recorder-parser` crate; this crate frames the events itself (so
//! that damage is found and skipped), decodes the events that crate leaves
//! raw ([`ids`]), turns the timestamps into time ([`clock`]) and the events
//! into the trace model ([`build_model`], [`TracerecorderImport`]).
//! Damage never stops the importer: a recording cut inside an event, bytes
//! that are no events, events the recorder could not send (gaps in the
//! event count) and ids TraceRecorder does not define are anomalies, and
//! everything else is decoded.

mod clock;
pub mod ids;
mod interpret;
mod raw_events;
mod stream;

use std::fmt;

use trace_recorder_parser::streaming::RecorderData;

pub use interpret::{build_model, TracerecorderImport};
pub use stream::{Framed, RawEvent, Stream};

/// The first word of a recording, little-endian ("\0FSP" in its bytes) or
/// big-endian.
const PSF_LITTLE_ENDIAN: [u8; 4] = [0x00, 0x46, 0x53, 0x50];
const PSF_BIG_ENDIAN: [u8; 4] = [0x50, 0x53, 0x46, 0x00];

/// The format versions (the header's second field) this crate reads:
/// those of TraceRecorder v4, v4.11.0 writing 14.
pub const FORMAT_VERSIONS: [u16; 4] = [10, 12, 13, 14];

/// Whether `bytes` start as a TraceRecorder streaming recording does: the
/// PSF word.
pub fn looks_like(bytes: &[u8]) -> bool {
    bytes.starts_with(&PSF_LITTLE_ENDIAN) || bytes.starts_with(&PSF_BIG_ENDIAN)
}

/// Why a recording could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    Empty,
    /// The bytes do not start with the PSF word.
    NotTracerecorder,
    /// A format version this crate does not read.
    UnsupportedVersion(u16),
    /// The header, timestamp configuration or entry table is cut or
    /// damaged; the parser's reason.
    BadHeader(String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Empty => f.write_str("the TraceRecorder recording is empty"),
            ReadError::NotTracerecorder => f.write_str(
                "not a TraceRecorder streaming recording: it does not start with the PSF word, as a capture of the recorder's stream (the TzData RTT channel) from the start does",
            ),
            ReadError::UnsupportedVersion(version) => write!(
                f,
                "TraceRecorder streaming format version {version} is not read: tband reads versions 10, 12, 13 and 14 (TraceRecorder v4, up to v4.11.0)"
            ),
            ReadError::BadHeader(why) => write!(
                f,
                "the TraceRecorder recording's header or object table is damaged: {why}"
            ),
        }
    }
}

impl std::error::Error for ReadError {}

/// A recording's bytes and what its start says: the header, the
/// timestamp configuration and the entry table, as the parser read them.
#[derive(Debug, Clone)]
pub struct Recording<'a> {
    pub bytes: &'a [u8],
    pub start: RecorderData,
    /// Where the first event starts.
    pub events_offset: usize,
}

impl<'a> Recording<'a> {
    pub fn read(bytes: &'a [u8]) -> Result<Recording<'a>, ReadError> {
        if bytes.is_empty() {
            return Err(ReadError::Empty);
        }
        if !looks_like(bytes) {
            return Err(ReadError::NotTracerecorder);
        }
        let version = match bytes.get(4..6) {
            Some(v) if bytes.starts_with(&PSF_LITTLE_ENDIAN) => u16::from_le_bytes([v[0], v[1]]),
            Some(v) => u16::from_be_bytes([v[0], v[1]]),
            None => return Err(ReadError::BadHeader("it ends inside the header".into())),
        };
        if !FORMAT_VERSIONS.contains(&version) {
            return Err(ReadError::UnsupportedVersion(version));
        }
        let mut rest = bytes;
        let start =
            RecorderData::read(&mut rest).map_err(|e| ReadError::BadHeader(e.to_string()))?;
        Ok(Recording {
            bytes,
            start,
            events_offset: bytes.len() - rest.len(),
        })
    }

    pub fn is_little_endian(&self) -> bool {
        self.bytes.starts_with(&PSF_LITTLE_ENDIAN)
    }
}
