//! Interned strings (marker messages), so each distinct text is stored once.

use super::id_index::IdMap;

/// An interned string; `StrId::EMPTY` is the empty string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StrId(pub u32);

impl StrId {
    pub const EMPTY: StrId = StrId(0);
}

#[derive(Clone, Debug)]
pub struct Strings {
    texts: Vec<Box<str>>,
    ids: IdMap<Box<[u8]>, StrId>,
    /// Strings interned lately, by a hash of their length and end bytes,
    /// so that a text a trace repeats (a marker's message) is found with
    /// one comparison instead of hashing it whole.
    recent: [StrId; RECENT_SLOTS],
}

const RECENT_SLOTS: usize = 64;

/// The slot of `bytes` in `Strings::recent`.
#[inline]
fn recent_slot(bytes: &[u8]) -> usize {
    let ends = match bytes {
        [first, .., last] => u32::from(*first) << 8 | u32::from(*last),
        [only] => u32::from(*only),
        [] => 0,
    };
    let hash = (bytes.len() as u32).wrapping_mul(0x9e37_79b9) ^ ends.wrapping_mul(0x85eb_ca6b);
    (hash >> 26) as usize
}

impl Default for Strings {
    fn default() -> Self {
        let mut ids = IdMap::default();
        ids.insert(Box::from(&b""[..]), StrId::EMPTY);
        Strings {
            texts: vec![Box::from("")],
            ids,
            recent: [StrId::EMPTY; RECENT_SLOTS],
        }
    }
}

impl Strings {
    /// Interns raw bytes, decoding them as UTF-8 with U+FFFD for invalid sequences.
    #[inline]
    pub fn intern(&mut self, bytes: &[u8]) -> StrId {
        let slot = recent_slot(bytes);
        let seen = self.recent[slot];
        // Bytes that are not UTF-8 never equal their stored text, so they
        // always take the map.
        if self.get(seen).as_bytes() == bytes {
            return seen;
        }
        let id = self.intern_new(bytes);
        self.recent[slot] = id;
        id
    }

    fn intern_new(&mut self, bytes: &[u8]) -> StrId {
        if let Some(&id) = self.ids.get(bytes) {
            return id;
        }
        let id = StrId(self.texts.len() as u32);
        self.texts
            .push(String::from_utf8_lossy(bytes).into_owned().into_boxed_str());
        self.ids.insert(Box::from(bytes), id);
        id
    }

    pub fn get(&self, id: StrId) -> &str {
        self.texts.get(id.0 as usize).map_or("", |s| s)
    }

    /// All strings, indexed by `StrId.0`.
    pub fn all(&self) -> &[Box<str>] {
        &self.texts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_once_and_decodes_lossily() {
        let mut s = Strings::default();
        assert_eq!(s.intern(b""), StrId::EMPTY);
        let a = s.intern(b"abc");
        assert_eq!(s.intern(b"abc"), a);
        let bad = s.intern(b"x\xC3");
        assert_eq!(s.get(bad), "x\u{FFFD}");
        assert_eq!(s.intern(b"x\xC3"), bad);
        assert_eq!(s.all().len(), 3);
    }

    #[test]
    fn texts_sharing_a_recent_slot_keep_their_ids() {
        let mut s = Strings::default();
        // Same length and end bytes: the same slot.
        let texts: Vec<String> = (0..20).map(|i| format!("a{i:02}z")).collect();
        let ids: Vec<StrId> = texts.iter().map(|t| s.intern(t.as_bytes())).collect();
        for round in 0..3 {
            for (text, &id) in texts.iter().zip(&ids).rev().skip(round) {
                assert_eq!(s.intern(text.as_bytes()), id);
                assert_eq!(s.get(id), text);
            }
        }
        assert_eq!(s.all().len(), 21);
    }
}
