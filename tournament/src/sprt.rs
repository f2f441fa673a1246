//! `--sprt elo0=.. elo1=.. alpha=.. beta=.. [model=normalized|logistic]`: a
//! two-bot tournament stops when the sequential probability ratio test
//! decides. The test itself is `bao_stats`; this module reads the option
//! and evaluates it on the journal (first bot's perspective, pentanomial
//! counts of complete pairs when there are any).

use std::fmt;

use crate::plan::Plan;
use crate::tally::Tally;
use bao_stats::{EloModel, SprtDecision, SprtParameters, SprtSummary};

/// Reads the words after `--sprt`: `elo0=` and `elo1=` are required, `alpha=` and `beta=`
/// default to 0.05, `model=` to normalized.
///
/// # Errors
/// A word that is not KEY=VALUE, an unknown key, a missing bound or parameters the test refuses.
pub fn parse_words(words: &[String]) -> Result<SprtParameters, String> {
    let (mut elo0, mut elo1, mut alpha, mut beta, mut model) = (None, None, 0.05, 0.05, EloModel::Normalized);
    for word in words {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| format!("{word:?} is not KEY=VALUE (elo0, elo1, alpha, beta, model)"))?;
        let number = || value.parse::<f64>().map_err(|_| format!("{key}={value:?} is not a number"));
        match key {
            "elo0" => elo0 = Some(number()?),
            "elo1" => elo1 = Some(number()?),
            "alpha" => alpha = number()?,
            "beta" => beta = number()?,
            "model" => {
                model = match value {
                    "normalized" => EloModel::Normalized,
                    "logistic" => EloModel::Logistic,
                    other => return Err(format!("model={other:?}: expected normalized or logistic")),
                }
            }
            other => return Err(format!("unknown key {other:?} (elo0, elo1, alpha, beta, model)")),
        }
    }
    let elo0 = elo0.ok_or("elo0= is missing")?;
    let elo1 = elo1.ok_or("elo1= is missing")?;
    SprtParameters::new(alpha, beta, elo0, elo1, model).map_err(|e| e.to_string())
}

/// A decision the test has reached.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decided(pub SprtSummary);

impl fmt::Display for Decided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.0;
        let verdict = match s.decision {
            SprtDecision::AcceptH1 => format!("H1 accepted (elo >= {})", s.elo1),
            SprtDecision::AcceptH0 => format!("H0 accepted (elo <= {})", s.elo0),
            SprtDecision::Continue => "undecided".to_owned(),
        };
        let llr = s.llr.map_or_else(|| "?".to_owned(), |l| format!("{l:.2}"));
        write!(f, "{verdict}: LLR {llr} outside ({:.2}, {:.2})", s.lower_bound, s.upper_bound)
    }
}

/// Where the plan's SPRT stands on a tally (`None` without an SPRT or with other than two bots).
#[must_use]
pub fn status(plan: &Plan, tally: &Tally) -> Option<SprtSummary> {
    let parameters = plan.sprt.as_ref()?;
    if plan.bots.len() != 2 {
        return None;
    }
    tally.sprt(parameters)
}

/// The decision, once the test has reached one.
#[must_use]
pub fn decide(plan: &Plan, tally: &Tally) -> Option<Decided> {
    status(plan, tally).filter(|s| s.decision != SprtDecision::Continue).map(Decided)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::tests::entry;
    use bao_game::Reason;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn the_option_parses_with_defaults() {
        let p = parse_words(&words(&["elo0=0", "elo1=5"])).unwrap();
        assert_eq!(
            (p.elo0(), p.elo1(), p.alpha(), p.beta(), p.model()),
            (0.0, 5.0, 0.05, 0.05, EloModel::Normalized)
        );
        let p =
            parse_words(&words(&["elo0=-2", "elo1=3", "alpha=0.1", "beta=0.2", "model=logistic"])).unwrap();
        assert_eq!((p.alpha(), p.beta(), p.model()), (0.1, 0.2, EloModel::Logistic));
        assert!(parse_words(&words(&["elo1=5"])).unwrap_err().contains("elo0= is missing"));
        assert!(
            parse_words(&words(&["elo0=5", "elo1=0"])).unwrap_err().contains("elo0 must be less than elo1")
        );
        assert!(parse_words(&words(&["elo0=0", "elo1=5", "gamma=1"])).unwrap_err().contains("unknown key"));
        assert!(parse_words(&words(&["elo0=x", "elo1=5"])).unwrap_err().contains("not a number"));
    }

    #[test]
    fn a_one_sided_match_stops_with_h1() {
        let mut plan = crate::plan::tests::sample_plan();
        plan.bots.truncate(2);
        plan.sprt = Some(parse_words(&words(&["elo0=0", "elo1=50", "model=logistic"])).unwrap());
        // Bot 0 wins every game, in both colours.
        let mut entries = Vec::new();
        for pair in 0..200u32 {
            entries.push(entry(pair * 2, 0, 1, Some(bao_rules::Side::South), Reason::FrontRowEmpty));
            entries.push(entry(pair * 2 + 1, 1, 0, Some(bao_rules::Side::North), Reason::FrontRowEmpty));
            let tally = Tally::of(vec!["a".into(), "b".into()], &entries);
            if let Some(decided) = decide(&plan, &tally) {
                assert_eq!(decided.0.decision, SprtDecision::AcceptH1);
                assert!(decided.to_string().starts_with("H1 accepted"), "{decided}");
                assert!(pair > 0, "one pair is not enough");
                return;
            }
        }
        panic!("the test never decided");
    }
}
