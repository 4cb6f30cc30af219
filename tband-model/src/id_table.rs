//! A map from small integer ids (tasks, queues, cores) to per-id state:
//! a plain vector for the ids real traces use, a hash map for the rest
//! (damaged or unusual ids), so lookups on the hot path are an index.

use super::builder::IdMap;

/// Ids below this are stored by index.
const DENSE_LIMIT: u32 = 4096;

#[derive(Clone, Debug)]
pub struct IdTable<V> {
    dense: Vec<Option<V>>,
    sparse: IdMap<u32, V>,
}

impl<V> Default for IdTable<V> {
    fn default() -> Self {
        IdTable {
            dense: Vec::new(),
            sparse: IdMap::default(),
        }
    }
}

impl<V: Default> IdTable<V> {
    /// The entry of `id`, created with its default if missing.
    #[inline]
    pub fn entry(&mut self, id: u32) -> &mut V {
        // `dense` only grows to ids below `DENSE_LIMIT`.
        let i = id as usize;
        if i < self.dense.len() {
            return self.dense[i].get_or_insert_with(V::default);
        }
        self.new_entry(id)
    }

    #[inline(never)]
    fn new_entry(&mut self, id: u32) -> &mut V {
        if id < DENSE_LIMIT {
            let i = id as usize;
            if i >= self.dense.len() {
                self.dense.resize_with(i + 1, || None);
            }
            self.dense[i].get_or_insert_with(V::default)
        } else {
            self.sparse.entry(id).or_default()
        }
    }
}

impl<V> IdTable<V> {
    #[inline]
    pub fn get(&self, id: u32) -> Option<&V> {
        if id < DENSE_LIMIT {
            self.dense.get(id as usize)?.as_ref()
        } else {
            self.sparse.get(&id)
        }
    }

    #[inline]
    pub fn get_mut(&mut self, id: u32) -> Option<&mut V> {
        if id < DENSE_LIMIT {
            self.dense.get_mut(id as usize)?.as_mut()
        } else {
            self.sparse.get_mut(&id)
        }
    }

    /// The values, in no order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.dense.iter().flatten().chain(self.sparse.values())
    }

    /// The entries in id order.
    pub fn sorted(&self) -> Vec<(u32, &V)> {
        let mut sparse: Vec<(u32, &V)> = self.sparse.iter().map(|(&k, v)| (k, v)).collect();
        sparse.sort_by_key(|&(k, _)| k);
        self.dense
            .iter()
            .enumerate()
            .filter_map(|(i, v)| Some((i as u32, v.as_ref()?)))
            .chain(sparse)
            .collect()
    }
}

/// A set of ids: a bit each for ids below `DENSE_LIMIT`, a list for the
/// rest, so that adding a usual id is a bit operation.
#[derive(Clone, Debug, Default)]
pub struct IdSet {
    bits: Vec<u64>,
    others: Vec<u32>,
}

impl IdSet {
    #[inline]
    pub fn insert(&mut self, id: u32) {
        match self.bits.get_mut(id as usize / 64) {
            Some(word) => *word |= 1 << (id % 64),
            None => self.insert_new(id),
        }
    }

    #[inline(never)]
    fn insert_new(&mut self, id: u32) {
        if id < DENSE_LIMIT {
            let word = id as usize / 64;
            self.bits.resize(word + 1, 0);
            self.bits[word] |= 1 << (id % 64);
        } else if !self.others.contains(&id) {
            self.others.push(id);
        }
    }

    /// The ids, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let dense = self.bits.iter().enumerate().flat_map(|(word, &bits)| {
            (0..64u32)
                .filter(move |bit| bits >> bit & 1 != 0)
                .map(move |bit| word as u32 * 64 + bit)
        });
        dense.chain(self.others.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_hold_each_id_once() {
        let mut set = IdSet::default();
        let ids = [7, 4_095, 4_096, u32::MAX, 0, 63, 64, 7, u32::MAX, 64];
        for id in ids {
            set.insert(id);
        }
        let mut held: Vec<u32> = set.iter().collect();
        held.sort_unstable();
        let mut expected = ids.to_vec();
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(held, expected);
    }

    #[test]
    fn dense_and_sparse_ids_in_order() {
        let mut t: IdTable<u32> = IdTable::default();
        *t.entry(5) += 1;
        *t.entry(u32::MAX) += 2;
        *t.entry(0) += 3;
        *t.entry(5000) += 4;
        assert_eq!(t.get(5), Some(&1));
        assert_eq!(t.get(6), None);
        assert_eq!(t.get(70_000), None);
        assert_eq!(t.sorted(), [(0, &3), (5, &1), (5000, &4), (u32::MAX, &2)]);
    }
}
