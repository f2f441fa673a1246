//! The sequential probability ratio test (SPRT) that engine developers use to decide, with bounded
//! error rates, whether a change gains at least `elo1` or at most `elo0`.
//!
//! The statistic is the generalized log-likelihood ratio (GLLR) of fishtest and fastchess: the data
//! are fitted twice by maximum likelihood, once under H0 (Elo = `elo0`) and once under H1
//! (Elo = `elo1`), and LLR = N · Σ p̂ᵢ ln(p1ᵢ / p0ᵢ). The test stops when the LLR leaves
//! (ln(β/(1−α)), ln((1−β)/α)).

use serde::{Deserialize, Deserializer, Serialize};
use thiserror::Error;

use super::counts::{PentanomialCounts, WdlCounts};
use super::elo::{NORMALIZED_ELO_PER_T, elo_to_score};
use super::mle::{Empirical, fit_mean, fit_t_value};

/// The largest |elo0|, |elo1| accepted for [`EloModel::Logistic`] hypotheses.
pub const MAX_LOGISTIC_ELO: f64 = 1000.0;

/// The largest |elo0|, |elo1| accepted for [`EloModel::Normalized`] hypotheses. Realistic bounds are
/// a few units (fishtest uses [0, 2]); beyond a few hundred the maximum-likelihood fit stops working.
pub const MAX_NORMALIZED_ELO: f64 = 200.0;

/// The Elo scale the hypotheses `elo0` and `elo1` are stated in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EloModel {
    /// Logistic Elo: the hypotheses are expected scores 1/(1 + 10^(−elo/400)).
    Logistic,
    /// Normalized Elo (the default, as in fastchess; fishtest uses it for pentanomial tests): the
    /// hypotheses are t-values (μ − ½)/σ = nElo · ln 10 / 800 per game.
    #[default]
    Normalized,
}

/// What the test concludes from the data seen so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SprtDecision {
    /// The LLR is between the bounds: play more games.
    Continue,
    /// The LLR reached the lower bound: accept H0 (Elo ≤ `elo0`); the change failed.
    AcceptH0,
    /// The LLR reached the upper bound: accept H1 (Elo ≥ `elo1`); the change passed.
    AcceptH1,
}

/// Why SPRT parameters were refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SprtParameterError {
    /// α or β is not strictly between 0 and 1.
    #[error("SPRT {name} must be strictly between 0 and 1, got {value}")]
    ErrorRateOutOfRange {
        /// `"alpha"` or `"beta"`.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// α + β ≥ 1, which leaves no room between the bounds.
    #[error("SPRT alpha + beta must be less than 1, got {alpha} + {beta}")]
    ErrorRatesTooLarge {
        /// The α given.
        alpha: f64,
        /// The β given.
        beta: f64,
    },
    /// elo0 is not below elo1.
    #[error("SPRT elo0 must be less than elo1, got elo0 = {elo0}, elo1 = {elo1}")]
    HypothesesNotOrdered {
        /// The elo0 given.
        elo0: f64,
        /// The elo1 given.
        elo1: f64,
    },
    /// A hypothesis is not finite or beyond the model's limit.
    #[error("SPRT {name} must be a number between -{limit} and {limit} for the {model:?} model, got {value}")]
    HypothesisOutOfRange {
        /// `"elo0"` or `"elo1"`.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The model in use.
        model: EloModel,
        /// The largest magnitude the model accepts.
        limit: f64,
    },
}

/// A validated SPRT configuration: error rates α, β and hypotheses H0: Elo = `elo0`,
/// H1: Elo = `elo1` on the scale of `model`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SprtParameters {
    alpha: f64,
    beta: f64,
    elo0: f64,
    elo1: f64,
    model: EloModel,
}

/// The state of a test after some games: the LLR, the bounds it is compared with, and the decision.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SprtStatus {
    /// The log-likelihood ratio; `None` only if the maximum-likelihood fit failed (not observed
    /// within the accepted hypothesis range).
    pub llr: Option<f64>,
    /// ln(β/(1−α)): at or below it H0 is accepted.
    pub lower_bound: f64,
    /// ln((1−β)/α): at or above it H1 is accepted.
    pub upper_bound: f64,
    /// The conclusion so far.
    pub decision: SprtDecision,
}

