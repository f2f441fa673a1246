//! All the figures for one pairing in one serialisable struct, for `bao-referee tournament --json`.
//!
//! Every figure that can be undefined or infinite is an `Option` and serialises as `null` then:
//! no games, zero variance, or a logistic Elo bound beyond a score of 0 or 1.

use serde::{Deserialize, Serialize};

use super::counts::{PentanomialCounts, WdlCounts};
use super::elo::EloInterval;
use super::estimate::{SampleKind, ScoreEstimate};
use super::sprt::{EloModel, SprtDecision, SprtParameters};

/// The statistics of one pairing (first player against second), from the first player's perspective.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairingSummary {
    /// Wins, losses and draws of every finished game.
    pub wdl: WdlCounts,
    /// Complete game pairs by pair score; `None` when games were not played in pairs. A pair whose
    /// second game has not finished counts in `wdl` only.
    pub pentanomial: Option<PentanomialCounts>,
    /// The number of finished games.
    pub games: u64,
    /// The first player's mean score per game, in [0, 1]; `None` without games.
    pub score: Option<f64>,
    /// The fraction of games drawn; `None` without games.
    pub draw_ratio: Option<f64>,
    /// Figures with the variance measured over single games; `None` without games.
    pub trinomial: Option<EstimateSummary>,
    /// Figures with the variance measured over pairs (the better error bars when games are paired);
    /// `None` without complete pairs.
    pub pentanomial_estimate: Option<EstimateSummary>,
    /// The SPRT state, when a test was configured.
    pub sprt: Option<SprtSummary>,
}

/// Elo, normalized Elo and the likelihood of superiority from one variance model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EstimateSummary {
    /// Games or pairs.
    pub samples_are: SampleKind,
    /// The number of games or pairs.
    pub samples: u64,
    /// The standard error of the mean score.
    pub score_standard_error: f64,
    /// Logistic Elo with its 95% interval.
    pub elo: IntervalSummary,
    /// Normalized Elo with its 95% interval (all `None` with zero variance).
    pub normalized_elo: IntervalSummary,
    /// The likelihood of superiority, in [0, 1]; `None` when undefined (zero variance at score ½).
    pub los: Option<f64>,
}

/// An estimate with its 95% confidence interval; each figure `None` where undefined or infinite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct IntervalSummary {
    /// The point estimate.
    pub estimate: Option<f64>,
    /// The lower bound of the 95% interval.
    pub lower: Option<f64>,
    /// The upper bound of the 95% interval.
    pub upper: Option<f64>,
    /// Half the interval's width: the "±" figure.
    pub error: Option<f64>,
}

/// The SPRT configuration and where the test stands.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SprtSummary {
    /// α, the false-positive rate.
    pub alpha: f64,
    /// β, the false-negative rate.
    pub beta: f64,
    /// The Elo of H0.
    pub elo0: f64,
    /// The Elo of H1.
    pub elo1: f64,
    /// The scale of `elo0` and `elo1`.
    pub model: EloModel,
    /// Which counts the LLR was computed from: pentanomial when pairs exist, else trinomial.
    pub counts_used: SampleKind,
    /// The log-likelihood ratio; `None` if it could not be computed.
    pub llr: Option<f64>,
    /// ln(β/(1−α)).
    pub lower_bound: f64,
    /// ln((1−β)/α).
    pub upper_bound: f64,
    /// The conclusion so far.
    pub decision: SprtDecision,
}

/// `Some(x)` for a finite x, `None` for an infinite or NaN one.
fn finite(value: f64) -> Option<f64> {
    value.is_finite().then_some(value)
}

impl From<EloInterval> for IntervalSummary {
    fn from(interval: EloInterval) -> Self {
        IntervalSummary {
            estimate: finite(interval.elo),
            lower: finite(interval.lower),
            upper: finite(interval.upper),
            error: finite(interval.half_width()),
        }
    }
}

