//! Maximum-likelihood fits of a discrete score distribution under a constraint, and the generalized
//! log-likelihood ratio built from them. This is the mathematics behind the GSPRT that fishtest and
//! fastchess run, as described by Michel Van den Bergh in "Comments on normalized Elo"
//! (<https://www.cantate.be/Fishtest/normalized_elo_practical.pdf>) and
//! <https://www.cantate.be/Fishtest/support_MLE_multinomial.pdf>.
//!
//! The observations are an empirical distribution p̂ over outcomes aᵢ (per-game scores: 0, ½, 1 for
//! single games; 0, ¼, ½, ¾, 1 for pairs). The distribution p with the largest likelihood Σ p̂ᵢ ln pᵢ
//! subject to Σ pᵢ φᵢ = 0 is pᵢ = p̂ᵢ / (1 + θ φᵢ), where θ is the root of the *secular equation*
//! Σ p̂ᵢ φᵢ / (1 + θ φᵢ) = 0.

/// Zero counts are replaced by this many samples before fitting, as fishtest and fastchess do, so
/// that every outcome keeps a positive probability and every logarithm is finite.
pub const REGULARIZATION: f64 = 1e-3;

/// The most fixed-point iterations [`fit_t_value`] runs. Realistic data converges in under 50; far
/// from the data (hypotheses hundreds of Elo away) convergence is linear and slow, and the iterate
/// reached is used.
const MAX_T_VALUE_ITERATIONS: usize = 1000;

/// [`fit_t_value`] stops when no probability changes by more than this in one iteration.
const T_VALUE_TOLERANCE: f64 = 1e-12;

/// An empirical distribution: `probabilities[i]` of scoring `outcomes[i]` per game, from `samples`
/// (regularized) observations.
#[derive(Debug, Clone, PartialEq)]
pub struct Empirical {
    /// The per-game score of each outcome, ascending from 0 to 1.
    pub outcomes: Vec<f64>,
    /// The observed frequency of each outcome; positive and summing to 1.
    pub probabilities: Vec<f64>,
    /// The number of observations, after regularization.
    pub samples: f64,
}

impl Empirical {
    /// The distribution of `counts[i]` samples scoring `i / (counts.len() − 1)`, with zero counts
    /// replaced by [`REGULARIZATION`]. Needs at least two counts.
    pub fn regularized(counts: &[u64]) -> Empirical {
        let regularized: Vec<f64> =
            counts.iter().map(|&count| if count == 0 { REGULARIZATION } else { count as f64 }).collect();
        let samples: f64 = regularized.iter().sum();
        let steps = counts.len().saturating_sub(1).max(1) as f64;
        Empirical {
            outcomes: (0..counts.len()).map(|i| i as f64 / steps).collect(),
            probabilities: regularized.iter().map(|count| count / samples).collect(),
            samples,
        }
    }

    /// The generalized log-likelihood ratio of the two fitted distributions against the data:
    /// samples · Σ p̂ᵢ ln(p1ᵢ / p0ᵢ).
    pub fn log_likelihood_ratio(&self, fit0: &[f64], fit1: &[f64]) -> f64 {
        let per_sample: f64 = self
            .probabilities
            .iter()
            .zip(fit0.iter().zip(fit1))
            .map(|(observed, (p0, p1))| observed * (p1.ln() - p0.ln()))
            .sum();
        self.samples * per_sample
    }
}

/// The mean and variance of a distribution over `outcomes`.
fn mean_and_variance(outcomes: &[f64], probabilities: &[f64]) -> (f64, f64) {
    let mean: f64 = outcomes.iter().zip(probabilities).map(|(a, p)| a * p).sum();
    let variance: f64 = outcomes.iter().zip(probabilities).map(|(a, p)| p * (a - mean).powi(2)).sum();
    (mean, variance)
}

/// The root θ of Σ wᵢ φᵢ / (1 + θ φᵢ) = 0 inside the interval where every 1 + θ φᵢ is positive,
/// found by bisection to about the resolution of `f64`. The left side falls strictly from +∞ to −∞ over
/// that interval, so the root exists and is unique as long as some φᵢ is negative and some positive;
/// otherwise `None`.
fn solve_secular(weights: &[f64], phi: &[f64]) -> Option<f64> {
    let smallest = phi.iter().copied().fold(f64::INFINITY, f64::min);
    let largest = phi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(smallest < 0.0 && largest > 0.0) {
        return None;
    }
    let secular =
        |theta: f64| -> f64 { weights.iter().zip(phi).map(|(w, f)| w * f / (1.0 + theta * f)).sum() };
    let mut low = -1.0 / largest;
    let mut high = -1.0 / smallest;
    for _ in 0..300 {
        let middle = low + (high - low) / 2.0;
        let resolved = high - low <= f64::EPSILON * (1.0 + low.abs().max(high.abs()));
        if resolved || middle <= low || middle >= high {
            break;
        }
        if secular(middle) > 0.0 {
            low = middle;
        } else {
            high = middle;
        }
    }
    Some(low + (high - low) / 2.0)
}

