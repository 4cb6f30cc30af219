//! defmt's global logger: each log call's frame, as defmt's encoder writes
//! it between `acquire` and `release`, becomes one `defmt_frame` event of
//! the running core, so log lines share the trace's stream, time and drop
//! accounting. The frame is kept raw (tband's framing already carries any
//! byte); the host decodes it with the firmware's ELF and puts it on the
//! task or ISR the trace says was running.
//!
//! A frame longer than `TBAND_DEFMT_FRAME_BYTES` is cut there; the host
//! counts it as a frame it could not decode.

use core::cell::UnsafeCell;

use crate::config::DEFMT_FRAME_BYTES;
use crate::Event;

#[defmt::global_logger]
struct Logger;

/// The frame being written, inside the critical section `acquire` took.
struct Pending {
    taken: bool,
    restore: critical_section::RestoreState,
    len: usize,
    bytes: [u8; DEFMT_FRAME_BYTES],
}

struct Shared(UnsafeCell<Pending>);

// SAFETY: only reached between `acquire` and `release`, inside the
// critical section `acquire` took.
unsafe impl Sync for Shared {}

static PENDING: Shared = Shared(UnsafeCell::new(Pending {
    taken: false,
    restore: critical_section::RestoreState::invalid(),
    len: 0,
    bytes: [0; DEFMT_FRAME_BYTES],
}));

// SAFETY: `acquire` takes a critical section that `release` ends, so one
// frame is written at a time; a log call nested in one (from a panic
// handler inside defmt's formatting) is refused by the `taken` check.
unsafe impl defmt::Logger for Logger {
    fn acquire() {
        // SAFETY: released in `release`, which defmt calls after `acquire`.
        let restore = unsafe { critical_section::acquire() };
        // SAFETY: inside the critical section.
        let pending = unsafe { &mut *PENDING.0.get() };
        if pending.taken {
            panic!("defmt logger taken reentrantly");
        }
        pending.taken = true;
        pending.restore = restore;
        pending.len = 0;
    }

    unsafe fn flush() {}

    unsafe fn release() {
        // SAFETY: between `acquire` and `release`.
        let pending = unsafe { &mut *PENDING.0.get() };
        crate::global::event(Event::DefmtFrame {
            frame: &pending.bytes[..pending.len],
        });
        pending.taken = false;
        let restore = pending.restore;
        // SAFETY: the state `acquire` took, restored once.
        unsafe { critical_section::release(restore) };
    }

    unsafe fn write(bytes: &[u8]) {
        // SAFETY: between `acquire` and `release`.
        let pending = unsafe { &mut *PENDING.0.get() };
        let room = DEFMT_FRAME_BYTES - pending.len;
        let n = bytes.len().min(room);
        pending.bytes[pending.len..pending.len + n].copy_from_slice(&bytes[..n]);
        pending.len += n;
    }
}
