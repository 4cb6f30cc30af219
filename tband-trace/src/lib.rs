//! The front door of every tband tool: a trace opened from its inputs, its
//! format recognised once, and the model built by that format's importer,
//! with the raw events handed, if wanted, to whoever asked for them during
//! the same pass.

use std::fmt;
use std::path::PathBuf;

use tband_ctf::{CtfError, CtfImport, CtfTrace};
use tband_decode::input::{Bytes, Input, InputError, InputSpec};
use tband_decode::interpret::TbandTrace;
use tband_decode::sequencer::Stream;
use tband_model::rules::Rules;
use tband_model::{EventRow, EventSink, Import, LifetimeBuilder, Model, ReadProgress, TraceInfo};
use tband_systemview::SystemviewImport;
use tband_threadx::ThreadxImport;
use tband_tracerecorder::TracerecorderImport;

mod defmt;
mod growing;
mod rules_file;
pub mod symbols;

pub use defmt::DefmtElf;

pub use growing::{GrowingFile, Growth};
pub use rules_file::{built_in_rules, parse_rules, read_rules, RulesError};
pub use tband_decode::input;
pub use tband_decode::interpret::DecodeThread;
pub use tband_threadx::{ReadOptions as ThreadxOptions, TimerDirection};

/// The trace formats the tools read (see [`InputFormat::description`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    Tband,
    Ctf,
    Threadx,
    Systemview,
    Tracerecorder,
}

impl InputFormat {
    pub const ALL: [InputFormat; 5] = [
        InputFormat::Tband,
        InputFormat::Ctf,
        InputFormat::Threadx,
        InputFormat::Systemview,
        InputFormat::Tracerecorder,
    ];

    /// Recognises the format of an input by its content.
    pub fn detect(input: &Input) -> InputFormat {
        if tband_threadx::looks_like(&input.bytes) {
            InputFormat::Threadx
        } else if tband_systemview::looks_like(&input.bytes) {
            InputFormat::Systemview
        } else if tband_tracerecorder::looks_like(&input.bytes) {
            InputFormat::Tracerecorder
        } else {
            InputFormat::Tband
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Tband => "tband",
            InputFormat::Ctf => "ctf",
            InputFormat::Threadx => "threadx",
            InputFormat::Systemview => "systemview",
            InputFormat::Tracerecorder => "tracerecorder",
        }
    }

    /// What the format is, for a user choosing it (a `--help` line).
    pub fn description(self) -> &'static str {
        match self {
            InputFormat::Tband => "COBS frames of the tband wire format (also the reference C tracer's)",
            InputFormat::Ctf => "Common Trace Format (Zephyr's tracing): a directory with `metadata` and stream files, or a stream file (metadata beside it or given)",
            InputFormat::Threadx => "A ThreadX event-trace buffer (TraceX `.trx`), starting with \"TXTB\"",
            InputFormat::Systemview => "A SEGGER SystemView recording: the raw stream of its SysView RTT channel, from the start",
            InputFormat::Tracerecorder => "A Percepio TraceRecorder recording (PSF, TraceRecorder v4): its stream port's output (e.g. the TzData RTT channel) from the start, or its RingBuffer dumped from RAM",
        }
    }
}

/// How to open a trace.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    /// Force a format instead of recognising it.
    pub format: Option<InputFormat>,
    /// The CTF metadata file for CTF stream files given without their directory.
    pub ctf_metadata: Option<PathBuf>,
    /// What ThreadX buffers do not record: tick length, timer direction.
    pub threadx: ThreadxOptions,
    /// The thread that decodes a tband trace while its model is built.
    pub decode_thread: DecodeThread,
    /// A file of lifetime rules to apply besides the built-in ones.
    pub rules: Option<PathBuf>,
    /// The firmware's ELF, to decode its defmt log frames.
    pub elf: Option<PathBuf>,
}

impl OpenOptions {
    /// The lifetime rules to apply: the built-in ones, then the file's.
    pub fn lifetime_rules(&self) -> Result<Rules, TraceError> {
        let built_in = built_in_rules();
        match &self.rules {
            Some(path) => Ok(built_in.and(read_rules(path).map_err(TraceError::Rules)?)),
            None => Ok(built_in),
        }
    }
}

