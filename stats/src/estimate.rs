//! The mean score and its sampling variance, from W/D/L counts (trinomial) or from game pairs
//! (pentanomial), and the figures derived from them: the score's 95% interval and the likelihood of
//! superiority.

use serde::{Deserialize, Serialize};

use super::counts::{PentanomialCounts, WdlCounts};
use super::normal::{Z_95, normal_cdf};

/// Which independent samples the variance was measured over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleKind {
    /// Single games, each scoring 0, ½ or 1.
    Trinomial,
    /// Game pairs with the sides swapped, each scoring 0, ¼, ½, ¾ or 1 per game.
    Pentanomial,
}

/// The mean score per game and the variance of one independent sample (a game, or a pair of games).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreEstimate {
    /// What one sample is.
    pub kind: SampleKind,
    /// The number of samples: games (trinomial) or pairs (pentanomial). Always at least 1.
    pub samples: u64,
    /// The first player's mean score per game, in [0, 1].
    pub score: f64,
    /// The empirical variance of one sample's per-game score (for a pair, of the pair's mean score).
    pub variance: f64,
}

impl ScoreEstimate {
    /// The estimate from single games, treated as independent; `None` when no game was played.
    pub fn trinomial(counts: &WdlCounts) -> Option<ScoreEstimate> {
        ScoreEstimate::from_frequencies(SampleKind::Trinomial, &counts.by_score())
    }

    /// The estimate from game pairs, each pair treated as one independent sample; `None` when no
    /// pair was played. This is the variance fishtest and fastchess report: it takes into account
    /// that the two games of a pair, played from the same opening, are correlated.
    pub fn pentanomial(counts: &PentanomialCounts) -> Option<ScoreEstimate> {
        ScoreEstimate::from_frequencies(SampleKind::Pentanomial, &counts.by_score())
    }

    /// `counts[i]` is the number of samples scoring `i / (counts.len() - 1)` per game.
    fn from_frequencies(kind: SampleKind, counts: &[u64]) -> Option<ScoreEstimate> {
        let samples = counts.iter().fold(0_u64, |total, &count| total.saturating_add(count));
        if samples == 0 {
            return None;
        }
        let steps = (counts.len() - 1) as f64;
        let outcome = |index: usize| index as f64 / steps;
        let total = samples as f64;
        let score: f64 = counts.iter().enumerate().map(|(i, &count)| count as f64 / total * outcome(i)).sum();
        let variance: f64 = counts
            .iter()
            .enumerate()
            .map(|(i, &count)| count as f64 / total * (outcome(i) - score).powi(2))
            .sum();
        Some(ScoreEstimate { kind, samples, score, variance })
    }

    /// The standard error of the mean score: √(variance / samples). Zero when every sample scored
    /// the same.
    pub fn standard_error(&self) -> f64 {
        (self.variance / self.samples as f64).sqrt()
    }

    /// The standard deviation of a single game's score implied by the variance: √variance for
    /// single games, √(2·variance) for pairs (a pair's mean averages two games). Normalized Elo is
    /// measured in units of it.
    pub fn per_game_std_dev(&self) -> f64 {
        match self.kind {
            SampleKind::Trinomial => self.variance.sqrt(),
            SampleKind::Pentanomial => (2.0 * self.variance).sqrt(),
        }
    }

    /// The 95% confidence interval of the mean score, `score ± 1.96 · standard error`, as
    /// `(lower, upper)`. It is not clipped to [0, 1]: with few games a bound can pass 0 or 1, which
    /// the Elo mapping turns into an infinite bound.
    pub fn score_interval(&self) -> (f64, f64) {
        let margin = Z_95 * self.standard_error();
        (self.score - margin, self.score + margin)
    }

