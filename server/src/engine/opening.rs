//! The shared random opening of a pair of games: a number of uniformly random
//! legal plies from the start position, from a seed.

use bao_rules::{Outcome, Position, Variant};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The position after `plies` random legal plies from the start, from `seed`.
/// If a line ends the game early, the next seed is tried (at most 100 times;
/// then the start position is used).
#[must_use]
pub fn random_opening(variant: Variant, plies: u32, seed: u64) -> Position {
    'seeds: for attempt in 0..100u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(attempt));
        let mut position = Position::start(variant);
        for _ in 0..plies {
            let moves = position.legal_moves();
            if moves.is_empty() {
                continue 'seeds;
            }
            let m = moves[rng.random_range(0..moves.len())];
            match position.play(m) {
                Ok((next, Outcome::Ongoing)) => position = next,
                _ => continue 'seeds,
            }
        }
        return position;
    }
    Position::start(variant)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_depend_only_on_the_seed_and_are_legal_and_ongoing() {
        let a = random_opening(Variant::Kiswahili, 4, 7);
        assert_eq!(a, random_opening(Variant::Kiswahili, 4, 7));
        assert_eq!(a.outcome(), Outcome::Ongoing);
        assert_ne!(a, Position::start(Variant::Kiswahili));
        let distinct: std::collections::HashSet<String> =
            (0..20).map(|s| random_opening(Variant::Kiswahili, 4, s).to_string()).collect();
        assert!(distinct.len() > 10, "{}", distinct.len());
        assert_eq!(random_opening(Variant::Kujifunza, 0, 1), Position::start(Variant::Kujifunza));
    }
}