/// Why a trace could not be opened.
#[derive(Debug)]
pub enum TraceError {
    Input(InputError),
    Ctf(CtfError),
    /// Inputs of different formats were given together.
    MixedFormats(String, String),
    /// Nothing in the inputs decoded.
    NothingDecoded {
        names: String,
        bytes: u64,
        invalid: u64,
    },
    /// An input could not be read in the chosen format at all.
    Unreadable {
        name: String,
        reason: String,
    },
    /// The rules file could not be read or parsed.
    Rules(RulesError),
    /// The firmware's ELF could not be read.
    Elf {
        path: PathBuf,
        reason: String,
    },
    /// The firmware's ELF cannot locate the trace's faults (the sentence
    /// says why).
    Symbols(String),
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Input(e) => e.fmt(f),
            TraceError::Ctf(e) => e.fmt(f),
            TraceError::MixedFormats(a, b) => {
                write!(f, "{a} and {b} are traces of different formats; open them separately")
            }
            TraceError::NothingDecoded {
                names,
                bytes,
                invalid,
            } => write!(
                f,
                "{names} holds no decodable event ({bytes} bytes, {invalid} invalid frames); is it a trace?"
            ),
            TraceError::Unreadable { name, reason } => write!(f, "{name}: {reason}"),
            TraceError::Rules(e) => e.fmt(f),
            TraceError::Elf { path, reason } => {
                write!(f, "{}: cannot read the firmware's ELF: {reason}", path.display())
            }
            TraceError::Symbols(sentence) => f.write_str(sentence),
        }
    }
}

impl std::error::Error for TraceError {}

impl From<InputError> for TraceError {
    fn from(e: InputError) -> Self {
        TraceError::Input(e)
    }
}

/// A trace's inputs, read, with their format recognised: what every tool
/// opens first. Listings read it as it is; [`Trace::build`] makes the model.
pub enum Source {
    /// tband streams, each with the core it was recorded on.
    Tband(Vec<Input>),
    /// A CTF trace: the metadata's layouts and the stream files, named as given.
    Ctf { trace: CtfTrace, names: Vec<String> },
    /// A ThreadX buffer, with what the buffer does not record.
    Threadx {
        input: Input,
        options: ThreadxOptions,
    },
    /// A SystemView recording.
    Systemview { input: Input },
    /// A TraceRecorder streaming recording.
    Tracerecorder { input: Input },
}

impl Source {
    /// Reads the inputs named on a command line (`PATH`, `PATH@CORE`, `-`, a
    /// CTF directory) and recognises their format.
    pub fn open(args: &[String], options: &OpenOptions) -> Result<Source, TraceError> {
        let ctf_metadata = options.ctf_metadata.as_deref();
        if let Some(trace) = tband_ctf::open_args(args, ctf_metadata).map_err(TraceError::Ctf)? {
            return Ok(Source::Ctf {
                trace,
                names: args.to_vec(),
            });
        }
        let inputs = args
            .iter()
            .map(|a| Input::open(&InputSpec::parse(a)))
            .collect::<Result<Vec<_>, _>>()?;
        Source::from_inputs(inputs, options)
    }

    /// Recognises the format of files held in memory (a web page's), where
    /// there is no directory to find CTF metadata in: a file that is CTF
    /// metadata makes the others its streams, in name order as in a trace
    /// directory; other files are read as by [`Source::from_inputs`].
    pub fn from_memory(
        mut inputs: Vec<Input>,
        options: &OpenOptions,
    ) -> Result<Source, TraceError> {
        let ctf_allowed = options.format.is_none_or(|f| f == InputFormat::Ctf);
        let metadata_at = inputs
            .iter()
            .position(|i| tband_ctf::looks_like_metadata(&i.bytes));
        let Some(at) = metadata_at.filter(|_| ctf_allowed) else {
            return Source::from_inputs(inputs, options);
        };
        let metadata = inputs.remove(at);
        let metadata_path = PathBuf::from(&metadata.name);
        if inputs.is_empty() {
            return Err(TraceError::Ctf(CtfError::NoStreams { dir: metadata_path }));
        }
        inputs.sort_by(|a, b| a.name.cmp(&b.name));
        let names = inputs.iter().map(|i| i.name.clone()).collect();
        let trace = CtfTrace::from_metadata_bytes(&metadata_path, &metadata.bytes, inputs)
            .map_err(TraceError::Ctf)?;
        Ok(Source::Ctf { trace, names })
    }

