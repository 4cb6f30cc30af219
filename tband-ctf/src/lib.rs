//! Common Trace Format (CTF 1.8) input, as written by Zephyr's tracing subsystem.
//!
//! A trace is a directory with a TSDL `metadata` file and one or more stream files, or a stream
//! file with the path of its metadata. The metadata is parsed into a layout ([`Metadata`]) that
//! drives the stream decoder ([`StreamDecoder`]), so events a newer tracer adds decode without
//! changes here.

mod decode;
mod import;
mod lexer;
mod listing;
mod tsdl;
mod types;

use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use tband_decode::input::{Input, InputError, InputSpec};

pub use decode::{EventRecord, FieldsDisplay, Problem, ProblemKind, StreamDecoder, Value};
pub use import::{
    build_model, build_model_counting, clock_origin_ns, for_each_event, has_events, CtfImport,
};
pub use listing::{write_json_row, write_pretty_row};
pub use tsdl::parse_metadata;
pub use types::{
    ByteOrder, Clock, Encoding, EnumMapping, EnumType, EventClass, Field, IntegerType, Metadata,
    StructType, Type,
};

/// Largest event id accepted in metadata (ids index a table).
pub const MAX_EVENT_ID: usize = 0xffff;

/// The name of the metadata file inside a trace directory.
pub const METADATA_FILE: &str = "metadata";

/// What plain-text CTF metadata starts with.
const METADATA_SIGNATURE: &[u8] = b"/* CTF";

/// Metadata that cannot be used, with the line it was found on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataError {
    pub line: usize,
    pub message: String,
}

impl MetadataError {
    pub(crate) fn new(line: usize, message: impl Into<String>) -> Self {
        MetadataError {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for MetadataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "metadata line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for MetadataError {}

/// Why a CTF trace could not be opened.
#[derive(Debug)]
pub enum CtfError {
    Io { path: PathBuf, source: io::Error },
    Input(InputError),
    Metadata { path: PathBuf, error: MetadataError },
    NotText { path: PathBuf },
    NoStreams { dir: PathBuf },
    NoMetadata { stream: String },
}

impl fmt::Display for CtfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CtfError::Io { path, source } => write!(f, "cannot read {}: {source}", path.display()),
            CtfError::Input(e) => e.fmt(f),
            CtfError::Metadata { path, error } => write!(f, "{}: {error}", path.display()),
            CtfError::NotText { path } => write!(
                f,
                "{} is not plain-text CTF metadata (packetized metadata is not supported)",
                path.display()
            ),
            CtfError::NoStreams { dir } => {
                write!(
                    f,
                    "{} holds CTF metadata but no stream files",
                    dir.display()
                )
            }
            CtfError::NoMetadata { stream } => write!(
                f,
                "no CTF metadata for {stream}: give the metadata file with --ctf-metadata"
            ),
        }
    }
}

impl std::error::Error for CtfError {}

/// A CTF trace: its layout and its streams (each stream is one core: its `@CORE`
/// suffix, else its position).
pub struct CtfTrace {
    pub metadata: Metadata,
    pub streams: Vec<Input>,
}

impl CtfTrace {
    /// Opens a trace directory, or a stream file whose directory holds the metadata.
    pub fn open(path: &Path) -> Result<Self, CtfError> {
        if path.is_dir() {
            return Self::open_dir(path);
        }
        let metadata = metadata_beside(path).ok_or_else(|| CtfError::NoMetadata {
            stream: path.display().to_string(),
        })?;
        let stream = open_input(&path.display().to_string())?;
        Self::from_inputs(&metadata, vec![stream])
    }

    /// Opens a directory: `metadata` plus every other file in it as a stream, in name order.
    pub fn open_dir(dir: &Path) -> Result<Self, CtfError> {
        let io_error = |source| CtfError::Io {
            path: dir.to_owned(),
            source,
        };
        let mut paths = Vec::new();
        for entry in fs::read_dir(dir).map_err(io_error)? {
            let entry = entry.map_err(io_error)?;
            let is_file = entry.file_type().map_err(io_error)?.is_file();
            if is_file && entry.file_name() != METADATA_FILE {
                paths.push(entry.path());
            }
        }
        if paths.is_empty() {
            return Err(CtfError::NoStreams {
                dir: dir.to_owned(),
            });
        }
        paths.sort();
        let streams = paths
            .iter()
            .map(|path| open_input(&path.display().to_string()))
            .collect::<Result<_, _>>()?;
        Self::from_inputs(&dir.join(METADATA_FILE), streams)
    }