impl SprtParameters {
    /// Validates and builds SPRT parameters: 0 < α, β < 1, α + β < 1, elo0 < elo1, and both
    /// hypotheses within ±[`MAX_LOGISTIC_ELO`] or ±[`MAX_NORMALIZED_ELO`] depending on the model.
    pub fn new(
        alpha: f64,
        beta: f64,
        elo0: f64,
        elo1: f64,
        model: EloModel,
    ) -> Result<SprtParameters, SprtParameterError> {
        for (name, value) in [("alpha", alpha), ("beta", beta)] {
            if !(value > 0.0 && value < 1.0) {
                return Err(SprtParameterError::ErrorRateOutOfRange { name, value });
            }
        }
        if alpha + beta >= 1.0 {
            return Err(SprtParameterError::ErrorRatesTooLarge { alpha, beta });
        }
        let limit = match model {
            EloModel::Logistic => MAX_LOGISTIC_ELO,
            EloModel::Normalized => MAX_NORMALIZED_ELO,
        };
        for (name, value) in [("elo0", elo0), ("elo1", elo1)] {
            if value.is_nan() || value.abs() > limit {
                return Err(SprtParameterError::HypothesisOutOfRange { name, value, model, limit });
            }
        }
        if elo0 >= elo1 {
            return Err(SprtParameterError::HypothesesNotOrdered { elo0, elo1 });
        }
        Ok(SprtParameters { alpha, beta, elo0, elo1, model })
    }

    /// α: the probability of accepting H1 when H0 holds.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// β: the probability of accepting H0 when H1 holds.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// The Elo of H0.
    pub fn elo0(&self) -> f64 {
        self.elo0
    }

    /// The Elo of H1.
    pub fn elo1(&self) -> f64 {
        self.elo1
    }

    /// The scale of `elo0` and `elo1`.
    pub fn model(&self) -> EloModel {
        self.model
    }

    /// The lower LLR bound ln(β/(1−α)); at or below it H0 is accepted.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// The upper LLR bound ln((1−β)/α); at or above it H1 is accepted.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The decision for a given LLR.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        if llr >= self.upper_bound() {
            SprtDecision::AcceptH1
        } else if llr <= self.lower_bound() {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }

    /// The LLR from single games, treated as independent (trinomial). 0 when no game was played.
    pub fn llr_trinomial(&self, counts: &WdlCounts) -> Option<f64> {
        self.llr(&counts.by_score(), 1.0)
    }

    /// The LLR from game pairs (pentanomial), as fishtest and fastchess compute it for paired
    /// openings. 0 when no pair was played.
    pub fn llr_pentanomial(&self, counts: &PentanomialCounts) -> Option<f64> {
        // A pair's mean score has half a game's variance, so a per-game t-value is √2 times larger
        // when measured in the pair's standard deviation.
        self.llr(&counts.by_score(), std::f64::consts::SQRT_2)
    }

    /// The full status from single games.
    pub fn evaluate_trinomial(&self, counts: &WdlCounts) -> SprtStatus {
        self.status(self.llr_trinomial(counts))
    }

    /// The full status from game pairs.
    pub fn evaluate_pentanomial(&self, counts: &PentanomialCounts) -> SprtStatus {
        self.status(self.llr_pentanomial(counts))
    }

    fn status(&self, llr: Option<f64>) -> SprtStatus {
        SprtStatus {
            llr,
            lower_bound: self.lower_bound(),
            upper_bound: self.upper_bound(),
            decision: llr.map_or(SprtDecision::Continue, |llr| self.decide(llr)),
        }
    }

    /// `counts[i]` samples scored `i / (counts.len() − 1)` per game; `t_scale` converts a per-game
    /// t-value to one per sample.
    fn llr(&self, counts: &[u64], t_scale: f64) -> Option<f64> {
        if counts.iter().all(|&count| count == 0) {
            return Some(0.0);
        }
        let data = Empirical::regularized(counts);
        let (fit0, fit1) = match self.model {
            EloModel::Logistic => {
                (fit_mean(&data, elo_to_score(self.elo0))?, fit_mean(&data, elo_to_score(self.elo1))?)
            }
            EloModel::Normalized => {
                let t = |elo: f64| t_scale * elo / NORMALIZED_ELO_PER_T;
                (fit_t_value(&data, 0.5, t(self.elo0))?, fit_t_value(&data, 0.5, t(self.elo1))?)
            }
        };
        let llr = data.log_likelihood_ratio(&fit0, &fit1);
        llr.is_finite().then_some(llr)
    }
}

