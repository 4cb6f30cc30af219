//! A map from ids to values: a vector for the small ids real traces use, a
//! hash map for the rest (damaged ids, addresses used as ids), so that the
//! usual lookup is an index. Every lookup by id in the model and its sinks
//! goes through it.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

use super::{Actor, IsrKey, MarkerKind};

/// A cheap hasher for small keys (a pathological trace only slows its own
/// decoding; nothing here is exposed to other inputs).
#[derive(Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in words.by_ref() {
            if let Ok(word) = word.try_into() {
                self.write_u64(u64::from_le_bytes(word));
            }
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// A key of an [`IdIndex`]: where it goes in the vector if it is small.
pub trait Key: Copy + Eq + Hash {
    /// The key's place in the vector; keys whose place is at or past the
    /// index's limit are kept in the map. Different keys have different
    /// places below `usize::MAX`.
    fn place(self) -> usize;
    /// The key at `place` (a place some key has).
    fn at_place(place: usize) -> Self;
}

impl Key for u32 {
    #[inline(always)]
    fn place(self) -> usize {
        self as usize
    }
    fn at_place(place: usize) -> Self {
        place as u32
    }
}

/// No task (a global marker) first, then each task.
impl Key for Option<u32> {
    #[inline(always)]
    fn place(self) -> usize {
        self.map_or(0, |id| (id as usize).saturating_add(1))
    }
    fn at_place(place: usize) -> Self {
        place.checked_sub(1).map(|id| id as u32)
    }
}

/// The ISRs of each core side by side, 256 places a core; ISR ids from 256
/// up are kept in the map.
impl Key for IsrKey {
    #[inline(always)]
    fn place(self) -> usize {
        match (self.core_id as usize).checked_mul(256) {
            Some(core) if self.isr_id < 256 => core | self.isr_id as usize,
            _ => usize::MAX,
        }
    }
    fn at_place(place: usize) -> Self {
        IsrKey {
            core_id: (place >> 8) as u32,
            isr_id: (place & 0xff) as u32,
        }
    }
}

/// Tasks at even places, ISRs (as [`IsrKey`] places them) at odd ones.
impl Key for Actor {
    #[inline(always)]
    fn place(self) -> usize {
        let (place, isr) = match self {
            Actor::Task(id) => (id as usize, 0),
            Actor::Isr(key) => (key.place(), 1),
        };
        place.checked_mul(2).map_or(usize::MAX, |place| place | isr)
    }
    fn at_place(place: usize) -> Self {
        match place & 1 {
            0 => Actor::Task((place >> 1) as u32),
            _ => Actor::Isr(IsrKey::at_place(place >> 1)),
        }
    }
}

/// A marker of one owner: its id and kind.
impl Key for (u32, MarkerKind) {
    #[inline(always)]
    fn place(self) -> usize {
        (self.0 as usize)
            .checked_mul(2)
            .map_or(usize::MAX, |id| id | self.1 as usize)
    }
    fn at_place(place: usize) -> Self {
        let kind = if place & 1 == 0 {
            MarkerKind::Event
        } else {
            MarkerKind::Value
        };
        ((place >> 1) as u32, kind)
    }
}

/// Places below this are kept in the vector unless an index says otherwise.
const DEFAULT_LIMIT: usize = 4096;

/// Values by id: those of the keys placed below the limit in a vector by
/// place, the others in a hash map.
#[derive(Clone, Debug)]
pub struct IdIndex<K, V> {
    /// By place; it only grows to places below `limit`.
    dense: Vec<Option<V>>,
    sparse: IdMap<K, V>,
    limit: usize,
}

impl<K, V> Default for IdIndex<K, V> {
    fn default() -> Self {
        IdIndex::with_limit(DEFAULT_LIMIT)
    }
}

impl<K, V> IdIndex<K, V> {
    /// An index that keeps the keys placed below `limit` in its vector (it
    /// grows to the highest place used).
    pub fn with_limit(limit: usize) -> Self {
        IdIndex {
            dense: Vec::new(),
            sparse: IdMap::default(),
            limit,
        }
    }
}

impl<K: Key, V> IdIndex<K, V> {
    #[inline(always)]
    pub fn get(&self, key: K) -> Option<&V> {
        let place = key.place();
        if place < self.dense.len() {
            self.dense[place].as_ref()
        } else if place < self.limit {
            None
        } else {
            self.sparse.get(&key)
        }
    }

    #[inline]
    pub fn get_mut(&mut self, key: K) -> Option<&mut V> {
        let place = key.place();
        if place < self.dense.len() {
            self.dense[place].as_mut()
        } else if place < self.limit {
            None
        } else {
            self.sparse.get_mut(&key)
        }
    }

