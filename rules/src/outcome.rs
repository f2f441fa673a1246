use std::fmt;

use crate::Side;

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WinReason {
    /// The winner emptied the loser's front row.
    FrontRowEmpty,
    /// The loser, to move, had no legal move.
    NoLegalMoves,
}

impl WinReason {
    /// `front_row_empty` or `no_legal_moves`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            WinReason::FrontRowEmpty => "front_row_empty",
            WinReason::NoLegalMoves => "no_legal_moves",
        }
    }
}

impl fmt::Display for WinReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The state of a game at a position: going on, or won. The rules have no draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The side to move has a legal move.
    Ongoing,
    /// The game is over.
    Win {
        /// Who won.
        winner: Side,
        /// Why.
        reason: WinReason,
    },
}

impl Outcome {
    /// Whether the game is over.
    #[must_use]
    pub const fn is_over(self) -> bool {
        matches!(self, Outcome::Win { .. })
    }
}

/// `ongoing`, or `S wins (front_row_empty)` and the like.
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Ongoing => f.write_str("ongoing"),
            Outcome::Win { winner, reason } => write!(f, "{winner} wins ({reason})"),
        }
    }
}