    /// The likelihood of superiority: the probability, under the normal approximation, that the
    /// first player is truly stronger, Φ((score − ½) / standard error), in [0, 1].
    ///
    /// With zero variance (every sample scored the same) it is 1 above a score of ½, 0 below, and
    /// `None` at exactly ½ (for example, every game drawn), where it is undefined.
    pub fn likelihood_of_superiority(&self) -> Option<f64> {
        let excess = self.score - 0.5;
        let standard_error = self.standard_error();
        if standard_error > 0.0 {
            Some(normal_cdf(excess / standard_error))
        } else if excess > 0.0 {
            Some(1.0)
        } else if excess < 0.0 {
            Some(0.0)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_close(actual: f64, expected: f64, tolerance: f64) {
        assert!((actual - expected).abs() <= tolerance, "{actual} vs {expected}");
    }

    fn trinomial(wins: u64, losses: u64, draws: u64) -> ScoreEstimate {
        ScoreEstimate::trinomial(&WdlCounts::new(wins, losses, draws)).expect("games were played")
    }

    #[test]
    fn trinomial_moments_match_python() {
        // python3 by hand: p = counts/N over outcomes (0, .5, 1); mu = Σ p·a; var = Σ p·(a − mu)²;
        // se = sqrt(var/N); LOS = 0.5·(1 + math.erf((mu − .5)/(se·sqrt 2))).
        let estimate = trinomial(120, 80, 100);
        assert_eq!(estimate.samples, 300);
        assert_close(estimate.score, 0.5666666666666667, 1e-15);
        assert_close(estimate.variance, 0.1622222222222222, 1e-15);
        assert_close(estimate.standard_error(), 0.023253832818284834, 1e-15);
        assert_close(estimate.likelihood_of_superiority().unwrap_or(f64::NAN), 0.9979275015150284, 1e-12);
    }

    #[test]
    fn pentanomial_moments_match_python() {
        // python3 by hand: outcomes (0, .25, .5, .75, 1) for pair counts [10, 20, 40, 25, 5].
        let counts = PentanomialCounts::new(10, 20, 40, 25, 5);
        let estimate = ScoreEstimate::pentanomial(&counts).expect("pairs were played");
        assert_eq!(estimate.kind, SampleKind::Pentanomial);
        assert_eq!(estimate.samples, 100);
        assert_close(estimate.score, 0.4875, 1e-15);
        assert_close(estimate.variance, 0.06546874999999999, 1e-15);
        assert_close(estimate.standard_error(), 0.0255868618630734, 1e-15);
        assert_close(estimate.per_game_std_dev(), (2.0 * 0.06546874999999999_f64).sqrt(), 1e-15);
        assert_close(estimate.likelihood_of_superiority().unwrap_or(f64::NAN), 0.31258654370758043, 1e-12);
    }

    #[test]
    fn likelihood_of_superiority_matches_fastchess_figures() {
        // fastchess app/tests/elo_test.cpp ("EloWDL 1", "EloWDL 2", "EloPentanomial 1", "EloPentanomial 2"):
        // LOS printed with two decimals in percent.
        let cases = [
            (trinomial(76, 89, 123), 15.53),
            (trinomial(136, 96, 111), 99.60),
            // fastchess Stats(ll, ld, wl, dd, wd, ww) = (34, 54, 31, 32, 64, 75): wl + dd = 63.
            (ScoreEstimate::pentanomial(&PentanomialCounts::new(34, 54, 63, 64, 75)).expect("pairs"), 100.00),
            (
                ScoreEstimate::pentanomial(&PentanomialCounts::new(332, 433, 498, 333, 334)).expect("pairs"),
                5.05,
            ),
        ];
        for (estimate, percent) in cases {
            let los = estimate.likelihood_of_superiority().unwrap_or(f64::NAN);
            assert_eq!(format!("{:.2}", los * 100.0), format!("{percent:.2}"));
        }
    }

    #[test]
    fn no_games_means_no_estimate() {
        assert_eq!(ScoreEstimate::trinomial(&WdlCounts::default()), None);
        assert_eq!(ScoreEstimate::pentanomial(&PentanomialCounts::default()), None);
    }

    #[test]
    fn zero_variance_edge_cases_have_no_nan() {
        let all_wins = trinomial(10, 0, 0);
        assert_eq!((all_wins.score, all_wins.variance, all_wins.standard_error()), (1.0, 0.0, 0.0));
        assert_eq!(all_wins.likelihood_of_superiority(), Some(1.0));
        assert_eq!(all_wins.score_interval(), (1.0, 1.0));

        let all_losses = trinomial(0, 7, 0);
        assert_eq!(all_losses.score, 0.0);
        assert_eq!(all_losses.likelihood_of_superiority(), Some(0.0));

        let all_draws = trinomial(0, 0, 12);
        assert_eq!(all_draws.score, 0.5);
        assert_eq!(all_draws.likelihood_of_superiority(), None);

        // Every pair a win and a draw: score ¾ with zero variance.
        let steady = ScoreEstimate::pentanomial(&PentanomialCounts::new(0, 0, 0, 6, 0)).expect("pairs");
        assert_eq!((steady.score, steady.variance), (0.75, 0.0));
        assert_eq!(steady.likelihood_of_superiority(), Some(1.0));
    }

    #[test]
    fn score_interval_is_symmetric_and_unclipped() {
        // 9 wins, 1 loss: python3 gives se = 0.09486832980505139, so the upper bound passes 1.
        let estimate = trinomial(9, 1, 0);
        let (lower, upper) = estimate.score_interval();
        assert_close(estimate.standard_error(), 0.09486832980505139, 1e-15);
        assert_close(upper - estimate.score, estimate.score - lower, 1e-15);
        assert_close(upper, 0.9 + 1.959963984540054 * 0.09486832980505139, 1e-12);
        assert!(upper > 1.0);
    }
}
