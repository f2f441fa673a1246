//! Random openings: a number of uniformly random legal plies from a start position, drawn from
//! a seed. The one generator of the workspace: `bao-referee tournament` (its `random:PLIES`
//! openings) and the competition server (each pair's opening) both draw here, so the same seed
//! gives the same openings everywhere.
//!
//! Opening `index` depends only on the start, the ply count, the seed and `index`: its generator
//! is ChaCha8 seeded with the seed, on stream `index`. Tournament plans and journals on disk
//! rely on this; changing the algorithm changes the openings of every resumed tournament.

use bao_rules::Position;
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

/// How many times a random opening is redrawn (on the same generator) when the plies end the game.
pub const RANDOM_ATTEMPTS: u32 = 1000;

/// No random opening could be drawn: every attempt ended the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "no sequence of {plies} random plies from the start leaves a game to play (tried {RANDOM_ATTEMPTS} times)"
)]
pub struct NoRandomOpening {
    /// The ply count asked for.
    pub plies: u32,
}

/// Opening `index` of `seed`: `plies` uniformly random legal plies from `start`, redrawn (on the
/// same generator) while they end the game. With `plies` 0 it is `start` itself.
///
/// # Errors
/// When every one of [`RANDOM_ATTEMPTS`] attempts ends the game: never a silent start position.
pub fn random_opening(
    start: &Position,
    plies: u32,
    seed: u64,
    index: u32,
) -> Result<Position, NoRandomOpening> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(u64::from(index));
    'attempt: for _ in 0..RANDOM_ATTEMPTS {
        let mut position = *start;
        for _ in 0..plies {
            let moves = position.legal_moves();
            let Some(&mv) = moves.choose(&mut rng) else { continue 'attempt };
            let Ok((next, _)) = position.play(mv) else { continue 'attempt };
            position = next;
        }
        if !position.outcome().is_over() {
            return Ok(position);
        }
    }
    Err(NoRandomOpening { plies })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bao_rules::Variant;

    fn start() -> Position {
        Position::start(Variant::Kiswahili)
    }

    #[test]
    fn an_opening_depends_only_on_seed_and_index() {
        let a = random_opening(&start(), 6, 42, 3).unwrap();
        assert_eq!(a, random_opening(&start(), 6, 42, 3).unwrap());
        assert!(!a.outcome().is_over());
        assert_ne!(a, start());
        let distinct: std::collections::HashSet<String> =
            (0..20).map(|j| random_opening(&start(), 6, 42, j).unwrap().to_string()).collect();
        assert!(distinct.len() > 10, "openings vary by index: {} distinct of 20", distinct.len());
        let by_seed: std::collections::HashSet<String> =
            (0..20).map(|s| random_opening(&start(), 6, s, 0).unwrap().to_string()).collect();
        assert!(by_seed.len() > 10, "openings vary by seed: {} distinct of 20", by_seed.len());
    }

    #[test]
    fn zero_plies_is_the_start_and_an_impossible_draw_is_an_error() {
        let kujifunza = Position::start(Variant::Kujifunza);
        assert_eq!(random_opening(&kujifunza, 0, 1, 0), Ok(kujifunza));
        // A finished game: no number of plies leaves a game to play.
        let over: Position = finished_position();
        assert!(over.outcome().is_over());
        let err = random_opening(&over, 0, 1, 0).unwrap_err();
        assert_eq!(err, NoRandomOpening { plies: 0 });
        assert!(err.to_string().contains("tried 1000 times"), "{err}");
        assert_eq!(random_opening(&over, 3, 1, 0), Err(NoRandomOpening { plies: 3 }));
    }

    /// A position whose game is over: random play from the start until it ends (most random
    /// games end within 200 plies; a seed whose game runs past 5,000 is passed over).
    fn finished_position() -> Position {
        for seed in 0..100 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut position = start();
            for _ in 0..5000 {
                if position.outcome().is_over() {
                    return position;
                }
                let moves = position.legal_moves();
                let mv = *moves.choose(&mut rng).expect("an ongoing game has a legal move");
                position = position.play(mv).expect("a legal move plays").0;
            }
        }
        panic!("no random game of 100 ended within 5,000 plies");
    }
}
