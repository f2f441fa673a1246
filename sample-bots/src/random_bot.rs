//! A bot that plays a uniformly random legal move.

use bao_protocol::MoveRequest;
use bao_protocol::sdk::{Bot, Identity, InfoSink};
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

/// The seed used when none is given.
pub const DEFAULT_SEED: u64 = 0;

/// Picks uniformly among the referee's `legal` list, with a seeded ChaCha8 generator:
/// the same seed and the same requests give the same moves.
#[derive(Debug, Clone)]
pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl RandomBot {
    /// A random bot seeded with `seed`.
    #[must_use]
    pub fn new(seed: u64) -> RandomBot {
        RandomBot { rng: ChaCha8Rng::seed_from_u64(seed) }
    }
}

impl Bot for RandomBot {
    fn identity(&self) -> Identity {
        Identity::new("random").with_author("bao-referee").with_version(env!("CARGO_PKG_VERSION"))
    }

    /// A random entry of `legal`. The referee never sends an empty list; if it did, the
    /// empty answer would be judged an illegal move.
    fn choose_move(&mut self, request: &MoveRequest, _info: &mut InfoSink<'_>) -> String {
        request.legal.choose(&mut self.rng).cloned().unwrap_or_default()
    }
}
