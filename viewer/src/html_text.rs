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
    while i < bytes.len() {
        let escape = match bytes[i] {
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
