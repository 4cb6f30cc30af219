//! SEGGER RTT, read from the host side: the control block a 32-bit target
//! keeps in its RAM, how to find it, taking what an up channel holds and
//! sending bytes into a down channel.
//! Everything here reads and writes target memory through
//! [`TargetMemory`], so that a GDB server and a debug probe share it.

use std::fmt;
use std::io;
use std::path::Path;

/// What a control block starts with; the rest of its 16 bytes are zeros.
pub const MAGIC: &[u8; 10] = b"SEGGER RTT";
/// The symbol that holds the control block in firmware built with
/// rtt-target or SEGGER's own RTT code.
pub const SYMBOL: &str = "_SEGGER_RTT";

/// The ID (16 bytes), then the numbers of up and down channels; the up
/// channels' descriptors follow, then the down channels'.
const HEADER_BYTES: u32 = 24;
/// A channel's descriptor, up or down: name, buffer, size, write offset,
/// read offset, flags; six 32-bit words.
const DESCRIPTOR_BYTES: u32 = 24;
const WRITE_OFFSET: u32 = 12;
const READ_OFFSET: u32 = 16;
/// More channels either way than any firmware has: a larger count means
/// the block is not (yet) a control block.
const MAX_CHANNELS: u32 = 64;
/// Channel names longer than this are cut when read.
const MAX_NAME_BYTES: usize = 32;

/// Reads and writes a running target's memory.
pub trait TargetMemory {
    fn read(&mut self, address: u32, buf: &mut [u8]) -> io::Result<()>;
    fn write(&mut self, address: u32, bytes: &[u8]) -> io::Result<()>;
}

/// Which up channel to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Channel {
    Name(String),
    Number(u32),
}

impl Channel {
    /// A number selects by number, anything else by name.
    pub fn parse(text: &str) -> Channel {
        text.parse()
            .map_or_else(|_| Channel::Name(text.to_owned()), Channel::Number)
    }
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Channel::Name(name) => write!(f, "\"{name}\""),
            Channel::Number(number) => write!(f, "{number}"),
        }
    }
}

/// Where the control block is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// At this address (from the ELF's `_SEGGER_RTT`).
    At(u32),
    /// Somewhere in this range of RAM, found by its magic.
    Scan { start: u32, len: u32 },
}

impl Location {
    /// The address of `_SEGGER_RTT` in the ELF file at `path`.
    pub fn from_elf(path: &Path) -> Result<Location, String> {
        use object::{Object, ObjectSymbol};
        let data = std::fs::read(path)
            .map_err(|e| format!("cannot read the ELF file {}: {e}", path.display()))?;
        let file = object::File::parse(&*data).map_err(|e| {
            format!(
                "{} is not an ELF file ({e}); give the firmware's ELF, not a .bin or .hex",
                path.display()
            )
        })?;
        let symbol = file
            .symbols()
            .find(|s| s.name() == Ok(SYMBOL))
            .ok_or_else(|| {
                format!(
                    "{} has no {SYMBOL} symbol; check that the firmware sets up RTT \
                     (rtt_target::rtt_init!) and is not stripped, or use --scan-ram",
                    path.display()
                )
            })?;
        u32::try_from(symbol.address())
            .map(Location::At)
            .map_err(|_| format!("{SYMBOL} in {} is not a 32-bit address", path.display()))
    }
}

/// A channel's ring buffer in a control block: where its descriptor and
/// buffer are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ring {
    descriptor: u32,
    buffer: u32,
    size: u32,
}

/// An up channel found in a control block (the target writes, the host
/// reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpChannel {
    ring: Ring,
    /// The control block's address, and the channel's number in it.
    block: u32,
    number: u32,
}

/// A down channel found in a control block (the host writes, the target
/// reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DownChannel {
    ring: Ring,
    number: u32,
}

/// A channel's descriptor as read: where its name is (0: none), its buffer
/// and the buffer's size (0: not set up yet).
struct Descriptor {
    at: u32,
    name: u32,
    buffer: u32,
    size: u32,
}

impl Descriptor {
    fn read(memory: &mut dyn TargetMemory, at: u32) -> Result<Descriptor, String> {
        let mut fields = [0u8; DESCRIPTOR_BYTES as usize];
        read(memory, at, &mut fields)?;
        Ok(Descriptor {
            at,
            name: word(&fields, 0),
            buffer: word(&fields, 4),
            size: word(&fields, 8),
        })
    }

