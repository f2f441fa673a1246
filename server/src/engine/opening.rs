//! The shared random opening of a pair of games: a number of uniformly random
//! legal plies from the start position, from the pair's seed.
//!
//! It is opening 0 of [`bao_game::opening::random_opening`], the one generator
//! that `bao-referee tournament` draws from too: a pair with seed `s` starts
//! where a tournament run with `--seed s --openings random:PLIES` starts its
//! first game pair.

use bao_game::opening::NoRandomOpening;
use bao_rules::{Position, Variant};

/// The position after `plies` random legal plies from the start, from `seed`
/// (the start itself for 0 plies).
///
/// # Errors
/// When no draw of that many plies leaves a game to play: never a silent
/// start position.
pub fn random_opening(variant: Variant, plies: u32, seed: u64) -> Result<Position, NoRandomOpening> {
    bao_game::opening::random_opening(&Position::start(variant), plies, seed, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bao_rules::Outcome;

    #[test]
    fn openings_depend_only_on_the_seed_and_are_legal_and_ongoing() {
        let a = random_opening(Variant::Kiswahili, 4, 7).unwrap();
        assert_eq!(a, random_opening(Variant::Kiswahili, 4, 7).unwrap());
        assert_eq!(a.outcome(), Outcome::Ongoing);
        assert_ne!(a, Position::start(Variant::Kiswahili));
        let distinct: std::collections::HashSet<String> =
            (0..20).map(|s| random_opening(Variant::Kiswahili, 4, s).unwrap().to_string()).collect();
        assert!(distinct.len() > 10, "{}", distinct.len());
        assert_eq!(random_opening(Variant::Kujifunza, 0, 1), Ok(Position::start(Variant::Kujifunza)));
    }
}
