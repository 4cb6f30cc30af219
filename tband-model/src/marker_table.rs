//! A map from marker keys (id, owning task, kind) to per-marker state:
//! keys of small ids are found by index, the rest (damaged or unusual ids)
//! in a hash map, so the per-event lookup does not hash.

use super::builder::IdMap;
use super::MarkerKind;

/// A marker: its id, the task it is local to (none: global) and its kind.
pub(crate) type MarkerKey = (u32, Option<u32>, MarkerKind);

/// Marker ids and owners (task id + 1, 0 for global) below this are
/// looked up by index.
const DENSE_LIMIT: u32 = 4096;

#[derive(Debug)]
pub(crate) struct MarkerTable<V> {
    entries: Vec<(MarkerKey, V)>,
    /// Per owner, per `id * 2 + kind`: index + 1 into `entries` (0: none).
    dense: Vec<Vec<u32>>,
    sparse: IdMap<MarkerKey, u32>,
}

impl<V> Default for MarkerTable<V> {
    fn default() -> Self {
        MarkerTable {
            entries: Vec::new(),
            dense: Vec::new(),
            sparse: IdMap::default(),
        }
    }
}

/// Where a key of small ids is found: (owner, slot), or `None` for the map.
#[inline]
fn dense_place((id, task, kind): MarkerKey) -> Option<(usize, usize)> {
    let owner = match task {
        None => 0,
        Some(task) => task.checked_add(1)?,
    };
    (owner < DENSE_LIMIT && id < DENSE_LIMIT)
        .then(|| (owner as usize, id as usize * 2 + kind as usize))
}

impl<V: Default> MarkerTable<V> {
    /// The entry of `key`, created with its default if missing.
    #[inline]
    pub(crate) fn entry(&mut self, key: MarkerKey) -> &mut V {
        if let Some((owner, slot)) = dense_place(key) {
            let stored = self
                .dense
                .get(owner)
                .and_then(|slots| slots.get(slot))
                .copied()
                .unwrap_or(0);
            if stored != 0 {
                return &mut self.entries[stored as usize - 1].1;
            }
        }
        self.new_entry(key)
    }

    #[inline(never)]
    fn new_entry(&mut self, key: MarkerKey) -> &mut V {
        let index = match dense_place(key) {
            Some((owner, slot)) => {
                if owner >= self.dense.len() {
                    self.dense.resize_with(owner + 1, Vec::new);
                }
                let slots = &mut self.dense[owner];
                if slot >= slots.len() {
                    slots.resize(slot + 1, 0);
                }
                if slots[slot] == 0 {
                    self.entries.push((key, V::default()));
                    slots[slot] = self.entries.len() as u32;
                }
                slots[slot] as usize - 1
            }
            None => {
                let next = self.entries.len() as u32;
                let stored = *self.sparse.entry(key).or_insert(next);
                if stored == next {
                    self.entries.push((key, V::default()));
                }
                stored as usize
            }
        };
        &mut self.entries[index].1
    }
}

impl<V> MarkerTable<V> {
    /// The values, in no order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// All entries ordered by task (global first), kind and id.
    pub(crate) fn sorted(&self) -> Vec<(&MarkerKey, &V)> {
        let mut entries: Vec<(&MarkerKey, &V)> = self.entries.iter().map(|(k, v)| (k, v)).collect();
        entries.sort_by_key(|&(&(id, task, kind), _)| (task, kind as u8, id));
        entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse_keys_in_order() {
        let mut t: MarkerTable<u32> = MarkerTable::default();
        *t.entry((3, Some(2), MarkerKind::Value)) += 1;
        *t.entry((3, Some(2), MarkerKind::Event)) += 2;
        *t.entry((u32::MAX, None, MarkerKind::Event)) += 3;
        *t.entry((1, Some(u32::MAX), MarkerKind::Event)) += 4;
        *t.entry((5000, Some(1), MarkerKind::Value)) += 5;
        *t.entry((3, Some(2), MarkerKind::Value)) += 10;
        *t.entry((u32::MAX, None, MarkerKind::Event)) += 30;
        *t.entry((1, Some(u32::MAX), MarkerKind::Event)) += 40;
        assert_eq!(
            t.sorted(),
            [
                (&(u32::MAX, None, MarkerKind::Event), &33),
                (&(5000, Some(1), MarkerKind::Value), &5),
                (&(3, Some(2), MarkerKind::Event), &2),
                (&(3, Some(2), MarkerKind::Value), &11),
                (&(1, Some(u32::MAX), MarkerKind::Event), &44),
            ]
        );
    }
}
