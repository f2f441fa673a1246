//! The data of a tournament index page: standings, cross table, SPRT state and the games.

use serde::{Deserialize, Serialize};

use crate::replay_data::SideCode;

/// An Elo estimate with its 95% interval. Any of the three may be infinite (a score of 0 or
/// 1); infinities serialise as the strings `"+inf"` and `"-inf"`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EloInterval {
    /// The point estimate.
    #[serde(with = "maybe_infinite")]
    pub estimate: f64,
    /// The lower bound.
    #[serde(with = "maybe_infinite")]
    pub lower: f64,
    /// The upper bound.
    #[serde(with = "maybe_infinite")]
    pub upper: f64,
}

impl EloInterval {
    /// `+190.8 [+24.1, +inf]`: the estimate and the real bounds, one decimal, signed.
    #[must_use]
    pub fn text(&self) -> String {
        format!("{} [{}, {}]", signed(self.estimate), signed(self.lower), signed(self.upper))
    }
}

/// `+12.3`, `-4.0`, `+inf`, `-inf`, `n/a` (NaN).
#[must_use]
pub fn signed(x: f64) -> String {
    if x.is_nan() {
        "n/a".to_owned()
    } else if x == f64::INFINITY {
        "+inf".to_owned()
    } else if x == f64::NEG_INFINITY {
        "-inf".to_owned()
    } else {
        // Round first so that -0.04 reads +0.0 rather than -0.0.
        let r = (x * 10.0).round() / 10.0;
        if r >= 0.0 { format!("+{:.1}", r.abs()) } else { format!("{r:.1}") }
    }
}

mod maybe_infinite {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        if *x == f64::INFINITY {
            s.serialize_str("+inf")
        } else if *x == f64::NEG_INFINITY {
            s.serialize_str("-inf")
        } else {
            s.serialize_f64(*x)
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Wire {
        Number(f64),
        Text(String),
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        match Wire::deserialize(d)? {
            Wire::Number(x) => Ok(x),
            Wire::Text(t) if t == "+inf" || t == "inf" => Ok(f64::INFINITY),
            Wire::Text(t) if t == "-inf" => Ok(f64::NEG_INFINITY),
            Wire::Text(t) => {
                Err(serde::de::Error::custom(format!("expected a number, \"+inf\" or \"-inf\", got {t:?}")))
            }
        }
    }
}

/// One bot's line in the standings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StandingRow {
    /// The bot.
    pub name: String,
    /// Finished games.
    pub games: u64,
    /// Wins.
    pub wins: u64,
    /// Losses.
    pub losses: u64,
    /// Draws.
    pub draws: u64,
    /// Points (win 1, draw ½).
    pub points: f64,
    /// Elo against the field, if known.
    #[serde(default)]
    pub elo: Option<EloInterval>,
    /// Complete game pairs by pair score 0, ½, 1, 1½, 2; null when games are not paired.
    #[serde(default)]
    pub pentanomial: Option<[u64; 5]>,
}

/// One cell of the cross table: the row bot's games against the column bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrossCell {
    /// The row bot's wins.
    pub wins: u64,
    /// The row bot's losses.
    pub losses: u64,
    /// Draws.
    pub draws: u64,
}

/// Every bot against every other: `cells[row][col]` is row bot against column bot, `null` on
/// the diagonal and for pairs that have not played.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrossTable {
    /// The bots, in row (and column) order.
    pub names: Vec<String>,
    /// The cells, `names.len()` rows of `names.len()`.
    pub cells: Vec<Vec<Option<CrossCell>>>,
}

/// The state of a sequential probability ratio test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SprtState {
    /// The Elo of H0.
    pub elo0: f64,
    /// The Elo of H1.
    pub elo1: f64,
    /// α.
    pub alpha: f64,
    /// β.
    pub beta: f64,
    /// The log-likelihood ratio so far, if defined.
    #[serde(default)]
    pub llr: Option<f64>,
    /// The LLR at which H0 is accepted.
    pub lower_bound: f64,
    /// The LLR at which H1 is accepted.
    pub upper_bound: f64,
    /// `continue`, `H0 accepted`, `H1 accepted` or the like.
    pub decision: String,
}

/// One game in the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRow {
    /// The game's number or id.
    pub id: String,
    /// South's bot.
    pub south: String,
    /// North's bot.
    pub north: String,
    /// The winner; null for a draw, an aborted or an unfinished game.
    #[serde(default)]
    pub winner: Option<SideCode>,
    /// The result as in the log (`S wins (front_row_empty)`, `draw (max_plies)`, `running`).
    pub result: String,
    /// The reason (`front_row_empty`, `illegal_move`, …); empty while running.
    #[serde(default)]
    pub reason: String,
    /// Plies played.
    pub plies: u32,
    /// The replay page, relative to the index (`games/0001.html`); null when there is none.
    #[serde(default)]
    pub replay_href: Option<String>,
    /// The game log, relative to the index (`games/0001.jsonl`); optional.
    #[serde(default)]
    pub log_href: Option<String>,
}

/// Everything the tournament index shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexData {
    /// The heading (tournament name or folder).
    pub title: String,
    /// When the page was written, for people (RFC 3339 UTC).
    pub written_at: String,
    /// Whether the tournament is over (otherwise the page suggests reloading).
    pub complete: bool,
    /// Games planned in all, if known.
    #[serde(default)]
    pub games_planned: Option<u64>,
    /// Free lines under the heading (variant, time control, …).
    #[serde(default)]
    pub notes: Vec<String>,
    /// The standings, best first.
    pub standings: Vec<StandingRow>,
    /// The cross table, if there are more than two bots (or always, at the caller's choice).
    #[serde(default)]
    pub cross_table: Option<CrossTable>,
    /// The SPRT, if one was configured.
    #[serde(default)]
    pub sprt: Option<SprtState>,
    /// The games, in order.
    pub games: Vec<GameRow>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_show_real_bounds() {
        let elo = EloInterval { estimate: 190.83, lower: 24.06, upper: f64::INFINITY };
        assert_eq!(elo.text(), "+190.8 [+24.1, +inf]");
        let elo = EloInterval { estimate: -0.04, lower: f64::NEG_INFINITY, upper: 3.0 };
        assert_eq!(elo.text(), "+0.0 [-inf, +3.0]");
        assert_eq!(signed(-12.345), "-12.3");
        assert_eq!(signed(f64::NAN), "n/a");
    }

    #[test]
    fn infinite_bounds_round_trip() {
        let elo = EloInterval { estimate: f64::INFINITY, lower: 12.5, upper: f64::INFINITY };
        let json = serde_json::to_string(&elo).unwrap();
        assert_eq!(json, r#"{"estimate":"+inf","lower":12.5,"upper":"+inf"}"#);
        assert_eq!(serde_json::from_str::<EloInterval>(&json).unwrap(), elo);
        let err =
            serde_json::from_str::<EloInterval>(r#"{"estimate":"big","lower":0,"upper":1}"#).unwrap_err();
        assert!(err.to_string().contains("\"big\""), "{err}");
    }
}