    /// The value of `key`, inserted with `new()` if missing.
    #[inline(always)]
    pub fn get_or_insert_with(&mut self, key: K, new: impl FnOnce() -> V) -> &mut V {
        let place = key.place();
        if place < self.dense.len() {
            return self.dense[place].get_or_insert_with(new);
        }
        self.insert_new(key, place, new)
    }

    #[inline(never)]
    fn insert_new(&mut self, key: K, place: usize, new: impl FnOnce() -> V) -> &mut V {
        if place < self.limit {
            if place >= self.dense.len() {
                self.dense.resize_with(place + 1, || None);
            }
            self.dense[place].get_or_insert_with(new)
        } else {
            self.sparse.entry(key).or_insert_with(new)
        }
    }

    /// The value of `key`, inserted with its default if missing.
    #[inline(always)]
    pub fn entry(&mut self, key: K) -> &mut V
    where
        V: Default,
    {
        self.get_or_insert_with(key, V::default)
    }

    /// Sets the value of `key`.
    pub fn insert(&mut self, key: K, value: V) {
        let mut value = Some(value);
        let slot = self.get_or_insert_with(key, || value.take().expect("taken once"));
        if let Some(value) = value {
            *slot = value;
        }
    }

    /// Every key and its value, the keys kept in the vector by place, then
    /// the others in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (K, &V)> {
        let dense = self.dense.iter().enumerate();
        dense
            .filter_map(|(place, v)| Some((K::at_place(place), v.as_ref()?)))
            .chain(self.sparse.iter().map(|(&key, v)| (key, v)))
    }

    /// The values, in the order of [`IdIndex::iter`].
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, value)| value)
    }

    /// Every key and its value in key order.
    pub fn sorted(&self) -> Vec<(K, &V)>
    where
        K: Ord,
    {
        let mut entries: Vec<(K, &V)> = self.iter().collect();
        entries.sort_by_key(|&(key, _)| key);
        entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_large_ids_in_order() {
        let mut t: IdIndex<u32, u32> = IdIndex::default();
        *t.entry(5) += 1;
        *t.entry(u32::MAX) += 2;
        *t.entry(0) += 3;
        *t.entry(5000) += 4;
        t.insert(7, 8);
        t.insert(7, 9);
        assert_eq!(t.get(5), Some(&1));
        assert_eq!(t.get(6), None);
        assert_eq!(t.get(70_000), None);
        if let Some(v) = t.get_mut(5000) {
            *v += 10;
        }
        assert_eq!(
            t.sorted(),
            [(0, &3), (5, &1), (7, &9), (5000, &14), (u32::MAX, &2)]
        );
    }

    #[test]
    fn keys_come_back_from_their_places() {
        let isrs = [
            (0, 0),
            (3, 255),
            (15, 7),
            (16, 1),
            (2, 256),
            (u32::MAX, u32::MAX),
        ];
        let mut t: IdIndex<IsrKey, usize> = IdIndex::default();
        for (i, &(core_id, isr_id)) in isrs.iter().enumerate() {
            t.insert(IsrKey { core_id, isr_id }, i);
        }
        let mut back: Vec<(IsrKey, usize)> = t.iter().map(|(k, &i)| (k, i)).collect();
        back.sort_by_key(|&(_, i)| i);
        let keys: Vec<(u32, u32)> = back.iter().map(|(k, _)| (k.core_id, k.isr_id)).collect();
        assert_eq!(keys, isrs);

        let mut owners: IdIndex<Option<u32>, IdIndex<(u32, MarkerKind), u32>> = IdIndex::default();
        let markers = [
            (Some(2), 3, MarkerKind::Value),
            (None, u32::MAX, MarkerKind::Event),
            (Some(u32::MAX), 1, MarkerKind::Event),
            (Some(2), 3, MarkerKind::Event),
            (None, 0, MarkerKind::Value),
        ];
        for (i, &(owner, id, kind)) in markers.iter().enumerate() {
            owners.entry(owner).insert((id, kind), i as u32);
        }
        let mut back: Vec<(Option<u32>, u32, MarkerKind, u32)> = owners
            .iter()
            .flat_map(|(owner, ids)| ids.iter().map(move |((id, kind), &i)| (owner, id, kind, i)))
            .collect();
        back.sort_by_key(|&(.., i)| i);
        let keys: Vec<_> = back.iter().map(|&(o, id, k, _)| (o, id, k)).collect();
        assert_eq!(keys, markers);
    }
}
