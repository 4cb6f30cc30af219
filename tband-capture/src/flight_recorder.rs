//! The flight recorder: the post-mortem rings of a halted or crashed
//! target, read out of its memory (through a GDB server, or from a RAM
//! image) where the firmware's ELF file says its table
//! `tband_flight_recorder` is, and unwrapped oldest first into a trace
//! file per core that every tool reads. The layouts are the book's format
//! page's ("The flight recorder").
//!
//! Damage is reported, never fatal once the table is found: a ring whose
//! header does not add up is read whole as it lies (the decoder counts
//! what is not a frame), a metadata buffer whose length does not fit is
//! cut to its size.

use std::io;
use std::path::{Path, PathBuf};

use object::{Object, ObjectSection, ObjectSymbol, SectionKind};

use crate::rtt::TargetMemory;

/// The symbol of the table.
pub const SYMBOL: &str = "tband_flight_recorder";
const MAGIC: &[u8; 4] = b"TBFR";
const VERSION: u32 = 1;
/// Bytes of the table before its addresses.
const TABLE_HEAD: usize = 20;
const RING_HEAD: u32 = 12;
const METADATA_HEAD: u32 = 8;
/// More cores or bytes than any target has: the table is not one.
const MAX_CORES: u32 = 64;
const MAX_BYTES: u32 = 1 << 28;

/// What the firmware's ELF file says of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    /// Its address.
    pub address: u32,
    /// The width of the target's addresses, in bytes.
    pub address_bytes: usize,
    /// The RAM the ELF file's writable data is in (from its lowest
    /// writable section's start to its highest's end): what a RAM image
    /// is to hold, and where it starts when no address is given.
    pub ram: Option<(u32, u32)>,
    /// The table's bytes as the ELF file holds them: a table in flash
    /// (the firmware's is constant) is not in a RAM image.
    pub in_elf: Option<Vec<u8>>,
}

impl Table {
    /// Finds the table in the firmware's ELF file.
    pub fn from_elf(elf: &Path) -> Result<Table, String> {
        let data = std::fs::read(elf)
            .map_err(|e| format!("cannot read the ELF file {}: {e}", elf.display()))?;
        let file = object::File::parse(&*data).map_err(|e| {
            format!(
                "{} is not an ELF file ({e}); give the firmware's ELF, not a .bin or .hex",
                elf.display()
            )
        })?;
        if !file.is_little_endian() {
            return Err(format!(
                "{} is a big-endian firmware; the flight recorder is little-endian only",
                elf.display()
            ));
        }
        let symbol = file
            .symbols()
            .find(|s| s.name() == Ok(SYMBOL))
            .ok_or_else(|| {
                format!(
                    "{} has no {SYMBOL} symbol: the firmware does not use tband's post-mortem \
                 backend, or the file is stripped",
                    elf.display()
                )
            })?;
        let address = u32::try_from(symbol.address())
            .map_err(|_| format!("{SYMBOL} in {} is not a 32-bit address", elf.display()))?;
        let writable: Vec<(u64, u64)> = (file.sections())
            .filter(|s| matches!(s.kind(), SectionKind::Data | SectionKind::UninitializedData))
            .filter(|s| s.size() > 0)
            .map(|s| (s.address(), s.address() + s.size()))
            .collect();
        let start = writable.iter().map(|&(start, _)| start).min();
        let end = writable.iter().map(|&(_, end)| end).max();
        let ram = start
            .zip(end)
            .and_then(|(start, end)| Some((u32::try_from(start).ok()?, u32::try_from(end).ok()?)));
        let in_elf = (symbol.section_index())
            .and_then(|i| file.section_by_index(i).ok())
            .filter(|section| section.kind() != SectionKind::UninitializedData)
            .and_then(|section| {
                let data = section.data().ok()?;
                let from = usize::try_from(symbol.address() - section.address()).ok()?;
                let len = usize::try_from(symbol.size()).ok()?;
                Some(data.get(from..from + len)?.to_vec())
            });
        Ok(Table {
            address,
            address_bytes: if file.is_64() { 8 } else { 4 },
            ram,
            in_elf,
        })
    }
}