    /// Recognises the format of inputs already read: the one that
    /// `options` forces, or the one they all have.
    pub fn from_inputs(inputs: Vec<Input>, options: &OpenOptions) -> Result<Source, TraceError> {
        let format = match options.format {
            Some(f) => f,
            None => {
                let mut formats = inputs.iter().map(|i| (i, InputFormat::detect(i)));
                let first = formats.next().map(|(_, f)| f).unwrap_or(InputFormat::Tband);
                if let Some((other, f)) = formats.find(|&(_, f)| f != first) {
                    return Err(TraceError::MixedFormats(
                        inputs[0].name.clone(),
                        format!("{} ({})", other.name, f.name()),
                    ));
                }
                first
            }
        };
        match format {
            InputFormat::Tband => Ok(Source::Tband(inputs)),
            InputFormat::Ctf => {
                let names: Vec<String> = inputs.iter().map(|i| i.name.clone()).collect();
                let metadata = options.ctf_metadata.as_deref().ok_or_else(|| {
                    TraceError::Ctf(CtfError::NoMetadata {
                        stream: names.join(", "),
                    })
                })?;
                let trace = CtfTrace::from_inputs(metadata, inputs).map_err(TraceError::Ctf)?;
                Ok(Source::Ctf { trace, names })
            }
            InputFormat::Threadx => {
                let input = one_input(inputs, "a ThreadX trace is one buffer")?;
                Ok(Source::Threadx {
                    input,
                    options: options.threadx,
                })
            }
            InputFormat::Systemview => {
                let input = one_input(inputs, "a SystemView recording is one stream")?;
                Ok(Source::Systemview { input })
            }
            InputFormat::Tracerecorder => {
                let input = one_input(inputs, "a TraceRecorder recording is one stream")?;
                Ok(Source::Tracerecorder { input })
            }
        }
    }

    /// The importer of the source's format.
    fn importer<'a>(
        &'a self,
        options: &OpenOptions,
        read: ReadProgress<'a>,
    ) -> Result<Box<dyn Import + 'a>, TraceError> {
        Ok(match self {
            Source::Tband(inputs) => Box::new(TbandTrace {
                streams: tband_streams(inputs),
                decode_thread: options.decode_thread,
                progress: read,
            }),
            Source::Ctf { trace, .. } => Box::new(CtfImport {
                trace,
                progress: read,
            }),
            Source::Threadx { input, options } => Box::new(ThreadxImport {
                buffer: read_threadx(input, options)?,
                progress: read,
            }),
            Source::Systemview { input } => Box::new(SystemviewImport {
                recording: read_systemview(input)?,
                progress: read,
            }),
            Source::Tracerecorder { input } => Box::new(TracerecorderImport {
                recording: read_tracerecorder(input)?,
                progress: read,
            }),
        })
    }

    /// The lifetime rules `options` asks for that can match the source's
    /// events: rules that name no event its format records need not look
    /// at the trace's events.
    fn lifetime_rules(&self, options: &OpenOptions) -> Result<Rules, TraceError> {
        let mut rules = options.lifetime_rules()?;
        rules.rules.retain(|r| self.may_record(&r.event));
        Ok(rules)
    }

    /// Whether the format can record events named `name`.
    fn may_record(&self, name: &str) -> bool {
        match self {
            Source::Tband(_) => tband::EVENTS.iter().any(|e| e.name == name),
            Source::Ctf { trace, .. } => trace.metadata.events.iter().any(|e| e.name == name),
            Source::Threadx { .. } => tband_threadx::is_event_name(name),
            Source::Systemview { .. } => tband_systemview::is_event_name(name),
            Source::Tracerecorder { .. } => tband_tracerecorder::ids::is_event_name(name),
        }
    }

    pub fn format(&self) -> InputFormat {
        match self {
            Source::Tband(_) => InputFormat::Tband,
            Source::Ctf { .. } => InputFormat::Ctf,
            Source::Threadx { .. } => InputFormat::Threadx,
            Source::Systemview { .. } => InputFormat::Systemview,
            Source::Tracerecorder { .. } => InputFormat::Tracerecorder,
        }
    }

    /// The inputs' names, as the model's `sources`.
    fn names(&self) -> Vec<String> {
        match self {
            Source::Tband(inputs) => inputs.iter().map(|i| i.name.clone()).collect(),
            Source::Ctf { names, .. } => names.clone(),
            Source::Threadx { input, .. }
            | Source::Systemview { input }
            | Source::Tracerecorder { input } => {
                vec![input.name.clone()]
            }
        }
    }

    /// The first part of a tband trace larger than `max_bytes`, to show
    /// while the whole loads: each stream's share of `max_bytes`, ending
    /// after a whole frame. `None` for a smaller trace or another format.
    pub fn first_part(&self, max_bytes: u64) -> Option<Source> {
        let Source::Tband(inputs) = self else {
            return None;
        };
        let total = self.byte_count();
        if total <= max_bytes {
            return None;
        }
        let firsts = inputs.iter().map(|i| Input {
            name: i.name.clone(),
            core: i.core,
            bytes: Bytes::Owned(first_frames(&i.bytes, max_bytes, total).to_vec()),
            was_hex: i.was_hex,
        });
        Some(Source::Tband(firsts.collect()))
    }

    /// All the bytes read.
    pub fn byte_count(&self) -> u64 {
        match self {
            Source::Tband(inputs) => inputs.iter().map(|i| i.bytes.len() as u64).sum(),
            Source::Ctf { trace, .. } => trace.streams.iter().map(|s| s.bytes.len() as u64).sum(),
            Source::Threadx { input, .. }
            | Source::Systemview { input }
            | Source::Tracerecorder { input } => input.bytes.len() as u64,
        }
    }
}

