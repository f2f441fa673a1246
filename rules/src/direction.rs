use std::fmt;

/// A sowing direction, in the mover's own perspective.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// `<`: leftwards along the mover's own front row (A8 → A7 → … → A1 → B1 → …).
    AntiClockwise,
    /// `>`: rightwards along the mover's own front row (A1 → A2 → … → A8 → B8 → …).
    Clockwise,
}

impl Direction {
    /// Both directions, in byte order of their symbols (`<` before `>`).
    pub const ALL: [Direction; 2] = [Direction::AntiClockwise, Direction::Clockwise];

    /// `<` or `>`.
    #[must_use]
    pub const fn symbol(self) -> char {
        match self {
            Direction::AntiClockwise => '<',
            Direction::Clockwise => '>',
        }
    }

    /// Parses `<` or `>`.
    #[must_use]
    pub fn from_symbol(c: char) -> Option<Direction> {
        match c {
            '<' => Some(Direction::AntiClockwise),
            '>' => Some(Direction::Clockwise),
            _ => None,
        }
    }

    /// The other direction.
    #[must_use]
    pub const fn reversed(self) -> Direction {
        match self {
            Direction::AntiClockwise => Direction::Clockwise,
            Direction::Clockwise => Direction::AntiClockwise,
        }
    }

    /// The step along a player's ring of 16 pits, as an addend modulo 16.
    pub(crate) const fn step(self) -> usize {
        match self {
            Direction::Clockwise => 1,
            Direction::AntiClockwise => 15,
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}
