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