/// An opened trace: the model built from its inputs.
pub struct Trace {
    pub model: Model,
    format: InputFormat,
}

impl Trace {
    /// Opens the inputs named on a command line and builds the model.
    pub fn open(args: &[String], options: &OpenOptions) -> Result<Trace, TraceError> {
        Trace::build(Source::open(args, options)?, options)
    }

    /// Builds the model of inputs already read.
    pub fn from_inputs(inputs: Vec<Input>, options: &OpenOptions) -> Result<Trace, TraceError> {
        Trace::build(Source::from_inputs(inputs, options)?, options)
    }

    /// Builds the model of a recognised source; fails when nothing in it decodes.
    pub fn build(source: Source, options: &OpenOptions) -> Result<Trace, TraceError> {
        Trace::build_with_progress(source, options, &|_| {})
    }

    /// [`Trace::build`], telling `read` how many bytes of a tband trace it
    /// has read so far (every megabyte or so), for a progress display.
    pub fn build_with_progress(
        source: Source,
        options: &OpenOptions,
        read: ReadProgress<'_>,
    ) -> Result<Trace, TraceError> {
        Trace::build_handing_events(source, options, read, None)
    }

    /// [`Trace::build`], handing every decoded event to `events` as the
    /// model is built: the raw events without a second pass.
    pub fn build_with_events(
        source: Source,
        options: &OpenOptions,
        events: EventSink<'_>,
    ) -> Result<Trace, TraceError> {
        Trace::build_handing_events(source, options, &|_| {}, Some(events))
    }

    fn build_handing_events(
        source: Source,
        options: &OpenOptions,
        read: ReadProgress<'_>,
        events: Option<EventSink<'_>>,
    ) -> Result<Trace, TraceError> {
        let info = TraceInfo {
            sources: source.names(),
            ..TraceInfo::default()
        };
        let rules = source.lifetime_rules(options)?;
        // Read first, so that a wrong path is told before the trace is read.
        let elf = defmt::read_elf(options)?;
        let importer = source.importer(options, read)?;
        let mut model = if rules.is_empty() {
            importer.build_model(info, events)
        } else {
            build_applying_rules(&*importer, info, events, &rules)
        };
        defmt::decode_logs(&mut model, elf.as_ref());
        if let (Some(path), false) = (&options.elf, model.faults.is_empty()) {
            (symbols::Symbols::read(path).map_err(TraceError::Symbols)?).locate_faults(&mut model);
        }
        if model.info.events == 0 {
            return Err(TraceError::NothingDecoded {
                names: source.names().join(", "),
                bytes: source.byte_count(),
                invalid: model.info.invalid_frames,
            });
        }
        Ok(Trace {
            model,
            format: source.format(),
        })
    }

