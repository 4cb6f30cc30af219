//! ThreadX event-trace buffers (the `.trx` files TraceX opens): the memory
//! image of the buffer given to `tx_trace_enable`, a control header
//! ("TXTB"), an object registry and a circular area of 32-byte entries.
//!
//! [`Buffer::read`] parses the header and registry and checks the layout
//! against the file; [`Buffer::entries`] then walks the entries in the
//! order they were written. Damage never stops the reader: whatever is
//! consistent is decoded and the rest is reported as [`Problem`]s.

mod entries;
mod event_names;
mod interpret;
mod layout;
pub mod listing;
mod problems;
mod raw_events;
mod registry;
mod synthetic;
mod timer;

use std::fmt;

pub use entries::{Context, Entries, Entry, THREAD_WORD_INIT, THREAD_WORD_ISR};
pub use event_names::{
    event_info, event_name, family, is_event_name, EventFamily, EventInfo, USER_EVENT_FIRST,
    USER_EVENT_LAST,
};
pub use interpret::{
    build_model, ThreadxImport, IDLE_TASK_ID, INIT_MARKER_ID, INTERRUPT_CONTEXT_ISR_ID,
};
pub use layout::{ByteOrder, Header, Layout, ENTRY_SIZE, HEADER_ID, HEADER_SIZE};
pub use problems::{Problem, ProblemKind};
pub use registry::{ObjectKind, Registry, RegistryEntry};
pub use synthetic::{synthetic_buffer, SyntheticOptions};
pub use timer::{Timer, TimerDirection};

use entries::{raw_timestamp, SlotWalk};
use problems::ProblemLog;

/// Whether `bytes` start with the ThreadX trace header id, in either byte
/// order.
pub fn looks_like(bytes: &[u8]) -> bool {
    ByteOrder::detect(bytes).is_some()
}

/// Settings the buffer cannot tell.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ReadOptions {
    /// Nanoseconds per timer tick; ThreadX records no resolution, so 1 is
    /// assumed when this is `None`.
    pub tick_ns: Option<f64>,
    /// Counting direction of the timer; `None` detects it from the entries.
    pub timer_direction: Option<TimerDirection>,
}

/// Why a buffer could not be read at all.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadError {
    /// The file does not start with the "TXTB" id word.
    NotThreadx,
    /// The file ends inside the 48-byte control header.
    TruncatedHeader { len: usize },
    /// The tick length is not a positive finite number.
    InvalidTickNs(f64),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotThreadx => {
                f.write_str("not a ThreadX trace buffer: the file does not start with the TXTB id")
            }
            ReadError::TruncatedHeader { len } => write!(
                f,
                "ThreadX trace buffer cut short: {len} bytes, the control header alone is {HEADER_SIZE}"
            ),
            ReadError::InvalidTickNs(tick_ns) => {
                write!(f, "tick length must be a positive number of nanoseconds, got {tick_ns}")
            }
        }
    }
}

impl std::error::Error for ReadError {}

/// How many raw timestamps direction detection looks at.
const DIRECTION_SAMPLE: usize = 4096;

/// A parsed buffer: header, registry and layout, borrowing the bytes.
#[derive(Debug, Clone)]
pub struct Buffer<'a> {
    bytes: &'a [u8],
    pub byte_order: ByteOrder,
    pub header: Header,
    pub layout: Layout,
    pub registry: Registry,
    pub timer: Timer,
    log: ProblemLog,
}

impl<'a> Buffer<'a> {
    pub fn read(bytes: &'a [u8], options: &ReadOptions) -> Result<Buffer<'a>, ReadError> {
        let tick_ns = options.tick_ns.unwrap_or(1.0);
        if !(tick_ns.is_finite() && tick_ns > 0.0) {
            return Err(ReadError::InvalidTickNs(tick_ns));
        }
        let byte_order = ByteOrder::detect(bytes).ok_or(ReadError::NotThreadx)?;
        let header = Header::parse(bytes, byte_order)
            .ok_or(ReadError::TruncatedHeader { len: bytes.len() })?;
        let mut log = ProblemLog::default();
        let layout = Layout::resolve(&header, bytes.len(), &mut log);
        let registry = Registry::parse(
            bytes,
            byte_order,
            layout.registry.clone(),
            layout.registry_entry_size,
            layout.registry_capacity,
        );
        let mask = header.timer_valid_mask;
        if !timer::is_low_bit_mask(mask) {
            log.record(
                ProblemKind::TimerMask,
                4,
                format!("timer-valid mask 0x{mask:08X} is not a run of low bits"),
            );
        }
        let (direction, direction_detected) = match options.timer_direction {
            Some(direction) => (direction, false),
            None => {
                let sample = SlotWalk::new(bytes, &layout)
                    .take(DIRECTION_SAMPLE)
                    .map(|(_, _, raw)| raw_timestamp(raw, byte_order));
                (
                    timer::detect_direction(sample, mask).unwrap_or(TimerDirection::Up),
                    true,
                )
            }
        };
        let timer = Timer {
            mask,
            direction,
            direction_detected,
            tick_ns,
            tick_ns_given: options.tick_ns.is_some(),
        };
        Ok(Buffer {
            bytes,
            byte_order,
            header,
            layout,
            registry,
            timer,
            log,
        })
    }

    /// The entries in circular order from the current pointer.
    pub fn entries(&self) -> Entries<'_> {
        Entries::new(
            SlotWalk::new(self.bytes, &self.layout),
            self.byte_order,
            &self.registry,
            self.timer,
        )
    }

    /// Problems in the header, registry and layout (entry problems come
    /// from [`Entries::finish`]).
    pub fn problems(&self) -> &[Problem] {
        self.log.as_slice()
    }

    /// How an entry's logging context is shown: the thread's registry name,
    /// `ISR`, `INIT`, or `unregistered`.
    pub fn context_label(&self, entry: &Entry) -> &str {
        match entry.context() {
            Context::Initialization => "INIT",
            Context::Interrupt { .. } => "ISR",
            Context::Thread { address } => self
                .registry
                .thread(address)
                .map_or("unregistered", |thread| thread.name.as_str()),
        }
    }
}
