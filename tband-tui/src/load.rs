//! Opening a trace progressively. A large tband trace is first modelled
//! from the first bytes of each input (cut after a whole frame), on the
//! caller's thread, so a frame of real events can be drawn at once; the
//! whole trace is modelled on a background thread meanwhile, together with
//! its rows, their summaries and the summary pane's figures, and swapped in
//! when ready.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};

use tband_decode::analysis::Analysis;
use tband_decode::input::Input;
use tband_decode::interpret::{build_model, build_model_with_progress};
use tband_decode::model::{AnomalyKind, TraceInfo};
use tband_decode::sequencer::Stream;
use tband_decode::trace::{Source, TraceError};
use tband_decode::{Model, OpenOptions, Trace};

use crate::rows::Timeline;

/// How much of a large trace is shown while the rest loads, by default.
pub const PREVIEW_BYTES: u64 = 2 << 20;

/// A whole trace ready to be shown.
pub struct Loaded {
    pub model: Model,
    pub timeline: Timeline,
    pub analysis: Analysis,
}

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
    let whole = |source| -> Result<Opened, TraceError> {
        Ok(Opened::Complete(Trace::build(source, options)?.model))
    };
    let inputs = match Source::open(args, options)? {
        Source::Tband(inputs) => inputs,
        other => return whole(other),
    };
    let total: u64 = inputs.iter().map(|i| i.bytes.len() as u64).sum();
    let Some(preview_bytes) = preview_bytes.filter(|&preview| total > preview) else {
        return whole(Source::Tband(inputs));
    };

    let info = || TraceInfo {
        sources: inputs.iter().map(|i| i.name.clone()).collect(),
        ..TraceInfo::default()
    };
    let firsts: Vec<Stream<'_>> = inputs
        .iter()
        .map(|i| Stream::new(first_frames(&i.bytes, preview_bytes, total), core(i)))
        .collect();
    let mut preview = build_model(&firsts, info());
    drop_cut_anomalies(&mut preview);
    if preview.info.events == 0 {
        // Nothing in the first part: no preview to show.
        return whole(Source::Tband(inputs));
    }

    let read = Arc::new(AtomicU64::new(0));
    let info = info();
    let threads = options.threads;
    let thread = {
        let read = Arc::clone(&read);
        thread::spawn(move || {
            let streams: Vec<Stream<'_>> = inputs
                .iter()
                .map(|i| Stream {
                    bytes: &i.bytes,
                    core: core(i),
                    source: Some(&i.bytes),
                })
                .collect();
            let model = build_model_with_progress(&streams, info, threads, &read, None);
            drop(streams);
            drop(inputs);
            // The figures before the rows: what computing them holds for a
            // while is freed before the rows take their memory.
            let analysis = Analysis::of(&model);
            let timeline = Timeline::new(&model);
            timeline.prepare_all(&model);
            Loaded {
                model,
                timeline,
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

fn core(input: &Input) -> u32 {
    input.core.unwrap_or(0)
}

/// The first part of an input, its share of `preview_bytes` out of `total`,
/// ending after a frame delimiter (a zero byte), so no frame is cut.
fn first_frames(bytes: &[u8], preview_bytes: u64, total: u64) -> &[u8] {
    let share =
        (bytes.len() as u128 * u128::from(preview_bytes) / u128::from(total.max(1))) as usize;
    let end = bytes
        .get(share..)
        .and_then(|rest| rest.iter().position(|&b| b == 0))
        .map_or(bytes.len(), |zero| share + zero + 1);
    &bytes[..end]
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
