//! A tband trace file read while another process appends to it (e.g.
//! `tband-capture -o FILE` writing what a board streams): each look at the
//! file reads what was appended since the last, up to its last whole frame,
//! into a model kept from look to look. A frame still being written is
//! read once its end has arrived, never counted as invalid before. The
//! lifetime rules apply to the events as they are read: each look shows
//! the tracked objects as opening the file would, with what is still live
//! ending, truncated, at the newest event.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::PathBuf;

use tband_decode::input::InputSpec;
use tband_decode::interpret::{GrowingTrace, PieceRead};
use tband_model::rules::Rules;
use tband_model::{LifetimeBuilder, Model, TraceInfo};

use crate::defmt::{self, DefmtElf};
use crate::{OpenOptions, Source, TraceError};

/// A tband stream file that grows.
pub struct GrowingFile {
    name: String,
    path: PathBuf,
    core: u32,
    file: File,
    trace: GrowingTrace,
    /// The lifetime rules that can match the file's events.
    rules: Rules,
    /// What the rules made of the events read, when there are rules.
    lifetimes: Option<Box<LifetimeBuilder>>,
    /// Where the bytes read into `trace` end: after a frame's delimiter.
    read_to: u64,
    /// Whether the caller holds the model of `trace`, lent out.
    lent: bool,
    /// The bytes read by the last look.
    piece: Vec<u8>,
    /// The firmware's defmt table, to decode its log lines.
    elf: Option<DefmtElf>,
}

/// What a look at a growing file found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Growth {
    /// Whole frames were read: the model changed.
    pub changed: bool,
    /// The model was made again from the file's start: the file became
    /// shorter (it was written again from its start), or it stated its
    /// timer resolution only after its first events. What was shown of the
    /// model before is gone.
    pub started_again: bool,
    /// The look stopped at its byte limit, and more whole frames may be
    /// there already: look again at once.
    pub behind: bool,
}

impl GrowingFile {
    /// Opens the trace named on a command line to follow it: one tband
    /// stream file (`FILE` or `FILE@CORE`), in binary.
    pub fn open(args: &[String], options: &OpenOptions) -> Result<GrowingFile, TraceError> {
        let cannot = |name: String, reason: &str| TraceError::Unreadable {
            name,
            reason: format!(
                "{reason}; only one binary tband stream file can be followed as it grows"
            ),
        };
        let [arg] = args else {
            return Err(cannot(args.join(", "), "several inputs"));
        };
        let spec = InputSpec::parse(arg);
        let name = spec.display_name();
        let Some(path) = spec.path.clone() else {
            return Err(cannot(name, "standard input is not a file"));
        };
        // The format is recognised from what the file holds now.
        let source = Source::open(args, options)?;
        match &source {
            Source::Tband(inputs) if inputs.iter().any(|i| i.was_hex) => {
                return Err(cannot(name, "it is hex text"));
            }
            Source::Tband(_) => {}
            other => {
                let format = other.format().name();
                return Err(cannot(name, &format!("it is a {format} trace")));
            }
        }
        let rules = source.lifetime_rules(options)?;
        let elf = defmt::read_elf(options)?;
        let file =
            File::open(&path).map_err(|source| TraceError::Input(io_error(&name, source)))?;
        let core = spec.core.unwrap_or(0);
        Ok(GrowingFile {
            trace: GrowingTrace::new(core, info(&name)),
            lifetimes: lifetime_builder(&rules),
            rules,
            name,
            path,
            core,
            file,
            read_to: 0,
            lent: false,
            piece: Vec::new(),
            elf,
        })
    }

    /// The file as named.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Bytes of the file read into the model: up to the end of its last
    /// whole frame.
    pub fn read_to(&self) -> u64 {
        self.read_to
    }

    /// Reads what was appended to the file since the last look, up to its
    /// last whole frame and about `max_bytes` at most, and brings `model`
    /// up to date. `model` must be the one the last look left there (any
    /// model the first time: it is replaced), for the file's model is kept
    /// in it between looks, and is left alone when nothing changed.
    pub fn look(&mut self, model: &mut Model, max_bytes: u64) -> Result<Growth, TraceError> {
        let mut growth = Growth::default();
        let len = self.file.metadata().map_err(|e| self.error(e))?.len();
        if len < self.read_to {
            self.start_again();
            growth.started_again = true;
        }
        growth.behind = self.read_piece(len, max_bytes.max(1))?;
        if self.lent && self.piece.is_empty() {
            return Ok(growth);
        }
        if self.lent {
            self.take_back(model);
        }
        let read = read(&mut self.trace, &mut self.lifetimes, &self.piece);
        if read == PieceRead::ResolutionCameLate {
            self.start_again();
            growth.started_again = true;
            growth.behind = true;
        } else {
            self.read_to += self.piece.len() as u64;
        }
        *model = self.trace.take_so_far();
        defmt::decode_logs(model, self.elf.as_ref());
        if let Some(lifetimes) = &mut self.lifetimes {
            lifetimes.lend(model);
        }
        self.lent = true;
        growth.changed = true;
        Ok(growth)
    }

