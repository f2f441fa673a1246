//! A bot that plays a uniformly random legal move.

use bao_sdk::{Bot, Deadline, Identity, Info, Move, MoveList, NewGame, Position};
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

use crate::GameSeed;

/// Picks uniformly among the legal moves with a ChaCha8 generator seeded once per game:
/// the same seed and the same positions give the same moves.
#[derive(Debug, Clone)]
pub struct RandomBot {
    seeds: GameSeed,
    rng: ChaCha8Rng,
    info: Vec<Info>,
}

impl RandomBot {
    /// A random bot whose games are seeded by `seeds`.
    #[must_use]
    pub fn new(mut seeds: GameSeed) -> RandomBot {
        let (rng, info) = seeds.start_game(None);
        RandomBot { seeds, rng, info }
    }
}

impl Bot for RandomBot {
    fn identity(&self) -> Identity {
        Identity::new("random").with_author("bao-referee").with_version(env!("CARGO_PKG_VERSION"))
    }

    fn new_game(&mut self, _game: &NewGame) {
        (self.rng, self.info) = self.seeds.start_game(Some("random"));
    }

    fn choose_move(&mut self, _position: &Position, legal: &MoveList, _deadline: &Deadline) -> Move {
        *legal.choose(&mut self.rng).expect("the SDK never passes an empty list")
    }

    fn take_info(&mut self) -> Vec<Info> {
        std::mem::take(&mut self.info)
    }
}

#[cfg(test)]
mod tests {
    use bao_rules::Variant;

    use super::*;

    /// The moves the bot seeded with `seed` plays at the start, 200 times over.
    fn moves_with_seed(seed: u64) -> Vec<Move> {
        let start = Position::start(Variant::Kiswahili);
        let legal = start.legal_moves();
        let mut bot = RandomBot::new(GameSeed::new(Some(seed)));
        (0..200).map(|_| bot.choose_move(&start, &legal, &Deadline::unlimited())).collect()
    }

    #[test]
    fn plays_only_legal_moves_reproducibly_and_uses_them_all() {
        let moves = moves_with_seed(0);
        let legal = Position::start(Variant::Kiswahili).legal_moves();
        for m in &legal {
            let count = moves.iter().filter(|x| *x == m).count();
            // Uniform: expected 50 of 200; 20..80 fails with probability far below 1e-6.
            assert!((20..=80).contains(&count), "{m} played {count} times of 200");
        }
        assert_eq!(moves, moves_with_seed(0), "same seed, same moves");
        assert_ne!(moves, moves_with_seed(1), "another seed, other moves");
    }

    #[test]
    fn the_seed_is_reported_once_per_game() {
        let mut bot = RandomBot::new(GameSeed::new(Some(5)));
        assert_eq!(bot.take_info(), [Info::comment("seed 5")]);
        assert_eq!(bot.take_info(), []);
        let game = NewGame {
            side: bao_rules::Side::South,
            variant: Variant::Kiswahili,
            start: Position::start(Variant::Kiswahili),
            time_control: bao_sdk::TimeControl::move_time(100, 5000, 100),
        };
        bot.new_game(&game);
        assert_eq!(bot.take_info(), [Info::comment("seed 5")]);
    }
}
