use std::fmt;

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

    /// Parses `S` or `N`.
    #[must_use]
    pub fn from_letter(c: char) -> Option<Side> {
        match c {
            'S' => Some(Side::South),
            'N' => Some(Side::North),
            _ => None,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}
