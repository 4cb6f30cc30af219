//! The tband firmware tracer.
//!
//! This crate holds the one definition of the tband wire format (the event
//! [`schema`], its [`varint`] field encodings and [`cobs`] framing) that both
//! the firmware encoder and the host decoder (`tband-decode`) are built from.
#![no_std]

pub mod cobs;
pub mod schema;
pub mod varint;

pub use schema::{
    encode_frame, Event, EventKind, EventSpec, FieldType, FieldValue, Record, EVENTS,
};