/// The distribution pᵢ = p̂ᵢ / (1 + θ φᵢ) for the root θ of the secular equation.
fn reweight(observed: &[f64], phi: &[f64]) -> Option<Vec<f64>> {
    let theta = solve_secular(observed, phi)?;
    Some(observed.iter().zip(phi).map(|(p, f)| p / (1.0 + theta * f)).collect())
}

/// The most likely distribution, given the data, whose mean per-game score is `mean` (strictly
/// between 0 and 1): Proposition 1.1 of support_MLE_multinomial.pdf, with φᵢ = aᵢ − mean.
pub fn fit_mean(data: &Empirical, mean: f64) -> Option<Vec<f64>> {
    let phi: Vec<f64> = data.outcomes.iter().map(|a| a - mean).collect();
    reweight(&data.probabilities, &phi)
}

/// The most likely distribution, given the data, whose t-value (μ − `reference`)/σ is `t`: the
/// fixed-point iteration of section 4.1 of normalized_elo_practical.pdf. Starting from the uniform
/// distribution, each step fits φᵢ = aᵢ − ref − t·σ·(1 + ((aᵢ − μ)/σ)²)/2 with μ and σ of the previous
/// step.
///
/// `None` if a step has no root (only for t-values far beyond any realistic SPRT hypothesis).
pub fn fit_t_value(data: &Empirical, reference: f64, t: f64) -> Option<Vec<f64>> {
    let outcomes = &data.outcomes;
    let mut fit = vec![1.0 / outcomes.len() as f64; outcomes.len()];
    for _ in 0..MAX_T_VALUE_ITERATIONS {
        let (mean, variance) = mean_and_variance(outcomes, &fit);
        let std_dev = variance.sqrt();
        if std_dev.is_nan() || std_dev <= 0.0 {
            return None;
        }
        let phi: Vec<f64> = outcomes
            .iter()
            .map(|a| a - reference - t * std_dev * (1.0 + ((a - mean) / std_dev).powi(2)) / 2.0)
            .collect();
        let next = reweight(&data.probabilities, &phi)?;
        let change = next.iter().zip(&fit).map(|(new, old)| (new - old).abs()).fold(0.0, f64::max);
        fit = next;
        if change < T_VALUE_TOLERANCE {
            break;
        }
    }
    Some(fit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_close(actual: f64, expected: f64, tolerance: f64) {
        assert!((actual - expected).abs() <= tolerance, "{actual} vs {expected}");
    }

    #[test]
    fn regularization_replaces_only_zero_counts() {
        let data = Empirical::regularized(&[0, 2, 2]);
        assert_eq!(data.outcomes, vec![0.0, 0.5, 1.0]);
        assert_close(data.samples, 4.001, 1e-12);
        assert_close(data.probabilities[0], 0.001 / 4.001, 1e-15);
        assert_close(data.probabilities.iter().sum::<f64>(), 1.0, 1e-15);
    }

    #[test]
    fn mean_fit_has_the_requested_mean_and_sums_to_one() {
        let data = Empirical::regularized(&[30, 45, 25]);
        for target in [0.3, 0.47, 0.5, 0.62] {
            let fit = fit_mean(&data, target).expect("0 < target < 1");
            let (mean, _) = mean_and_variance(&data.outcomes, &fit);
            assert_close(mean, target, 1e-12);
            assert_close(fit.iter().sum(), 1.0, 1e-12);
            assert!(fit.iter().all(|&p| p > 0.0));
        }
    }

    #[test]
    fn mean_fit_of_the_observed_mean_is_the_data() {
        let data = Empirical::regularized(&[10, 20, 40, 25, 5]);
        let (observed_mean, _) = mean_and_variance(&data.outcomes, &data.probabilities);
        let fit = fit_mean(&data, observed_mean).expect("interior mean");
        for (fitted, observed) in fit.iter().zip(&data.probabilities) {
            assert_close(*fitted, *observed, 1e-12);
        }
    }

    #[test]
    fn t_value_fit_has_the_requested_t_value() {
        let data = Empirical::regularized(&[365, 16618, 36229, 16974, 390]);
        for t in [-0.02, 0.0, 0.008, 0.1] {
            let fit = fit_t_value(&data, 0.5, t).expect("realistic t");
            let (mean, variance) = mean_and_variance(&data.outcomes, &fit);
            assert_close((mean - 0.5) / variance.sqrt(), t, 1e-9);
            assert_close(fit.iter().sum(), 1.0, 1e-9);
        }
    }

    #[test]
    fn unreachable_constraints_give_none_not_nan() {
        let data = Empirical::regularized(&[5, 5, 5]);
        // A mean of exactly 1 leaves no negative φ.
        assert_eq!(fit_mean(&data, 1.0), None);
        // t = 5 is far beyond what the first step from the uniform distribution can bracket.
        assert_eq!(fit_t_value(&data, 0.5, 5.0), None);
    }
}