impl<'de> Deserialize<'de> for SprtParameters {
    /// Reads `{alpha, beta, elo0, elo1, model}` (model optional, default normalized) and validates
    /// it like [`SprtParameters::new`].
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Fields {
            alpha: f64,
            beta: f64,
            elo0: f64,
            elo1: f64,
            #[serde(default)]
            model: EloModel,
        }
        let fields = Fields::deserialize(deserializer)?;
        SprtParameters::new(fields.alpha, fields.beta, fields.elo0, fields.elo1, fields.model)
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counts::GameOutcome;

    fn sprt(elo0: f64, elo1: f64, model: EloModel) -> SprtParameters {
        SprtParameters::new(0.05, 0.05, elo0, elo1, model).expect("valid parameters")
    }

    /// fastchess `Stats(ll, ld, wl, dd, wd, ww)`.
    fn fastchess_pairs(ll: u64, ld: u64, wl: u64, dd: u64, wd: u64, ww: u64) -> PentanomialCounts {
        PentanomialCounts::new(ll, ld, wl + dd, wd, ww)
    }

    /// fastchess's tolerance, `doctest::Approx(expected).epsilon(0.01)`: within 1% (of at least 1).
    fn assert_matches_reference(actual: Option<f64>, expected: f64) {
        let actual = actual.unwrap_or(f64::NAN);
        assert!((actual - expected).abs() <= 0.01 * expected.abs().max(1.0), "LLR {actual} vs {expected}");
    }

    #[test]
    fn bounds_are_wald_thresholds() {
        // python3: math.log(0.05/0.95), math.log(0.95/0.05), math.log(0.1/0.95), math.log(0.9/0.05).
        let symmetric = sprt(0.0, 2.0, EloModel::Normalized);
        assert!((symmetric.lower_bound() - -2.9444389791664403).abs() < 1e-15);
        assert!((symmetric.upper_bound() - 2.9444389791664403).abs() < 1e-15);
        let asymmetric = SprtParameters::new(0.05, 0.1, 0.0, 5.0, EloModel::Logistic).expect("valid");
        assert!((asymmetric.lower_bound() - -2.251291798606495).abs() < 1e-15);
        assert!((asymmetric.upper_bound() - 2.8903717578961645).abs() < 1e-15);
    }

    #[test]
    fn trinomial_llr_matches_fastchess_figures() {
        // fastchess app/tests/sprt_test.cpp, `Stats(wins, losses, draws)`, α = β = 0.05.
        let cases = [
            ((36433, 36027, 68692), (0.0, 2.0), EloModel::Normalized, 0.92),
            ((10871, 10650, 20431), (-1.75, 0.25), EloModel::Normalized, 2.30),
            ((4250, 0, 0), (0.0, 10.0), EloModel::Normalized, 120.56),
            ((21404, 21184, 40708), (0.5, 2.5), EloModel::Logistic, -1.57),
            ((57433, 57030, 106593), (0.0, 2.0), EloModel::Logistic, -2.59),
        ];
        for ((wins, losses, draws), (elo0, elo1), model, expected) in cases {
            let llr = sprt(elo0, elo1, model).llr_trinomial(&WdlCounts::new(wins, losses, draws));
            assert_matches_reference(llr, expected);
        }
    }

