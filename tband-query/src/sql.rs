//! Reading SQL text: splitting a file into statements, and turning named
//! parameters (`:name`, `$name`) into positional ones (`?`), which both
//! engines bind the same way.

/// One statement of a SQL text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// The statement with every named parameter replaced by `?`.
    pub sql: String,
    /// 1-based line of the text where the statement starts.
    pub line: usize,
    /// The parameter bound to each `?`, in order.
    pub params: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Code,
    /// Inside a quote; the char is the closing quote.
    Quoted(char),
    LineComment,
    BlockComment,
}

/// Splits `text` at top-level semicolons; statements holding only comments
/// and blanks are dropped.
pub fn statements(text: &str) -> Vec<Statement> {
    let mut out = Vec::new();
    let mut current = Statement {
        sql: String::new(),
        line: 1,
        params: Vec::new(),
    };
    let mut has_code = false;
    let mut line = 1;
    let mut state = State::Code;
    let mut chars = text.chars().peekable();
    let mut prev = '\0';
    while let Some(c) = chars.next() {
        match state {
            State::Code => match c {
                ';' => {
                    if has_code {
                        out.push(std::mem::replace(
                            &mut current,
                            Statement {
                                sql: String::new(),
                                line,
                                params: Vec::new(),
                            },
                        ));
                    } else {
                        current.sql.clear();
                    }
                    has_code = false;
                    prev = c;
                    continue;
                }
                '\'' | '"' => state = State::Quoted(c),
                '-' if chars.peek() == Some(&'-') => state = State::LineComment,
                '/' if chars.peek() == Some(&'*') => state = State::BlockComment,
                ':' | '$'
                    if prev != ':'
                        && chars
                            .peek()
                            .is_some_and(|n| n.is_ascii_alphabetic() || *n == '_') =>
                {
                    let mut name = String::new();
                    while let Some(&n) = chars.peek() {
                        if !(n.is_ascii_alphanumeric() || n == '_') {
                            break;
                        }
                        name.push(n);
                        chars.next();
                    }
                    if !has_code {
                        current.line = line;
                        has_code = true;
                    }
                    current.sql.push('?');
                    current.params.push(name);
                    prev = 'a';
                    continue;
                }
                _ => {}
            },
            State::Quoted(close) => {
                if c == close {
                    state = State::Code;
                }
            }
            State::LineComment => {
                if c == '\n' {
                    state = State::Code;
                }
            }
            State::BlockComment => {
                if prev == '*' && c == '/' {
                    state = State::Code;
                    current.sql.push(c);
                    prev = '\0';
                    continue;
                }
            }
        }
        if state == State::Code && !has_code && !c.is_whitespace() {
            current.line = line;
            has_code = true;
        }
        if c == '\n' {
            line += 1;
        }
        current.sql.push(c);
        prev = c;
    }
    if has_code {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_top_level_semicolons_only() {
        let s = statements(
            "-- header; not code\nSELECT ';' AS a;\n\n/* x; */ SELECT \"b;\" FROM t;\n  ;  ",
        );
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].sql.trim(), "-- header; not code\nSELECT ';' AS a");
        assert_eq!(s[0].line, 2);
        assert_eq!(s[1].sql.trim(), "/* x; */ SELECT \"b;\" FROM t");
        assert_eq!(s[1].line, 4);
    }

    #[test]
    fn named_parameters_become_positional() {
        let s = statements("SELECT x::BIGINT, :a, $b_2, :a, '$c', 3 FROM t WHERE y > :a -- :d\n");
        assert_eq!(s.len(), 1);
        assert_eq!(
            s[0].sql,
            "SELECT x::BIGINT, ?, ?, ?, '$c', 3 FROM t WHERE y > ? -- :d\n"
        );
        assert_eq!(s[0].params, ["a", "b_2", "a", "a"]);
    }

    #[test]
    fn a_text_of_comments_has_no_statement() {
        assert!(statements("-- nothing\n/* here */\n").is_empty());
    }
}
