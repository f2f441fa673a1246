//! Parsing the command's text inputs into rules values, with errors that
//! name the field that is wrong.

use bao_rules::{MoveText, Position, PositionError, SetupField, Variant};

use super::Failure;

/// Parses and validates a position read from a line of input; the error
/// names the field.
pub(crate) fn position(text: &str) -> Result<Position, Failure> {
    text.parse::<Position>().map_err(|e| Failure::Malformed(format!("bad position {}: {e}", quote(text))))
}

/// Parses and validates a position given as a command-line argument; a
/// one-word "position" gets a hint that the shell split it.
pub(crate) fn position_arg(text: &str) -> Result<Position, Failure> {
    text.parse::<Position>().map_err(|e| {
        let hint = match &e {
            PositionError::Parse(p)
                if p.field == SetupField::Line && !text.is_empty() && !text.contains(' ') =>
            {
                " (write the position as one argument, in quotes)"
            }
            _ => "",
        };
        Failure::Malformed(format!("bad position {}: {e}{hint}", quote(text)))
    })
}

/// Parses a move's text (not yet checked against a position).
pub(crate) fn move_text(text: &str) -> Result<MoveText, Failure> {
    text.parse::<MoveText>().map_err(|e| Failure::Malformed(format!("bad move {}: {e}", quote(text))))
}

/// Parses a variant name.
pub(crate) fn variant(text: &str) -> Result<Variant, Failure> {
    text.parse::<Variant>().map_err(|e| Failure::Malformed(format!("bad variant: {e}")))
}

/// Parses a perft depth: a whole number of plies.
pub(crate) fn depth(text: &str) -> Result<u32, Failure> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    if !digits {
        return Err(Failure::Malformed(format!(
            "bad depth {}: expected a whole number of plies (0, 1, 2, ...)",
            quote(text)
        )));
    }
    text.parse::<u32>()
        .map_err(|_| Failure::Malformed(format!("bad depth {}: at most {} plies", quote(text), u32::MAX)))
}

/// Longest input echoed in an error message, in characters.
const QUOTE_MAX: usize = 200;

/// `text` quoted for an error message, cut short if very long.
fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE_MAX) {
        None => format!("{text:?}"),
        Some((cut, _)) => format!("{:?}... ({} bytes)", &text[..cut], text.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_input_is_cut_short_in_messages() {
        assert_eq!(quote("A7<"), "\"A7<\"");
        let long = "é".repeat(1000);
        let quoted = quote(&long);
        assert!(quoted.starts_with(&format!("\"{}\"...", "é".repeat(QUOTE_MAX))), "{quoted}");
        assert!(quoted.ends_with("(2000 bytes)"), "{quoted}");
    }
}
