//! The converter of the web page (`www/`), compiled to WebAssembly: trace
//! files held in memory become the model, its summary and its Perfetto
//! trace, by the same library calls the command-line tools make.
//!
//! [`Files`] collects what the page was given, each file's bytes copied
//! once into memory sized for it, and opens it through the front door
//! ([`Source::from_memory`]); [`Converted`] holds the model for the summary
//! (`tband-decode --summary`) and the export (`tband-perfetto --threads 1`,
//! as a browser worker has one thread), which goes to the page a chunk at
//! a time, so that the whole `.pftrace` is never held here.

use std::io;

use tband_model::summary::write_summary;
use tband_model::Model;
use tband_perfetto::wire::Buffer;
use tband_perfetto::writer::ChunkSink;
use tband_perfetto::ExportOptions;
use tband_trace::input::{Bytes, Input};
use tband_trace::{OpenOptions, Source, Trace, TraceError};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The page's side of a conversion: told how far it has got, and handed
    /// the Perfetto trace a chunk at a time.
    pub type Listener;

    /// `done` of `total` (bytes of the trace decoded, or rows of the model
    /// exported), every megabyte or so.
    #[wasm_bindgen(method)]
    fn progress(this: &Listener, done: f64, total: f64);

    /// The next bytes of the Perfetto trace: a view of this module's
    /// memory, valid only during the call.
    #[wasm_bindgen(method)]
    fn chunk(this: &Listener, bytes: &[u8]);
}

/// The trace files a page was given, each with the core it was recorded
/// on when the user said.
#[wasm_bindgen]
#[derive(Default)]
pub struct Files {
    inputs: Vec<Input>,
    /// The file being read: its name, core and bytes so far.
    reading: Option<(String, Option<u32>, Vec<u8>)>,
}

#[wasm_bindgen]
impl Files {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Files {
        Files::default()
    }

    /// Starts a file of `size` bytes, whose bytes follow by
    /// [`append`](Self::append) as the page reads them.
    pub fn begin(&mut self, name: String, core: Option<u32>, size: usize) {
        self.reading = Some((name, core, Vec::with_capacity(size)));
    }

    /// The next bytes of the file begun.
    pub fn append(&mut self, bytes: &[u8]) {
        if let Some((_, _, read)) = &mut self.reading {
            read.extend_from_slice(bytes);
        }
    }

    /// Ends the file begun (hex text is converted, as the tools do).
    pub fn end(&mut self) -> Result<(), JsError> {
        let Some((name, core, bytes)) = self.reading.take() else {
            return Ok(());
        };
        let input = Input::from_bytes(name, core, Bytes::Owned(bytes)).map_err(TraceError::from);
        self.inputs.push(input.map_err(js_error)?);
        Ok(())
    }

    /// Recognises the format and builds the model, telling `listener` how
    /// many bytes of the trace it has decoded.
    pub fn open(self, listener: &Listener) -> Result<Converted, JsError> {
        let options = OpenOptions::default();
        let source = Source::from_memory(self.inputs, &options).map_err(js_error)?;
        let total = source.byte_count();
        reserve_memory(total.saturating_mul(MODEL_BYTES_PER_TRACE_BYTE));
        let tell = |read: u64| listener.progress(read as f64, total as f64);
        let trace = Trace::build_with_progress(source, &options, &tell).map_err(js_error)?;
        Ok(Converted { model: trace.model })
    }
}

/// An opened trace: its model, for the summary and the Perfetto trace.
#[wasm_bindgen]
pub struct Converted {
    model: Model,
}

#[wasm_bindgen]
impl Converted {
    /// The summary, as `tband-decode --summary` prints it.
    pub fn summary(&self) -> String {
        let mut text = Vec::new();
        write_summary(&mut text, &self.model).expect("writing to memory does not fail");
        String::from_utf8_lossy(&text).into_owned()
    }

    /// The Perfetto trace (`.pftrace`), as `tband-perfetto --threads 1`
    /// writes it, handed to `listener` chunk by chunk with the progress.
    pub fn perfetto(&self, listener: &Listener) {
        let sink = ToPage {
            listener,
            rows: tband_perfetto::rows_to_read(&self.model),
        };
        tband_perfetto::export_chunks(&self.model, ExportOptions::default().sched, sink)
            .expect("the page takes every chunk");
    }
}

/// Hands the export's chunks to the page.
struct ToPage<'l> {
    listener: &'l Listener,
    rows: u64,
}

impl ChunkSink for ToPage<'_> {
    fn write_chunk(&mut self, chunk: &mut Buffer, rows_read: u64) -> io::Result<()> {
        self.listener.chunk(chunk.as_slice());
        chunk.clear();
        self.listener.progress(rows_read as f64, self.rows as f64);
        Ok(())
    }
}

/// A simulated tband trace of about `bytes` bytes, for the page to convert
/// while it waits for files: V8 runs WebAssembly first as its quick
/// compiler made it and optimises a function only after it has run a
/// while, so the user's first conversion would otherwise start on the slow
/// code.
#[wasm_bindgen]
pub fn simulated_trace(bytes: u32) -> Vec<u8> {
    let config = tband_sim::Config {
        size: u64::from(bytes),
        ..tband_sim::Config::default()
    };
    let (mut streams, _) = tband_sim::generate(&config).expect("the default simulation runs");
    streams.swap_remove(0)
}

/// About how many bytes of memory the model takes per byte of trace, at
/// most: a 105 MB tband trace's takes 144 MB.
const MODEL_BYTES_PER_TRACE_BYTE: u64 = 2;

/// Grows the module's memory by `bytes` at once, for the allocations to
/// come to reuse: V8 takes long over each growth, and the model grows
/// step by step. Where the memory cannot grow that far, it grows as
/// needed.
fn reserve_memory(bytes: u64) {
    let mut block = Vec::<u8>::new();
    if let Ok(bytes) = usize::try_from(bytes) {
        // Kept from being optimised away: an allocation freed unused is
        // not made at all.
        if block.try_reserve_exact(bytes).is_ok() {
            drop(std::hint::black_box(block));
        }
    }
}

fn js_error(error: TraceError) -> JsError {
    JsError::new(&error.to_string())
}
