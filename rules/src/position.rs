use std::fmt;
use std::str::FromStr;

use crate::{MAX_SEEDS, ParseSetupError, Pit, Setup, Side, Variant};

/// The stage a player is in at the start of their move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Seeds in hand: each move puts one seed from hand on the board.
    Namua,
    /// No seeds in hand: moves lift seeds from the board.
    Mtaji,
}

impl Stage {
    /// `namua` or `mtaji`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Stage::Namua => "namua",
            Stage::Mtaji => "mtaji",
        }
    }
}

/// A validated position: the board, hands, nyumba ownership, takasia, the
/// variant and the player to move.
///
/// Pits are stored per side on the sowing ring (see [`Pit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) variant: Variant,
    pub(crate) to_move: Side,
    /// `pits[side][ring index]`.
    pub(crate) pits: [[u8; 16]; 2],
    pub(crate) hands: [u8; 2],
    pub(crate) nyumba: [bool; 2],
    pub(crate) takasia: Option<Pit>,
}

/// Why a text or a [`Setup`] is not a valid position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The text could not be parsed.
    #[error(transparent)]
    Parse(#[from] ParseSetupError),
    /// More seeds than [`MAX_SEEDS`].
    #[error("the position holds {0} seeds in all; at most {MAX_SEEDS} are supported")]
    TooManySeeds(u32),
    /// A kujifunza position with seeds in hand.
    #[error("field 4 (hands): a kujifunza position has no seeds in hand (0,0)")]
    KujifunzaHands,
    /// A kujifunza position with an owned nyumba.
    #[error("field 5 (nyumba): a kujifunza position has no nyumba (--)")]
    KujifunzaNyumba,
    /// A kujifunza position with takasia.
    #[error("field 6 (takasia): a kujifunza position has no takasia (-)")]
    KujifunzaTakasia,
    /// Takasia for a player who still has seeds in hand.
    #[error("field 6 (takasia): takasia applies only to a player to move with no seeds in hand")]
    TakasiaInNamua,
    /// Takasia on a back pit.
    #[error("field 6 (takasia): {0} is a back pit; only a front pit can be under takasia")]
    TakasiaBackRow(Pit),
    /// Both front rows empty: not a game position.
    #[error("field 3 (rows): both front rows are empty")]
    BothFrontRowsEmpty,
}

impl TryFrom<Setup> for Position {
    type Error = PositionError;

    fn try_from(setup: Setup) -> Result<Self, Self::Error> {
        let total: u32 = setup.rows.iter().flatten().map(|&c| u32::from(c)).sum::<u32>()
            + setup.hands.iter().map(|&h| u32::from(h)).sum::<u32>();
        if total > MAX_SEEDS {
            return Err(PositionError::TooManySeeds(total));
        }
        if setup.variant == Variant::Kujifunza {
            if setup.hands != [0, 0] {
                return Err(PositionError::KujifunzaHands);
            }
            if setup.nyumba != [false, false] {
                return Err(PositionError::KujifunzaNyumba);
            }
            if setup.takasia.is_some() {
                return Err(PositionError::KujifunzaTakasia);
            }
        }
        if let Some(t) = setup.takasia {
            if !t.is_front() {
                return Err(PositionError::TakasiaBackRow(t));
            }
            if setup.hands[setup.to_move.index()] != 0 {
                return Err(PositionError::TakasiaInNamua);
            }
        }
        let mut pits = [[0u8; 16]; 2];
        for side in Side::ALL {
            let front = setup.rows[2 * side.index()];
            let back = setup.rows[2 * side.index() + 1];
            for col in 1..=8u8 {
                let c = usize::from(col - 1);
                pits[side.index()][c] = front[c];
                pits[side.index()][16 - usize::from(col)] = back[c];
            }
        }
        let position = Position {
            variant: setup.variant,
            to_move: setup.to_move,
            pits,
            hands: setup.hands,
            nyumba: setup.nyumba,
            takasia: setup.takasia,
        };
        if position.front_row_empty(Side::South) && position.front_row_empty(Side::North) {
            return Err(PositionError::BothFrontRowsEmpty);
        }
        Ok(position)
    }
}

impl FromStr for Position {
    type Err = PositionError;

    /// Parses and validates a position in the notation of RULES.md section 11.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Position::try_from(s.parse::<Setup>()?)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_setup().fmt(f)
    }
}

