//! How the tools write text as JSON, so that listings and exports agree byte for byte.

use std::io::{self, Write};

/// Writes `s` as a JSON string, replacing invalid UTF-8 with U+FFFD.
pub fn write_json_str(out: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    out.write_all(b"\"")?;
    for chunk in bytes.utf8_chunks() {
        let s = chunk.valid();
        let mut start = 0;
        for (i, b) in s.bytes().enumerate() {
            let escape: Option<&[u8]> = match b {
                b'"' => Some(b"\\\""),
                b'\\' => Some(b"\\\\"),
                b'\n' => Some(b"\\n"),
                b'\r' => Some(b"\\r"),
                b'\t' => Some(b"\\t"),
                0..=0x1F => None,
                _ => continue,
            };
            out.write_all(&s.as_bytes()[start..i])?;
            match escape {
                Some(e) => out.write_all(e)?,
                None => write!(out, "\\u{b:04x}")?,
            }
            start = i + 1;
        }
        out.write_all(&s.as_bytes()[start..])?;
        if !chunk.invalid().is_empty() {
            out.write_all("\u{FFFD}".as_bytes())?;
        }
    }
    out.write_all(b"\"")
}
