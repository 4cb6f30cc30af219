//! The flight recorder: a table at the symbol `tband_flight_recorder` that
//! tells a debugger, or a tool reading a RAM image, where each core's
//! post-mortem ring and metadata buffer are, so that the trace of a halted
//! or crashed target is read from its memory without the firmware's help.
//! Its layout, the rings' and the metadata buffers' are the book's format
//! page's ("The flight recorder"); the table is made at compile time.

use crate::backend::postmortem::PostMortem;
use crate::config::{BUF_BYTES, CORES};
use crate::global::{GlobalTracer, GLOBAL, METADATA_BYTES};

/// Where a debugger finds the global tracer's rings and metadata buffers.
#[no_mangle]
#[used]
pub static tband_flight_recorder: FlightRecorder = FlightRecorder::of(GLOBAL.tracer.get());

/// "TBFR" in memory order.
pub const MAGIC: [u8; 4] = *b"TBFR";
/// The layout's version.
pub const VERSION: u32 = 1;

/// The table: `repr(C)`, little-endian on every target tband runs on;
/// the addresses are as wide as the target's pointers.
#[repr(C)]
pub struct FlightRecorder {
    magic: [u8; 4],
    version: u32,
    cores: u32,
    ring_bytes: u32,
    metadata_bytes: u32,
    /// Each core's ring (`postmortem::Ring`).
    rings: [*const u8; CORES],
    /// Each core's metadata buffer (`MetadataBuf`).
    metadata: [*const u8; CORES],
}

// SAFETY: the table is never written; its addresses are only read.
unsafe impl Sync for FlightRecorder {}

impl FlightRecorder {
    /// The table of the global tracer at `tracer`.
    const fn of(tracer: *const GlobalTracer) -> Self {
        // SAFETY: `tracer` is the global tracer; only addresses are computed.
        let backend = unsafe { GlobalTracer::backend_ptr(tracer) };
        let mut rings = [core::ptr::null(); CORES];
        let mut metadata = [core::ptr::null(); CORES];
        let mut core = 0;
        while core < CORES {
            // SAFETY: as above.
            unsafe {
                rings[core] = PostMortem::<BUF_BYTES, CORES>::ring_ptr(backend, core).cast();
                metadata[core] = GlobalTracer::metadata_ptr(tracer, core).cast();
            }
            core += 1;
        }
        FlightRecorder {
            magic: MAGIC,
            version: VERSION,
            cores: CORES as u32,
            ring_bytes: BUF_BYTES as u32,
            metadata_bytes: METADATA_BYTES as u32,
            rings,
            metadata,
        }
    }
}
