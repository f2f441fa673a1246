//! The checker's own opponent: a seeded random player built on the rules engine, so that the
//! games of the checks need only the bot under test.

use bao_rules::{Move, Position};
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

/// Plays a uniformly random legal move, reproducibly for a seed (like the `random` sample bot).
#[derive(Debug, Clone)]
pub struct RandomOpponent {
    rng: ChaCha8Rng,
}

impl RandomOpponent {
    /// An opponent seeded with `seed`.
    #[must_use]
    pub fn new(seed: u64) -> RandomOpponent {
        RandomOpponent { rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    /// A legal move in `position`, or `None` when the player to move has none.
    pub fn choose(&mut self, position: &Position) -> Option<Move> {
        position.legal_moves().choose(&mut self.rng).copied()
    }
}

#[cfg(test)]
mod tests {
    use bao_rules::Variant;

    use super::*;

    #[test]
    fn plays_legal_moves_reproducibly() {
        let play = |seed: u64| {
            let mut opponent = RandomOpponent::new(seed);
            let mut position = Position::start(Variant::Kiswahili);
            let mut moves = Vec::new();
            for _ in 0..30 {
                let Some(mv) = opponent.choose(&position) else { break };
                let (next, outcome) = position.play(mv).expect("the opponent plays legal moves");
                moves.push(mv);
                position = next;
                if outcome.is_over() {
                    break;
                }
            }
            moves
        };
        assert!(!play(1).is_empty());
        assert_eq!(play(1), play(1));
        assert_ne!(play(1), play(2));
    }
}
