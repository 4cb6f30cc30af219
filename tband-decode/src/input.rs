//! Where trace bytes come from: files (memory-mapped), stdin, or hex text,
//! optionally tagged with the core they were recorded on (`file@core`).

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::ops::Deref;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

/// An input as named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputSpec {
    /// `None` for stdin (`-`).
    pub path: Option<PathBuf>,
    /// The core this stream belongs to, from a `@core` suffix.
    pub core: Option<u32>,
}

impl InputSpec {
    /// Parses `PATH`, `PATH@CORE`, `-` or `-@CORE`. A suffix that is not a
    /// number stays part of the path.
    pub fn parse(arg: &str) -> InputSpec {
        let (path, core) = match arg.rsplit_once('@') {
            Some((path, core)) if !path.is_empty() => match core.parse::<u32>() {
                Ok(core) => (path, Some(core)),
                Err(_) => (arg, None),
            },
            _ => (arg, None),
        };
        InputSpec {
            path: (path != "-").then(|| PathBuf::from(path)),
            core,
        }
    }

    /// How the input is named in messages.
    pub fn display_name(&self) -> String {
        match &self.path {
            Some(p) => p.display().to_string(),
            None => "<stdin>".to_string(),
        }
    }
}

/// The bytes of an input: a read-only mapping of a file, or an owned buffer.
pub enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Bytes {
    /// Lets the system drop the resident pages of a mapped file before `end`
    /// (a reader that has passed them calls this, so a trace read in one pass
    /// does not stay in memory as a whole). The bytes stay readable: pages
    /// read again are brought back from the file. Owned bytes are kept.
    pub fn release_before(&self, end: usize) {
        #[cfg(unix)]
        if let Bytes::Mapped(map) = self {
            let end = end.min(map.len());
            // SAFETY: the mapping is a read-only view of a file that we never
            // write through. MADV_DONTNEED on it only drops our page table
            // entries; the next read faults the same file contents back in,
            // so every slice borrowed from the mapping stays valid and
            // unchanged (see `map_file` on files changed by others).
            let _ =
                unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, end) };
        }
        #[cfg(not(unix))]
        let _ = end;
    }
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// An opened input.
pub struct Input {
    pub name: String,
    pub core: Option<u32>,
    pub bytes: Bytes,
    /// The input was hex text and has been converted to bytes.
    pub was_hex: bool,
}

/// Why an input could not be opened.
#[derive(Debug)]
pub enum InputError {
    Io { name: String, source: io::Error },
    BadHex { name: String, line: usize },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Io { name, source } => write!(f, "cannot read {name}: {source}"),
            InputError::BadHex { name, line } => write!(
                f,
                "{name} looks like hex text but line {line} has an odd number of hex digits"
            ),
        }
    }
}

impl std::error::Error for InputError {}

impl Input {
    /// Opens and reads (or maps) an input, converting hex text to bytes.
    pub fn open(spec: &InputSpec) -> Result<Input, InputError> {
        let name = spec.display_name();
        let io_err = |source| InputError::Io {
            name: name.clone(),
            source,
        };
        let bytes = match &spec.path {
            Some(path) => map_file(path).map_err(io_err)?,
            None => {
                let mut buf = Vec::new();
                io::stdin().lock().read_to_end(&mut buf).map_err(io_err)?;
                Bytes::Owned(buf)
            }
        };
        Input::from_bytes(name, spec.core, bytes)
    }

    /// Streams already in memory, one per core in core order, as the inputs
    /// of a multi-core trace, named `NAME core N`.
    pub fn per_core(name: &str, streams: Vec<Vec<u8>>) -> Vec<Input> {
        streams
            .into_iter()
            .zip(0..)
            .map(|(bytes, core)| Input {
                name: format!("{name} core {core}"),
                core: Some(core),
                bytes: Bytes::Owned(bytes),
                was_hex: false,
            })
            .collect()
    }

    /// Makes an input of bytes already read. Hex text is recognised by having
    /// no zero byte (every binary trace has frame delimiters) and consisting
    /// only of hex digits, `0x` prefixes, separators and white space.
    pub fn from_bytes(name: String, core: Option<u32>, bytes: Bytes) -> Result<Input, InputError> {
        let (bytes, was_hex) = if looks_like_hex(&bytes) {
            let parsed = parse_hex(&bytes).map_err(|line| InputError::BadHex {
                name: name.clone(),
                line,
            })?;
            (Bytes::Owned(parsed), true)
        } else {
            (bytes, false)
        };
        Ok(Input {
            name,
            core,
            bytes,
            was_hex,
        })
    }
}

fn map_file(path: &Path) -> io::Result<Bytes> {
    let file = File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "it is a directory, not a trace file",
        ));
    }
    if file.metadata()?.len() == 0 {
        return Ok(Bytes::Owned(Vec::new()));
    }
    // SAFETY: the mapping is read-only; a trace file changed by another
    // process while we read it yields wrong bytes, which the decoder treats
    // like any other damage, never undefined behaviour in our code paths
    // (we only read through `&[u8]` and never rely on the contents for safety).
    let map = unsafe { Mmap::map(&file)? };
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(Bytes::Mapped(map))
}

fn looks_like_hex(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && bytes.iter().any(u8::is_ascii_hexdigit)
        && bytes
            .iter()
            .all(|&b| b.is_ascii_hexdigit() || b.is_ascii_whitespace() || b"xX,:".contains(&b))
}

/// Parses hex text; an error gives the 1-based line with an odd digit count.
fn parse_hex(text: &[u8]) -> Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(text.len() / 2);
    let mut high: Option<u8> = None;
    let mut line = 1;
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        if b == b'0' && high.is_none() && matches!(text.get(i + 1), Some(b'x' | b'X')) {
            i += 2;
            continue;
        }
        if let Some(digit) = (b as char).to_digit(16) {
            match high.take() {
                Some(h) => out.push(h << 4 | digit as u8),
                None => high = Some(digit as u8),
            }
        } else {
            if high.is_some() {
                return Err(line);
            }
            if b == b'\n' {
                line += 1;
            }
        }
        i += 1;
    }
    if high.is_some() {
        return Err(line);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_suffixes() {
        assert_eq!(
            InputSpec::parse("a.bin@1"),
            InputSpec {
                path: Some("a.bin".into()),
                core: Some(1)
            }
        );
        assert_eq!(
            InputSpec::parse("me@host.bin"),
            InputSpec {
                path: Some("me@host.bin".into()),
                core: None
            }
        );
        assert_eq!(
            InputSpec::parse("-"),
            InputSpec {
                path: None,
                core: None
            }
        );
        assert_eq!(
            InputSpec::parse("-@2"),
            InputSpec {
                path: None,
                core: Some(2)
            }
        );
    }

    #[test]
    fn hex_forms() {
        assert!(looks_like_hex(b"02 04 00\n"));
        assert!(!looks_like_hex(&[2, 4, 0]));
        assert!(!looks_like_hex(b" \n"));
        assert_eq!(
            parse_hex(b"0x02, 0x04 0x00\n0a0B"),
            Ok(vec![2, 4, 0, 10, 11])
        );
        assert_eq!(parse_hex(b"0204\n0a0\n"), Err(2));
    }
}
