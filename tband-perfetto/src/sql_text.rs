//! PerfettoSQL text read as the report files are written: comments,
//! quoted strings and identifiers, blanks, statement ends and the rest.

/// What a stretch of SQL text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece {
    /// `-- ...` to the line's end, or `/* ... */`.
    Comment,
    /// `'...'` or `"..."` (a doubled quote inside is two in a row).
    Quoted,
    Blank,
    /// `;`
    End,
    /// Anything else, up to the next piece of another kind.
    Other,
}

/// The pieces of `sql` and where each ends, in order.
fn pieces(sql: &str) -> Vec<(Piece, usize)> {
    let bytes = sql.as_bytes();
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &sql[i..];
        let (piece, len) = if rest.starts_with("--") {
            (
                Piece::Comment,
                rest.find('\n').map_or(rest.len(), |n| n + 1),
            )
        } else if let Some(comment) = rest.strip_prefix("/*") {
            (
                Piece::Comment,
                comment.find("*/").map_or(rest.len(), |n| n + 4),
            )
        } else {
            match bytes[i] {
                b';' => (Piece::End, 1),
                b'\'' | b'"' => (
                    Piece::Quoted,
                    rest[1..]
                        .find(bytes[i] as char)
                        .map_or(rest.len(), |n| n + 2),
                ),
                b if b.is_ascii_whitespace() => (
                    Piece::Blank,
                    rest.find(|c: char| !c.is_ascii_whitespace())
                        .unwrap_or(rest.len()),
                ),
                _ => (
                    Piece::Other,
                    rest.char_indices()
                        .skip(1)
                        .find(|&(n, c)| {
                            c.is_ascii_whitespace()
                                || matches!(c, ';' | '\'' | '"')
                                || rest[n..].starts_with("--")
                                || rest[n..].starts_with("/*")
                        })
                        .map_or(rest.len(), |(n, _)| n),
                ),
            }
        };
        i += len;
        pieces.push((piece, i));
    }
    pieces
}

/// Where the last statement of `sql` begins: its first character that is
/// not a blank or in a comment.
pub fn last_statement_start(sql: &str) -> usize {
    // The start of the statement being read, and of the one before it.
    let (mut current, mut last) = (None, 0);
    let mut start = 0;
    for (piece, end) in pieces(sql) {
        match piece {
            Piece::End => last = current.take().unwrap_or(last),
            Piece::Quoted | Piece::Other => {
                current.get_or_insert(start);
            }
            Piece::Comment | Piece::Blank => {}
        }
        start = end;
    }
    current.unwrap_or(last)
}

/// `sql` without its comments, each run of blanks and comments outside
/// quotes one space: the same statements in fewer characters.
pub fn compact(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let (mut start, mut blank) = (0, false);
    for (piece, end) in pieces(sql) {
        if matches!(piece, Piece::Comment | Piece::Blank) {
            blank = true;
        } else {
            if blank && !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&sql[start..end]);
            blank = false;
        }
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_statement_is_found_past_comments_strings_and_blanks() {
        let sql = "-- a; comment\nINCLUDE PERFETTO MODULE x;\n\n/* ; */ SELECT ';' AS \"a;b\";\n-- end;\n";
        assert_eq!(
            &sql[last_statement_start(sql)..],
            "SELECT ';' AS \"a;b\";\n-- end;\n"
        );
        assert_eq!(last_statement_start("  SELECT 1"), 2);
        assert_eq!(last_statement_start("SELECT 'it''s;'"), 0);
    }

    #[test]
    fn compact_sql_keeps_strings_and_drops_comments() {
        let sql = "-- head\nSELECT a--x\n  , 'it''s -- no  /* comment */'   AS \"b  c\" /* z */FROM t; -- end\n";
        assert_eq!(
            compact(sql),
            "SELECT a , 'it''s -- no  /* comment */' AS \"b  c\" FROM t;"
        );
        assert_eq!(compact("SELECT 'é'--\n,ü"), "SELECT 'é' ,ü");
    }
}