/// One core's trace as read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CoreTrace {
    /// Its metadata frames, then its ring's frames oldest first.
    pub bytes: Vec<u8>,
    pub metadata_bytes: usize,
    pub ring_bytes: usize,
    /// The frames the ring dropped to make room for newer ones.
    pub overwritten: u32,
    /// The metadata frames that did not fit in the metadata buffer.
    pub metadata_lost: u32,
}

/// What was read: each core's trace, and a sentence for each damage.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Readout {
    pub cores: Vec<CoreTrace>,
    /// The size of each ring.
    pub ring_size: u32,
    pub damage: Vec<String>,
}

impl Readout {
    /// The bytes read from the target in all.
    pub fn bytes(&self) -> usize {
        self.cores.iter().map(|c| c.bytes.len()).sum()
    }
}

/// Reads every core's trace through `memory` (a halted target or an
/// image); the error is a sentence saying what could not be found.
pub fn read(memory: &mut dyn TargetMemory, table: &Table) -> Result<Readout, String> {
    let at = table.address;
    let mut head = [0u8; TABLE_HEAD];
    memory
        .read(at, &mut head)
        .map_err(|e| format!("cannot read the flight recorder's table at {at:#010x} ({e})"))?;
    let word = |bytes: &[u8], i: usize| {
        u32::from_le_bytes(bytes[i..i + 4].try_into().expect("four bytes"))
    };
    if &head[..4] != MAGIC {
        return Err(format!(
            "the memory at {SYMBOL} ({at:#010x}) does not hold the flight recorder's table: \
             the target or the image is not running this ELF file, or its RAM was cleared"
        ));
    }
    let (version, cores, ring_size, metadata_size) = (
        word(&head, 4),
        word(&head, 8),
        word(&head, 12),
        word(&head, 16),
    );
    if version != VERSION {
        return Err(format!(
            "the flight recorder's table is of version {version}; this tband-capture reads \
             version {VERSION}"
        ));
    }
    if cores == 0 || cores > MAX_CORES || ring_size > MAX_BYTES || metadata_size > MAX_BYTES {
        return Err(format!(
            "the flight recorder's table at {at:#010x} is damaged ({cores} cores, rings of \
             {ring_size} bytes, metadata buffers of {metadata_size} bytes)"
        ));
    }
    let width = table.address_bytes;
    let first = TABLE_HEAD.next_multiple_of(width);
    let mut addresses = vec![0u8; 2 * cores as usize * width];
    memory
        .read(at.wrapping_add(first as u32), &mut addresses)
        .map_err(|e| format!("cannot read the flight recorder's table at {at:#010x} ({e})"))?;
    let address = |i: usize| -> Result<u32, String> {
        let bytes = &addresses[i * width..(i + 1) * width];
        let mut wide = [0u8; 8];
        wide[..width].copy_from_slice(bytes);
        u32::try_from(u64::from_le_bytes(wide))
            .map_err(|_| format!("the flight recorder's table at {at:#010x} is damaged"))
    };
    let mut readout = Readout {
        ring_size,
        ..Readout::default()
    };
    for core in 0..cores as usize {
        let ring = address(core)?;
        let metadata = address(cores as usize + core)?;
        let mut reader = CoreReader {
            memory: &mut *memory,
            core,
            trace: CoreTrace::default(),
            damage: &mut readout.damage,
        };
        if metadata_size > 0 {
            reader.read_metadata(metadata, metadata_size);
        }
        reader.read_ring(ring, ring_size);
        readout.cores.push(reader.trace);
    }
    Ok(readout)
}

/// Reads one core's buffers from the target's memory into its trace,
/// noting what it finds damaged.
struct CoreReader<'a> {
    memory: &'a mut dyn TargetMemory,
    core: usize,
    trace: CoreTrace,
    damage: &'a mut Vec<String>,
}

