//! The global tracer: one static [`Tracer`] with the backend chosen by cargo
//! feature and the sizes from `TBAND_*` build settings, reached through a
//! critical section, and the tracing functions firmware calls.

use core::cell::UnsafeCell;

use crate::config::{CORES, DROP_CNT_EVERY, MAX_STR_LEN, METADATA_BUF_BYTES};
use crate::port;
use crate::schema::RawEvent;
use crate::{Event, Tracer};

#[cfg(not(any(
    feature = "streaming",
    feature = "snapshot",
    feature = "postmortem",
    feature = "external"
)))]
compile_error!(
    "tband: enable exactly one backend feature: streaming, snapshot, postmortem or external"
);

#[cfg(any(
    all(feature = "streaming", feature = "snapshot"),
    all(feature = "streaming", feature = "postmortem"),
    all(feature = "streaming", feature = "external"),
    all(feature = "snapshot", feature = "postmortem"),
    all(feature = "snapshot", feature = "external"),
    all(feature = "postmortem", feature = "external"),
))]
compile_error!(
    "tband: enable only one backend feature: streaming, snapshot, postmortem or external"
);

#[cfg(feature = "streaming")]
pub type SelectedBackend = crate::backend::streaming::Streaming<crate::Registered>;
#[cfg(feature = "snapshot")]
pub type SelectedBackend =
    crate::backend::snapshot::Snapshot<crate::Registered, { crate::config::BUF_BYTES }, CORES>;
#[cfg(feature = "postmortem")]
pub type SelectedBackend =
    crate::backend::postmortem::PostMortem<{ crate::config::BUF_BYTES }, CORES>;
#[cfg(feature = "external")]
pub type SelectedBackend = crate::backend::external::External<crate::Registered>;

/// Bytes of each core's metadata buffer (0 without feature `metadata-buf`).
pub const METADATA_BYTES: usize = if cfg!(feature = "metadata-buf") {
    METADATA_BUF_BYTES
} else {
    0
};

pub type GlobalTracer = Tracer<SelectedBackend, METADATA_BYTES, CORES, { DROP_CNT_EVERY as u32 }>;

pub(crate) struct Global {
    pub(crate) tracer: UnsafeCell<GlobalTracer>,
    /// The last id handed out in each [`IdSpace`].
    last_ids: UnsafeCell<[u32; IdSpace::COUNT]>,
}

// SAFETY: only reached inside a critical section (see `with`).
unsafe impl Sync for Global {}

pub(crate) static GLOBAL: Global = Global {
    tracer: UnsafeCell::new(Tracer::new(SelectedBackend::new())),
    last_ids: UnsafeCell::new([0; IdSpace::COUNT]),
};

/// Runs `f` on the global tracer inside a critical section. `f` must not
/// call tracing functions.
#[inline(always)]
pub fn with<R>(f: impl FnOnce(&mut GlobalTracer) -> R) -> R {
    // SAFETY: the critical section excludes every other access.
    critical_section::with(|_| f(unsafe { &mut *GLOBAL.tracer.get() }))
}

/// The kinds of object whose ids count separately.
#[derive(Clone, Copy)]
pub(crate) enum IdSpace {
    Task,
    Queue,
    EventGroup,
    StreamBuffer,
    Timer,
}

impl IdSpace {
    const COUNT: usize = 5;
}

/// Hands out the next id of `space`, from 1 upward.
pub(crate) fn next_id(space: IdSpace) -> u32 {
    critical_section::with(|_| {
        // SAFETY: inside the critical section.
        let ids = unsafe { &mut *GLOBAL.last_ids.get() };
        let last = &mut ids[space as usize];
        *last = last.wrapping_add(1).max(1);
        *last
    })
}

/// Records a timed event on the running core. Inlined so that the
/// conversion of the known variant costs nothing; the recording itself is
/// one shared function.
#[inline(always)]
pub(crate) fn event(ev: Event<'_>) {
    record_event(&ev.to_raw());
}

#[inline(never)]
fn record_event(ev: &RawEvent<'_>) {
    with(|t| t.event_now(port::core_id(), port::timestamp, ev));
}

/// Records a metadata event on the running core.
#[inline(always)]
pub(crate) fn metadata(ev: Event<'_>) {
    record_metadata(&ev.to_raw());
}

#[inline(never)]
fn record_metadata(ev: &RawEvent<'_>) {
    with(|t| t.metadata(port::core_id(), ev));
}

/// Cuts a name or message to `TBAND_MAX_STR_LEN` bytes.
#[inline(always)]
pub(crate) fn cut(s: &[u8]) -> &[u8] {
    &s[..s.len().min(MAX_STR_LEN)]
}

/// Records the system's metadata (`ts_resolution_ns`) on the running core;
/// call once per core at start-up.
pub fn gather_system_metadata() {
    metadata(Event::TsResolutionNs {
        ns_per_ts: port::ts_resolution_ns(),
    });
}

/// Starts the chosen backend on the running core: streaming starts,
/// a snapshot is triggered, a post-mortem ring starts (external: nothing
/// to start). For the executor integrations' `start`.
#[cfg(any(feature = "rtos-trace", feature = "embassy"))]
pub(crate) fn start_recording() {
    #[cfg(feature = "streaming")]
    let _ = start_streaming();
    #[cfg(feature = "snapshot")]
    trigger_snapshot();
    #[cfg(feature = "postmortem")]
    start_postmortem();
}