    fn ring(&self) -> Ring {
        Ring {
            descriptor: self.at,
            buffer: self.buffer,
            size: self.size,
        }
    }
}

/// The numbers of up and down channels in the control block at `block`,
/// or `None` while they are more than any firmware has: the block is not
/// (yet) a control block.
fn channel_counts(memory: &mut dyn TargetMemory, block: u32) -> Result<Option<(u32, u32)>, String> {
    let mut header = [0u8; 8];
    read(memory, block + 16, &mut header)?;
    let (up, down) = (word(&header, 0), word(&header, 4));
    Ok((up <= MAX_CHANNELS && down <= MAX_CHANNELS).then_some((up, down)))
}

/// Looks for the control block at `location` and the channel in it:
/// `Ok(None)` while the target has not set it up yet.
pub fn find_channel(
    memory: &mut dyn TargetMemory,
    location: &Location,
    channel: &Channel,
) -> Result<Option<UpChannel>, String> {
    let block = match *location {
        Location::At(address) => {
            let mut id = [0u8; 16];
            read(memory, address, &mut id)?;
            if !id.starts_with(MAGIC) {
                return Ok(None);
            }
            address
        }
        Location::Scan { start, len } => match scan(memory, start, len)? {
            Some(address) => address,
            None => return Ok(None),
        },
    };
    let Some((up_channels, _)) = channel_counts(memory, block)? else {
        return Ok(None);
    };
    let mut names = Vec::new();
    for number in 0..up_channels {
        let descriptor =
            Descriptor::read(memory, block + HEADER_BYTES + number * DESCRIPTOR_BYTES)?;
        let name = if descriptor.name == 0 {
            String::new()
        } else {
            read_name(memory, descriptor.name)?
        };
        let wanted = match channel {
            Channel::Number(n) => *n == number,
            Channel::Name(wanted) => *wanted == name,
        };
        if wanted && descriptor.size > 0 {
            return Ok(Some(UpChannel {
                ring: descriptor.ring(),
                block,
                number,
            }));
        }
        names.push(if name.is_empty() {
            format!("{number}")
        } else {
            format!("{number} \"{name}\"")
        });
    }
    Err(format!(
        "the target's RTT control block at {block:#010x} has no up channel {channel} (it has: {}); \
         choose one with --channel",
        if names.is_empty() { "none".to_owned() } else { names.join(", ") }
    ))
}

impl UpChannel {
    /// Appends what the channel holds to `out` and marks it read.
    pub fn take(&self, memory: &mut dyn TargetMemory, out: &mut Vec<u8>) -> Result<usize, String> {
        let ring = self.ring;
        let (write, read_at) = ring.offsets(memory)?;
        let before = out.len();
        if write != read_at {
            let mut append = |from: u32, to: u32| -> Result<(), String> {
                let start = out.len();
                out.resize(start + (to - from) as usize, 0);
                read(memory, ring.buffer + from, &mut out[start..])
            };
            if write > read_at {
                append(read_at, write)?;
            } else {
                append(read_at, ring.size)?;
                append(0, write)?;
            }
            write_word(memory, ring.descriptor + READ_OFFSET, write)?;
        }
        Ok(out.len() - before)
    }

    pub fn size(&self) -> u32 {
        self.ring.size
    }

    pub fn number(&self) -> u32 {
        self.number
    }

    /// The down channel of the same number, the one that pairs with this
    /// channel (as SystemView pairs its own): `Ok(None)` while the target
    /// has not set it up yet, an error if the control block has no room
    /// for it.
    pub fn paired_down_channel(
        &self,
        memory: &mut dyn TargetMemory,
    ) -> Result<Option<DownChannel>, String> {
        let (up_channels, down_channels) = channel_counts(memory, self.block)?.unwrap_or_default();
        if self.number >= down_channels {
            return Err(format!(
                "the target's RTT control block at {:#010x} has no down channel {n} beside \
                 its up channel {n} (it has {down_channels} in all)",
                self.block,
                n = self.number
            ));
        }
        let at = self.block + HEADER_BYTES + (up_channels + self.number) * DESCRIPTOR_BYTES;
        let descriptor = Descriptor::read(memory, at)?;
        Ok((descriptor.size > 0).then(|| DownChannel {
            ring: descriptor.ring(),
            number: self.number,
        }))
    }
}

