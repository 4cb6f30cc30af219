//! The tband firmware tracer.
//!
//! This crate holds the one definition of the tband wire format (the event
//! [`schema`], its [`varint`] field encodings and [`cobs`] framing) that both
//! the firmware encoder and the host decoder (`tband-decode`) are built from,
//! and the tracer runtime: [`Tracer`] with its [`backend`]s, the
//! [`metadata`] buffer and [`drops`] accounting. With a backend feature
//! (`streaming`, `snapshot`, `postmortem` or `external`) it also provides the
//! global tracer and the tracing functions firmware calls, among them the
//! [`memory`] events, the [`TracedAlloc`] global allocator and the
//! [`fault`] a fault handler records; with `postmortem`, the
//! `flight_recorder` table a debugger reads the rings by. With feature
//! `defmt` it is defmt's global logger: each log line becomes one
//! `defmt_frame` event.
#![no_std]

pub mod backend;
pub mod cobs;
pub mod config;
pub mod drops;
#[cfg(feature = "embassy")]
pub mod embassy;
pub mod metadata;
pub mod schema;
pub mod trace;
pub mod varint;

#[cfg(feature = "defmt")]
mod defmt;
#[cfg(feature = "tracer")]
pub mod fault;
#[cfg(feature = "ffi")]
pub mod ffi;
#[cfg(feature = "postmortem")]
pub mod flight_recorder;
#[cfg(feature = "tracer")]
pub mod freertos;
#[cfg(feature = "tracer")]
mod global;
#[cfg(feature = "tracer")]
pub mod memory;
#[cfg(feature = "tracer")]
mod port;
#[cfg(feature = "rtos-trace")]
pub mod rtos_trace;
#[cfg(feature = "rtt")]
pub mod rtt;

#[cfg(feature = "tracer")]
pub use global::*;
#[cfg(feature = "tracer")]
pub use memory::TracedAlloc;
#[cfg(feature = "tracer")]
pub use port::{Port, Registered};
pub use schema::{
    encode_frame, Event, EventKind, EventSpec, FieldType, FieldValue, Record, EVENTS,
};
pub use trace::Tracer;