    /// Stream inputs (files, `-` for stdin, `@CORE` suffixes) with the metadata at `metadata_path`.
    pub fn from_inputs(metadata_path: &Path, streams: Vec<Input>) -> Result<Self, CtfError> {
        let bytes = fs::read(metadata_path).map_err(|source| CtfError::Io {
            path: metadata_path.to_owned(),
            source,
        })?;
        Self::from_metadata_bytes(metadata_path, &bytes, streams)
    }

    /// Stream inputs with metadata already read (`metadata_path` names it in errors).
    pub fn from_metadata_bytes(
        metadata_path: &Path,
        metadata: &[u8],
        streams: Vec<Input>,
    ) -> Result<Self, CtfError> {
        let metadata = parse_metadata_bytes(metadata_path, metadata)?;
        Ok(CtfTrace { metadata, streams })
    }

    /// The core each stream was recorded on.
    pub fn stream_core(&self, index: usize) -> u32 {
        let stream = self.streams.get(index);
        stream
            .and_then(|s| s.core)
            .unwrap_or_else(|| u32::try_from(index).unwrap_or(u32::MAX))
    }
}

fn open_input(arg: &str) -> Result<Input, CtfError> {
    Input::open(&InputSpec::parse(arg)).map_err(CtfError::Input)
}

fn parse_metadata_bytes(path: &Path, bytes: &[u8]) -> Result<Metadata, CtfError> {
    let text = std::str::from_utf8(bytes)
        .ok()
        .filter(|text| looks_like_metadata(text.as_bytes()))
        .ok_or_else(|| CtfError::NotText {
            path: path.to_owned(),
        })?;
    parse_metadata(text).map_err(|error| CtfError::Metadata {
        path: path.to_owned(),
        error,
    })
}

/// Where the metadata of a CTF trace named on a command line is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A trace directory.
    Dir(PathBuf),
    /// Stream inputs, with this metadata file.
    Streams { metadata: PathBuf },
}

/// Whether command-line inputs name a CTF trace: a trace directory, or stream files with their
/// metadata beside them or given (`ctf_metadata`).
pub fn locate(args: &[String], ctf_metadata: Option<&Path>) -> Option<Location> {
    if let Some(metadata) = ctf_metadata {
        return Some(Location::Streams {
            metadata: metadata.to_owned(),
        });
    }
    match args {
        [dir] if looks_like_dir(Path::new(dir)) => Some(Location::Dir(PathBuf::from(dir))),
        [first, ..] => {
            let path = InputSpec::parse(first).path?;
            metadata_beside(&path).map(|metadata| Location::Streams { metadata })
        }
        [] => None,
    }
}

/// Opens the CTF trace that command-line inputs name, if they name one (see [`locate`]).
pub fn open_args(
    args: &[String],
    ctf_metadata: Option<&Path>,
) -> Result<Option<CtfTrace>, CtfError> {
    match locate(args, ctf_metadata) {
        None => Ok(None),
        Some(Location::Dir(dir)) => CtfTrace::open_dir(&dir).map(Some),
        Some(Location::Streams { metadata }) => {
            let streams = args
                .iter()
                .map(|a| open_input(a))
                .collect::<Result<_, _>>()?;
            CtfTrace::from_inputs(&metadata, streams).map(Some)
        }
    }
}

/// Whether `head` (the start of a file) is plain-text CTF metadata.
pub fn looks_like_metadata(head: &[u8]) -> bool {
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    head[start..].starts_with(METADATA_SIGNATURE)
}

/// Whether `path` is a directory holding CTF metadata.
pub fn looks_like_dir(path: &Path) -> bool {
    path.is_dir() && file_looks_like_metadata(&path.join(METADATA_FILE))
}

/// The metadata file next to a stream file, if its directory is a CTF trace.
pub fn metadata_beside(stream_path: &Path) -> Option<PathBuf> {
    let dir = stream_path.parent()?;
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let metadata = dir.join(METADATA_FILE);
    let is_stream = stream_path.file_name()? != METADATA_FILE;
    (is_stream && file_looks_like_metadata(&metadata)).then_some(metadata)
}

fn file_looks_like_metadata(path: &Path) -> bool {
    let mut head = [0u8; 64];
    let Ok(mut file) = fs::File::open(path) else {
        return false;
    };
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => filled += n,
        }
    }
    looks_like_metadata(&head[..filled])
}
