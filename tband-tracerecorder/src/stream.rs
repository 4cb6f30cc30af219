//! The events of a recording, framed: each is a 16-bit code (the id in its
//! low 12 bits, the number of parameter words in its high 4), a 16-bit
//! count that goes up by one from each event the recorder made to the
//! next, a 32-bit timestamp and the parameter words.
//!
//! The count is what finds damage. An event whose count does not follow
//! the one before is taken as the next event after a loss when the event
//! after it follows it in turn; otherwise the bytes are no events, and the
//! stream is searched, word by word, for the next two events that follow
//! each other.

use super::ids;

/// What the stream holds next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framed<'a> {
    Event(RawEvent<'a>),
    /// `len` bytes from `offset` that are no events.
    Damaged {
        offset: usize,
        len: usize,
    },
    /// The recording ends `len` bytes into an event at `offset`.
    Cut {
        offset: usize,
        len: usize,
    },
    /// A new recording starts at `offset` (the recorder restarted): the
    /// `len` bytes from there are not read.
    Restart {
        offset: usize,
        len: usize,
    },
}

/// One event as the recorder wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawEvent<'a> {
    pub offset: usize,
    /// The whole event, header included.
    pub bytes: &'a [u8],
    pub id: u16,
    pub count: u16,
    pub timestamp: u32,
    /// How many events the recorder could not send just before this one.
    pub lost_before: u16,
}

const HEADER_LEN: usize = 8;

pub struct Stream<'a> {
    bytes: &'a [u8],
    pos: usize,
    little_endian: bool,
    /// The count the next event should have.
    expected: Option<u16>,
}

impl<'a> Stream<'a> {
    pub fn new(bytes: &'a [u8], events_offset: usize, little_endian: bool) -> Stream<'a> {
        Stream {
            bytes,
            pos: events_offset,
            little_endian,
            expected: None,
        }
    }

    fn u16_at(&self, at: usize) -> u16 {
        let b = [self.bytes[at], self.bytes[at + 1]];
        if self.little_endian {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        }
    }

    fn u32_at(&self, at: usize) -> u32 {
        let b = [
            self.bytes[at],
            self.bytes[at + 1],
            self.bytes[at + 2],
            self.bytes[at + 3],
        ];
        if self.little_endian {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        }
    }

    fn is_psf_word(&self, at: usize) -> bool {
        self.bytes.get(at..at + 4).is_some_and(super::looks_like)
    }

    /// The event at `at` if one fits there: its length, id and count.
    fn event_at(&self, at: usize) -> Option<(usize, u16, u16)> {
        if at + HEADER_LEN > self.bytes.len() {
            return None;
        }
        let code = self.u16_at(at);
        let len = HEADER_LEN + 4 * usize::from(code >> 12);
        (at + len <= self.bytes.len()).then(|| (len, code & 0x0FFF, self.u16_at(at + 2)))
    }

    /// Whether the event at `at` with count `count` is followed by the
    /// event with the next count, or ends the stream.
    fn chains(&self, at: usize, len: usize, count: u16) -> bool {
        let next = at + len;
        next == self.bytes.len()
            || self.is_psf_word(next)
            || self
                .event_at(next)
                .is_some_and(|(_, _, c)| c == count.wrapping_add(1))
    }

    /// The next place from `from` where an event of an id TraceRecorder
    /// defines is followed by the next event, or the end.
    fn resync(&self, from: usize) -> usize {
        let mut at = from;
        while at + HEADER_LEN <= self.bytes.len() {
            if self.is_psf_word(at) {
                return at;
            }
            if let Some((len, id, count)) = self.event_at(at) {
                if ids::is_defined(id) && self.chains(at, len, count) {
                    return at;
                }
            }
            at += 4;
        }
        self.bytes.len()
    }
}

impl<'a> Iterator for Stream<'a> {
    type Item = Framed<'a>;

    fn next(&mut self) -> Option<Framed<'a>> {
        let at = self.pos;
        if at >= self.bytes.len() {
            return None;
        }
        if self.is_psf_word(at) {
            self.pos = self.bytes.len();
            return Some(Framed::Restart {
                offset: at,
                len: self.bytes.len() - at,
            });
        }
        let Some((len, id, count)) = self.event_at(at) else {
            // Too short for the event its code says: the recording was cut
            // there, unless more events follow a damaged stretch.
            let next = self.resync(at + 4);
            self.pos = next;
            return Some(if next == self.bytes.len() {
                Framed::Cut {
                    offset: at,
                    len: self.bytes.len() - at,
                }
            } else {
                Framed::Damaged {
                    offset: at,
                    len: next - at,
                }
            });
        };
        let follows = self.expected.is_none_or(|e| e == count);
        if !follows && !self.chains(at, len, count) {
            let next = self.resync(at + 4);
            self.pos = next;
            return Some(Framed::Damaged {
                offset: at,
                len: next - at,
            });
        }
        let lost_before = self.expected.map_or(0, |e| count.wrapping_sub(e));
        self.expected = Some(count.wrapping_add(1));
        self.pos = at + len;
        Some(Framed::Event(RawEvent {
            offset: at,
            bytes: &self.bytes[at..at + len],
            id,
            count,
            timestamp: self.u32_at(at + 4),
            lost_before,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An event of id `id` with `params` parameter words, little-endian.
    fn event(id: u16, count: u16, params: &[u32]) -> Vec<u8> {
        let code = id | ((params.len() as u16) << 12);
        let mut bytes = code.to_le_bytes().to_vec();
        bytes.extend(count.to_le_bytes());
        bytes.extend(1000u32.to_le_bytes());
        for p in params {
            bytes.extend(p.to_le_bytes());
        }
        bytes
    }

    fn framed(bytes: &[u8]) -> Vec<Framed<'_>> {
        Stream::new(bytes, 0, true).collect()
    }

    fn counts(items: &[Framed<'_>]) -> Vec<Option<u16>> {
        items
            .iter()
            .map(|f| match f {
                Framed::Event(e) => Some(e.count),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_gap_in_the_counts_is_events_lost_before_the_next() {
        let bytes = [
            event(0x30, 1, &[7]),
            event(0x30, 5, &[7]),
            event(0x30, 6, &[]),
        ]
        .concat();
        let items = framed(&bytes);
        assert_eq!(counts(&items), [Some(1), Some(5), Some(6)]);
        let Framed::Event(e) = items[1] else { panic!() };
        assert_eq!(e.lost_before, 3);
    }

    #[test]
    fn bytes_that_are_no_events_are_skipped_to_the_next_two_that_follow_each_other() {
        let good = event(0x30, 1, &[7]);
        let garbage = [0xF5u8; 12];
        let bytes = [
            good,
            garbage.to_vec(),
            event(0x37, 9, &[1]),
            event(0x30, 10, &[]),
        ]
        .concat();
        let items = framed(&bytes);
        assert_eq!(counts(&items), [Some(1), None, Some(9), Some(10)]);
        assert_eq!(
            items[1],
            Framed::Damaged {
                offset: 12,
                len: 12
            }
        );
    }

    #[test]
    fn a_recording_cut_inside_an_event_ends_with_the_cut() {
        let mut bytes = [event(0x30, 1, &[7]), event(0x30, 2, &[7, 8])].concat();
        bytes.truncate(bytes.len() - 3);
        let items = framed(&bytes);
        assert_eq!(counts(&items), [Some(1), None]);
        assert_eq!(
            items[1],
            Framed::Cut {
                offset: 12,
                len: 13
            }
        );
    }
}
