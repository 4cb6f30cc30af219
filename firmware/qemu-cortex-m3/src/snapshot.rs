//! The snapshot transport: record 40 ticks (or until the snapshot buffer is
//! full), then write metadata + snapshot to `trace.bin` in QEMU's working
//! directory by semihosting.

use cortex_m_semihosting::syscall;

use crate::Counts;

const TICKS_TO_RECORD: u32 = 40;

pub fn set_up() {}

pub fn start() {
    tband::trigger_snapshot();
}

pub fn keep_recording(ticks: u32) -> bool {
    ticks < TICKS_TO_RECORD && tband::snapshot_state(0) == Some(tband::SnapshotState::Recording)
}

pub fn stream_write(_core: usize, _bytes: &[u8]) -> bool {
    false
}

/// Writes the trace file; `false` if it could not be written.
pub fn finish(_counts: &Counts) -> bool {
    tband::stop_snapshot();
    write_host_file(b"trace.bin\0")
}

/// Writes metadata buffer + snapshot to a host file (NUL-terminated name).
fn write_host_file(name: &[u8]) -> bool {
    const MODE_WRITE_BINARY: usize = 5;
    // SAFETY: semihosting calls with valid pointers and lengths.
    let fd = unsafe { syscall!(OPEN, name.as_ptr(), MODE_WRITE_BINARY, name.len() - 1) };
    if fd as isize == -1 {
        return false;
    }
    let mut ok = true;
    tband::read_snapshot(0, |part| {
        // SAFETY: as above; WRITE returns the number of bytes not written.
        ok &= unsafe { syscall!(WRITE, fd, part.as_ptr(), part.len()) } == 0;
    });
    // SAFETY: as above.
    ok & (unsafe { syscall!(CLOSE, fd) } == 0)
}
