//! The control header and where the registry and the trace area lie in the
//! file, checked against the file size.

use std::ops::Range;

use super::problems::{ProblemKind, ProblemLog};

/// The header id word, "TXTB" read as a native word.
pub const HEADER_ID: u32 = 0x5458_5442;
/// Size of the control header: twelve 32-bit words.
pub const HEADER_SIZE: usize = 48;
/// Size of one trace entry: eight 32-bit words.
pub const ENTRY_SIZE: usize = 32;
/// Fixed part of a registry entry before the object name.
pub const REGISTRY_ENTRY_FIXED_SIZE: usize = 16;

/// Byte order of the target that wrote the buffer, told by the id word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteOrder {
    Little,
    Big,
}

impl ByteOrder {
    pub fn detect(bytes: &[u8]) -> Option<ByteOrder> {
        let id: [u8; 4] = bytes.get(..4)?.try_into().ok()?;
        if u32::from_le_bytes(id) == HEADER_ID {
            Some(ByteOrder::Little)
        } else if u32::from_be_bytes(id) == HEADER_ID {
            Some(ByteOrder::Big)
        } else {
            None
        }
    }

    pub fn word(self, bytes: [u8; 4]) -> u32 {
        match self {
            ByteOrder::Little => u32::from_le_bytes(bytes),
            ByteOrder::Big => u32::from_be_bytes(bytes),
        }
    }

    fn half(self, bytes: [u8; 2]) -> u16 {
        match self {
            ByteOrder::Little => u16::from_le_bytes(bytes),
            ByteOrder::Big => u16::from_be_bytes(bytes),
        }
    }

    /// The word at `offset`, if four bytes are there.
    pub fn word_at(self, bytes: &[u8], offset: usize) -> Option<u32> {
        let end = offset.checked_add(4)?;
        Some(self.word(bytes.get(offset..end)?.try_into().ok()?))
    }

    fn half_at(self, bytes: &[u8], offset: usize) -> Option<u16> {
        let end = offset.checked_add(2)?;
        Some(self.half(bytes.get(offset..end)?.try_into().ok()?))
    }
}

/// The control header as stored; pointers are target addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub id: u32,
    pub timer_valid_mask: u32,
    pub base_address: u32,
    pub registry_start: u32,
    pub reserved1: u16,
    pub object_name_size: u16,
    pub registry_end: u32,
    pub buffer_start: u32,
    pub buffer_end: u32,
    pub buffer_current: u32,
    pub reserved: [u32; 3],
}

impl Header {
    /// Reads the header; `None` when the file is shorter than a header.
    pub fn parse(bytes: &[u8], order: ByteOrder) -> Option<Header> {
        let word = |index: usize| order.word_at(bytes, index * 4);
        Some(Header {
            id: word(0)?,
            timer_valid_mask: word(1)?,
            base_address: word(2)?,
            registry_start: word(3)?,
            reserved1: order.half_at(bytes, 16)?,
            object_name_size: order.half_at(bytes, 18)?,
            registry_end: word(5)?,
            buffer_start: word(6)?,
            buffer_end: word(7)?,
            buffer_current: word(8)?,
            reserved: [word(9)?, word(10)?, word(11)?],
        })
    }

    /// File offset of a target address, if it is not below the base address.
    pub fn offset_of(&self, address: u32) -> Option<usize> {
        address
            .checked_sub(self.base_address)
            .and_then(|offset| usize::try_from(offset).ok())
    }
}

/// Where the registry entries and trace slots are, as far as the file holds
/// them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Size of one registry entry (16 + object name size).
    pub registry_entry_size: usize,
    /// Registry entries the header describes.
    pub registry_capacity: usize,
    /// File offsets of the registry entries that are wholly in the file.
    pub registry: Range<usize>,
    /// File offset of slot 0.
    pub buffer_offset: usize,
    /// Slots the header describes.
    pub slots: usize,
    /// Slots wholly inside the file (the first `available` of `slots`).
    pub available_slots: usize,
    /// Slot the current pointer points at: the oldest entry once the buffer
    /// has wrapped.
    pub current_slot: usize,
}

