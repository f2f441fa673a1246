//! Ratings of many players from their games against one another, on the Elo scale with
//! standard errors: the results as [`PairResults`], a model behind [`RatingModel`] (one file per
//! model: [`BradleyTerry`]), the fitted [`Rating`]s, and how sure each place in the order is
//! ([`rank_confidence`]).
//!
//! A player is whatever identifies one to the caller (the server's version id); this module
//! knows nothing of bots or games beyond their results.

mod bradley_terry;

use std::collections::HashMap;
use std::hash::Hash;

pub use bradley_terry::BradleyTerry;

use crate::GameOutcome;

/// The mean rating.
pub const MEAN_RATING: f64 = 1500.0;

/// The fitted rating of one player.
#[derive(Debug, Clone, PartialEq)]
pub struct Rating<P> {
    /// The player.
    pub player: P,
    /// Elo-scale rating.
    pub elo: f64,
    /// Standard error on the Elo scale.
    pub sd: f64,
    /// Games.
    pub games: u32,
    /// Wins.
    pub wins: u32,
    /// Losses.
    pub losses: u32,
    /// Draws.
    pub draws: u32,
}

/// The results between pairs of players, aggregated: per pair `lo < hi`, `lo`'s wins, the
/// draws and `hi`'s wins.
#[derive(Debug, Clone)]
pub struct PairResults<P> {
    table: HashMap<(P, P), [u32; 3]>,
}

impl<P> Default for PairResults<P> {
    fn default() -> Self {
        PairResults { table: HashMap::new() }
    }
}

impl<P: Copy + Ord + Hash> PairResults<P> {
    /// No results.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a game between `a` and `b` in which `a` scored `a_score` (1, ½ or 0, see
    /// [`GameOutcome::from_score`]). A game of a player against itself is ignored.
    pub fn add(&mut self, a: P, b: P, a_score: f64) {
        if a == b {
            return;
        }
        let (lo, hi, lo_score) = if a < b { (a, b, a_score) } else { (b, a, 1.0 - a_score) };
        let counts = self.table.entry((lo, hi)).or_insert([0; 3]);
        let slot = match GameOutcome::from_score(lo_score) {
            GameOutcome::Win => 0,
            GameOutcome::Draw => 1,
            GameOutcome::Loss => 2,
        };
        counts[slot] = counts[slot].saturating_add(1);
    }

    /// The games counted.
    #[must_use]
    pub fn games(&self) -> u64 {
        self.table.values().map(|r| r.iter().map(|&n| u64::from(n)).sum::<u64>()).sum()
    }

    /// Each pair that met (`lo < hi`) with `lo`'s wins, the draws and `hi`'s wins.
    pub fn iter(&self) -> impl Iterator<Item = ((P, P), [u32; 3])> + '_ {
        self.table.iter().map(|(&pair, &counts)| (pair, counts))
    }
}

/// A rating model: fits ratings for `players` from the results between them.
pub trait RatingModel<P> {
    /// What one fit leaves for the next to start from (the fitted strengths), so that after a
    /// few more games a fit converges quickly; `Default` is a cold start.
    type Warm: Default;

    /// The ratings of `players` (in that order) from `results`; results with other players are
    /// ignored. Starts from `warm` and leaves this fit's state there.
    fn fit(&self, players: &[P], results: &PairResults<P>, warm: &mut Self::Warm) -> Vec<Rating<P>>;
}

/// The probability that each rating (best first) is above the next one, from their standard
/// errors (normal approximation); the last gets 1.
#[must_use]
pub fn rank_confidence<P>(sorted: &[Rating<P>]) -> Vec<f64> {
    (0..sorted.len())
        .map(|i| match sorted.get(i + 1) {
            Some(next) => {
                let sd = (sorted[i].sd.powi(2) + next.sd.powi(2)).sqrt();
                crate::normal_cdf((sorted[i].elo - next.elo) / sd.max(1e-9))
            }
            None => 1.0,
        })
        .collect()
}

/// The strengths of a warm start, by player.
pub type Strengths<P> = HashMap<P, f64>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_confidence_reflects_the_gap() {
        let mk = |elo: f64, sd: f64| Rating { player: 0, elo, sd, games: 0, wins: 0, losses: 0, draws: 0 };
        let c = rank_confidence(&[mk(1700.0, 20.0), mk(1500.0, 20.0), mk(1499.0, 20.0)]);
        assert!(c[0] > 0.99, "{c:?}");
        assert!((c[1] - 0.5).abs() < 0.05, "{c:?}");
        assert_eq!(c[2], 1.0);
    }

    #[test]
    fn results_are_kept_from_the_lower_players_side() {
        let mut r = PairResults::new();
        r.add(2, 1, 1.0);
        r.add(1, 2, 0.5);
        r.add(1, 2, 1.0);
        r.add(3, 3, 1.0);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![((1, 2), [1, 1, 1])]);
        assert_eq!(r.games(), 3);
    }
}
