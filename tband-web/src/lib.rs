//! The converter of the web page (`www/`), compiled to WebAssembly: trace
//! files held in memory become the model, its summary and its Perfetto
//! trace, by the same library calls the command-line tools make.
//!
//! [`Files`] collects what the page was given and opens it through the
//! front door ([`Source::from_memory`]); [`Converted`] holds the model for
//! the summary (`tband-decode --summary`) and the export (`tband-perfetto
//! --threads 1`, as a browser worker has one thread).

use tband_model::summary::write_summary;
use tband_model::Model;
use tband_perfetto::ExportOptions;
use tband_trace::input::{Bytes, Input};
use tband_trace::{OpenOptions, Source, Trace, TraceError};
use wasm_bindgen::prelude::*;

/// The trace files a page was given, each with the core it was recorded
/// on when the user said.
#[wasm_bindgen]
#[derive(Default)]
pub struct Files {
    inputs: Vec<Input>,
}

#[wasm_bindgen]
impl Files {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Files {
        Files::default()
    }

    /// Adds a file's bytes (hex text is converted, as the tools do).
    pub fn add(&mut self, name: String, core: Option<u32>, bytes: Vec<u8>) -> Result<(), JsError> {
        self.push(name, core, bytes).map_err(js_error)
    }

    /// Recognises the format and builds the model.
    pub fn open(self) -> Result<Converted, JsError> {
        self.build().map_err(js_error)
    }
}

impl Files {
    fn push(&mut self, name: String, core: Option<u32>, bytes: Vec<u8>) -> Result<(), TraceError> {
        self.inputs
            .push(Input::from_bytes(name, core, Bytes::Owned(bytes))?);
        Ok(())
    }

    fn build(self) -> Result<Converted, TraceError> {
        let options = OpenOptions::default();
        let trace = Trace::build(Source::from_memory(self.inputs, &options)?, &options)?;
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

    /// The Perfetto trace (`.pftrace`), as `tband-perfetto` writes it.
    pub fn perfetto(&self) -> Vec<u8> {
        let mut trace = Vec::new();
        tband_perfetto::export(&self.model, ExportOptions::default(), &mut trace)
            .expect("writing to memory does not fail");
        trace
    }
}

fn js_error(error: TraceError) -> JsError {
    JsError::new(&error.to_string())
}
