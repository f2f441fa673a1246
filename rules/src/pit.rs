use std::fmt;

/// A row of a player's own half of the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Row {
    /// Row `A` (South) or `a` (North): faces the opponent.
    Front,
    /// Row `B` (South) or `b` (North).
    Back,
}

impl Row {
    /// `A` or `B`, the letter in the mover's notation.
    #[must_use]
    pub const fn letter(self) -> char {
        match self {
            Row::Front => 'A',
            Row::Back => 'B',
        }
    }
}

/// One of a player's 16 pits, in that player's own perspective.
///
/// Internally a pit is its index on the player's sowing ring:
/// A1..A8 are 0..7 and B8..B1 are 8..15, so that clockwise (`>`) sowing
/// is +1 modulo 16.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pit(u8);

impl Pit {
    /// The nyumba (house): front pit 5.
    pub const NYUMBA: Pit = Pit(4);
    /// The left kichwa, A1.
    pub const LEFT_KICHWA: Pit = Pit(0);
    /// The right kichwa, A8.
    pub const RIGHT_KICHWA: Pit = Pit(7);

    /// The pit in `row` at column `col` (1..=8, from the owner's left).
    /// Returns `None` for a column outside 1..=8.
    #[must_use]
    pub const fn new(row: Row, col: u8) -> Option<Pit> {
        if col < 1 || col > 8 {
            return None;
        }
        Some(match row {
            Row::Front => Pit(col - 1),
            Row::Back => Pit(16 - col),
        })
    }

    /// The pit at ring index `index` (0..16). Returns `None` past 15.
    #[must_use]
    pub const fn from_index(index: u8) -> Option<Pit> {
        if index < 16 { Some(Pit(index)) } else { None }
    }

    /// The pit at ring index `index` modulo 16 (for indices known to be in range).
    #[expect(clippy::cast_possible_truncation, reason = "masked to 0..16")]
    pub(crate) const fn from_ring(index: usize) -> Pit {
        Pit((index & 15) as u8)
    }

    /// The ring index (A1..A8 = 0..7, B8..B1 = 8..15).
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The pit's row.
    #[must_use]
    pub const fn row(self) -> Row {
        if self.0 < 8 { Row::Front } else { Row::Back }
    }

    /// The pit's column, 1..=8 from its owner's left.
    #[must_use]
    pub const fn col(self) -> u8 {
        if self.0 < 8 { self.0 + 1 } else { 16 - self.0 }
    }

    /// Whether the pit is in the front row.
    #[must_use]
    pub const fn is_front(self) -> bool {
        self.0 < 8
    }

    /// For a front pit, the opponent's front pit it faces (`A_k` faces `a_(9-k)`).
    #[must_use]
    pub const fn facing(self) -> Option<Pit> {
        if self.0 < 8 { Some(Pit(7 - self.0)) } else { None }
    }
}

impl fmt::Display for Pit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.row().letter(), self.col())
    }
}