    #[test]
    fn pentanomial_llr_matches_fastchess_figures() {
        // fastchess app/tests/sprt_test.cpp, `Stats(ll, ld, wl, dd, wd, ww)`, α = β = 0.05.
        let cases = [
            (fastchess_pairs(365, 16618, 36029, 200, 16974, 390), (0.0, 2.0), EloModel::Normalized, 2.25),
            (fastchess_pairs(127, 4883, 10311, 401, 5150, 104), (-1.75, 0.25), EloModel::Normalized, 3.01),
            (fastchess_pairs(0, 0, 0, 0, 0, 5550), (0.0, 5.0), EloModel::Normalized, 111.82),
            (fastchess_pairs(223, 9863, 20279, 1000, 10037, 246), (0.5, 2.5), EloModel::Logistic, -3.07),
            (fastchess_pairs(871, 26175, 55003, 980, 26678, 821), (0.0, 2.0), EloModel::Logistic, -4.98),
        ];
        for (counts, (elo0, elo1), model, expected) in cases {
            assert_matches_reference(sprt(elo0, elo1, model).llr_pentanomial(&counts), expected);
        }
    }

    #[test]
    fn pentanomial_llr_matches_racetrack_figures() {
        // MortenLohne/racetrack src/tests/sprt_tests.rs `sprt_llr_test` (normalized Elo, pentanomial
        // `(ll, dl, wl + dd, wd, ww)`, checked there to ±0.01).
        let cases = [
            ([440, 2910, 5170, 2888, 455], (0.0, 5.0), -2.27),
            ([142, 620, 1122, 699, 188], (0.0, 5.0), 2.99),
            ([349, 1561, 3340, 1604, 359], (-5.0, 0.0), 2.90),
            ([98, 382, 674, 369, 71], (-5.0, 0.0), -1.11),
        ];
        for ([ll, ld, dd_or_wl, wd, ww], (elo0, elo1), expected) in cases {
            let counts = PentanomialCounts::new(ll, ld, dd_or_wl, wd, ww);
            let llr = sprt(elo0, elo1, EloModel::Normalized).llr_pentanomial(&counts).unwrap_or(f64::NAN);
            assert!((llr - expected).abs() <= 0.01, "LLR {llr} vs {expected}");
        }
    }

    #[test]
    fn llr_matches_an_independent_python_implementation() {
        // /tmp python3 script written for this module (bisection on the secular equation, the
        // fixed-point t-value fit, 1e-3 regularization), printed with repr():
        let wdl = WdlCounts::new(120, 80, 100);
        let pairs = PentanomialCounts::new(10, 20, 40, 25, 5);
        let cases = [
            (sprt(0.0, 5.0, EloModel::Logistic).llr_trinomial(&wdl), 0.8174372572731651),
            (sprt(0.0, 5.0, EloModel::Normalized).llr_trinomial(&wdl), 0.6740418626578943),
            (sprt(-5.0, 5.0, EloModel::Logistic).llr_pentanomial(&pairs), -0.276978770145782),
            (sprt(-5.0, 5.0, EloModel::Normalized).llr_pentanomial(&pairs), -0.1995437204641074),
        ];
        for (llr, expected) in cases {
            let llr = llr.unwrap_or(f64::NAN);
            assert!((llr - expected).abs() < 1e-7, "LLR {llr} vs {expected}");
        }
    }

    #[test]
    fn llr_agrees_with_the_closed_form_approximation_near_balance() {
        // For large, nearly balanced samples the GLLR is close to the Brownian approximation
        // (s1 − s0)(2s − s0 − s1) / (2 var / N) (van den Bergh, GSPRT_approximation.pdf), a different
        // formula: checking the two against each other guards the maximum-likelihood machinery.
        let counts = WdlCounts::new(36433, 36027, 68692);
        let parameters = sprt(-3.0, 1.0, EloModel::Logistic);
        let games = counts.games() as f64;
        let score = counts.score().unwrap_or(f64::NAN);
        let variance = (counts.wins as f64 * (1.0 - score).powi(2)
            + counts.draws as f64 * (0.5 - score).powi(2)
            + counts.losses as f64 * score.powi(2))
            / games;
        let (s0, s1) = (elo_to_score(-3.0), elo_to_score(1.0));
        let approximation = (s1 - s0) * (2.0 * score - s0 - s1) / (2.0 * variance / games);
        let llr = parameters.llr_trinomial(&counts).unwrap_or(f64::NAN);
        assert!((llr - approximation).abs() < 0.01 * approximation.abs(), "{llr} vs {approximation}");
    }