/// Stops the chosen backend (for the executor integrations).
#[cfg(any(feature = "rtos-trace", feature = "embassy"))]
pub(crate) fn stop_recording() {
    #[cfg(feature = "streaming")]
    stop_streaming();
    #[cfg(feature = "snapshot")]
    stop_snapshot();
    #[cfg(feature = "postmortem")]
    stop_postmortem();
}

/// Names interrupt `isr_id` (metadata, per core).
pub fn isr_name(isr_id: u32, name: impl AsRef<[u8]>) {
    if cfg!(feature = "isr") {
        metadata(Event::IsrName {
            isr_id,
            name: cut(name.as_ref()),
        });
    }
}

/// An interrupt handler starts.
#[inline]
pub fn isr_enter(isr_id: u32) {
    if cfg!(feature = "isr") {
        event(Event::IsrEnter { isr_id });
    }
}

/// An interrupt handler ends.
#[inline]
pub fn isr_exit(isr_id: u32) {
    if cfg!(feature = "isr") {
        event(Event::IsrExit { isr_id });
    }
}

/// Names event marker `id` (metadata).
pub fn evtmarker_name(id: u32, name: impl AsRef<[u8]>) {
    if cfg!(feature = "markers") {
        metadata(Event::EvtmarkerName {
            evtmarker_id: id,
            name: cut(name.as_ref()),
        });
    }
}

/// An instant on event marker `id`, with a message (may be empty).
pub fn evtmarker(id: u32, msg: impl AsRef<[u8]>) {
    if cfg!(feature = "markers") {
        event(Event::Evtmarker {
            evtmarker_id: id,
            msg: cut(msg.as_ref()),
        });
    }
}

/// Opens a span on event marker `id`.
pub fn evtmarker_begin(id: u32, msg: impl AsRef<[u8]>) {
    if cfg!(feature = "markers") {
        event(Event::EvtmarkerBegin {
            evtmarker_id: id,
            msg: cut(msg.as_ref()),
        });
    }
}

/// Closes the innermost span on event marker `id`.
pub fn evtmarker_end(id: u32) {
    if cfg!(feature = "markers") {
        event(Event::EvtmarkerEnd { evtmarker_id: id });
    }
}

/// Names value marker `id` (metadata).
pub fn valmarker_name(id: u32, name: impl AsRef<[u8]>) {
    if cfg!(feature = "markers") {
        metadata(Event::ValmarkerName {
            valmarker_id: id,
            name: cut(name.as_ref()),
        });
    }
}

/// A value on value marker `id`.
pub fn valmarker(id: u32, val: i64) {
    if cfg!(feature = "markers") {
        event(Event::Valmarker {
            valmarker_id: id,
            val,
        });
    }
}

/// The running core's metadata frames (a copy-free view inside `f`).
pub fn read_metadata_buf<R>(core: usize, f: impl FnOnce(&[u8]) -> R) -> R {
    with(|t| f(t.metadata_buf(core)))
}

/// Whether a metadata frame of `core` did not fit its buffer (such frames
/// are also counted in the dropped-event total the trace reports).
pub fn metadata_overflowed(core: usize) -> bool {
    with(|t| t.metadata_overflowed(core))
}

/// Events of `core` lost so far.
pub fn dropped_events(core: usize) -> u32 {
    with(|t| t.dropped(core))
}

#[cfg(feature = "streaming")]
pub use streaming_api::*;
#[cfg(feature = "streaming")]
mod streaming_api {
    use super::*;
    pub use crate::trace::StartError;

    /// Starts streaming from the running core (its stream first carries
    /// every core's metadata).
    pub fn start_streaming() -> Result<(), StartError> {
        with(|t| t.start_streaming(port::core_id()))
    }

    pub fn stop_streaming() {
        with(|t| t.stop_streaming());
    }
}

#[cfg(feature = "snapshot")]
pub use snapshot_api::*;
#[cfg(feature = "snapshot")]
mod snapshot_api {
    use super::*;
    pub use crate::backend::snapshot::SnapshotState;

    /// Starts recording on every idle core; `false` if no core records.
    pub fn trigger_snapshot() -> bool {
        with(|t| t.backend_mut().trigger())
    }

    pub fn stop_snapshot() {
        with(|t| t.backend_mut().stop());
    }

    pub fn reset_snapshot() {
        with(|t| t.backend_mut().reset());
    }

    pub fn snapshot_state(core: usize) -> Option<SnapshotState> {
        with(|t| t.backend().state(core))
    }

    /// Calls `f` with `core`'s trace: its metadata buffer, then its
    /// snapshot buffer (concatenated, they are one decodable stream).
    pub fn read_snapshot(core: usize, mut f: impl FnMut(&[u8])) {
        with(|t| {
            f(t.metadata_buf(core));
            f(t.backend().bytes(core));
        });
    }
}

#[cfg(feature = "postmortem")]
pub use postmortem_api::*;
#[cfg(feature = "postmortem")]
mod postmortem_api {
    use super::*;

    /// Freezes every core's ring (call from a fault handler).
    pub fn stop_postmortem() {
        with(|t| t.backend_mut().stop());
    }

    pub fn start_postmortem() {
        with(|t| t.backend_mut().start());
    }

    pub fn reset_postmortem() {
        with(|t| t.backend_mut().reset());
    }

    /// Calls `f` with `core`'s trace: its metadata buffer, then the ring's
    /// bytes oldest first from a frame boundary.
    pub fn read_postmortem(core: usize, mut f: impl FnMut(&[u8])) {
        with(|t| {
            f(t.metadata_buf(core));
            for part in t.backend().read(core) {
                f(part);
            }
        });
    }
}