impl DownChannel {
    /// Writes `bytes` for the target as RTT's host side does: at the write
    /// offset, then the write offset advanced past them; the read offset
    /// is the target's.
    pub fn send(&self, memory: &mut dyn TargetMemory, bytes: &[u8]) -> Result<(), String> {
        let ring = self.ring;
        let (write, read_at) = ring.offsets(memory)?;
        // One byte stays free: equal offsets mean an empty ring.
        let free = (read_at + ring.size - write - 1) % ring.size;
        let len = bytes.len() as u32;
        if len > free {
            return Err(format!(
                "the RTT down channel {} has room for {free} bytes, not the {len} to send; \
                 the target does not read it",
                self.number
            ));
        }
        let (to_end, from_start) = bytes.split_at(((ring.size - write).min(len)) as usize);
        write_bytes(memory, ring.buffer + write, to_end)?;
        write_bytes(memory, ring.buffer, from_start)?;
        write_word(
            memory,
            ring.descriptor + WRITE_OFFSET,
            (write + len) % ring.size,
        )
    }
}

impl Ring {
    /// The write and read offsets, both within the buffer.
    fn offsets(&self, memory: &mut dyn TargetMemory) -> Result<(u32, u32), String> {
        let mut offsets = [0u8; 8];
        read(memory, self.descriptor + WRITE_OFFSET, &mut offsets)?;
        let (write, read_at) = (word(&offsets, 0), word(&offsets, 4));
        if write >= self.size || read_at >= self.size {
            return Err(format!(
                "the RTT channel at {:#010x} holds offsets {write} and {read_at} past its \
                 {} bytes; the target overwrote its control block",
                self.descriptor, self.size
            ));
        }
        Ok((write, read_at))
    }
}

/// The bytes read at a time when scanning RAM.
const SCAN_STEP: u32 = 1024;

/// The address of the first control block magic in `start..start + len`.
fn scan(memory: &mut dyn TargetMemory, start: u32, len: u32) -> Result<Option<u32>, String> {
    let overlap = MAGIC.len() as u32 - 1;
    let end = start.saturating_add(len);
    let mut buf = vec![0u8; (SCAN_STEP + overlap) as usize];
    let mut at = start;
    while at < end {
        let n = (SCAN_STEP + overlap).min(end - at);
        let window = &mut buf[..n as usize];
        read(memory, at, window)?;
        if let Some(i) = window.windows(MAGIC.len()).position(|w| w == MAGIC) {
            return Ok(Some(at + i as u32));
        }
        at = at.saturating_add(SCAN_STEP);
    }
    Ok(None)
}

fn read_name(memory: &mut dyn TargetMemory, address: u32) -> Result<String, String> {
    let mut name = [0u8; MAX_NAME_BYTES];
    read(memory, address, &mut name)?;
    let len = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    Ok(String::from_utf8_lossy(&name[..len]).into_owned())
}

fn read(memory: &mut dyn TargetMemory, address: u32, buf: &mut [u8]) -> Result<(), String> {
    memory
        .read(address, buf)
        .map_err(|e| memory_failed("read", address, &e))
}

fn write_bytes(memory: &mut dyn TargetMemory, address: u32, bytes: &[u8]) -> Result<(), String> {
    if bytes.is_empty() {
        return Ok(());
    }
    memory
        .write(address, bytes)
        .map_err(|e| memory_failed("write", address, &e))
}

fn write_word(memory: &mut dyn TargetMemory, address: u32, value: u32) -> Result<(), String> {
    write_bytes(memory, address, &value.to_le_bytes())
}

fn memory_failed(what: &str, address: u32, error: &io::Error) -> String {
    format!("cannot {what} target memory at {address:#010x}: {error}")
}

