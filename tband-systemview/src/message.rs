//! The text of a printed message: SystemView sends a message formatted on
//! the host as its printf format and the integer arguments.

/// `format` with each conversion replaced by the next argument. Flags,
/// width and precision are honoured for integers as far as zero padding
/// and width go; `%%` is a percent sign; a conversion without an argument
/// or of a kind an integer cannot fill is kept as written.
pub fn format_message(format: &[u8], args: &[u32]) -> String {
    let text = String::from_utf8_lossy(format);
    let mut out = String::with_capacity(text.len());
    let mut args = args.iter();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut zero_pad = false;
        let mut left = false;
        let mut width = 0usize;
        let mut end = start + 1;
        let mut conversion = None;
        while let Some(&(at, next)) = chars.peek() {
            chars.next();
            end = at + next.len_utf8();
            match next {
                '0' if width == 0 => zero_pad = true,
                '-' => left = true,
                '1'..='9' | '0' => width = width * 10 + (next as usize - '0' as usize),
                '+' | ' ' | '#' | '.' | 'l' | 'h' => {}
                _ => {
                    conversion = Some(next);
                    break;
                }
            }
        }
        let rendered = match conversion {
            Some('%') => Some("%".to_string()),
            Some(kind @ ('d' | 'i' | 'u' | 'x' | 'X' | 'c' | 'p')) => {
                args.next().map(|&value| render(kind, value))
            }
            _ => None,
        };
        match rendered {
            Some(value) => pad(&mut out, &value, width, zero_pad && !left, left),
            None => out.push_str(&text[start..end]),
        }
    }
    out
}

fn render(kind: char, value: u32) -> String {
    match kind {
        'd' | 'i' => (value as i32).to_string(),
        'u' => value.to_string(),
        'x' => format!("{value:x}"),
        'X' => format!("{value:X}"),
        'p' => format!("0x{value:08x}"),
        _ => char::from_u32(value).map_or_else(String::new, String::from),
    }
}

fn pad(out: &mut String, value: &str, width: usize, zeros: bool, left: bool) {
    let fill = width.saturating_sub(value.chars().count());
    if left {
        out.push_str(value);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if zeros {
        let (sign, digits) = value.strip_prefix('-').map_or(("", value), |d| ("-", d));
        out.push_str(sign);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(digits);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_fill_their_conversions() {
        assert_eq!(
            format_message(
                b"%d items, 0x%08X, %5u|%-3c|100%%",
                &[-3i32 as u32, 0xbeef, 42, 'A' as u32]
            ),
            "-3 items, 0x0000BEEF,    42|A  |100%"
        );
    }

    #[test]
    fn conversions_without_arguments_stay_as_written() {
        assert_eq!(format_message(b"done %s %d", &[]), "done %s %d");
        assert_eq!(format_message(b"plain text", &[7]), "plain text");
    }
}
