//! Putting text and data into HTML safely.

use serde::Serialize;

/// `text` escaped for HTML element content and quoted attribute values.
#[must_use]
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `value` as JSON that is safe inside `<script type="application/json">`: every `<`, `>` and
/// `&` is written as a `\u` escape (they only ever occur inside JSON strings), so no text in the
/// data can close the script element or open a comment. U+2028 and U+2029 are escaped too.
///
/// Returns `null` if the value cannot be serialised (a map with non-string keys; the viewer's
/// own types always serialise).
#[must_use]
pub fn script_json<T: Serialize>(value: &T) -> String {
    let json = serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned());
    let mut out = String::with_capacity(json.len() + 64);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// Text made of JSON values (a game log: one JSON value a line) made safe inside
/// `<script type="application/json">`, as [`script_json`] makes one value: every `<`, `>` and
/// `&` becomes a `\u` escape, and so do U+2028 and U+2029. In valid JSON these only ever occur
/// inside strings, where the escape means the same character, so every line still parses to the
/// same value; and whatever the text holds (a damaged line too), the result has no `<`, so it
/// cannot close the script element. One pass over the bytes, no parsing: the cheap way to embed
/// a whole log.
#[must_use]
pub fn script_text(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + text.len() / 64 + 16);
    let mut from = 0;
    let mut i = 0;
    loop {
        i = next_candidate(bytes, i);
        let Some(&byte) = bytes.get(i) else { break };
        let escape = match byte {
            b'<' => Some(("\\u003c", 1)),
            b'>' => Some(("\\u003e", 1)),
            b'&' => Some(("\\u0026", 1)),
            // U+2028 and U+2029 are E2 80 A8 and E2 80 A9 in UTF-8.
            0xE2 if bytes.get(i + 1) == Some(&0x80) && bytes.get(i + 2) == Some(&0xA8) => {
                Some(("\\u2028", 3))
            }
            0xE2 if bytes.get(i + 1) == Some(&0x80) && bytes.get(i + 2) == Some(&0xA9) => {
                Some(("\\u2029", 3))
            }
            _ => None,
        };
        match escape {
            Some((with, len)) => {
                out.push_str(&text[from..i]);
                out.push_str(with);
                i += len;
                from = i;
            }
            None => i += 1,
        }
    }
    out.push_str(&text[from..]);
    out
}

/// The index of the first byte at or after `from` that [`script_text`] may have to escape
/// (`<`, `>`, `&`, or any byte of a non-ASCII character, as U+2028 and U+2029 are), or the
/// length of `bytes`. Eight bytes at a time while none of them is one (a log is mostly plain
/// ASCII without these), then byte by byte.
fn next_candidate(bytes: &[u8], from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Whether some byte of `word` is zero (exact for the word as a whole).
    let has_zero_byte = |word: u64| word.wrapping_sub(ONES) & !word & HIGH != 0;
    let has = |word: u64, byte: u8| has_zero_byte(word ^ (ONES * u64::from(byte)));
    let mut i = from;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let Ok(chunk) = <[u8; 8]>::try_from(chunk) else { break };
        let word = u64::from_le_bytes(chunk);
        if word & HIGH != 0 || has(word, b'<') || has(word, b'>') || has(word, b'&') {
            break;
        }
        i += 8;
    }
    while let Some(&byte) = bytes.get(i) {
        if matches!(byte, b'<' | b'>' | b'&' | 0x80..=0xFF) {
            break;
        }
        i += 1;
    }
    i
}

/// A relative link made safe for an `href`: every byte outside `A-Z a-z 0-9 - . _ ~ /` is
/// percent-encoded, so the result can never carry a scheme (`javascript:`), a query or quotes,
/// and works from `file://`. Returns `None` for an empty link or one starting with `/`
/// (an absolute path would not work from a copied folder).
#[must_use]
pub fn relative_href(link: &str) -> Option<String> {
    if link.is_empty() || link.starts_with('/') {
        return None;
    }
    let mut out = String::with_capacity(link.len());
    for &b in link.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_cannot_close_the_script() {
        let text = "</script><script>alert(1)</script><!-- & \u{2028}";
        let json = script_json(&text);
        assert!(!json.contains('<'), "{json}");
        assert!(!json.contains('>'), "{json}");
        let back: String = serde_json::from_str(&json).unwrap();
        assert_eq!(back, text);
    }

    #[test]
    fn script_text_keeps_every_line_and_cannot_close_the_script() {
        let lines = [
            serde_json::json!({"name": "</script><script>alert(1)</script>", "n": 1}),
            serde_json::json!({"comment": "a & b > c <!-- \u{2028}\u{2029} é"}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let safe = script_text(&text);
        assert!(!safe.contains('<') && !safe.contains('>') && !safe.contains('&'), "{safe}");
        assert!(!safe.contains('\u{2028}') && !safe.contains('\u{2029}'), "{safe}");
        let back: Vec<serde_json::Value> =
            safe.lines().map(|l| serde_json::from_str(l).expect("each line still parses")).collect();
        assert_eq!(back, lines);
        assert_eq!(script_text("plain"), "plain");
        assert_eq!(script_text(""), "");
        // A damaged line is escaped all the same.
        assert_eq!(script_text("{\"a\": </b"), "{\"a\": \\u003c/b");
    }

    /// The escaping of [`script_text`] one character at a time, to compare with.
    fn script_text_by_chars(text: &str) -> String {
        text.chars()
            .map(|c| match c {
                '<' => "\\u003c".to_owned(),
                '>' => "\\u003e".to_owned(),
                '&' => "\\u0026".to_owned(),
                '\u{2028}' => "\\u2028".to_owned(),
                '\u{2029}' => "\\u2029".to_owned(),
                c => c.to_string(),
            })
            .collect()
    }

    #[test]
    fn script_text_escapes_at_every_position_of_a_word() {
        let specials = ["<", ">", "&", "\u{2028}", "\u{2029}", "é", "\u{2027}", "\u{202A}", "€", "\u{1F600}"];
        for special in specials {
            for before in 0..20 {
                for after in [0, 1, 7, 8, 9, 17] {
                    let text = format!("{}{special}{}{special}x", "a".repeat(before), "b".repeat(after));
                    assert_eq!(script_text(&text), script_text_by_chars(&text), "{text:?}");
                }
            }
        }
        let log = "{\"type\":\"ply\",\"n\":1,\"move\":\"a1>\",\"comment\":\"x < y && \u{2028}\"}\n".repeat(5);
        assert_eq!(script_text(&log), script_text_by_chars(&log));
    }

    #[test]
    fn html_escaping() {
        assert_eq!(escape_html(r#"<b a="1">&'"#), "&lt;b a=&quot;1&quot;&gt;&amp;&#39;");
    }

    #[test]
    fn hrefs_stay_relative() {
        assert_eq!(relative_href("games/g 1.html").as_deref(), Some("games/g%201.html"));
        assert_eq!(relative_href("javascript:alert(1)").as_deref(), Some("javascript%3Aalert%281%29"));
        assert_eq!(relative_href("../index.html").as_deref(), Some("../index.html"));
        assert_eq!(relative_href("/etc/passwd"), None);
        assert_eq!(relative_href(""), None);
    }
}
