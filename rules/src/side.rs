use std::fmt;
use std::str::FromStr;

/// One of the two players. South moves first in both variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// Owns rows A (front) and B (back).
    South,
    /// Owns rows a (front) and b (back).
    North,
}

impl Side {
    /// Both sides, South first.
    pub const ALL: [Side; 2] = [Side::South, Side::North];

    /// The other player.
    #[must_use]
    pub const fn opponent(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// 0 for South, 1 for North: the index used in per-side arrays.
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The letter used in position notation: `S` or `N`.
    #[must_use]
    pub const fn letter(self) -> char {
        match self {
            Side::South => 'S',
            Side::North => 'N',
        }
    }

    /// The side's name for people: `South` or `North`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Side::South => "South",
            Side::North => "North",
        }
    }

    /// Parses `S` or `N`.
    #[must_use]
    pub fn from_letter(c: char) -> Option<Side> {
        match c {
            'S' => Some(Side::South),
            'N' => Some(Side::North),
            _ => None,
        }
    }

    /// Parses exactly `"S"` or `"N"`, the letter as text (as logs and journals write a side;
    /// none of the other spellings [`FromStr`] accepts).
    #[must_use]
    pub fn from_letter_text(text: &str) -> Option<Side> {
        match text {
            "S" => Some(Side::South),
            "N" => Some(Side::North),
            _ => None,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// The error of parsing a side.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown side {0:?}: expected \"S\" or \"N\" (or \"south\", \"north\")")]
pub struct ParseSideError(pub String);

impl FromStr for Side {
    type Err = ParseSideError;

    /// Parses `S` or `N` (the position notation's letters), or `south` or
    /// `north` (any case).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "S" => Ok(Side::South),
            "N" => Ok(Side::North),
            _ if s.eq_ignore_ascii_case("south") => Ok(Side::South),
            _ if s.eq_ignore_ascii_case("north") => Ok(Side::North),
            _ => Err(ParseSideError(s.to_owned())),
        }
    }
}

/// With serde a side is its letter, `"S"` or `"N"`.
impl serde::Serialize for Side {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(match self {
            Side::South => "S",
            Side::North => "N",
        })
    }
}

/// Accepts what [`Side`]'s `FromStr` accepts.
impl<'de> serde::Deserialize<'de> for Side {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
