//! Why a game was played.

stored_text! {
    /// Why a game was played.
    pub enum Purpose ("game purpose") {
        /// A rated game between active versions.
        Ladder = "ladder",
        /// One of a new version's first, rated games.
        Placement = "placement",
        /// A candidate against its baseline, for its SPRT only (not rated).
        Candidate = "candidate",
    }
}

impl Purpose {
    /// Whether the game counts for the ratings and the ladder's statistics.
    #[must_use]
    pub const fn is_rated(self) -> bool {
        !matches!(self, Purpose::Candidate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidate_games_are_not_rated() {
        assert!(Purpose::Ladder.is_rated() && Purpose::Placement.is_rated());
        assert!(!Purpose::Candidate.is_rated());
        assert_eq!("placement".parse(), Ok(Purpose::Placement));
        assert!("friendly".parse::<Purpose>().is_err());
    }
}
