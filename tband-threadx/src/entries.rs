//! Trace entries in the order they were written: circular from the current
//! pointer, never-written slots skipped, timestamps unwrapped.

use super::event_names::event_name;
use super::layout::{ByteOrder, Layout, ENTRY_SIZE};
use super::problems::{Problem, ProblemKind, ProblemLog};
use super::registry::Registry;
use super::timer::Timer;

/// Thread word of entries logged in interrupt context.
pub const THREAD_WORD_ISR: u32 = 0xFFFF_FFFF;
/// Thread word of entries logged during initialization.
pub const THREAD_WORD_INIT: u32 = 0xF0F0_F0F0;

/// One trace entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Position in circular order, counting written slots only.
    pub seq: u64,
    /// Physical slot index in the trace area.
    pub slot: u32,
    /// File offset of the entry.
    pub offset: usize,
    pub thread_word: u32,
    pub priority_word: u32,
    pub event_id: u32,
    /// The raw timestamp word, unmasked.
    pub timestamp: u32,
    pub info: [u32; 4],
    /// Timer ticks since the first entry (masked and unwrapped).
    pub ticks: u64,
    /// `ticks` scaled by the tick length.
    pub time_ns: u64,
}

/// Who logged an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// Before the scheduler started.
    Initialization,
    /// In an interrupt handler; the thread it interrupted (0 if none).
    Interrupt { interrupted_thread: u32 },
    /// A thread (its address; registered or not).
    Thread { address: u32 },
}

impl Entry {
    pub fn context(&self) -> Context {
        match self.thread_word {
            THREAD_WORD_INIT => Context::Initialization,
            THREAD_WORD_ISR => Context::Interrupt {
                interrupted_thread: self.priority_word,
            },
            address => Context::Thread { address },
        }
    }

    /// The event's macro name, `user` for application events.
    pub fn event_name(&self) -> Option<&'static str> {
        event_name(self.event_id)
    }

    /// Priority and preemption threshold of the logging thread from the
    /// priority word: current kernels store `0x80000000 | threshold << 16 |
    /// priority`, older ones the bare priority (threshold `None`).
    pub fn thread_priority(&self) -> Option<(u32, Option<u32>)> {
        match self.context() {
            Context::Thread { .. } if self.priority_word & 0x8000_0000 != 0 => Some((
                self.priority_word & 0xFFFF,
                Some(self.priority_word >> 16 & 0x7FFF),
            )),
            Context::Thread { .. } => Some((self.priority_word, None)),
            _ => None,
        }
    }
}

/// Written slots in circular order: (slot index, file offset, the 32 bytes).
#[derive(Debug, Clone)]
pub(crate) struct SlotWalk<'a> {
    /// The slots inside the file.
    slots: &'a [[u8; ENTRY_SIZE]],
    buffer_offset: usize,
    current_slot: usize,
    /// Slots visited so far, counting from the current slot.
    step: usize,
}

impl<'a> SlotWalk<'a> {
    pub(crate) fn new(bytes: &'a [u8], layout: &Layout) -> SlotWalk<'a> {
        let start = layout.buffer_offset;
        let area = bytes
            .get(start..start + layout.available_slots * ENTRY_SIZE)
            .unwrap_or_default();
        let (slots, _) = area.as_chunks::<ENTRY_SIZE>();
        SlotWalk {
            slots,
            buffer_offset: start,
            // Slots cut off by the end of the file are skipped: with the
            // current slot among them, the walk starts at slot 0.
            current_slot: if layout.current_slot < slots.len() {
                layout.current_slot
            } else {
                0
            },
            step: 0,
        }
    }
}

impl<'a> Iterator for SlotWalk<'a> {
    type Item = (usize, usize, &'a [u8; ENTRY_SIZE]);

    fn next(&mut self) -> Option<Self::Item> {
        let count = self.slots.len();
        while self.step < count {
            let mut slot = self.current_slot + self.step;
            if slot >= count {
                slot -= count;
            }
            self.step += 1;
            let raw = self.slots.get(slot)?;
            // A zero thread word marks a slot never written.
            if raw[..4] != [0, 0, 0, 0] {
                return Some((slot, self.buffer_offset + slot * ENTRY_SIZE, raw));
            }
        }
        None
    }
}

/// The raw timestamp word of a raw entry.
pub(crate) fn raw_timestamp(raw: &[u8; ENTRY_SIZE], order: ByteOrder) -> u32 {
    order.word([raw[12], raw[13], raw[14], raw[15]])
}

/// Decoded entries in circular order. Problems found in entries (unknown
/// ids, unregistered threads, timestamp jumps) are collected while
/// iterating; [`Entries::finish`] hands them over.
#[derive(Debug)]
pub struct Entries<'a> {
    walk: SlotWalk<'a>,
    order: ByteOrder,
    registry: &'a Registry,
    timer: Timer,
    seq: u64,
    previous_timestamp: Option<u32>,
    ticks: u64,
    /// The last thread word found in the registry, so runs of entries
    /// from one thread cost one lookup.
    known_thread: Option<u32>,
    /// Likewise the last event id found to be known.
    known_event: Option<u32>,
    log: ProblemLog,
}

impl<'a> Entries<'a> {
    pub(crate) fn new(
        walk: SlotWalk<'a>,
        order: ByteOrder,
        registry: &'a Registry,
        timer: Timer,
    ) -> Entries<'a> {
        Entries {
            walk,
            order,
            registry,
            timer,
            seq: 0,
            previous_timestamp: None,
            ticks: 0,
            known_thread: None,
            known_event: None,
            log: ProblemLog::default(),
        }
    }

