//! The object registry: every thread, queue, semaphore, … the kernel knew
//! while tracing, with its name and creation parameters.

use std::ops::Range;

use super::layout::ByteOrder;

/// What kind of object a registry entry describes (the type byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    Thread,
    Timer,
    Queue,
    Semaphore,
    Mutex,
    EventFlags,
    BlockPool,
    BytePool,
    FilexMedia,
    FilexFile,
    NetxIp,
    NetxPacketPool,
    NetxTcpSocket,
    NetxUdpSocket,
    /// A type byte without a known meaning.
    Other(u8),
}

impl ObjectKind {
    pub fn from_type(object_type: u8) -> ObjectKind {
        match object_type {
            1 => ObjectKind::Thread,
            2 => ObjectKind::Timer,
            3 => ObjectKind::Queue,
            4 => ObjectKind::Semaphore,
            5 => ObjectKind::Mutex,
            6 => ObjectKind::EventFlags,
            7 => ObjectKind::BlockPool,
            8 => ObjectKind::BytePool,
            9 => ObjectKind::FilexMedia,
            10 => ObjectKind::FilexFile,
            11 => ObjectKind::NetxIp,
            12 => ObjectKind::NetxPacketPool,
            13 => ObjectKind::NetxTcpSocket,
            14 => ObjectKind::NetxUdpSocket,
            other => ObjectKind::Other(other),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ObjectKind::Thread => "thread",
            ObjectKind::Timer => "timer",
            ObjectKind::Queue => "queue",
            ObjectKind::Semaphore => "semaphore",
            ObjectKind::Mutex => "mutex",
            ObjectKind::EventFlags => "event_flags",
            ObjectKind::BlockPool => "block_pool",
            ObjectKind::BytePool => "byte_pool",
            ObjectKind::FilexMedia => "filex_media",
            ObjectKind::FilexFile => "filex_file",
            ObjectKind::NetxIp => "netx_ip",
            ObjectKind::NetxPacketPool => "netx_packet_pool",
            ObjectKind::NetxTcpSocket => "netx_tcp_socket",
            ObjectKind::NetxUdpSocket => "netx_udp_socket",
            ObjectKind::Other(_) => "other",
        }
    }
}

/// One used registry entry (object address non-zero).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryEntry {
    /// Position in the registry.
    pub index: usize,
    /// 0 = in use; 1 = the object was deleted (its entry is kept with its data).
    pub available: u8,
    pub object_type: u8,
    /// The two reserved bytes; current kernels keep a thread's priority here.
    pub reserved: [u8; 2],
    pub address: u32,
    pub param1: u32,
    pub param2: u32,
    pub name: String,
}

impl RegistryEntry {
    pub fn kind(&self) -> ObjectKind {
        ObjectKind::from_type(self.object_type)
    }

    pub fn is_released(&self) -> bool {
        self.available != 0
    }

    /// A thread's priority as current kernels store it in the reserved bytes
    /// (0x80 flag + high bits, then the low 8 bits); `None` for other objects
    /// and for older kernels that leave the bytes zero.
    pub fn thread_priority(&self) -> Option<u32> {
        let [high, low] = self.reserved;
        (self.kind() == ObjectKind::Thread && high & 0x80 != 0)
            .then(|| u32::from(high & 0x7F) << 8 | u32::from(low))
    }

    /// Stack size in bytes, for threads.
    pub fn stack_size(&self) -> Option<u32> {
        (self.kind() == ObjectKind::Thread).then_some(self.param2)
    }
}

/// The used registry entries, and lookup by object address.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    /// Entries the header describes, used or not.
    pub capacity: usize,
    /// Used entries, in registry order.
    pub entries: Vec<RegistryEntry>,
    /// (object address, position in `entries`), sorted by address.
    by_address: Vec<(u32, usize)>,
}