fn word(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Target RAM as a byte array at an address, laid out by the test the
    /// way rtt-target lays out a 32-bit target's control block.
    struct Ram {
        base: u32,
        bytes: Vec<u8>,
    }

    impl TargetMemory for Ram {
        fn read(&mut self, address: u32, buf: &mut [u8]) -> io::Result<()> {
            let at = address.checked_sub(self.base).map(|a| a as usize);
            match at.and_then(|a| self.bytes.get(a..a + buf.len())) {
                Some(bytes) => {
                    buf.copy_from_slice(bytes);
                    Ok(())
                }
                None => Err(io::Error::other("outside RAM")),
            }
        }
        fn write(&mut self, address: u32, bytes: &[u8]) -> io::Result<()> {
            let at = (address - self.base) as usize;
            self.bytes[at..at + bytes.len()].copy_from_slice(bytes);
            Ok(())
        }
    }

    const BASE: u32 = 0x2000_0000;
    /// Where the test puts the control block, names and channel buffers.
    const BLOCK: u32 = BASE + 0x100;
    const NAMES: u32 = BASE + 0x40;
    const BUFFERS: u32 = BASE + 0x400;
    const SIZE: u32 = 64;
    /// Down channel 1's descriptor, after the two up channels', and its
    /// buffer.
    const DOWN_1: u32 = BLOCK + HEADER_BYTES + 3 * DESCRIPTOR_BYTES;
    const DOWN_BUFFER: u32 = BUFFERS + 2 * SIZE;
    const DOWN_SIZE: u32 = 8;

    impl Ram {
        /// RAM with a control block of two up channels, "Terminal" and
        /// "tband", and two down channels, of which only 1 is set up.
        fn with_block() -> Ram {
            let mut ram = Ram {
                base: BASE,
                bytes: vec![0; 0x800],
            };
            ram.write(NAMES, b"Terminal\0tband\0").unwrap();
            ram.write(BLOCK, MAGIC).unwrap();
            ram.write(BLOCK + 16, &[2, 0, 0, 0, 2, 0, 0, 0]).unwrap();
            for (i, name) in [NAMES, NAMES + 9].into_iter().enumerate() {
                let descriptor = BLOCK + HEADER_BYTES + i as u32 * DESCRIPTOR_BYTES;
                for (field, value) in [name, BUFFERS + i as u32 * SIZE, SIZE]
                    .into_iter()
                    .enumerate()
                {
                    ram.write(descriptor + field as u32 * 4, &value.to_le_bytes())
                        .unwrap();
                }
            }
            for (field, value) in [NAMES + 9, DOWN_BUFFER, DOWN_SIZE].into_iter().enumerate() {
                ram.write(DOWN_1 + field as u32 * 4, &value.to_le_bytes())
                    .unwrap();
            }
            ram
        }

        /// Reads what the host sent on down channel 1, as the target would.
        fn consume(&mut self) -> Vec<u8> {
            let mut offsets = [0u8; 8];
            self.read(DOWN_1 + WRITE_OFFSET, &mut offsets).unwrap();
            let (write, mut read_at) = (word(&offsets, 0), word(&offsets, 4));
            let mut got = Vec::new();
            while read_at != write {
                let mut byte = [0];
                self.read(DOWN_BUFFER + read_at, &mut byte).unwrap();
                got.push(byte[0]);
                read_at = (read_at + 1) % DOWN_SIZE;
            }
            self.write(DOWN_1 + READ_OFFSET, &read_at.to_le_bytes())
                .unwrap();
            got
        }

        /// Writes `data` into channel 1 as the target would.
        fn produce(&mut self, data: &[u8]) {
            let descriptor = BLOCK + HEADER_BYTES + DESCRIPTOR_BYTES;
            let mut offset = [0u8; 4];
            self.read(descriptor + WRITE_OFFSET, &mut offset).unwrap();
            let mut write = u32::from_le_bytes(offset);
            for &byte in data {
                self.write(BUFFERS + SIZE + write, &[byte]).unwrap();
                write = (write + 1) % SIZE;
            }
            self.write(descriptor + WRITE_OFFSET, &write.to_le_bytes())
                .unwrap();
        }
    }

    #[test]
    fn a_channel_is_found_by_name_number_or_scan() {
        let mut ram = Ram::with_block();
        let tband = Channel::parse("tband");
        let found = find_channel(&mut ram, &Location::At(BLOCK), &tband).unwrap();
        let by_number = find_channel(&mut ram, &Location::At(BLOCK), &Channel::parse("1"));
        let scanned = Location::Scan {
            start: BASE,
            len: 0x800,
        };
        assert!(found.is_some());
        assert_eq!(by_number.unwrap(), found);
        assert_eq!(find_channel(&mut ram, &scanned, &tband).unwrap(), found);
        let missing = find_channel(&mut ram, &Location::At(BLOCK), &Channel::parse("defmt"));
        assert_eq!(
            missing.unwrap_err(),
            "the target's RTT control block at 0x20000100 has no up channel \"defmt\" \
             (it has: 0 \"Terminal\", 1 \"tband\"); choose one with --channel"
        );
    }

    #[test]
    fn no_block_yet_is_not_an_error() {
        let mut ram = Ram::with_block();
        ram.write(BLOCK, &[0; 16]).unwrap();
        let tband = Channel::parse("tband");
        assert_eq!(
            find_channel(&mut ram, &Location::At(BLOCK), &tband),
            Ok(None)
        );
        let scanned = Location::Scan {
            start: BASE,
            len: 0x800,
        };
        assert_eq!(find_channel(&mut ram, &scanned, &tband), Ok(None));
    }

    #[test]
    fn taking_follows_the_ring_around() {
        let mut ram = Ram::with_block();
        let channel = find_channel(&mut ram, &Location::At(BLOCK), &Channel::parse("tband"))
            .unwrap()
            .unwrap();
        let data: Vec<u8> = (0..=255).collect();
        let mut out = Vec::new();
        // Pieces of every size up to one short of the ring: the read offset
        // passes the end of the buffer many times.
        let mut sent = 0;
        for len in (1..SIZE as usize).cycle().take(40) {
            let piece: Vec<u8> = data.iter().cycle().skip(sent).take(len).copied().collect();
            ram.produce(&piece);
            sent += len;
            assert_eq!(channel.take(&mut ram, &mut out).unwrap(), len);
            assert_eq!(channel.take(&mut ram, &mut out).unwrap(), 0);
        }
        let expected: Vec<u8> = data.iter().cycle().take(sent).copied().collect();
        assert_eq!(out, expected);
    }

    #[test]
    fn offsets_past_the_buffer_are_an_error() {
        let mut ram = Ram::with_block();
        let channel = find_channel(&mut ram, &Location::At(BLOCK), &Channel::parse("tband"))
            .unwrap()
            .unwrap();
        let descriptor = BLOCK + HEADER_BYTES + DESCRIPTOR_BYTES;
        ram.write(descriptor + WRITE_OFFSET, &SIZE.to_le_bytes())
            .unwrap();
        let error = channel.take(&mut ram, &mut Vec::new()).unwrap_err();
        assert!(
            error.contains("the target overwrote its control block"),
            "{error}"
        );
    }

    #[test]
    fn sending_follows_the_down_ring_around() {
        let mut ram = Ram::with_block();
        let up = find_channel(&mut ram, &Location::At(BLOCK), &Channel::parse("tband"))
            .unwrap()
            .unwrap();
        let down = up.paired_down_channel(&mut ram).unwrap().unwrap();
        // Pieces up to the ring's room: the write offset passes the end of
        // the buffer many times, and the target reads what was sent.
        for (i, len) in (1..DOWN_SIZE as u8).cycle().take(20).enumerate() {
            let piece: Vec<u8> = (0..len).map(|b| b + i as u8).collect();
            down.send(&mut ram, &piece).unwrap();
            assert_eq!(ram.consume(), piece);
        }
    }

    #[test]
    fn a_full_or_missing_down_channel_is_an_error() {
        let mut ram = Ram::with_block();
        let up = find_channel(&mut ram, &Location::At(BLOCK), &Channel::parse("tband"))
            .unwrap()
            .unwrap();
        let down = up.paired_down_channel(&mut ram).unwrap().unwrap();
        down.send(&mut ram, &[1; 5]).unwrap();
        assert_eq!(
            down.send(&mut ram, &[1; 3]).unwrap_err(),
            "the RTT down channel 1 has room for 2 bytes, not the 3 to send; \
             the target does not read it"
        );
        let terminal = find_channel(&mut ram, &Location::At(BLOCK), &Channel::parse("0"))
            .unwrap()
            .unwrap();
        assert_eq!(terminal.paired_down_channel(&mut ram), Ok(None));
        ram.write(BLOCK + 20, &1u32.to_le_bytes()).unwrap();
        assert_eq!(
            up.paired_down_channel(&mut ram).unwrap_err(),
            "the target's RTT control block at 0x20000100 has no down channel 1 beside \
             its up channel 1 (it has 1 in all)"
        );
    }
}