    #[test]
    fn llr_is_antisymmetric_under_swapping_players_and_hypotheses() {
        let counts = PentanomialCounts::new(30, 120, 300, 140, 25);
        for model in [EloModel::Logistic, EloModel::Normalized] {
            let forward = sprt(0.0, 5.0, model).llr_pentanomial(&counts).unwrap_or(f64::NAN);
            let mirrored = sprt(-5.0, 0.0, model).llr_pentanomial(&counts.reversed()).unwrap_or(f64::NAN);
            assert!((forward + mirrored).abs() < 1e-6, "{model:?}: {forward} vs {mirrored}");
        }
    }

    #[test]
    fn decisions_follow_the_bounds() {
        let parameters = sprt(0.0, 2.0, EloModel::Normalized);
        assert_eq!(parameters.decide(0.0), SprtDecision::Continue);
        assert_eq!(parameters.decide(2.95), SprtDecision::AcceptH1);
        assert_eq!(parameters.decide(parameters.upper_bound()), SprtDecision::AcceptH1);
        assert_eq!(parameters.decide(-2.95), SprtDecision::AcceptH0);
        // fastchess "normalized pentanomial 2" (LLR 3.01) passes; "logistic pentanomial 2" (−4.98) fails.
        let passed = sprt(-1.75, 0.25, EloModel::Normalized)
            .evaluate_pentanomial(&fastchess_pairs(127, 4883, 10311, 401, 5150, 104));
        assert_eq!(passed.decision, SprtDecision::AcceptH1);
        let failed = sprt(0.0, 2.0, EloModel::Logistic)
            .evaluate_pentanomial(&fastchess_pairs(871, 26175, 55003, 980, 26678, 821));
        assert_eq!(failed.decision, SprtDecision::AcceptH0);
        let fresh = parameters.evaluate_trinomial(&WdlCounts::default());
        assert_eq!((fresh.llr, fresh.decision), (Some(0.0), SprtDecision::Continue));
    }

    #[test]
    fn degenerate_results_give_finite_llrs() {
        let one_sided = [WdlCounts::new(30, 0, 0), WdlCounts::new(0, 30, 0), WdlCounts::new(0, 0, 30)];
        for counts in one_sided {
            for model in [EloModel::Logistic, EloModel::Normalized] {
                for (elo0, elo1) in [(0.0, 5.0), (-200.0, 200.0), (-5.0, 0.0)] {
                    let llr = sprt(elo0, elo1, model).llr_trinomial(&counts);
                    assert!(
                        llr.is_some_and(f64::is_finite),
                        "{counts:?} {model:?} [{elo0}, {elo1}]: {llr:?}"
                    );
                }
            }
        }
        let one_pair = PentanomialCounts::from_pairs([(GameOutcome::Win, GameOutcome::Draw)]);
        for model in [EloModel::Logistic, EloModel::Normalized] {
            assert!(sprt(0.0, 5.0, model).llr_pentanomial(&one_pair).is_some_and(f64::is_finite));
        }
        // All wins is evidence for the higher hypothesis; all losses against it.
        let normalized = sprt(0.0, 5.0, EloModel::Normalized);
        assert!(normalized.llr_trinomial(&one_sided[0]).unwrap_or(f64::NAN) > 0.0);
        assert!(normalized.llr_trinomial(&one_sided[1]).unwrap_or(f64::NAN) < 0.0);
    }

    #[test]
    fn invalid_parameters_are_refused_with_the_reason() {
        let normalized = EloModel::Normalized;
        let refused = [
            SprtParameters::new(0.0, 0.05, 0.0, 2.0, normalized),
            SprtParameters::new(0.05, 1.0, 0.0, 2.0, normalized),
            SprtParameters::new(f64::NAN, 0.05, 0.0, 2.0, normalized),
            SprtParameters::new(0.6, 0.5, 0.0, 2.0, normalized),
            SprtParameters::new(0.05, 0.05, 2.0, 2.0, normalized),
            SprtParameters::new(0.05, 0.05, 0.0, 250.0, normalized),
            SprtParameters::new(0.05, 0.05, f64::NEG_INFINITY, 0.0, EloModel::Logistic),
        ];
        for result in refused {
            assert!(result.is_err(), "{result:?}");
        }
        let message =
            SprtParameters::new(0.05, 0.05, 3.0, 1.0, normalized).err().map(|error| error.to_string());
        assert_eq!(message.as_deref(), Some("SPRT elo0 must be less than elo1, got elo0 = 3, elo1 = 1"));
        assert!(SprtParameters::new(0.05, 0.05, 0.0, 250.0, EloModel::Logistic).is_ok());
    }

