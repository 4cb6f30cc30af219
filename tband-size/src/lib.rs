//! Byte counts as the tband tools read them from their options (`tband-sim
//! --size`, `tband-perfetto --split`): a crate of its own, below both the
//! simulator and the tools' command line, so that neither depends on the
//! other for it.

/// Parses a byte count with an optional `K`, `M` or `G` suffix (powers of
/// 1024), e.g. `100M`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, mult) = match t.char_indices().last() {
        Some((i, c)) if c.eq_ignore_ascii_case(&'k') => (&t[..i], 1u64 << 10),
        Some((i, c)) if c.eq_ignore_ascii_case(&'m') => (&t[..i], 1 << 20),
        Some((i, c)) if c.eq_ignore_ascii_case(&'g') => (&t[..i], 1 << 30),
        _ => (t, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| format!("`{text}` is not a size like 4096, 512K, 100M or 1G"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("512K"), Ok(512 << 10));
        assert_eq!(parse_size("100M"), Ok(100 << 20));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert!(parse_size("").is_err());
        assert!(parse_size("M").is_err());
        assert!(parse_size("12X").is_err());
        assert!(parse_size("-1K").is_err());
        assert!(parse_size("1.5M").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
    }
}
