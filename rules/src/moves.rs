use std::fmt;
use std::str::FromStr;

use crate::{Direction, Pit, Row};

/// A move, in the mover's own perspective: the pit, the direction, and
/// whether a namua capture goes on safari at the functional nyumba.
///
/// A `Move` is plain data; whether it is legal depends on a position
/// ([`crate::Position::play`] checks, [`crate::Position::legal_moves`] lists).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    pit: Pit,
    dir: Direction,
    safari: bool,
}

impl Move {
    /// A move from `pit` in `dir`, with or without safari.
    #[must_use]
    pub const fn new(pit: Pit, dir: Direction, safari: bool) -> Move {
        Move { pit, dir, safari }
    }

    /// For namua: the pit the seed goes into. For mtaji: the pit lifted.
    #[must_use]
    pub const fn pit(self) -> Pit {
        self.pit
    }

    /// For a namua capture: the direction the captured seeds are sown.
    /// Otherwise: the direction of the first lap.
    #[must_use]
    pub const fn direction(self) -> Direction {
        self.dir
    }

    /// Whether the move goes on safari (`+`).
    #[must_use]
    pub const fn safari(self) -> bool {
        self.safari
    }

    /// The move without the safari flag.
    #[must_use]
    pub(crate) const fn without_safari(self) -> Move {
        Move { safari: false, ..self }
    }
}

/// The canonical notation: `A5<`, `B3>`, `A6>+`, always upper case.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.pit, self.dir)?;
        if self.safari {
            f.write_str("+")?;
        }
        Ok(())
    }
}

/// A list of moves that never allocates: a position has at most 32 legal moves
/// (16 pits × 2 directions in mtaji; 8 pits × 2 directions × safari in namua).
pub type MoveList = arrayvec::ArrayVec<Move, 32>;

/// A move as written, before it is checked against a position.
///
/// Parsing keeps the case of the row letter so that printing gives back the
/// same text; [`MoveText::to_move`] accepts a lower-case row only for North.
/// The pit is always a real pit: a `MoveText` is made by parsing or by
/// [`MoveText::new`] from a [`Pit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MoveText {
    pit: Pit,
    dir: Direction,
    safari: bool,
    lower_case: bool,
}

impl MoveText {
    /// The text of a move from `pit` in `dir`, with `+` if `safari`, and the
    /// row in lower case if `lower_case` (as North's game records write it).
    #[must_use]
    pub const fn new(pit: Pit, dir: Direction, safari: bool, lower_case: bool) -> MoveText {
        MoveText { pit, dir, safari, lower_case }
    }

    /// The pit written.
    #[must_use]
    pub const fn pit(&self) -> Pit {
        self.pit
    }

    /// The row written.
    #[must_use]
    pub const fn row(&self) -> Row {
        self.pit.row()
    }

    /// The column written, 1..=8.
    #[must_use]
    pub const fn col(&self) -> u8 {
        self.pit.col()
    }

    /// The direction written.
    #[must_use]
    pub const fn direction(&self) -> Direction {
        self.dir
    }

    /// Whether `+` was written.
    #[must_use]
    pub const fn safari(&self) -> bool {
        self.safari
    }

    /// Whether the row was written in lower case (`a5<`, North's records).
    #[must_use]
    pub const fn lower_case(&self) -> bool {
        self.lower_case
    }

    /// The move this text names, without checking legality (nor the case of
    /// the row: see [`MoveText::to_move`]).
    #[must_use]
    pub const fn to_move_unchecked(&self) -> Move {
        Move::new(self.pit, self.dir, self.safari)
    }
}

/// The text of `m` as [`Move`]'s `Display` writes it (upper case).
impl From<Move> for MoveText {
    fn from(m: Move) -> MoveText {
        MoveText::new(m.pit(), m.direction(), m.safari(), false)
    }
}

impl fmt::Display for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let letter = self.row().letter();
        let letter = if self.lower_case { letter.to_ascii_lowercase() } else { letter };
        write!(f, "{letter}{}{}", self.col(), self.dir)?;
        if self.safari {
            f.write_str("+")?;
        }
        Ok(())
    }
}

/// Why a move's text could not be parsed. Each variant names the part that is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseMoveError {
    /// The text was empty.
    #[error("empty move: expected ROW COL DIR[+], e.g. \"A5<\"")]
    Empty,
    /// The first character is not a row letter.
    #[error("bad row {0:?} in move: expected A or B (a or b for North)")]
    Row(char),
    /// The second character is not a column digit.
    #[error("bad column in move: expected a digit 1..8, found {0}")]
    Column(String),
    /// The third character is not a direction.
    #[error("bad direction in move: expected '<' or '>', found {0}")]
    Direction(String),
    /// Something follows the move.
    #[error("unexpected text {0:?} after the move: only '+' (safari) may follow the direction")]
    Trailing(String),
}

impl FromStr for MoveText {
    type Err = ParseMoveError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut chars = s.chars();
        let row_char = chars.next().ok_or(ParseMoveError::Empty)?;
        let (row, lower_case) = match row_char {
            'A' => (Row::Front, false),
            'B' => (Row::Back, false),
            'a' => (Row::Front, true),
            'b' => (Row::Back, true),
            other => return Err(ParseMoveError::Row(other)),
        };
        let pit = match chars.next() {
            Some(c) => c
                .to_digit(10)
                .and_then(|d| u8::try_from(d).ok())
                .and_then(|col| Pit::new(row, col))
                .ok_or_else(|| ParseMoveError::Column(format!("{c:?}")))?,
            None => return Err(ParseMoveError::Column("the end of the text".to_owned())),
        };
        let dir = match chars.next() {
            Some(c) => {
                Direction::from_symbol(c).ok_or_else(|| ParseMoveError::Direction(format!("{c:?}")))?
            }
            None => return Err(ParseMoveError::Direction("the end of the text".to_owned())),
        };
        let rest = chars.as_str();
        let safari = match rest {
            "" => false,
            "+" => true,
            other => return Err(ParseMoveError::Trailing(other.to_owned())),
        };
        Ok(MoveText { pit, dir, safari, lower_case })
    }
}