impl Position {
    /// The start position of `variant`, South to move.
    #[must_use]
    pub fn start(variant: Variant) -> Position {
        let mut pits = [[0u8; 16]; 2];
        let (hands, nyumba) = match variant {
            Variant::Kiswahili => {
                for side in &mut pits {
                    side[4] = 6;
                    side[5] = 2;
                    side[6] = 2;
                }
                ([22, 22], [true, true])
            }
            Variant::Kujifunza => {
                pits = [[2; 16]; 2];
                ([0, 0], [false, false])
            }
        };
        Position { variant, to_move: Side::South, pits, hands, nyumba, takasia: None }
    }

    /// The plain parsed form of this position.
    #[must_use]
    pub fn to_setup(&self) -> Setup {
        let mut rows = [[0u8; 8]; 4];
        for side in Side::ALL {
            rows[2 * side.index()] = self.front_row(side);
            rows[2 * side.index() + 1] = self.back_row(side);
        }
        Setup {
            variant: self.variant,
            to_move: self.to_move,
            rows,
            hands: self.hands,
            nyumba: self.nyumba,
            takasia: self.takasia,
        }
    }

    /// The variant being played.
    #[must_use]
    pub const fn variant(&self) -> Variant {
        self.variant
    }

    /// The player to move.
    #[must_use]
    pub const fn side_to_move(&self) -> Side {
        self.to_move
    }

    /// The number of seeds in `pit` of `side` (in that side's own perspective).
    #[must_use]
    pub const fn count(&self, side: Side, pit: Pit) -> u8 {
        self.pits[side.index()][pit.index()]
    }

    /// `side`'s front row, columns 1..8 in its own numbering.
    #[must_use]
    pub fn front_row(&self, side: Side) -> [u8; 8] {
        let mut row = [0; 8];
        row.copy_from_slice(&self.pits[side.index()][..8]);
        row
    }

    /// `side`'s back row, columns 1..8 in its own numbering (B1 first).
    #[must_use]
    pub fn back_row(&self, side: Side) -> [u8; 8] {
        let ring = &self.pits[side.index()];
        std::array::from_fn(|c| ring[15 - c])
    }

    /// Seeds in `side`'s hand.
    #[must_use]
    pub const fn hand(&self, side: Side) -> u8 {
        self.hands[side.index()]
    }

    /// Whether `side` still owns their nyumba.
    #[must_use]
    pub const fn owns_nyumba(&self, side: Side) -> bool {
        self.nyumba[side.index()]
    }

    /// The pit of the player to move that is under takasia, if any.
    #[must_use]
    pub const fn takasia(&self) -> Option<Pit> {
        self.takasia
    }

    /// The stage of `side`: namua while they have seeds in hand.
    #[must_use]
    pub const fn stage(&self, side: Side) -> Stage {
        if self.hands[side.index()] > 0 { Stage::Namua } else { Stage::Mtaji }
    }

    /// Whether `side`'s front row holds no seeds.
    #[must_use]
    pub fn front_row_empty(&self, side: Side) -> bool {
        self.pits[side.index()][..8].iter().all(|&c| c == 0)
    }

    /// All seeds on the board and in hand.
    #[must_use]
    pub fn total_seeds(&self) -> u32 {
        self.pits.iter().flatten().map(|&c| u32::from(c)).sum::<u32>()
            + self.hands.iter().map(|&h| u32::from(h)).sum::<u32>()
    }

    /// Whether the position is finished because a front row is empty.
    /// Returns the winner's outcome if so.
    pub(crate) fn front_row_outcome(&self) -> Option<crate::Outcome> {
        for loser in Side::ALL {
            if self.front_row_empty(loser) {
                return Some(crate::Outcome::Win {
                    winner: loser.opponent(),
                    reason: crate::WinReason::FrontRowEmpty,
                });
            }
        }
        None
    }

    /// The state of the game here: won if a front row is empty or the player
    /// to move has no legal move, ongoing otherwise.
    #[must_use]
    pub fn outcome(&self) -> crate::Outcome {
        if let Some(outcome) = self.front_row_outcome() {
            return outcome;
        }
        if self.has_legal_move() {
            crate::Outcome::Ongoing
        } else {
            crate::Outcome::Win { winner: self.to_move.opponent(), reason: crate::WinReason::NoLegalMoves }
        }
    }
}
