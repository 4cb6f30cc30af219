//! A host port of the global tracer (threads play cores), a function that
//! reads traces back with `tband-decode`, the QEMU example firmware
//! ([`qemu`]), what the embassy tests share ([`embassy`]) and a trace's
//! events as text ([`event_lines`]), for the tests in `tests/` and those
//! of `tband-capture`.

use std::cell::Cell;
use std::ops::ControlFlow;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};

use tband::EventKind;
use tband_decode::stream::StreamDecoder;

pub mod embassy;
pub mod event_lines;
pub mod qemu;
pub mod vendor;

/// Timestamps: one shared counter, one tick per read, so every event has
/// its own time and the order within a core is the order of recording.
static CLOCK: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static CORE: Cell<usize> = const { Cell::new(0) };
}

/// Makes the calling thread core `core` for the tracer.
pub fn run_as_core(core: usize) {
    CORE.set(core);
}

pub struct HostPort;

impl tband::Port for HostPort {
    fn ts_resolution_ns() -> u64 {
        1000
    }

    fn timestamp() -> u64 {
        CLOCK.fetch_add(1, Ordering::Relaxed)
    }

    fn core_id() -> usize {
        CORE.get()
    }
}

tband::set_port!(HostPort);

/// One decoded frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub core: u32,
    pub ts: Option<u64>,
    pub kind: EventKind,
    /// The event's fields as `name=value` (strings as text).
    pub fields: String,
}

/// Decodes a stream that starts on `core`; `Err` with the offset of the
/// first frame the decoder rejected.
pub fn decode(bytes: &[u8], core: u32) -> Result<Vec<Frame>, usize> {
    let mut frames = Vec::new();
    let rejected = StreamDecoder::new(bytes, core).for_each_frame(|f| {
        let Ok(rec) = f.result else {
            return ControlFlow::Break(f.offset);
        };
        let mut fields = Vec::new();
        rec.event.for_each_field(|name, value| {
            fields.push(match value {
                tband::FieldValue::Str(s) => format!("{name}={}", String::from_utf8_lossy(s)),
                tband::FieldValue::U8(v) => format!("{name}={v}"),
                tband::FieldValue::U32(v) => format!("{name}={v}"),
                tband::FieldValue::U64(v) => format!("{name}={v}"),
                tband::FieldValue::S64(v) => format!("{name}={v}"),
            })
        });
        frames.push(Frame {
            core: f.core,
            ts: rec.ts,
            kind: rec.event.kind(),
            fields: fields.join(" "),
        });
        ControlFlow::Continue(())
    });
    match rejected {
        Some(offset) => Err(offset),
        None => Ok(frames),
    }
}

/// Frames as `kind field=value ...` lines, for comparing with a listing.
pub fn listing(frames: &[Frame]) -> Vec<String> {
    frames
        .iter()
        .map(|f| format!("{} {}", f.kind.name(), f.fields))
        .collect()
}

/// The global tracer's trace of `core` (metadata buffer + snapshot).
pub fn snapshot_of(core: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    tband::read_snapshot(core, |part| bytes.extend_from_slice(part));
    bytes
}

/// Runs a command to its end; panics with its output if it failed.
pub fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