impl Registry {
    /// Reads the entries at `span` (whole entries of `entry_size` bytes).
    pub(crate) fn parse(
        bytes: &[u8],
        order: ByteOrder,
        span: Range<usize>,
        entry_size: usize,
        capacity: usize,
    ) -> Registry {
        let mut registry = Registry {
            capacity,
            ..Registry::default()
        };
        let Some(area) = bytes.get(span) else {
            return registry;
        };
        registry.entries = area
            .chunks_exact(entry_size)
            .enumerate()
            .filter_map(|(index, raw)| parse_entry(raw, order, index))
            .collect();
        // A deleted object's address may be reused by a new one: the entry
        // still in use wins the lookup (sorted first, then deduplicated).
        registry.by_address = registry
            .entries
            .iter()
            .enumerate()
            .map(|(slot, entry)| (entry.address, slot))
            .collect();
        let entries = &registry.entries;
        registry
            .by_address
            .sort_by_key(|&(address, slot)| (address, entries[slot].is_released(), slot));
        registry
            .by_address
            .dedup_by_key(|&mut (address, _)| address);
        registry
    }

    /// The registered object at `address`.
    pub fn object(&self, address: u32) -> Option<&RegistryEntry> {
        let found = self
            .by_address
            .binary_search_by_key(&address, |&(address, _)| address)
            .ok()?;
        self.by_address
            .get(found)
            .and_then(|&(_, slot)| self.entries.get(slot))
    }

    /// The registered thread at `address`.
    pub fn thread(&self, address: u32) -> Option<&RegistryEntry> {
        self.object(address)
            .filter(|entry| entry.kind() == ObjectKind::Thread)
    }

    pub fn threads(&self) -> impl Iterator<Item = &RegistryEntry> {
        self.entries
            .iter()
            .filter(|entry| entry.kind() == ObjectKind::Thread)
    }
}

/// One entry, or `None` for a never-used entry (object address 0).
fn parse_entry(raw: &[u8], order: ByteOrder, index: usize) -> Option<RegistryEntry> {
    let word = |offset: usize| order.word_at(raw, offset);
    let address = word(4)?;
    if address == 0 {
        return None;
    }
    let name_bytes = raw.get(16..)?;
    let name_len = name_bytes
        .iter()
        .position(|&byte| byte == 0)
        .unwrap_or(name_bytes.len());
    Some(RegistryEntry {
        index,
        available: *raw.first()?,
        object_type: *raw.get(1)?,
        reserved: [*raw.get(2)?, *raw.get(3)?],
        address,
        param1: word(8)?,
        param2: word(12)?,
        name: String::from_utf8_lossy(&name_bytes[..name_len]).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw_entry(
        available: u8,
        object_type: u8,
        reserved: [u8; 2],
        address: u32,
        name: &str,
    ) -> Vec<u8> {
        let mut raw = vec![available, object_type, reserved[0], reserved[1]];
        raw.extend_from_slice(&address.to_le_bytes());
        raw.extend_from_slice(&7u32.to_le_bytes());
        raw.extend_from_slice(&1024u32.to_le_bytes());
        let mut name_field = [0u8; 8];
        name_field[..name.len()].copy_from_slice(name.as_bytes());
        raw.extend_from_slice(&name_field);
        raw
    }

    #[test]
    fn skips_never_used_entries_and_prefers_live_objects() {
        let mut bytes = raw_entry(1, 1, [0, 0], 0x1000, "old");
        bytes.extend(raw_entry(1, 0, [0, 0], 0, ""));
        bytes.extend(raw_entry(0, 1, [0x80, 5], 0x1000, "new"));
        let registry = Registry::parse(&bytes, ByteOrder::Little, 0..bytes.len(), 24, 3);
        assert_eq!(registry.entries.len(), 2);
        assert_eq!(registry.entries[1].index, 2);
        let thread = registry.thread(0x1000).expect("thread registered");
        assert_eq!(thread.name, "new");
        assert_eq!(thread.thread_priority(), Some(5));
        assert_eq!(thread.stack_size(), Some(1024));
        assert_eq!(registry.entries[0].thread_priority(), None);
    }

    #[test]
    fn name_without_terminator_uses_the_whole_field() {
        let bytes = raw_entry(0, 3, [0, 0], 0x2000, "12345678");
        let registry = Registry::parse(&bytes, ByteOrder::Little, 0..bytes.len(), 24, 1);
        assert_eq!(registry.entries[0].name, "12345678");
        assert_eq!(registry.entries[0].kind(), ObjectKind::Queue);
        assert!(registry.thread(0x2000).is_none());
    }
}
