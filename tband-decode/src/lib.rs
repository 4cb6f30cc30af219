//! Host-side decoding of tband traces: bytes → frames → typed events → one
//! time-ordered stream over all cores → the trace [`model`].
//!
//! The wire format itself (schema, varints, COBS) is defined once in the
//! `tband` crate; this crate reads it from files, stdin or hex text.

pub mod analysis;
pub mod chrome_json;
pub mod cli;
pub mod cpu_features;
pub mod ctf;
pub mod decode_thread;
pub mod frames;
pub mod input;
pub mod interpret;
pub mod listing;
pub mod merge;
pub mod model;
pub mod sequencer;
pub mod stream;
pub mod summary;
pub mod threadx;
pub mod trace;

pub use model::Model;
pub use trace::{OpenOptions, Trace};
