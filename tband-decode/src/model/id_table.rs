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

    /// All entries in id order, consuming the table.
    pub fn into_sorted(self) -> Vec<(u32, V)> {
        let mut sparse: Vec<(u32, V)> = self.sparse.into_iter().collect();
        sparse.sort_by_key(|&(k, _)| k);
        self.dense
            .into_iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|v| (i as u32, v)))
            .chain(sparse)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(t.into_sorted(), [(0, 3), (5, 1), (5000, 4), (u32::MAX, 2)]);
    }
}
