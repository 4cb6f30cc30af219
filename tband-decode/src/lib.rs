//! Host-side decoding of tband traces: bytes → frames → typed events.
//!
//! The wire format itself (schema, varints, COBS) is defined once in the
//! `tband` crate; this crate reads it from files, stdin or hex text.

pub mod frames;
pub mod input;
pub mod listing;
pub mod stream;
