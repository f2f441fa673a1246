//! The result of a finished game.

use bao_rules::Side;

stored_text! {
    /// Who won a finished game.
    pub enum GameResult ("game result") {
        /// South won.
        South = "south",
        /// North won.
        North = "north",
        /// Neither.
        Draw = "draw",
    }
}

impl GameResult {
    /// The result of a game won by `winner` (a draw without one).
    #[must_use]
    pub const fn of_winner(winner: Option<Side>) -> GameResult {
        match winner {
            Some(Side::South) => GameResult::South,
            Some(Side::North) => GameResult::North,
            None => GameResult::Draw,
        }
    }

    /// The score of the player on `side`: 1, ½ or 0.
    #[must_use]
    pub const fn score_of(self, side: Side) -> f64 {
        match (self, side) {
            (GameResult::Draw, _) => 0.5,
            (GameResult::South, Side::South) | (GameResult::North, Side::North) => 1.0,
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_and_winners() {
        assert_eq!(GameResult::of_winner(Some(Side::North)), GameResult::North);
        assert_eq!(GameResult::of_winner(None), GameResult::Draw);
        assert!((GameResult::South.score_of(Side::South) - 1.0).abs() < f64::EPSILON);
        assert!(GameResult::South.score_of(Side::North).abs() < f64::EPSILON);
        assert!((GameResult::Draw.score_of(Side::North) - 0.5).abs() < f64::EPSILON);
        assert!("tie".parse::<GameResult>().is_err());
    }
}