impl EstimateSummary {
    /// The figures of one estimate.
    pub fn new(estimate: &ScoreEstimate) -> EstimateSummary {
        EstimateSummary {
            samples_are: estimate.kind,
            samples: estimate.samples,
            score_standard_error: estimate.standard_error(),
            elo: estimate.logistic_elo().into(),
            normalized_elo: estimate.normalized_elo().map(IntervalSummary::from).unwrap_or_default(),
            los: estimate.likelihood_of_superiority(),
        }
    }
}

impl PairingSummary {
    /// Every figure for a pairing. `pentanomial` is `None` when games were not paired; `sprt` is the
    /// test to evaluate, if any (on the pentanomial counts when they hold a pair, else on `wdl`).
    pub fn new(
        wdl: WdlCounts,
        pentanomial: Option<PentanomialCounts>,
        sprt: Option<&SprtParameters>,
    ) -> PairingSummary {
        let pairs = pentanomial.filter(|counts| counts.pairs() > 0);
        let sprt = sprt.map(|parameters| {
            let (counts_used, status) = match &pairs {
                Some(pairs) => (SampleKind::Pentanomial, parameters.evaluate_pentanomial(pairs)),
                None => (SampleKind::Trinomial, parameters.evaluate_trinomial(&wdl)),
            };
            SprtSummary {
                alpha: parameters.alpha(),
                beta: parameters.beta(),
                elo0: parameters.elo0(),
                elo1: parameters.elo1(),
                model: parameters.model(),
                counts_used,
                llr: status.llr,
                lower_bound: status.lower_bound,
                upper_bound: status.upper_bound,
                decision: status.decision,
            }
        });
        PairingSummary {
            wdl,
            pentanomial,
            games: wdl.games(),
            score: wdl.score(),
            draw_ratio: wdl.draw_ratio(),
            trinomial: ScoreEstimate::trinomial(&wdl).as_ref().map(EstimateSummary::new),
            pentanomial_estimate: pairs
                .as_ref()
                .and_then(ScoreEstimate::pentanomial)
                .as_ref()
                .map(EstimateSummary::new),
            sprt,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_paired_games_carries_every_figure() {
        // fastchess app/tests/elo_test.cpp "EloPentanomial 2": (ll, ld, wl, dd, wd, ww) =
        // (332, 433, 457, 41, 333, 334), and the W/D/L of the same 3860 games:
        // wins = wd + 2·ww + wl, losses = 2·ll + ld + wl, draws = ld + 2·dd + wd.
        let pairs = PentanomialCounts::new(332, 433, 457 + 41, 333, 334);
        let wdl = WdlCounts::new(333 + 2 * 334 + 457, 2 * 332 + 433 + 457, 433 + 2 * 41 + 333);
        let sprt = SprtParameters::new(0.05, 0.05, 0.0, 2.0, EloModel::Normalized).expect("valid");
        let summary = PairingSummary::new(wdl, Some(pairs), Some(&sprt));
        assert_eq!(summary.games, 3860);
        assert_eq!(summary.games, pairs.games());
        assert_eq!(summary.score, pairs.score());
        assert_eq!(summary.draw_ratio, Some(848.0 / 3860.0));
        let pentanomial = summary.pentanomial_estimate.expect("pairs were played");
        assert_eq!((pentanomial.samples_are, pentanomial.samples), (SampleKind::Pentanomial, 1930));
        let elo = pentanomial.elo.estimate.unwrap_or(f64::NAN);
        assert!((elo - -8.64).abs() < 0.01, "{elo}");
        let error = pentanomial.elo.error.unwrap_or(f64::NAN);
        assert!((error - 10.33).abs() < 0.01, "{error}");
        let sprt = summary.sprt.expect("SPRT configured");
        assert_eq!(sprt.counts_used, SampleKind::Pentanomial);
        assert_eq!(
            sprt.llr,
            SprtParameters::new(0.05, 0.05, 0.0, 2.0, EloModel::Normalized)
                .expect("valid")
                .llr_pentanomial(&pairs)
        );
    }

    #[test]
    fn unpaired_games_use_the_trinomial_counts_for_sprt() {
        let wdl = WdlCounts::new(36433, 36027, 68692);
        let sprt = SprtParameters::new(0.05, 0.05, 0.0, 2.0, EloModel::Normalized).expect("valid");
        let summary = PairingSummary::new(wdl, Some(PentanomialCounts::default()), Some(&sprt));
        assert_eq!(summary.pentanomial_estimate, None);
        let sprt = summary.sprt.expect("SPRT configured");
        assert_eq!(sprt.counts_used, SampleKind::Trinomial);
        // fastchess "normalized trinomial 1": LLR ≈ 0.92.
        assert!((sprt.llr.unwrap_or(f64::NAN) - 0.92).abs() < 0.01);
        assert_eq!(sprt.decision, SprtDecision::Continue);
    }

    #[test]
    fn empty_and_one_sided_summaries_serialise_undefined_figures_as_null() {
        let empty = PairingSummary::new(WdlCounts::default(), None, None);
        let json = serde_json::to_value(&empty).unwrap_or_default();
        assert_eq!(json["games"], 0);
        assert!(json["score"].is_null());
        assert!(json["trinomial"].is_null());
        assert!(json["sprt"].is_null());

        let all_wins = PairingSummary::new(WdlCounts::new(8, 0, 0), None, None);
        let json = serde_json::to_value(&all_wins).unwrap_or_default();
        assert_eq!(json["score"], 1.0);
        assert!(json["trinomial"]["elo"]["estimate"].is_null());
        assert!(json["trinomial"]["elo"]["upper"].is_null());
        assert!(json["trinomial"]["normalized_elo"]["estimate"].is_null());
        assert_eq!(json["trinomial"]["los"], 1.0);
        assert_eq!(json["trinomial"]["samples_are"], "trinomial");

        // 9 wins, 1 loss: a finite estimate and lower bound, an infinite (null) upper bound.
        let lopsided = PairingSummary::new(WdlCounts::new(9, 1, 0), None, None);
        let elo = lopsided.trinomial.map(|figures| figures.elo).unwrap_or_default();
        assert!(elo.estimate.is_some() && elo.lower.is_some());
        assert_eq!((elo.upper, elo.error), (None, None));
    }

    #[test]
    fn summary_round_trips_through_json() {
        let sprt = SprtParameters::new(0.05, 0.1, -1.0, 3.0, EloModel::Logistic).expect("valid");
        let pairs = PentanomialCounts::new(3, 10, 30, 12, 5);
        let summary = PairingSummary::new(WdlCounts::new(50, 40, 30), Some(pairs), Some(&sprt));
        let json = serde_json::to_string(&summary).unwrap_or_default();
        let parsed: PairingSummary = serde_json::from_str(&json).expect("the summary parses back");
        // serde_json's default float parsing may differ in the last bit, so floats are compared closely.
        assert_eq!((parsed.wdl, parsed.pentanomial, parsed.games), (summary.wdl, summary.pentanomial, 120));
        let close = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() <= 1e-12 * b.abs().max(1.0),
            _ => false,
        };
        assert!(close(parsed.score, summary.score));
        let (parsed_sprt, sprt_summary) = (parsed.sprt.expect("sprt"), summary.sprt.expect("sprt"));
        assert_eq!((parsed_sprt.model, parsed_sprt.decision), (EloModel::Logistic, SprtDecision::Continue));
        assert!(close(parsed_sprt.llr, sprt_summary.llr));
        let (parsed_penta, penta) =
            (parsed.pentanomial_estimate.expect("pairs"), summary.pentanomial_estimate.expect("pairs"));
        assert_eq!(parsed_penta.samples, 60);
        assert!(close(parsed_penta.elo.estimate, penta.elo.estimate));
        assert!(close(parsed_penta.los, penta.los));
    }
}
