//! The ascending model row indices of a track, kept compact: in blocks of
//! [`BLOCK`], each a 32-bit base and 16-bit offsets from it, or 32-bit
//! indices where an offset does not fit, or nothing but the base where the
//! indices follow each other. The items of a busy row lie close together in
//! their table, so most blocks take 2 bytes per index or less, not 4.

const BLOCK: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Block {
    /// The block's first index.
    base: u32,
    /// Where the block's entries start in `narrow` or `wide`.
    at: u32,
    kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Offsets from the base in `narrow`.
    Narrow,
    /// Indices in `wide`.
    Wide,
    /// The indices from the base on, one after the other.
    Run,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Indices {
    blocks: Vec<Block>,
    narrow: Vec<u16>,
    wide: Vec<u32>,
    /// The indices after the last whole block, until they fill one.
    tail: Vec<u32>,
}

impl Indices {
    pub fn len(&self) -> usize {
        self.blocks.len() * BLOCK + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The index at position `pos`.
    #[inline]
    pub fn get(&self, pos: usize) -> Option<u32> {
        let Some(&block) = self.blocks.get(pos / BLOCK) else {
            return self.tail.get(pos - self.blocks.len() * BLOCK).copied();
        };
        let at = block.at as usize + pos % BLOCK;
        Some(match block.kind {
            Kind::Narrow => block.base + u32::from(self.narrow[at]),
            Kind::Wide => self.wide[at],
            Kind::Run => block.base + (pos % BLOCK) as u32,
        })
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len()).filter_map(|pos| self.get(pos))
    }

    /// The first position whose index does not satisfy `pred` (which must
    /// hold for a prefix of the positions), like [`slice::partition_point`].
    pub fn partition_point(&self, mut pred: impl FnMut(u32) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.get(mid).is_some_and(&mut pred) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    pub fn heap_bytes(&self) -> usize {
        self.blocks.capacity() * std::mem::size_of::<Block>()
            + self.narrow.capacity() * 2
            + (self.wide.capacity() + self.tail.capacity()) * 4
    }

    /// Adds an index, greater than the last.
    pub fn push(&mut self, index: u32) {
        self.tail.push(index);
        if self.tail.len() == BLOCK {
            self.store_tail();
        }
    }

    /// Stores the whole block in `tail` in its compact form.
    fn store_tail(&mut self) {
        let Some(&base) = self.tail.first() else {
            return;
        };
        let offsets: Option<Vec<u16>> = self
            .tail
            .iter()
            .map(|&i| u16::try_from(i.wrapping_sub(base)).ok())
            .collect();
        let run = offsets
            .as_ref()
            .is_some_and(|o| o.iter().enumerate().all(|(k, &o)| usize::from(o) == k));
        let block = match offsets {
            _ if run => Block {
                base,
                at: 0,
                kind: Kind::Run,
            },
            Some(offsets) => {
                let at = self.narrow.len() as u32;
                self.narrow.extend(offsets);
                Block {
                    base,
                    at,
                    kind: Kind::Narrow,
                }
            }
            None => {
                let at = self.wide.len() as u32;
                self.wide.extend_from_slice(&self.tail);
                Block {
                    base,
                    at,
                    kind: Kind::Wide,
                }
            }
        };
        self.blocks.push(block);
        self.tail.clear();
    }

    /// Gives back the room kept for indices to come.
    pub fn shrink_to_fit(&mut self) {
        self.blocks.shrink_to_fit();
        self.narrow.shrink_to_fit();
        self.wide.shrink_to_fit();
        self.tail.shrink_to_fit();
    }
}

impl FromIterator<u32> for Indices {
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> Indices {
        let mut indices = Indices::default();
        for i in iter {
            indices.push(i);
        }
        indices.shrink_to_fit();
        indices
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_all_kinds_of_blocks() {
        // Close indices, then far apart ones, then consecutive ones.
        let values: Vec<u32> = (0..100)
            .map(|i| i * 3)
            .chain((0..100).map(|i| 1_000 + i * 100_000))
            .chain((0..200).map(|i| 20_000_000 + i))
            .collect();
        let indices: Indices = values.iter().copied().collect();
        assert_eq!(indices.len(), values.len());
        assert_eq!(indices.iter().collect::<Vec<_>>(), values);
        let kinds: Vec<Kind> = indices.blocks.iter().map(|b| b.kind).collect();
        for kind in [Kind::Narrow, Kind::Wide, Kind::Run] {
            assert!(kinds.contains(&kind), "{kinds:?}");
        }
        assert_eq!(indices.get(values.len()), None);
        for probe in [0, 5, 299, 300, 1_000, 5_000_000, 20_000_010, u32::MAX] {
            assert_eq!(
                indices.partition_point(|i| i < probe),
                values.partition_point(|&i| i < probe)
            );
        }
        assert!(indices.heap_bytes() < values.len() * 4);
        // Indices added one at a time read back at once.
        let mut grown = Indices::default();
        for (pos, &value) in values.iter().enumerate() {
            grown.push(value);
            assert_eq!(grown.len(), pos + 1);
            assert_eq!(grown.get(pos), Some(value));
        }
        assert_eq!(grown, indices);
    }
}
