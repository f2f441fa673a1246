//! Match statistics for `bao-referee tournament` and the server: the figures engine developers expect from a match
//! runner such as fastchess or fishtest. Everything here is a pure function of result counts.
//!
//! - [`WdlCounts`] and [`PentanomialCounts`]: results of single games and of game pairs (same opening,
//!   sides swapped), from the first player's perspective.
//! - [`ScoreEstimate`]: the mean score and its variance, trinomial (per game) or pentanomial (per
//!   pair); from it the logistic and normalized Elo with 95% intervals ([`EloInterval`]) and the
//!   likelihood of superiority.
//! - [`SprtParameters`]: the generalized sequential probability ratio test of fishtest and
//!   fastchess, for logistic or normalized Elo, on trinomial or pentanomial counts.
//! - [`PairingSummary`]: all of it for one pairing, serialisable for `--json`.
//! - [`OpenPairs`]: game pairs completed as their games arrive one at a time, into
//!   [`PentanomialCounts`].
//! - [`rating`]: ratings of many players from their games against one another, one model per file
//!   behind [`rating::RatingModel`] (Bradley–Terry is [`rating::BradleyTerry`]).
//!
//! Undefined figures are `None` and out-of-range Elo bounds are infinite, never NaN; the user-facing
//! description of every formula is in `docs/statistics.md`. This crate does no I/O and knows nothing
//! of bots or games beyond their results.

mod counts;
mod elo;
mod estimate;
mod mle;
mod normal;
mod pairing;
pub mod rating;
mod sprt;
mod summary;

pub use counts::{GameOutcome, PentanomialCounts, WdlCounts};
pub use elo::{EloInterval, NORMALIZED_ELO_PER_T, elo_to_score, score_to_elo};
pub use estimate::{SampleKind, ScoreEstimate};
pub use normal::{Z_95, erf, erfc, normal_cdf};
pub use pairing::OpenPairs;
pub use sprt::{
    EloModel, MAX_LOGISTIC_ELO, MAX_NORMALIZED_ELO, SprtDecision, SprtParameterError, SprtParameters,
    SprtStatus,
};
pub use summary::{EstimateSummary, IntervalSummary, PairingSummary, SprtSummary};
