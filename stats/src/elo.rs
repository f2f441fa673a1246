//! Elo differences: the logistic Elo scale, normalized Elo, and their 95% confidence intervals.
//!
//! *Logistic Elo* maps an expected score s to −400·log₁₀(1/s − 1). *Normalized Elo* (fishtest,
//! fastchess) divides the score's distance from ½ by the per-game standard deviation instead, so that
//! it measures how easily two engines are told apart rather than how often one wins:
//! nElo = (s − ½)/σ · 800/ln 10.

use serde::{Deserialize, Serialize};

use super::estimate::ScoreEstimate;

/// The factor from a t-value (mean distance from ½ in per-game standard deviations) to normalized
/// Elo: 800 / ln 10 ≈ 347.44.
pub const NORMALIZED_ELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// The logistic Elo difference for an expected score s: −400·log₁₀(1/s − 1).
///
/// A score of 1 or more gives +∞, 0 or less gives −∞ (the formula's limits); NaN gives NaN.
pub fn score_to_elo(score: f64) -> f64 {
    if score >= 1.0 {
        f64::INFINITY
    } else if score <= 0.0 {
        f64::NEG_INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// The expected score for a logistic Elo difference: 1 / (1 + 10^(−elo/400)), in [0, 1].
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10_f64.powf(-elo / 400.0))
}

/// An Elo difference with its 95% confidence interval. Bounds may be infinite (logistic Elo only):
/// see [`ScoreEstimate::logistic_elo`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EloInterval {
    /// The point estimate.
    pub elo: f64,
    /// The lower bound of the 95% confidence interval.
    pub lower: f64,
    /// The upper bound of the 95% confidence interval.
    pub upper: f64,
}

impl EloInterval {
    /// Half the width of the interval, (upper − lower)/2: the "±" figure fastchess and fishtest print
    /// after the Elo. The logistic interval is not symmetric around the estimate, so this is a summary.
    pub fn half_width(&self) -> f64 {
        (self.upper - self.lower) / 2.0
    }
}

impl ScoreEstimate {
    /// The logistic Elo difference and its 95% interval: the score interval
    /// ([`ScoreEstimate::score_interval`]) mapped through [`score_to_elo`].
    ///
    /// An all-wins (all-losses) result has an estimate and both bounds at +∞ (−∞). When only the
    /// score interval passes 1 (or 0), as it does with a few lopsided games, only that bound is
    /// infinite. With zero variance (every sample scored the same) the interval is a single point.
    pub fn logistic_elo(&self) -> EloInterval {
        let (lower, upper) = self.score_interval();
        EloInterval { elo: score_to_elo(self.score), lower: score_to_elo(lower), upper: score_to_elo(upper) }
    }