    #[test]
    fn parameters_deserialise_with_validation() {
        let parsed: Result<SprtParameters, _> =
            serde_json::from_str(r#"{"alpha": 0.05, "beta": 0.1, "elo0": 0, "elo1": 5}"#);
        let parsed = parsed.expect("valid JSON parameters");
        assert_eq!(parsed.model(), EloModel::Normalized);
        assert_eq!((parsed.alpha(), parsed.beta(), parsed.elo0(), parsed.elo1()), (0.05, 0.1, 0.0, 5.0));
        let swapped: Result<SprtParameters, _> = serde_json::from_str(
            r#"{"alpha": 0.05, "beta": 0.05, "elo0": 5, "elo1": 0, "model": "logistic"}"#,
        );
        let error = swapped.err().map(|error| error.to_string()).unwrap_or_default();
        assert!(error.contains("elo0 must be less than elo1"), "{error}");
        let round_trip = serde_json::to_string(&parsed).unwrap_or_default();
        assert_eq!(round_trip, r#"{"alpha":0.05,"beta":0.1,"elo0":0.0,"elo1":5.0,"model":"normalized"}"#);
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// Counts that include the degenerate shapes: zeros, single buckets, huge buckets.
        fn count() -> impl Strategy<Value = u64> {
            prop_oneof![Just(0_u64), 0_u64..20, 0_u64..100_000, Just(1_000_000_000)]
        }

        fn model() -> impl Strategy<Value = EloModel> {
            prop_oneof![Just(EloModel::Logistic), Just(EloModel::Normalized)]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(300))]

            #[test]
            fn llr_is_finite_for_any_counts_and_accepted_hypotheses(
                wdl in (count(), count(), count()),
                pairs in (count(), count(), count(), count(), count()),
                model in model(),
                bounds in (-1.0_f64..1.0, -1.0_f64..1.0),
            ) {
                let limit = match model {
                    EloModel::Logistic => MAX_LOGISTIC_ELO,
                    EloModel::Normalized => MAX_NORMALIZED_ELO,
                };
                let (a, b) = (bounds.0 * limit, bounds.1 * limit);
                prop_assume!(a != b);
                let parameters = SprtParameters::new(0.05, 0.05, a.min(b), a.max(b), model).expect("in range");
                let wdl = WdlCounts::new(wdl.0, wdl.1, wdl.2);
                let pairs = PentanomialCounts::new(pairs.0, pairs.1, pairs.2, pairs.3, pairs.4);
                let trinomial = parameters.llr_trinomial(&wdl);
                let pentanomial = parameters.llr_pentanomial(&pairs);
                prop_assert!(trinomial.is_some_and(f64::is_finite), "{wdl:?}: {trinomial:?}");
                prop_assert!(pentanomial.is_some_and(f64::is_finite), "{pairs:?}: {pentanomial:?}");
            }

            #[test]
            fn estimates_never_produce_nan(wdl in (count(), count(), count()), pairs in (count(), count(), count(), count(), count())) {
                let estimates = [
                    crate::ScoreEstimate::trinomial(&WdlCounts::new(wdl.0, wdl.1, wdl.2)),
                    crate::ScoreEstimate::pentanomial(&PentanomialCounts::new(pairs.0, pairs.1, pairs.2, pairs.3, pairs.4)),
                ];
                for estimate in estimates.into_iter().flatten() {
                    let elo = estimate.logistic_elo();
                    prop_assert!(!elo.elo.is_nan() && !elo.lower.is_nan() && !elo.upper.is_nan());
                    prop_assert!(elo.lower <= elo.elo && elo.elo <= elo.upper);
                    if let Some(normalized) = estimate.normalized_elo() {
                        prop_assert!(normalized.elo.is_finite() && normalized.half_width().is_finite());
                    }
                    if let Some(los) = estimate.likelihood_of_superiority() {
                        prop_assert!((0.0..=1.0).contains(&los));
                    }
                }
            }
        }
    }
}