impl CoreReader<'_> {
    fn read_metadata(&mut self, at: u32, size: u32) {
        let core = self.core;
        let mut head = [0u8; METADATA_HEAD as usize];
        if let Err(e) = self.memory.read(at, &mut head) {
            self.damage.push(format!(
            "core {core}'s metadata buffer at {at:#010x} cannot be read ({e}): names are unknown"
        ));
            return;
        }
        let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        self.trace.metadata_lost = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
        let kept = if len > size {
            self.damage.push(format!(
                "core {core}'s metadata buffer says it holds {len} bytes of {size}: \
             all {size} are read"
            ));
            size
        } else {
            len
        };
        if kept == 0 {
            self.damage.push(format!(
                "core {core}'s metadata buffer is empty: the names of tasks, ISRs and markers \
             and the timer's resolution are unknown"
            ));
        }
        if self.trace.metadata_lost > 0 {
            self.damage.push(format!(
                "{} metadata frame(s) of core {core} did not fit in its buffer of {size} bytes",
                self.trace.metadata_lost
            ));
        }
        let mut bytes = vec![0u8; kept as usize];
        match self.memory.read(at.wrapping_add(METADATA_HEAD), &mut bytes) {
            Ok(()) => {
                self.trace.metadata_bytes = bytes.len();
                self.trace.bytes.extend_from_slice(&bytes);
            }
            Err(e) => self.damage.push(format!(
            "core {core}'s metadata frames at {at:#010x} cannot be read ({e}): names are unknown"
        )),
        }
    }

    fn read_ring(&mut self, at: u32, size: u32) {
        let core = self.core;
        let mut head = [0u8; RING_HEAD as usize];
        let mut bytes = vec![0u8; size as usize];
        let read = self
            .memory
            .read(at, &mut head)
            .and_then(|()| self.memory.read(at.wrapping_add(RING_HEAD), &mut bytes));
        if let Err(e) = read {
            self.damage.push(format!(
                "core {core}'s ring at {at:#010x} cannot be read ({e}): its events are lost"
            ));
            return;
        }
        let word = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().expect("four bytes"));
        let (next, used) = (word(0), word(4));
        self.trace.overwritten = word(8);
        let (start, used) = if size == 0 || next >= size.max(1) || used > size {
            self.damage.push(format!(
                "core {core}'s ring header is damaged (head {next}, {used} bytes used of {size}): \
             the whole ring is read as it lies"
            ));
            (0, size)
        } else {
            ((next + size - used) % size, used)
        };
        let (start, used) = (start as usize, used as usize);
        let to_end = used.min(bytes.len() - start);
        self.trace
            .bytes
            .extend_from_slice(&bytes[start..start + to_end]);
        self.trace.bytes.extend_from_slice(&bytes[..used - to_end]);
        self.trace.ring_bytes = used;
    }
}

/// A file of the target's RAM (GDB's `dump memory`, a region a crash
/// handler saved) that starts at address `base`, with the table as the
/// ELF file holds it when it is not in RAM.
pub struct RamImage {
    base: u32,
    bytes: Vec<u8>,
    path: PathBuf,
    /// The table's address and bytes, from the ELF file.
    table: Option<(u32, Vec<u8>)>,
}

impl RamImage {
    pub fn open(path: &Path, base: u32, table: &Table) -> Result<RamImage, String> {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("cannot read the RAM image {}: {e}", path.display()))?;
        Ok(RamImage {
            base,
            bytes,
            path: path.to_path_buf(),
            table: table.in_elf.clone().map(|bytes| (table.address, bytes)),
        })
    }
}

/// The `len` bytes at `address` of a region of `bytes` at `base`.
fn within(base: u32, bytes: &[u8], address: u32, len: usize) -> Option<&[u8]> {
    let from = address.checked_sub(base)? as usize;
    bytes.get(from..from.checked_add(len)?)
}