    /// The normalized Elo difference and its 95% interval: (s − ½)/σ · 800/ln 10 at the score and at
    /// the bounds of the score interval, where σ is [`ScoreEstimate::per_game_std_dev`].
    ///
    /// `None` when σ is zero (every sample scored the same), where normalized Elo is undefined.
    pub fn normalized_elo(&self) -> Option<EloInterval> {
        let std_dev = self.per_game_std_dev();
        if std_dev <= 0.0 {
            return None;
        }
        let to_normalized = |score: f64| (score - 0.5) / std_dev * NORMALIZED_ELO_PER_T;
        let (lower, upper) = self.score_interval();
        Some(EloInterval {
            elo: to_normalized(self.score),
            lower: to_normalized(lower),
            upper: to_normalized(upper),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counts::{PentanomialCounts, WdlCounts};

    fn assert_close(actual: f64, expected: f64, tolerance: f64) {
        assert!((actual - expected).abs() <= tolerance, "{actual} vs {expected}");
    }

    /// Within 1% of the expected value, the tolerance of fastchess's `doctest::Approx(x).epsilon(0.01)`.
    fn assert_within_one_percent(actual: f64, expected: f64) {
        assert!((actual - expected).abs() <= 0.01 * expected.abs().max(1.0), "{actual} vs {expected}");
    }

    fn trinomial(wins: u64, losses: u64, draws: u64) -> ScoreEstimate {
        ScoreEstimate::trinomial(&WdlCounts::new(wins, losses, draws)).expect("games were played")
    }

    /// fastchess `Stats(ll, ld, wl, dd, wd, ww)`: wl and dd both score 1 and share one bucket.
    fn fastchess_pairs(ll: u64, ld: u64, wl: u64, dd: u64, wd: u64, ww: u64) -> ScoreEstimate {
        ScoreEstimate::pentanomial(&PentanomialCounts::new(ll, ld, wl + dd, wd, ww)).expect("pairs")
    }

    #[test]
    fn score_and_elo_convert_both_ways() {
        assert_eq!(score_to_elo(0.5), 0.0);
        // python3: -400*math.log10(1/0.75 - 1) = 190.848501887865
        assert_close(score_to_elo(0.75), 190.848501887865, 1e-9);
        assert_close(score_to_elo(0.25), -190.848501887865, 1e-9);
        for elo in [-800.0, -100.0, -1.0, 0.0, 2.5, 400.0] {
            assert_close(score_to_elo(elo_to_score(elo)), elo, 1e-9);
        }
        assert_eq!(score_to_elo(1.0), f64::INFINITY);
        assert_eq!(score_to_elo(1.2), f64::INFINITY);
        assert_eq!(score_to_elo(0.0), f64::NEG_INFINITY);
        assert_eq!(score_to_elo(-0.1), f64::NEG_INFINITY);
        assert_eq!(elo_to_score(400.0), 10.0 / 11.0);
    }

    #[test]
    fn trinomial_elo_matches_python() {
        // python3 by hand: mu, var over (0, .5, 1); se = sqrt(var/N); z = NormalDist().inv_cdf(0.975);
        // elo(x) = -400*log10(1/x - 1) at mu and mu ± z·se; nelo(x) = (x - .5)/sqrt(var)·800/ln 10.
        let estimate = trinomial(120, 80, 100);
        let elo = estimate.logistic_elo();
        assert_close(elo.elo, 46.60222762857488, 1e-9);
        assert_close(elo.lower, 14.663527667178421, 1e-9);
        assert_close(elo.upper, 79.34592256640461, 1e-9);
        assert_close(elo.half_width(), 32.34119744961309, 1e-9);
        let normalized = estimate.normalized_elo().expect("nonzero variance");
        assert_close(normalized.elo, 57.5079472977033, 1e-9);
        assert_close(normalized.half_width(), 39.31531520877775, 1e-9);

        let losing = trinomial(3, 7, 0).logistic_elo();
        assert_close(losing.elo, -147.19071411783779, 1e-9);
        assert_close(losing.lower, -715.8345612641899, 1e-9);
        assert_close(losing.upper, 58.946230158234606, 1e-9);
    }

    #[test]
    fn pentanomial_elo_matches_python() {
        // As above with outcomes (0, .25, .5, .75, 1) per pair, and σ = sqrt(2·var) for nElo.
        let counts = PentanomialCounts::new(10, 20, 40, 25, 5);
        let estimate = ScoreEstimate::pentanomial(&counts).expect("pairs");
        let elo = estimate.logistic_elo();
        assert_close(elo.elo, -8.687699877294557, 1e-9);
        assert_close(elo.lower, -43.76320234521571, 1e-9);
        assert_close(elo.upper, 26.211045464344075, 1e-9);
        let normalized = estimate.normalized_elo().expect("nonzero variance");
        assert_close(normalized.elo, -12.001963149255115, 1e-9);
        assert_close(normalized.half_width(), 48.15123066909429, 1e-9);
    }

    #[test]
    fn trinomial_elo_matches_fastchess_figures() {
        // fastchess app/tests/elo_test.cpp, `Stats(wins, losses, draws)`: (Elo, ±, nElo, ±);
        // NaN where that test does not check the figure.
        let cases = [
            ((76, 89, 123), (f64::NAN, f64::NAN, -20.76, 40.13)),
            ((136, 96, 111), (40.70, 30.43, 49.77, 36.77)),
            ((34, 356, 0), (f64::NAN, f64::NAN, -508.44, 34.48)),
            // The older tests/elo_test.cpp: `Elo(wins, losses, draws)`, Elo and ± only.
            ((0, 36, 14), (-315.34, 95.43, f64::NAN, f64::NAN)),
            ((859, 772, 1329), (10.21, 9.28, f64::NAN, f64::NAN)),
            ((1164, 1267, 3049), (-6.53, 6.12, f64::NAN, f64::NAN)),
        ];
        for ((wins, losses, draws), (elo, error, nelo, nelo_error)) in cases {
            let estimate = trinomial(wins, losses, draws);
            let logistic = estimate.logistic_elo();
            let normalized = estimate.normalized_elo().expect("nonzero variance");
            for (actual, expected) in [
                (logistic.elo, elo),
                (logistic.half_width(), error),
                (normalized.elo, nelo),
                (normalized.half_width(), nelo_error),
            ] {
                if !expected.is_nan() {
                    assert_within_one_percent(actual, expected);
                }
            }
        }
    }

    #[test]
    fn pentanomial_elo_matches_fastchess_figures() {
        // fastchess app/tests/elo_test.cpp, "EloPentanomial 1..3": (Elo, ±, nElo, ±).
        let cases = [
            (fastchess_pairs(34, 54, 31, 32, 64, 75), (55.58, 27.65, 57.94, 28.28)),
            (fastchess_pairs(332, 433, 457, 41, 333, 334), (-8.64, 10.33, -9.17, 10.96)),
            (fastchess_pairs(7895, 8757, 5485, 200, 568, 9999), (-21.04, 2.95, -19.01, 2.65)),
        ];
        for (estimate, (elo, error, nelo, nelo_error)) in cases {
            let logistic = estimate.logistic_elo();
            let normalized = estimate.normalized_elo().expect("nonzero variance");
            assert_within_one_percent(logistic.elo, elo);
            assert_within_one_percent(logistic.half_width(), error);
            assert_within_one_percent(normalized.elo, nelo);
            assert_within_one_percent(normalized.half_width(), nelo_error);
        }
    }

    #[test]
    fn lopsided_results_give_infinite_bounds_not_nan() {
        let all_wins = trinomial(25, 0, 0);
        let elo = all_wins.logistic_elo();
        assert_eq!((elo.elo, elo.lower, elo.upper), (f64::INFINITY, f64::INFINITY, f64::INFINITY));
        assert_eq!(all_wins.normalized_elo(), None);

        let all_losses = trinomial(0, 25, 0).logistic_elo();
        assert_eq!(all_losses.elo, f64::NEG_INFINITY);
        assert_eq!(all_losses.upper, f64::NEG_INFINITY);

        // 9 wins and a loss: python3 gives Elo 381.69700377572985, lower bound 158.98518507251032,
        // and a score upper bound above 1, hence an infinite upper Elo bound.
        let nine_of_ten = trinomial(9, 1, 0).logistic_elo();
        assert_close(nine_of_ten.elo, 381.69700377572985, 1e-9);
        assert_close(nine_of_ten.lower, 158.98518507251032, 1e-9);
        assert_eq!(nine_of_ten.upper, f64::INFINITY);
        assert_eq!(nine_of_ten.half_width(), f64::INFINITY);

        let all_draws = trinomial(0, 0, 40);
        assert_eq!(all_draws.logistic_elo(), EloInterval { elo: 0.0, lower: 0.0, upper: 0.0 });
        assert_eq!(all_draws.normalized_elo(), None);
    }
}
