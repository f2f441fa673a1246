//! The move reply in its canonical form, read without building a JSON value: the one line a
//! bot sends on every ply, `{"type":"move","id":7,"move":"A6<"}` exactly (no spaces, these
//! three fields in this order, a plain decimal id, a move text that needs no escape).
//!
//! Any other spelling of a move, and every other message, is read by the general two-stage
//! parser; for the lines this reads, the result is the one the general parser gives.

use crate::MoveReply;

const PREFIX: &str = r#"{"type":"move","id":"#;
const MIDDLE: &str = r#","move":""#;
const SUFFIX: &str = r#""}"#;

/// The reply, if `line` (without its newline) is a move reply in the canonical form.
pub(crate) fn parse(line: &str) -> Option<MoveReply> {
    let rest = line.strip_prefix(PREFIX)?;
    let digits_end = rest.bytes().position(|b| !b.is_ascii_digit())?;
    let (digits, rest) = rest.split_at(digits_end);
    // JSON numbers have no leading zeros; `u64` parsing rejects an empty or too long id.
    if digits.len() > 1 && digits.starts_with('0') {
        return None;
    }
    let id = digits.parse::<u64>().ok()?;
    let text = rest.strip_prefix(MIDDLE)?.strip_suffix(SUFFIX)?;
    if text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        return None;
    }
    Some(MoveReply { id, move_text: text.to_owned() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BotMessage;
    use crate::parse::{Fields, tagged_object};

    /// The general parser's reading of a move line.
    fn general(line: &str) -> Option<MoveReply> {
        let (message_type, object) = tagged_object(line, BotMessage::TYPES).ok()?;
        if message_type != "move" {
            return None;
        }
        let fields = Fields { message_type, object: &object };
        Some(MoveReply { id: fields.required("id").ok()?, move_text: fields.required("move").ok()? })
    }

    #[test]
    fn canonical_lines_read_as_the_general_parser_reads_them_and_others_are_left_to_it() {
        let canonical = [
            r#"{"type":"move","id":7,"move":"A6<"}"#,
            r#"{"type":"move","id":0,"move":"b8>+"}"#,
            r#"{"type":"move","id":18446744073709551615,"move":""}"#,
            "{\"type\":\"move\",\"id\":12,\"move\":\"é ü\u{7f}\"}",
        ];
        for line in canonical {
            let fast = parse(line);
            assert!(fast.is_some(), "{line}");
            assert_eq!(fast, general(line), "{line}");
        }
        let left_to_the_general_parser = [
            r#"{"type":"move","id":007,"move":"A6<"}"#,
            r#"{"type":"move","id":18446744073709551616,"move":"A6<"}"#,
            r#"{"type":"move","id":-1,"move":"A6<"}"#,
            r#"{"type":"move","id":1.0,"move":"A6<"}"#,
            r#"{"type":"move","id":,"move":"A6<"}"#,
            r#"{"type":"move","id":7,"move":"A6\"<"}"#,
            r#"{"type":"move","id":7,"move":"A6\\<"}"#,
            r#"{"type":"move","id":7,"move":"A6<"} "#,
            r#"{"type":"move","id":7,"move":"A6<","x":1}"#,
            r#"{"type":"move", "id":7,"move":"A6<"}"#,
            r#"{"id":7,"type":"move","move":"A6<"}"#,
            r#"{"type":"move","id":7,"move":"A6<""#,
            "{\"type\":\"move\",\"id\":7,\"move\":\"A\t6\"}",
        ];
        for line in left_to_the_general_parser {
            assert_eq!(parse(line), None, "{line}");
        }
    }

    #[test]
    fn random_ids_and_texts_agree_with_the_general_parser() {
        let alphabet: Vec<char> = "A6<>+b8 \"\\\t\u{1}é0-.".chars().collect();
        let mut rng = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut accepted = 0;
        for _ in 0..20_000 {
            let id = match next() % 4 {
                0 => next().to_string(),
                1 => format!("0{}", next() % 100),
                2 => (next() % 1000).to_string(),
                _ => format!("{}9", u64::MAX),
            };
            let len = usize::try_from(next() % 6).expect("small");
            let text: String = (0..len)
                .map(|_| alphabet[usize::try_from(next() % alphabet.len() as u64).expect("small")])
                .collect();
            let line = format!(r#"{{"type":"move","id":{id},"move":"{text}"}}"#);
            if let Some(fast) = parse(&line) {
                accepted += 1;
                assert_eq!(Some(fast), general(&line), "{line}");
            }
        }
        assert!(accepted > 5_000, "only {accepted} lines took the fast path");
    }
}