impl TargetMemory for RamImage {
    fn read(&mut self, address: u32, buf: &mut [u8]) -> io::Result<()> {
        let end = u64::from(self.base) + self.bytes.len() as u64;
        let in_table =
            (self.table.as_ref()).and_then(|(at, bytes)| within(*at, bytes, address, buf.len()));
        match within(self.base, &self.bytes, address, buf.len()).or(in_table) {
            Some(bytes) => {
                buf.copy_from_slice(bytes);
                Ok(())
            }
            None => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "{} holds {:#010x}–{end:#010x}, not {address:#010x}–{:#010x}",
                    self.path.display(),
                    self.base,
                    u64::from(address) + buf.len() as u64
                ),
            )),
        }
    }

    fn write(&mut self, _: u32, _: &[u8]) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "a RAM image is read only",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table of one core at 0x100, its ring at 0x200 and its metadata
    /// buffer at 0x400, 32-bit addresses.
    fn image(ring_head: [u32; 3], ring: &[u8], metadata: &[u8]) -> RamImage {
        let mut bytes = vec![0u8; 0x500];
        let mut put = |at: usize, b: &[u8]| bytes[at..at + b.len()].copy_from_slice(b);
        put(0x100, MAGIC);
        for (i, v) in [VERSION, 1, ring.len() as u32, 64, 0x200, 0x400]
            .into_iter()
            .enumerate()
        {
            put(0x104 + 4 * i, &v.to_le_bytes());
        }
        for (i, v) in ring_head.into_iter().enumerate() {
            put(0x200 + 4 * i, &v.to_le_bytes());
        }
        put(0x20c, ring);
        put(0x400, &(metadata.len() as u32).to_le_bytes());
        put(0x408, metadata);
        RamImage {
            base: 0,
            bytes,
            path: "image".into(),
            table: None,
        }
    }

    const TABLE: Table = Table {
        address: 0x100,
        address_bytes: 4,
        ram: None,
        in_elf: None,
    };

    #[test]
    fn a_wrapped_ring_is_read_oldest_first_after_the_metadata() {
        // The next byte goes at 2; the 6 bytes held start at 4 and wrap.
        let ring = [5, 0, 9, 9, 4, 4, 0, 5];
        let mut memory = image([2, 6, 7], &ring, &[1, 1, 0]);
        let readout = read(&mut memory, &TABLE).unwrap();
        let core = &readout.cores[0];
        assert_eq!(core.bytes, [1, 1, 0, 4, 4, 0, 5, 5, 0]);
        assert_eq!((core.metadata_bytes, core.ring_bytes), (3, 6));
        assert_eq!(core.overwritten, 7);
        assert!(readout.damage.is_empty(), "{:?}", readout.damage);
    }

    #[test]
    fn damage_is_read_through_and_said() {
        let ring = [5, 0, 9, 9, 4, 4, 0, 5];
        let mut memory = image([9, 60, 0], &ring, &[]);
        let readout = read(&mut memory, &TABLE).unwrap();
        assert_eq!(readout.cores[0].bytes, ring);
        assert_eq!(
            readout.damage,
            [
                "core 0's metadata buffer is empty: the names of tasks, ISRs and markers \
                 and the timer's resolution are unknown",
                "core 0's ring header is damaged (head 9, 60 bytes used of 8): the whole \
                 ring is read as it lies"
            ]
        );
    }

    #[test]
    fn a_ring_address_past_the_image_is_damage() {
        let mut memory = image([0, 0, 0], &[0; 8], &[1, 0]);
        memory.bytes[0x114..0x118].copy_from_slice(&0xFFFF_FFF8u32.to_le_bytes());
        let readout = read(&mut memory, &TABLE).unwrap();
        assert_eq!(readout.cores[0].bytes, [1, 0]);
        assert_eq!(
            readout.damage,
            [
                "core 0's ring at 0xfffffff8 cannot be read (image holds 0x00000000–0x00000500, \
              not 0xfffffff8–0x100000004): its events are lost"
            ]
        );
    }

    #[test]
    fn what_is_not_the_table_is_one_sentence() {
        let mut memory = image([0, 0, 0], &[0; 8], &[]);
        memory.bytes[0x100] = b'X';
        let error = read(&mut memory, &TABLE).unwrap_err();
        assert!(
            error.contains("does not hold the flight recorder's table"),
            "{error}"
        );
        let beyond = Table {
            address: 0x1000,
            ..TABLE
        };
        let error = read(&mut memory, &beyond).unwrap_err();
        assert_eq!(
            error,
            "cannot read the flight recorder's table at 0x00001000 (image holds \
             0x00000000–0x00000500, not 0x00001000–0x00001014)"
        );
    }
}
