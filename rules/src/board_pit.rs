//! A pit of the board named absolutely: its owner and the pit in the owner's
//! perspective (`A1..B8` for South, `a1..b8` for North).

use std::fmt;
use std::str::FromStr;

use crate::{Pit, Row, Side};

/// One of the board's 32 pits: the side that owns it and the pit in that
/// side's own perspective.
///
/// Unlike a [`Pit`], which is always relative to a player (the notation of a
/// move), a `BoardPit` names the same pit whoever is to move. It prints in the
/// game-record notation of `docs/rules.md`: `A1`..`B8` for South's pits and
/// `a1`..`b8` (lower case) for North's. With serde it is that string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BoardPit {
    side: Side,
    pit: Pit,
}

impl BoardPit {
    /// `side`'s pit `pit` (in `side`'s own perspective).
    #[must_use]
    pub const fn new(side: Side, pit: Pit) -> BoardPit {
        BoardPit { side, pit }
    }

    /// The side that owns the pit.
    #[must_use]
    pub const fn side(self) -> Side {
        self.side
    }

    /// The pit in its owner's perspective.
    #[must_use]
    pub const fn pit(self) -> Pit {
        self.pit
    }
}

/// `A1`..`B8` for South, `a1`..`b8` for North.
impl fmt::Display for BoardPit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let letter = self.pit.row().letter();
        let letter = match self.side {
            Side::South => letter,
            Side::North => letter.to_ascii_lowercase(),
        };
        write!(f, "{letter}{}", self.pit.col())
    }
}

/// Why a text is not an absolute pit name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad pit {0:?}: expected A1..B8 (South) or a1..b8 (North)")]
pub struct ParseBoardPitError(pub String);

impl FromStr for BoardPit {
    type Err = ParseBoardPitError;

    /// Parses `A1`..`B8` (South) or `a1`..`b8` (North).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || ParseBoardPitError(s.to_owned());
        let &[row, col] = s.as_bytes() else { return Err(bad()) };
        let (side, row) = match row {
            b'A' => (Side::South, Row::Front),
            b'B' => (Side::South, Row::Back),
            b'a' => (Side::North, Row::Front),
            b'b' => (Side::North, Row::Back),
            _ => return Err(bad()),
        };
        let pit = Pit::new(row, col.wrapping_sub(b'0')).ok_or_else(bad)?;
        Ok(BoardPit { side, pit })
    }
}

impl serde::Serialize for BoardPit {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for BoardPit {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