    pub fn format(&self) -> InputFormat {
        self.format
    }
}

/// Builds the model, applying `rules` to the events they name on the way
/// (and handing every event on to `events`).
fn build_applying_rules(
    importer: &dyn Import,
    info: TraceInfo,
    events: Option<EventSink<'_>>,
    rules: &Rules,
) -> Model {
    let mut lifetimes = LifetimeBuilder::new(rules.clone());
    let mut model = match events {
        Some(events) => {
            let mut each = |row: &EventRow<'_>| {
                lifetimes.event(row);
                events(row);
            };
            importer.build_model(info, Some(&mut each))
        }
        None => {
            importer.build_model_handing_named(info, &|name| rules.names_event(name), &mut |row| {
                lifetimes.event(row)
            })
        }
    };
    lifetimes.finish(&mut model);
    model
}

/// Reads a ThreadX buffer; why it cannot be read is the input's error.
pub fn read_threadx<'a>(
    input: &'a Input,
    options: &ThreadxOptions,
) -> Result<tband_threadx::Buffer<'a>, TraceError> {
    tband_threadx::Buffer::read(&input.bytes, options).map_err(|e| TraceError::Unreadable {
        name: input.name.clone(),
        reason: e.to_string(),
    })
}

/// Reads a SystemView recording; why it cannot be read is the input's error.
pub fn read_systemview(input: &Input) -> Result<tband_systemview::Recording<'_>, TraceError> {
    tband_systemview::Recording::read(&input.bytes).map_err(|e| TraceError::Unreadable {
        name: input.name.clone(),
        reason: e.to_string(),
    })
}

/// Reads a TraceRecorder recording; why it cannot be read is the input's
/// error.
pub fn read_tracerecorder(input: &Input) -> Result<tband_tracerecorder::Recording<'_>, TraceError> {
    tband_tracerecorder::Recording::read(&input.bytes).map_err(|e| TraceError::Unreadable {
        name: input.name.clone(),
        reason: e.to_string(),
    })
}

fn tband_streams(inputs: &[Input]) -> Vec<Stream<'_>> {
    inputs
        .iter()
        .map(|i| Stream {
            bytes: &i.bytes,
            core: i.core.unwrap_or(0),
            source: Some(&i.bytes),
        })
        .collect()
}

/// The first part of an input, its share of `max_bytes` out of `total`,
/// ending after a frame delimiter (a zero byte), so no frame is cut.
fn first_frames(bytes: &[u8], max_bytes: u64, total: u64) -> &[u8] {
    let share = (bytes.len() as u128 * u128::from(max_bytes) / u128::from(total.max(1))) as usize;
    let end = bytes
        .get(share..)
        .and_then(|rest| rest.iter().position(|&b| b == 0))
        .map_or(bytes.len(), |zero| share + zero + 1);
    &bytes[..end]
}

/// The one input of a format that reads one file, or why several cannot be
/// read (`what` says what the format's recording is).
fn one_input(inputs: Vec<Input>, what: &str) -> Result<Input, TraceError> {
    match <[Input; 1]>::try_from(inputs) {
        Ok([input]) => Ok(input),
        Err(inputs) => Err(TraceError::Unreadable {
            name: (inputs.iter().map(|i| i.name.as_str()))
                .collect::<Vec<_>>()
                .join(", "),
            reason: format!("{what}; open one file at a time"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_frames_end_after_a_delimiter() {
        let bytes = [3, 1, 2, 0, 2, 5, 0, 4, 1, 1, 1, 0];
        assert_eq!(first_frames(&bytes, 1, 3), &bytes[..7]);
        assert_eq!(first_frames(&bytes, 0, 3), &bytes[..4]);
        assert_eq!(first_frames(&bytes[..11], 3, 3), &bytes[..11]);
    }
}
