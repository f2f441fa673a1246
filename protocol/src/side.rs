//! The two players as they appear on the wire: `"S"` and `"N"`.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One of the two players, written `"S"` (South, moves first) or `"N"` (North).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Side {
    /// South: owns rows `A` and `B`; moves first.
    #[serde(rename = "S")]
    South,
    /// North: owns rows `a` and `b`.
    #[serde(rename = "N")]
    North,
}

impl Side {
    /// `'S'` or `'N'`.
    #[must_use]
    pub const fn letter(self) -> char {
        match self {
            Side::South => 'S',
            Side::North => 'N',
        }
    }

    /// Parses `'S'` or `'N'`.
    #[must_use]
    pub const fn from_letter(letter: char) -> Option<Side> {
        match letter {
            'S' => Some(Side::South),
            'N' => Some(Side::North),
            _ => None,
        }
    }

    /// The other player.
    #[must_use]
    pub const fn opponent(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// One value for each player, written `{"S": ..., "N": ...}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct PerSide<T> {
    /// South's value.
    #[serde(rename = "S")]
    pub south: T,
    /// North's value.
    #[serde(rename = "N")]
    pub north: T,
}

impl<T> PerSide<T> {
    /// The value of `side`.
    #[must_use]
    pub const fn get(&self, side: Side) -> &T {
        match side {
            Side::South => &self.south,
            Side::North => &self.north,
        }
    }
}
