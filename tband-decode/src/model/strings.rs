//! Interned strings (marker messages), so each distinct text is stored once.

use super::builder::IdMap;

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
}

impl Default for Strings {
    fn default() -> Self {
        let mut ids = IdMap::default();
        ids.insert(Box::from(&b""[..]), StrId::EMPTY);
        Strings {
            texts: vec![Box::from("")],
            ids,
        }
    }
}

impl Strings {
    /// Interns raw bytes, decoding them as UTF-8 with U+FFFD for invalid sequences.
    pub fn intern(&mut self, bytes: &[u8]) -> StrId {
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
        assert_eq!(s.all().len(), 3);
    }
}