    /// Reads the file's bytes from `read_to` into `piece`: about `max_bytes`
    /// up to the end of the last whole frame in them (further, as far as
    /// the end of the file, when no frame ends in them). Returns whether it
    /// stopped before the end of the file.
    fn read_piece(&mut self, len: u64, max_bytes: u64) -> Result<bool, TraceError> {
        self.piece.clear();
        let mut from = self.read_to;
        self.file
            .seek(SeekFrom::Start(from))
            .map_err(|e| self.error(e))?;
        while from < len {
            let want = (len - from).min(max_bytes);
            let before = self.piece.len();
            (&mut self.file)
                .take(want)
                .read_to_end(&mut self.piece)
                .map_err(|e| self.error(e))?;
            let got = (self.piece.len() - before) as u64;
            if got == 0 {
                break;
            }
            from += got;
            if let Some(last) = self.piece[before..].iter().rposition(|&b| b == 0) {
                self.piece.truncate(before + last + 1);
                return Ok(from < len);
            }
        }
        // No frame ends in what is there yet.
        self.piece.clear();
        Ok(false)
    }

    /// Takes back the model lent out, to read more into it.
    fn take_back(&mut self, model: &mut Model) {
        if let Some(lifetimes) = &mut self.lifetimes {
            lifetimes.take_back(model);
        }
        self.trace.resume(std::mem::take(model));
    }

    /// Forgets what was read: the file is read again from its start.
    fn start_again(&mut self) {
        self.trace = GrowingTrace::new(self.core, info(&self.name));
        self.lifetimes = lifetime_builder(&self.rules);
        self.read_to = 0;
        self.lent = false;
    }

    /// The model of the file as it is now, read to its end as a trace that
    /// has ended (a last frame without its end is invalid): the model
    /// [`Trace::build`](crate::Trace::build) makes of it.
    pub fn finish(mut self, mut model: Model) -> Result<Model, TraceError> {
        loop {
            let growth = self.look(&mut model, u64::MAX)?;
            if !growth.behind {
                break;
            }
        }
        self.take_back(&mut model);
        let len = self.file.metadata().map_err(|e| self.error(e))?.len();
        let mut rest = Vec::new();
        self.file
            .seek(SeekFrom::Start(self.read_to))
            .and_then(|_| {
                (&mut self.file)
                    .take(len.saturating_sub(self.read_to))
                    .read_to_end(&mut rest)
            })
            .map_err(|e| self.error(e))?;
        if read(&mut self.trace, &mut self.lifetimes, &rest) == PieceRead::ResolutionCameLate {
            return Err(TraceError::Unreadable {
                name: self.name,
                reason: "it changed while it was read".into(),
            });
        }
        let mut model = self.trace.finish();
        defmt::decode_logs(&mut model, self.elf.as_ref());
        if let Some(lifetimes) = self.lifetimes {
            lifetimes.finish(&mut model);
        }
        Ok(model)
    }

    fn error(&self, source: io::Error) -> TraceError {
        TraceError::Input(io_error(&self.path.display().to_string(), source))
    }
}

/// Reads `piece` into `trace`, handing its events to `lifetimes`, if any.
fn read(
    trace: &mut GrowingTrace,
    lifetimes: &mut Option<Box<LifetimeBuilder>>,
    piece: &[u8],
) -> PieceRead {
    match lifetimes {
        Some(lifetimes) => trace.read(piece, Some(&mut |row| lifetimes.event(row))),
        None => trace.read(piece, None),
    }
}

/// The builder of the rules' objects; none without rules, as
/// [`Trace::build`](crate::Trace::build) applies none.
fn lifetime_builder(rules: &Rules) -> Option<Box<LifetimeBuilder>> {
    (!rules.is_empty()).then(|| Box::new(LifetimeBuilder::new(rules.clone())))
}

fn io_error(name: &str, source: io::Error) -> tband_decode::input::InputError {
    tband_decode::input::InputError::Io {
        name: name.to_string(),
        source,
    }
}

/// The trace facts the importer starts from: the file's name.
fn info(name: &str) -> TraceInfo {
    TraceInfo {
        sources: vec![name.to_string()],
        ..TraceInfo::default()
    }
}
