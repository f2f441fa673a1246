use std::fmt;
use std::str::FromStr;

use crate::{Pit, Row, Side, Variant};

/// A position as written in notation, parsed but not validated.
///
/// `Setup` holds whatever the text said; [`crate::Position::try_from`] checks
/// it against the rules (seed totals, variant constraints, takasia). The text
/// form is six fields separated by single spaces:
///
/// ```text
/// <variant> <to-move> <A1..A8>/<B1..B8>/<a1..a8>/<b1..b8> <handS>,<handN> <nyumba> <takasia>
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Setup {
    /// `kiswahili` or `kujifunza`.
    pub variant: Variant,
    /// The player to move.
    pub to_move: Side,
    /// The four rows in notation order — A, B, a, b — each in its owner's
    /// numbering (index 0 is column 1).
    pub rows: [[u8; 8]; 4],
    /// Seeds in hand, South then North.
    pub hands: [u8; 2],
    /// Whether each player still owns their nyumba, South then North.
    pub nyumba: [bool; 2],
    /// The pit of the player to move that is under takasia, if any.
    pub takasia: Option<Pit>,
}

/// The fields of the position notation, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SetupField {
    /// The whole line (wrong number of fields).
    Line,
    /// Field 1, the variant.
    Variant,
    /// Field 2, the player to move.
    ToMove,
    /// Field 3, the rows.
    Rows,
    /// Field 4, the hands.
    Hands,
    /// Field 5, nyumba ownership.
    Nyumba,
    /// Field 6, takasia.
    Takasia,
}

impl fmt::Display for SetupField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SetupField::Line => "position",
            SetupField::Variant => "field 1 (variant)",
            SetupField::ToMove => "field 2 (to-move)",
            SetupField::Rows => "field 3 (rows)",
            SetupField::Hands => "field 4 (hands)",
            SetupField::Nyumba => "field 5 (nyumba)",
            SetupField::Takasia => "field 6 (takasia)",
        })
    }
}

/// Why a position's text could not be parsed: the field and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct ParseSetupError {
    /// The field that is wrong.
    pub field: SetupField,
    /// What is wrong with it.
    pub message: String,
}

fn err(field: SetupField, message: impl Into<String>) -> ParseSetupError {
    ParseSetupError { field, message: message.into() }
}

/// Row labels in notation order.
const ROW_NAMES: [&str; 4] = ["A", "B", "a", "b"];

/// Parses a seed count: decimal digits, no sign, no leading zero, at most 255.
fn parse_count(text: &str, field: SetupField, what: &str) -> Result<u8, ParseSetupError> {
    let valid_digits = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    if !valid_digits {
        return Err(err(field, format!("{what}: {text:?} is not a seed count (digits, no leading zeros)")));
    }
    text.parse::<u8>().map_err(|_| err(field, format!("{what}: {text} is more than 255 seeds")))
}

impl FromStr for Setup {
    type Err = ParseSetupError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let fields: Vec<&str> = s.split(' ').collect();
        if fields.len() != 6 {
            return Err(err(
                SetupField::Line,
                format!(
                    "expected 6 fields separated by single spaces \
                     (variant, to-move, rows, hands, nyumba, takasia), found {}",
                    fields.len()
                ),
            ));
        }
        if let Some(i) = fields.iter().position(|f| f.is_empty()) {
            return Err(err(SetupField::Line, format!("field {} is empty (double space?)", i + 1)));
        }
        let variant = fields[0].parse::<Variant>().map_err(|e| err(SetupField::Variant, e.to_string()))?;
        let to_move = match fields[1] {
            "S" => Side::South,
            "N" => Side::North,
            other => return Err(err(SetupField::ToMove, format!("expected S or N, found {other:?}"))),
        };

        let row_texts: Vec<&str> = fields[2].split('/').collect();
        if row_texts.len() != 4 {
            return Err(err(
                SetupField::Rows,
                format!("expected 4 rows separated by '/' (A/B/a/b), found {}", row_texts.len()),
            ));
        }
        let mut rows = [[0u8; 8]; 4];
        for (r, text) in row_texts.iter().enumerate() {
            let counts: Vec<&str> = text.split(',').collect();
            if counts.len() != 8 {
                return Err(err(
                    SetupField::Rows,
                    format!("row {} has {} counts, expected 8", ROW_NAMES[r], counts.len()),
                ));
            }
            for (c, count) in counts.iter().enumerate() {
                let what = format!("pit {}{}", ROW_NAMES[r], c + 1);
                rows[r][c] = parse_count(count, SetupField::Rows, &what)?;
            }
        }

        let hand_texts: Vec<&str> = fields[3].split(',').collect();
        if hand_texts.len() != 2 {
            return Err(err(
                SetupField::Hands,
                format!("expected two counts \"S,N\", found {:?}", fields[3]),
            ));
        }
        let hands = [
            parse_count(hand_texts[0], SetupField::Hands, "South's hand")?,
            parse_count(hand_texts[1], SetupField::Hands, "North's hand")?,
        ];

        let nyumba = match fields[4] {
            "SN" => [true, true],
            "S-" => [true, false],
            "-N" => [false, true],
            "--" => [false, false],
            other => {
                return Err(err(SetupField::Nyumba, format!("expected SN, S-, -N or --, found {other:?}")));
            }
        };

        let takasia = match fields[5] {
            "-" => None,
            text => {
                let b = text.as_bytes();
                let row = match b.first() {
                    Some(b'A') => Row::Front,
                    Some(b'B') => Row::Back,
                    _ => {
                        return Err(err(
                            SetupField::Takasia,
                            format!("expected - or a pit such as A3, found {text:?}"),
                        ));
                    }
                };
                let col = match b.get(1) {
                    Some(d @ b'1'..=b'8') if b.len() == 2 => d - b'0',
                    _ => {
                        return Err(err(
                            SetupField::Takasia,
                            format!("expected - or a pit such as A3, found {text:?}"),
                        ));
                    }
                };
                Pit::new(row, col)
            }
        };

        Ok(Setup { variant, to_move, rows, hands, nyumba, takasia })
    }
}

fn write_counts(f: &mut fmt::Formatter<'_>, counts: &[u8]) -> fmt::Result {
    for (i, c) in counts.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{c}")?;
    }
    Ok(())
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} ", self.variant, self.to_move)?;
        for (i, row) in self.rows.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            write_counts(f, row)?;
        }
        write!(f, " {},{} ", self.hands[0], self.hands[1])?;
        f.write_str(match self.nyumba {
            [true, true] => "SN",
            [true, false] => "S-",
            [false, true] => "-N",
            [false, false] => "--",
        })?;
        match self.takasia {
            Some(pit) => write!(f, " {pit}"),
            None => f.write_str(" -"),
        }
    }
}
