//! Opening a trace progressively, or following one that grows.
//!
//! A large tband trace is first modelled from the first bytes of each input
//! (cut after a whole frame), on the caller's thread, so a frame of real
//! events can be drawn at once; the whole trace is modelled on a background
//! thread meanwhile, together with its rows, their summaries and the
//! summary pane's figures, and swapped in when ready.
//!
//! A trace file that another process appends to is followed: the viewer
//! looks at it a few times a second, reads what was appended up to its last
//! whole frame into the model it shows, and extends the rows.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use tband_model::analysis::Analysis;
use tband_model::{AnomalyKind, Model};
use tband_trace::{GrowingFile, OpenOptions, Source, Trace, TraceError};

use crate::app::{App, Follow, Loaded};
use crate::rows::Rows;

/// How much of a large trace is shown while the rest loads, by default.
pub const PREVIEW_BYTES: u64 = 2 << 20;

pub enum Opened {
    Complete(Model),
    /// The model of the first part, and the loader of the whole trace.
    Partial {
        preview: Model,
        loader: Loader,
    },
}

/// The background thread modelling the whole trace.
pub struct Loader {
    read: Arc<AtomicU64>,
    total: u64,
    thread: JoinHandle<Loaded>,
}

impl Loader {
    /// How much of the input has been read, 0..=99 until the model is done.
    pub fn percent(&self) -> u8 {
        let read = self.read.load(Ordering::Relaxed);
        (read.saturating_mul(100) / self.total.max(1)).min(99) as u8
    }

    pub fn is_done(&self) -> bool {
        self.thread.is_finished()
    }

    /// Waits for the whole trace.
    pub fn wait(self) -> Loaded {
        self.thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }
}

/// Opens the trace `args` name. With `preview_bytes`, a tband trace larger
/// than that opens as [`Opened::Partial`]; any other trace is modelled whole
/// before this returns.
pub fn open(
    args: &[String],
    options: &OpenOptions,
    preview_bytes: Option<u64>,
) -> Result<Opened, TraceError> {
    let source = Source::open(args, options)?;
    let first_part = preview_bytes.and_then(|max| source.first_part(max));
    let preview = first_part.map(|first| Trace::build(first, options));
    let mut preview = match preview {
        Some(Ok(trace)) => trace.model,
        // Nothing in the first part: no preview to show.
        Some(Err(TraceError::NothingDecoded { .. })) | None => {
            return Ok(Opened::Complete(Trace::build(source, options)?.model));
        }
        Some(Err(e)) => return Err(e),
    };
    drop_cut_anomalies(&mut preview);

    let read = Arc::new(AtomicU64::new(0));
    let total = source.byte_count();
    let options = options.clone();
    let thread = {
        let read = Arc::clone(&read);
        thread::spawn(move || {
            let tell = |bytes| read.store(bytes, Ordering::Relaxed);
            let model = Trace::build_with_progress(source, &options, &tell)
                .expect("the whole trace decodes where its first part did")
                .model;
            // The figures before the rows: what computing them holds for a
            // while is freed before the rows take their memory.
            let analysis = Analysis::of(&model);
            let rows = Rows::new(&model);
            rows.prepare_all(&model);
            Loaded {
                model,
                rows,
                analysis,
            }
        })
    };
    Ok(Opened::Partial {
        preview,
        loader: Loader {
            read,
            total,
            thread,
        },
    })
}

/// The first part ends where its input was cut, not where the trace ends:
/// the marker spans still open there are counted as never closed (the
/// anomalies the model's end adds, without a core). They are not damage,
/// so they go; the spans themselves are still drawn up to the cut, and the
/// first part's real anomalies stay.
fn drop_cut_anomalies(preview: &mut Model) {
    let cut = preview.info.duration_ns;
    preview.anomalies.retain(|a| {
        !(a.kind == AnomalyKind::NeverClosed && a.core_id.is_none() && a.end_ns == cut)
    });
}

/// How often a followed file is looked at while it does not grow.
pub const FOLLOW_INTERVAL: Duration = Duration::from_millis(50);

/// The most one look at a followed file reads: a file that is large when
/// it is opened is read over several looks (about 20 ms each), drawn
/// between them, with keys answered.
const LOOK_BYTES: u64 = 4 << 20;

/// A trace file followed as it grows.
pub struct Follower {
    file: GrowingFile,
}

/// What a look at a followed file did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Update {
    /// The trace shown changed.
    pub changed: bool,
    /// More of the file is there to read already: look again at once.
    pub behind: bool,
}

impl Follower {
    /// Opens the trace `args` name to follow it: one tband stream file.
    pub fn open(args: &[String], options: &OpenOptions) -> Result<Follower, TraceError> {
        Ok(Follower {
            file: GrowingFile::open(args, options)?,
        })
    }

    /// A viewer of the file, pinned to its newest data, showing what the
    /// file holds so far (or its first part, if it is large).
    pub fn viewer(&mut self, title: String) -> Result<App, TraceError> {
        let mut model = Model::default();
        self.file.look(&mut model, LOOK_BYTES)?;
        let mut app = App::new(model, title);
        app.follow = Follow::Pinned;
        Ok(app)
    }

    /// Reads what the file gained into the model `app` shows (made by
    /// [`Follower::viewer`]), and extends its rows.
    pub fn update(&mut self, app: &mut App) -> Result<Update, TraceError> {
        let growth = self.file.look(&mut app.model, LOOK_BYTES)?;
        if growth.changed {
            app.grown(growth.started_again);
        }
        Ok(Update {
            changed: growth.changed,
            behind: growth.behind,
        })
    }

    /// Bytes of the file shown: up to the end of its last whole frame.
    pub fn read_to(&self) -> u64 {
        self.file.read_to()
    }
}
