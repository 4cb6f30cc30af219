//! The framing of a SystemView stream: packets one after the other, each
//! an event id, a payload and the time since the packet before, with zero
//! bytes (no-op packets, ten of them as the sync at the start) between.
//!
//! Ids below 24 have a payload whose shape the id fixes; from 24 on, the
//! id and the payload's length are variable-length integers before the
//! payload. Every packet but a no-op ends with the timestamp delta.

use super::varint::{Reader, TooShort};

/// The first id whose packets carry their payload's length.
pub const FIRST_SIZED_ID: u32 = 24;

/// One packet: where it starts in the stream, its id, its payload and the
/// timer ticks since the packet before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet<'a> {
    pub offset: usize,
    pub id: u32,
    pub payload: &'a [u8],
    pub delta: u32,
}

/// The shape of a fixed packet's payload: how many variable-length
/// integers, then whether a string follows.
#[derive(Clone, Copy)]
struct Shape {
    integers: u8,
    string: bool,
}

const fn ints(integers: u8) -> Shape {
    Shape {
        integers,
        string: false,
    }
}

const fn ints_then_string(integers: u8) -> Shape {
    Shape {
        integers,
        string: true,
    }
}

/// Payload shapes of ids 1 to 23 (SEGGER_SYSVIEW.c, what each recording
/// function encodes).
const FIXED_SHAPES: [Shape; FIRST_SIZED_ID as usize] = [
    ints(0),             // 0 no-op (never framed: a lone zero byte)
    ints(1),             // 1 overflow: packets dropped
    ints(1),             // 2 ISR enter: exception number
    ints(0),             // 3 ISR exit
    ints(1),             // 4 task start exec: task
    ints(0),             // 5 task stop exec
    ints(1),             // 6 task start ready: task
    ints(2),             // 7 task stop ready: task, cause
    ints(1),             // 8 task create: task
    ints_then_string(2), // 9 task info: task, priority, name
    ints(0),             // 10 trace start
    ints(0),             // 11 trace stop
    ints(1),             // 12 system time in cycles
    ints(2),             // 13 system time in µs: low and high word
    ints_then_string(0), // 14 system description
    ints(1),             // 15 mark start: marker
    ints(1),             // 16 mark stop: marker
    ints(0),             // 17 idle
    ints(0),             // 18 ISR exit to scheduler
    ints(1),             // 19 timer enter: timer
    ints(0),             // 20 timer exit
    ints(4),             // 21 stack info: task, base, size, used
    ints_then_string(2), // 22 module description: module, event offset, text
    ints(2),             // 23 data sample: id, value
];

/// The packets of a stream in order. A packet cut off by the end of the
/// stream ends the walk; [`Packets::cut_at`] then says where it began.
pub struct Packets<'a> {
    bytes: &'a [u8],
    pos: usize,
    cut_at: Option<usize>,
}

impl<'a> Packets<'a> {
    pub fn new(bytes: &'a [u8]) -> Packets<'a> {
        Packets {
            bytes,
            pos: 0,
            cut_at: None,
        }
    }

    /// Where the packet the stream's end cut off began, once the walk has
    /// reached it.
    pub fn cut_at(&self) -> Option<usize> {
        self.cut_at
    }

    /// The packet at `offset` (not a no-op), and where the next begins.
    fn frame(&self, offset: usize) -> Result<(Packet<'a>, usize), TooShort> {
        let mut reader = Reader::new(self.bytes, offset);
        let id = reader.u32()?;
        let payload_start;
        let payload_end;
        if id < FIRST_SIZED_ID {
            let shape = FIXED_SHAPES[id as usize];
            payload_start = reader.pos();
            for _ in 0..shape.integers {
                reader.u32()?;
            }
            if shape.string {
                reader.string()?;
            }
            payload_end = reader.pos();
        } else {
            let len = reader.u32()? as usize;
            payload_start = reader.pos();
            payload_end = payload_start.checked_add(len).ok_or(TooShort)?;
            reader.skip_to(payload_end)?;
        }
        let delta = reader.u32()?;
        let packet = Packet {
            offset,
            id,
            payload: &self.bytes[payload_start..payload_end],
            delta,
        };
        Ok((packet, reader.pos()))
    }
}

impl<'a> Iterator for Packets<'a> {
    type Item = Packet<'a>;

    fn next(&mut self) -> Option<Packet<'a>> {
        while self.bytes.get(self.pos) == Some(&0) {
            self.pos += 1;
        }
        if self.pos >= self.bytes.len() || self.cut_at.is_some() {
            return None;
        }
        match self.frame(self.pos) {
            Ok((packet, next)) => {
                self.pos = next;
                Some(packet)
            }
            Err(TooShort) => {
                self.cut_at = Some(self.pos);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_and_sized_packets_after_the_sync() {
        let mut bytes = vec![0; 10];
        bytes.extend([10, 5]); // trace start, delta 5
        bytes.extend([4, 0x81, 0x01, 0x7f]); // start exec of task 129, delta 127
        bytes.extend([9, 3, 2, 2, b'h', b'i', 1]); // task info 3, priority 2, "hi"
        bytes.extend([0x98, 0x01, 2, 7, 8, 0x80, 0x01]); // id 152, 2 payload bytes, delta 128
        let packets: Vec<_> = Packets::new(&bytes).collect();
        let ids: Vec<u32> = packets.iter().map(|p| p.id).collect();
        assert_eq!(ids, [10, 4, 9, 152]);
        assert_eq!(packets[1].payload, [0x81, 0x01]);
        assert_eq!(packets[1].delta, 127);
        assert_eq!(packets[2].payload, [3, 2, 2, b'h', b'i']);
        assert_eq!(packets[3].payload, [7, 8]);
        assert_eq!(packets[3].delta, 128);
    }

    #[test]
    fn a_cut_packet_ends_the_walk_and_says_where_it_began() {
        let bytes = [10, 5, 7, 3];
        let mut packets = Packets::new(&bytes);
        assert_eq!(packets.next().map(|p| p.id), Some(10));
        assert_eq!(packets.next(), None);
        assert_eq!(packets.cut_at(), Some(2));
    }

    #[test]
    fn a_sized_packet_longer_than_the_stream_is_cut() {
        let bytes = [30, 200, 1, 1, 1];
        let mut packets = Packets::new(&bytes);
        assert_eq!(packets.next(), None);
        assert_eq!(packets.cut_at(), Some(0));
    }
}
