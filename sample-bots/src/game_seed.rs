//! Seeds per game: fresh from the operating system for every game, unless fixed.

use bao_sdk::Info;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Where each game's seed comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameSeed {
    fixed: Option<u64>,
}

impl GameSeed {
    /// `Some(seed)`: every game uses `seed` (reproducible); `None`: a fresh seed per game.
    #[must_use]
    pub const fn new(fixed: Option<u64>) -> GameSeed {
        GameSeed { fixed }
    }

    /// The fixed seed, if any.
    #[must_use]
    pub const fn fixed(&self) -> Option<u64> {
        self.fixed
    }

    /// The seed of the next game.
    pub fn next_game(&mut self) -> u64 {
        self.fixed.unwrap_or_else(|| rand::rng().random())
    }

    /// The next game's generator, and the `info` lines to send with its first move (the
    /// comment `seed N`). With `bot`, the seed is also printed on stderr (`bot: seed N`).
    pub fn start_game(&mut self, bot: Option<&str>) -> (ChaCha8Rng, Vec<Info>) {
        let seed = self.next_game();
        if let Some(bot) = bot {
            eprintln!("{bot}: seed {seed}");
        }
        (ChaCha8Rng::seed_from_u64(seed), vec![Info::comment(format!("seed {seed}"))])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_seed_repeats_and_fresh_seeds_differ() {
        let mut fixed = GameSeed::new(Some(9));
        assert_eq!((fixed.next_game(), fixed.next_game()), (9, 9));
        let mut fresh = GameSeed::new(None);
        let seeds: Vec<u64> = (0..4).map(|_| fresh.next_game()).collect();
        // Four equal 64-bit draws from the OS generator: probability 2^-192.
        assert!(seeds.windows(2).any(|w| w[0] != w[1]), "{seeds:?}");
    }
}