impl Layout {
    /// Works out the layout, recording every inconsistency and keeping
    /// whatever part of the registry and trace area is still usable.
    pub(crate) fn resolve(header: &Header, file_len: usize, log: &mut ProblemLog) -> Layout {
        let registry_entry_size = REGISTRY_ENTRY_FIXED_SIZE + usize::from(header.object_name_size);
        let mut layout = Layout {
            registry_entry_size,
            registry_capacity: 0,
            registry: HEADER_SIZE..HEADER_SIZE,
            buffer_offset: HEADER_SIZE,
            slots: 0,
            available_slots: 0,
            current_slot: 0,
        };
        // Where an area starts must be past the header and inside the file;
        // where it ends is checked against its start and the file later.
        let start_pointer = |log: &mut ProblemLog, field: &str, address: u32, at: usize| {
            let offset = header.offset_of(address);
            match offset {
                Some(offset) if (HEADER_SIZE..=file_len).contains(&offset) => Some(offset),
                _ => {
                    log.record(
                        ProblemKind::HeaderPointer,
                        at,
                        format!(
                            "{field} 0x{address:08X} does not point into the {file_len}-byte file \
                             past its header (base address 0x{:08X})",
                            header.base_address
                        ),
                    );
                    None
                }
            }
        };
        let registry_start = start_pointer(log, "registry start", header.registry_start, 12);
        let buffer_start = start_pointer(log, "buffer start", header.buffer_start, 24);
        let registry_end = header.offset_of(header.registry_end);
        let buffer_end = header.offset_of(header.buffer_end);
        let current = header.offset_of(header.buffer_current);

        if let Some(start) = registry_start {
            // The registry cannot reach into the trace area that follows it.
            let (limit, limit_name) = match buffer_start {
                Some(buffer) if buffer > start => (buffer, "the trace area"),
                _ => (file_len, "the end of the file"),
            };
            layout.resolve_registry(start, registry_end, limit, limit_name, log);
        }
        if let Some(start) = buffer_start {
            layout.resolve_buffer(start, buffer_end, file_len, log);
            layout.resolve_current(header.buffer_current, current, log);
        }
        layout
    }

    fn resolve_registry(
        &mut self,
        start: usize,
        end: Option<usize>,
        limit: usize,
        limit_name: &str,
        log: &mut ProblemLog,
    ) {
        let Some(span) = end.and_then(|end| end.checked_sub(start)) else {
            log.record(
                ProblemKind::HeaderPointer,
                20,
                format!("registry end lies before registry start (offset {start})"),
            );
            return;
        };
        let entry_size = self.registry_entry_size;
        self.registry_capacity = span / entry_size;
        if span % entry_size != 0 {
            log.record(
                ProblemKind::RegistryLayout,
                start,
                format!(
                    "registry span of {span} bytes is not a whole number of {entry_size}-byte entries"
                ),
            );
        }
        let fitting = limit.saturating_sub(start) / entry_size;
        let whole = self.registry_capacity.min(fitting);
        if whole < self.registry_capacity {
            log.record(
                ProblemKind::RegistryLayout,
                start,
                format!(
                    "registry of {} entries runs past {limit_name}; reading the {whole} before it",
                    self.registry_capacity
                ),
            );
        }
        self.registry = start..start + whole * entry_size;
    }

    fn resolve_buffer(
        &mut self,
        start: usize,
        end: Option<usize>,
        file_len: usize,
        log: &mut ProblemLog,
    ) {
        self.buffer_offset = start;
        if self.registry.end > start {
            log.record(
                ProblemKind::HeaderPointer,
                24,
                format!(
                    "buffer start (offset {start}) lies inside the registry (ends at offset {})",
                    self.registry.end
                ),
            );
        }
        let span = match end.and_then(|end| end.checked_sub(start)) {
            Some(span) => span,
            None => {
                log.record(
                    ProblemKind::HeaderPointer,
                    28,
                    format!("buffer end lies before buffer start (offset {start})"),
                );
                return;
            }
        };
        self.slots = span / ENTRY_SIZE;
        if span % ENTRY_SIZE != 0 {
            log.record(
                ProblemKind::BufferLayout,
                start,
                format!("trace area of {span} bytes is not a whole number of 32-byte entries"),
            );
        }
        self.available_slots = self.slots.min(file_len.saturating_sub(start) / ENTRY_SIZE);
        if self.available_slots < self.slots {
            log.record(
                ProblemKind::BufferTruncated,
                start + self.available_slots * ENTRY_SIZE,
                format!(
                    "{} of {} trace slots lie beyond the end of the {file_len}-byte file",
                    self.slots - self.available_slots,
                    self.slots
                ),
            );
        }
    }

    fn resolve_current(&mut self, address: u32, offset: Option<usize>, log: &mut ProblemLog) {
        let relative = offset.and_then(|offset| offset.checked_sub(self.buffer_offset));
        match relative {
            Some(relative) if relative < self.slots * ENTRY_SIZE => {
                self.current_slot = relative / ENTRY_SIZE;
                if relative % ENTRY_SIZE != 0 {
                    log.record(
                        ProblemKind::CurrentPointer,
                        32,
                        format!(
                            "current pointer 0x{address:08X} is not on a slot boundary; \
                             using slot {}",
                            self.current_slot
                        ),
                    );
                }
            }
            _ => log.record(
                ProblemKind::CurrentPointer,
                32,
                format!(
                    "current pointer 0x{address:08X} is outside the trace area; \
                     reading slots in physical order"
                ),
            ),
        }
    }
}
