//! Splits TSDL metadata text into tokens, each tagged with its line number.

use super::MetadataError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tok<'s> {
    Ident(&'s str),
    Int(u64),
    Str(&'s str),
    /// Punctuation: one of `{ } [ ] ( ) ; , . : = < > + -`, or `:=`, `...`, `->`.
    Punct(&'static str),
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Token<'s> {
    pub tok: Tok<'s>,
    pub line: usize,
}

const MULTI_CHAR_PUNCT: [&str; 3] = [":=", "...", "->"];
const SINGLE_CHAR_PUNCT: [&str; 15] = [
    "{", "}", "[", "]", "(", ")", ";", ",", ".", ":", "=", "<", ">", "+", "-",
];

pub(crate) fn tokenize(text: &str) -> Result<Vec<Token<'_>>, MetadataError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut pos = 0;
    let mut line = 1;
    while let Some(&c) = bytes.get(pos) {
        match c {
            b'\n' => {
                line += 1;
                pos += 1;
            }
            c if c.is_ascii_whitespace() => pos += 1,
            b'/' if bytes.get(pos + 1) == Some(&b'*') => {
                let start_line = line;
                let body_start = pos + 2;
                let Some(len) = text[body_start..].find("*/") else {
                    return Err(MetadataError::new(start_line, "comment is never closed"));
                };
                line += text[body_start..body_start + len].matches('\n').count();
                pos = body_start + len + 2;
            }
            b'/' if bytes.get(pos + 1) == Some(&b'/') => {
                pos = text[pos..].find('\n').map_or(bytes.len(), |n| pos + n);
            }
            b'"' => {
                let start = pos + 1;
                let mut end = start;
                loop {
                    match bytes.get(end) {
                        None | Some(b'\n') => {
                            return Err(MetadataError::new(line, "string literal is never closed"))
                        }
                        Some(b'\\') => end += 2,
                        Some(b'"') => break,
                        Some(_) => end += 1,
                    }
                }
                tokens.push(Token {
                    tok: Tok::Str(&text[start..end]),
                    line,
                });
                pos = end + 1;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let end = scan_while(bytes, pos, |b| b.is_ascii_alphanumeric() || b == b'_');
                tokens.push(Token {
                    tok: Tok::Ident(&text[pos..end]),
                    line,
                });
                pos = end;
            }
            c if c.is_ascii_digit() => {
                let end = scan_while(bytes, pos, |b| b.is_ascii_alphanumeric());
                let literal = &text[pos..end];
                let value = parse_int_literal(literal).ok_or_else(|| {
                    MetadataError::new(line, format!("`{literal}` is not a valid integer"))
                })?;
                tokens.push(Token {
                    tok: Tok::Int(value),
                    line,
                });
                pos = end;
            }
            _ => {
                let rest = &text[pos..];
                let punct = MULTI_CHAR_PUNCT
                    .iter()
                    .chain(SINGLE_CHAR_PUNCT.iter())
                    .find(|p| rest.starts_with(**p))
                    .ok_or_else(|| {
                        let shown = rest.chars().next().unwrap_or('?');
                        MetadataError::new(line, format!("unexpected character `{shown}`"))
                    })?;
                tokens.push(Token {
                    tok: Tok::Punct(punct),
                    line,
                });
                pos += punct.len();
            }
        }
    }
    Ok(tokens)
}

fn scan_while(bytes: &[u8], start: usize, keep: impl Fn(u8) -> bool) -> usize {
    bytes[start..]
        .iter()
        .position(|&b| !keep(b))
        .map_or(bytes.len(), |n| start + n)
}

/// Decimal, `0x` hexadecimal or leading-zero octal, with optional C suffixes (`u`, `l`).
fn parse_int_literal(literal: &str) -> Option<u64> {
    let digits = literal.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        u64::from_str_radix(hex, 16).ok()
    } else if digits.len() > 1 && digits.starts_with('0') {
        u64::from_str_radix(&digits[1..], 8).ok()
    } else {
        digits.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(text: &str) -> Vec<Tok<'_>> {
        tokenize(text).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn splits_identifiers_numbers_and_punctuation() {
        assert_eq!(
            toks("id = 0x1B; x := y[20]; a...b 017 10u"),
            vec![
                Tok::Ident("id"),
                Tok::Punct("="),
                Tok::Int(0x1b),
                Tok::Punct(";"),
                Tok::Ident("x"),
                Tok::Punct(":="),
                Tok::Ident("y"),
                Tok::Punct("["),
                Tok::Int(20),
                Tok::Punct("]"),
                Tok::Punct(";"),
                Tok::Ident("a"),
                Tok::Punct("..."),
                Tok::Ident("b"),
                Tok::Int(0o17),
                Tok::Int(10),
            ]
        );
    }

    #[test]
    fn skips_comments_and_counts_lines() {
        let tokens = tokenize("/* CTF 1.8\n */\n// note\n\"s\" x").unwrap();
        assert_eq!(tokens[0].tok, Tok::Str("s"));
        assert_eq!(tokens[0].line, 4);
        assert_eq!(tokens[1].line, 4);
    }

    #[test]
    fn reports_bad_input_with_its_line() {
        let err = tokenize("a\nb\n /* open").unwrap_err();
        assert_eq!(err.to_string(), "metadata line 3: comment is never closed");
        let err = tokenize("\n0x1G").unwrap_err();
        assert_eq!(
            err.to_string(),
            "metadata line 2: `0x1G` is not a valid integer"
        );
        assert!(tokenize("a @").is_err());
        assert!(tokenize("\"abc").is_err());
    }
}
