//! `tband-capture`: records a running target's trace bytes to a file
//! exactly as they arrive, from a serial port, a TCP socket or an RTT
//! channel read through a GDB server ([`rtt`], [`gdb`]), and tells
//! while it runs what the stream holds so far.
//!
//! The recording ([`record`]) writes every read before the next one, so a
//! recording that ends early, by Ctrl-C or by a lost connection, keeps
//! every byte received. The stream is decoded as it arrives ([`watch`]) for
//! the status line only: the file is never changed.

pub mod cli;
pub mod flight_cli;
pub mod flight_recorder;
pub mod gdb;
#[cfg(feature = "probe")]
pub mod probe;
pub mod record;
pub mod rtt;
pub mod rtt_stream;
pub mod source;
pub mod start;
pub mod status;
pub mod watch;
