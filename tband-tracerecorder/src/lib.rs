//! Percepio TraceRecorder recordings (v4): the PSF stream a target's
//! recorder writes through a stream port (Jlink_RTT's `TzData` channel, a
//! file, a socket), as a capture of it from the start holds it — the `PSF`
//! word, the header, the timestamp configuration and the entry table of
//! named objects, then events of a 16-bit code, a 16-bit count, a 32-bit
//! timestamp and up to 15 parameter words; or the RingBuffer stream port's
//! data dumped from RAM, which holds the same start and a ring of the
//! newest events ([`ring`]).
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
pub mod ring;
mod stream;

use std::borrow::Cow;
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

/// Whether `bytes` start as a TraceRecorder recording does: the PSF word
/// (a stream), or the recorder's start markers (a RingBuffer dump).
pub fn looks_like(bytes: &[u8]) -> bool {
    is_psf_word(bytes) || ring::start_markers_at(bytes).is_some()
}

fn is_psf_word(bytes: &[u8]) -> bool {
    bytes.starts_with(&PSF_LITTLE_ENDIAN) || bytes.starts_with(&PSF_BIG_ENDIAN)
}

/// Why a recording could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    Empty,
    /// The bytes start with neither the PSF word nor the start markers.
    NotTracerecorder,
    /// A format version this crate does not read.
    UnsupportedVersion(u16),
    /// The header, timestamp configuration or entry table is cut or
    /// damaged; the parser's reason.
    BadHeader(String),
    /// A RingBuffer dump that ends before its ring does.
    CutRing {
        size: usize,
        held: usize,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Empty => f.write_str("the TraceRecorder recording is empty"),
            ReadError::NotTracerecorder => f.write_str(
                "not a TraceRecorder recording: it starts with neither the PSF word, as a capture of the recorder's stream (the TzData RTT channel) from the start does, nor the start markers of the RingBuffer stream port's data, as a dump of it does",
            ),
            ReadError::UnsupportedVersion(version) => write!(
                f,
                "TraceRecorder streaming format version {version} is not read: tband reads versions 10, 12, 13 and 14 (TraceRecorder v4, up to v4.11.0)"
            ),
            ReadError::BadHeader(why) => write!(
                f,
                "the TraceRecorder recording's header or object table is damaged: {why}"
            ),
            ReadError::CutRing { size, held } => write!(
                f,
                "the TraceRecorder RingBuffer dump ends inside its ring: {held} of its {size} bytes are there"
            ),
        }
    }
}

impl std::error::Error for ReadError {}

/// How the recording was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A stream port's output, captured from its start.
    Streaming,
    /// The RingBuffer stream port's data, dumped from RAM; `ring` bytes of
    /// ring.
    RingBuffer { ring: usize },
}

/// A recording's bytes and what its start says: the header, the
/// timestamp configuration and the entry table, as the parser read them.
#[derive(Debug, Clone)]
pub struct Recording<'a> {
    pub bytes: &'a [u8],
    pub kind: Kind,
    pub start: RecorderData,
    /// The events, in order, from `events_offset` on: the recording
    /// itself (a stream), or its ring's events unrolled, oldest first (a
    /// RingBuffer dump).
    pub events: Cow<'a, [u8]>,
    pub events_offset: usize,
}

impl<'a> Recording<'a> {
    pub fn read(bytes: &'a [u8]) -> Result<Recording<'a>, ReadError> {
        if bytes.is_empty() {
            return Err(ReadError::Empty);
        }
        if is_psf_word(bytes) {
            let (start, len) = read_start(bytes)?;
            return Ok(Recording {
                bytes,
                kind: Kind::Streaming,
                start,
                events: Cow::Borrowed(bytes),
                events_offset: len,
            });
        }
        let at = ring::start_markers_at(bytes).ok_or(ReadError::NotTracerecorder)?;
        let header_at = at + ring::START_MARKERS.len();
        let (start, len) = read_start(&bytes[header_at..])?;
        let ring_at = header_at + len + 4;
        let size_bytes = bytes
            .get(ring_at - 4..ring_at)
            .ok_or_else(|| ReadError::BadHeader("it ends before the ring".into()))?;
        let size = [size_bytes[0], size_bytes[1], size_bytes[2], size_bytes[3]];
        let size = if is_little_endian(&bytes[header_at..]) {
            u32::from_le_bytes(size)
        } else {
            u32::from_be_bytes(size)
        } as usize;
        let held = bytes.len() - ring_at;
        if held < size {
            return Err(ReadError::CutRing { size, held });
        }
        let ring = &bytes[ring_at..ring_at + size];
        Ok(Recording {
            bytes,
            kind: Kind::RingBuffer { ring: size },
            start,
            events: Cow::Owned(ring::unroll(ring, is_little_endian(&bytes[header_at..]))),
            events_offset: 0,
        })
    }

    pub fn is_little_endian(&self) -> bool {
        self.start.header.endianness == trace_recorder_parser::types::Endianness::Little
    }
}

fn is_little_endian(header: &[u8]) -> bool {
    header.starts_with(&PSF_LITTLE_ENDIAN)
}

/// The parser's reading of the start of a stream (`bytes` from the PSF
/// word), and its length.
fn read_start(bytes: &[u8]) -> Result<(RecorderData, usize), ReadError> {
    let version = match bytes.get(4..6) {
        Some(v) if is_little_endian(bytes) => u16::from_le_bytes([v[0], v[1]]),
        Some(v) => u16::from_be_bytes([v[0], v[1]]),
        None => return Err(ReadError::BadHeader("it ends inside the header".into())),
    };
    if !is_psf_word(bytes) {
        return Err(ReadError::BadHeader(
            "no PSF word after the start markers".into(),
        ));
    }
    if !FORMAT_VERSIONS.contains(&version) {
        return Err(ReadError::UnsupportedVersion(version));
    }
    let mut rest = bytes;
    let start = RecorderData::read(&mut rest).map_err(|e| ReadError::BadHeader(e.to_string()))?;
    Ok((start, bytes.len() - rest.len()))
}