    /// Problems found in the entries iterated so far.
    pub fn finish(self) -> Vec<Problem> {
        self.log.into_vec()
    }

    /// Counts the entry's problems; `jumped_from` is the previous raw
    /// timestamp when the step to this entry was a jump.
    fn check(&mut self, entry: &Entry, jumped_from: Option<u32>) {
        if let Some(previous) = jumped_from {
            let direction = self.timer.direction.as_str();
            self.log.count(
                ProblemKind::TimestampJump,
                entry.offset,
                entry.time_ns,
                || {
                    format!(
                        "slot {}: timestamp 0x{:08X} after 0x{previous:08X} is a jump of more \
                         than half the timer range for a timer counting {direction}",
                        entry.slot, entry.timestamp
                    )
                },
            );
        }
        if self.known_event == Some(entry.event_id) {
            // Runs of the same event cost one table lookup.
        } else if event_name(entry.event_id).is_some() {
            self.known_event = Some(entry.event_id);
        } else {
            self.log.count(
                ProblemKind::UnknownEvent,
                entry.offset,
                entry.time_ns,
                || format!("slot {}: unknown event id {}", entry.slot, entry.event_id),
            );
        }
        if let Context::Thread { address } = entry.context() {
            if self.known_thread != Some(address) {
                if self.registry.thread(address).is_some() {
                    self.known_thread = Some(address);
                } else {
                    self.log.count(
                        ProblemKind::UnregisteredThread,
                        entry.offset,
                        entry.time_ns,
                        || {
                            format!(
                                "slot {}: thread word 0x{address:08X} is not a registered thread",
                                entry.slot
                            )
                        },
                    );
                }
            }
        }
    }
}

impl Iterator for Entries<'_> {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        let (slot, offset, raw) = self.walk.next()?;
        let mut words = [0u32; 8];
        for (word, bytes) in words.iter_mut().zip(raw.chunks_exact(4)) {
            *word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
        if self.order == ByteOrder::Big {
            words = words.map(u32::swap_bytes);
        }
        let [thread_word, priority_word, event_id, timestamp, i1, i2, i3, i4] = words;
        let mut jumped_from = None;
        if let Some(previous) = self.previous_timestamp {
            let step = self.timer.step(previous, timestamp);
            if self.timer.is_jump(step) {
                jumped_from = Some(previous);
            }
            self.ticks += u64::from(step);
        }
        self.previous_timestamp = Some(timestamp);
        let entry = Entry {
            seq: self.seq,
            // Slot indices fit: the trace area is at most 4 GiB of 32-byte slots.
            slot: slot as u32,
            offset,
            thread_word,
            priority_word,
            event_id,
            timestamp,
            info: [i1, i2, i3, i4],
            ticks: self.ticks,
            time_ns: self.timer.ticks_to_ns(self.ticks),
        };
        self.seq += 1;
        self.check(&entry, jumped_from);
        Some(entry)
    }
}
