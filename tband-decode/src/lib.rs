//! The tband wire format on the host: bytes → COBS frames → typed events →
//! one time-ordered stream over all cores → the trace model.
//!
//! The format itself (schema, varints, COBS) is defined once in the `tband`
//! crate; this crate reads it from files, stdin or hex text, and its
//! importer ([`interpret`]) fills a [`tband_model::Model`].

pub mod cpu_features;
pub mod decode_thread;
pub mod encode;
pub mod frames;
pub mod input;
pub mod interpret;
pub mod listing;
pub mod merge;
pub mod sequencer;
pub mod stream;
