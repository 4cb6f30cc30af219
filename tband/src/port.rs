//! What the firmware tells the global tracer once, in the style of
//! `critical-section`'s `set_impl!`: where time comes from, which core runs,
//! and the functions the chosen backend calls.

use crate::backend::Hooks;

/// The firmware's side of the tracer. Register it with [`set_port!`](crate::set_port).
/// Every function is called inside the tracer's critical section and must
/// not call tracing functions itself.
pub trait Port {
    /// Nanoseconds per timestamp tick (recorded as `ts_resolution_ns` by
    /// [`gather_system_metadata`](crate::gather_system_metadata)).
    fn ts_resolution_ns() -> u64;

    /// The current time in ticks of one monotonic timer shared by all cores.
    fn timestamp() -> u64;

    /// The index of the running core, below `TBAND_CORES`.
    fn core_id() -> usize {
        0
    }

    /// Streaming backend: send `bytes` (whole frames) of `core`'s stream;
    /// return `false` if they could not be sent (counted as dropped).
    fn stream_write(_core: usize, _bytes: &[u8]) -> bool {
        false
    }

    /// External backend: receives every frame of `core`.
    fn external(_core: usize, _frame: &[u8], _is_metadata: bool) {}

    /// Snapshot backend: `core`'s buffer just filled up.
    fn snapshot_full(_core: usize) {}
}

/// Registers a [`Port`] implementation for the global tracer. Use once in
/// the firmware binary: `tband::set_port!(MyPort);`
#[macro_export]
macro_rules! set_port {
    ($port:ty) => {
        const _: () = {
            #[no_mangle]
            fn _tband_timestamp() -> u64 {
                <$port as $crate::Port>::timestamp()
            }
            #[no_mangle]
            fn _tband_core_id() -> usize {
                <$port as $crate::Port>::core_id()
            }
            #[no_mangle]
            fn _tband_ts_resolution_ns() -> u64 {
                <$port as $crate::Port>::ts_resolution_ns()
            }
            #[no_mangle]
            fn _tband_stream_write(core: usize, bytes: &[u8]) -> bool {
                <$port as $crate::Port>::stream_write(core, bytes)
            }
            #[no_mangle]
            fn _tband_external(core: usize, frame: &[u8], is_metadata: bool) {
                <$port as $crate::Port>::external(core, frame, is_metadata)
            }
            #[no_mangle]
            fn _tband_snapshot_full(core: usize) {
                <$port as $crate::Port>::snapshot_full(core)
            }
        };
    };
}

extern "Rust" {
    fn _tband_timestamp() -> u64;
    fn _tband_core_id() -> usize;
    fn _tband_ts_resolution_ns() -> u64;
    fn _tband_stream_write(core: usize, bytes: &[u8]) -> bool;
    fn _tband_external(core: usize, frame: &[u8], is_metadata: bool);
    fn _tband_snapshot_full(core: usize);
}

// SAFETY (all below): the symbols are defined by `set_port!` with exactly
// these signatures; a missing registration is a link error.

#[inline(always)]
pub(crate) fn timestamp() -> u64 {
    unsafe { _tband_timestamp() }
}

/// The running core. A single-core build knows it without asking the port.
#[inline(always)]
pub(crate) fn core_id() -> usize {
    if crate::config::CORES == 1 {
        0
    } else {
        unsafe { _tband_core_id() }
    }
}

pub(crate) fn ts_resolution_ns() -> u64 {
    unsafe { _tband_ts_resolution_ns() }
}

/// The backend hooks of the registered port.
pub struct Registered;

impl Hooks for Registered {
    fn stream_write(core: usize, bytes: &[u8]) -> bool {
        unsafe { _tband_stream_write(core, bytes) }
    }
    fn external(core: usize, frame: &[u8], is_metadata: bool) {
        unsafe { _tband_external(core, frame, is_metadata) }
    }
    fn snapshot_full(core: usize) {
        unsafe { _tband_snapshot_full(core) }
    }
}
