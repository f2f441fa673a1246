//! A running tally of a tournament, updated game by game in constant time:
//! every bot's points, and for a two-bot tournament the counts from the
//! first bot's perspective that the progress line's Elo and the SPRT need.
//! (The full statistics of `results` are computed once, at the end.)

use std::collections::{HashMap, HashSet};

use crate::tournament::journal::JournalEntry;
use bao_stats::{GameOutcome, PairingSummary, PentanomialCounts, SprtParameters, SprtSummary, WdlCounts};

/// Points per bot, and the first two bots' game and pair counts.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    names: Vec<String>,
    points: Vec<f64>,
    counted: HashSet<u32>,
    /// Bot 0 against bot 1, from bot 0's perspective.
    wdl: WdlCounts,
    pairs: PentanomialCounts,
    /// The first finished game of each pair whose other game is not finished yet.
    open_pairs: HashMap<u32, GameOutcome>,
}

impl Tally {
    /// An empty tally for bots with these names.
    #[must_use]
    pub fn new(names: Vec<String>) -> Tally {
        let points = vec![0.0; names.len()];
        Tally { names, points, ..Tally::default() }
    }

    /// A tally of journal entries.
    #[must_use]
    pub fn of(names: Vec<String>, entries: &[JournalEntry]) -> Tally {
        let mut tally = Tally::new(names);
        for entry in entries {
            tally.add(entry);
        }
        tally
    }

    /// Adds a game; aborted games and games already counted are ignored.
    pub fn add(&mut self, entry: &JournalEntry) {
        if !entry.counts() || !self.counted.insert(entry.game) {
            return;
        }
        for bot in [entry.south_bot, entry.north_bot] {
            if let (Some(points), Some(score)) = (self.points.get_mut(bot), entry.score_of(bot)) {
                *points += score;
            }
        }
        let Some(score) = entry.score_of(0).filter(|_| entry.score_of(1).is_some()) else { return };
        let outcome = match score {
            s if s > 0.75 => GameOutcome::Win,
            s if s < 0.25 => GameOutcome::Loss,
            _ => GameOutcome::Draw,
        };
        self.wdl.record(outcome);
        match self.open_pairs.remove(&entry.pair) {
            Some(first) => self.pairs.record_pair(first, outcome),
            None => {
                self.open_pairs.insert(entry.pair, outcome);
            }
        }
    }

    /// The first two bots' statistics (with the SPRT, if given), from bot 0's perspective.
    #[must_use]
    pub fn first_pairing(&self, sprt: Option<&SprtParameters>) -> PairingSummary {
        PairingSummary::new(self.wdl, Some(self.pairs), sprt)
    }

    /// Where the SPRT stands on the first two bots' games.
    #[must_use]
    pub fn sprt(&self, parameters: &SprtParameters) -> Option<SprtSummary> {
        self.first_pairing(Some(parameters)).sprt
    }

    /// The current score for the progress display: both bots' points and the Elo of a two-bot
    /// tournament; otherwise the points of the four best bots.
    #[must_use]
    pub fn score_line(&self) -> String {
        if let [first, second] = &self.names[..] {
            let stats = self.first_pairing(None);
            return format!(
                "{first} {} - {} {second}  Elo {}",
                stats.wdl.points(),
                stats.wdl.reversed().points(),
                crate::tournament::results::elo_text(&stats)
            );
        }
        let mut points: Vec<(&String, f64)> = self.names.iter().zip(self.points.iter().copied()).collect();
        points.sort_by(|x, y| y.1.total_cmp(&x.1).then_with(|| x.0.cmp(y.0)));
        let shown: Vec<String> = points.iter().take(4).map(|(name, p)| format!("{name} {p}")).collect();
        let more = if points.len() > 4 { format!(" (+{} more)", points.len() - 4) } else { String::new() };
        format!("{}{more}", shown.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::journal::tests::entry;
    use crate::tournament::results::pairing_summary;
    use bao_game::Reason;

    #[test]
    fn the_tally_agrees_with_the_full_statistics() {
        let entries = vec![
            entry(0, 0, 1, Some("S"), Reason::FrontRowEmpty),
            entry(3, 1, 0, Some("N"), Reason::Timeout),
            entry(1, 1, 0, Some("S"), Reason::NoLegalMoves),
            entry(2, 0, 1, None, Reason::MaxPlies),
            entry(2, 0, 1, None, Reason::MaxPlies),
            entry(5, 1, 0, None, Reason::Aborted),
            entry(4, 0, 1, Some("S"), Reason::FrontRowEmpty),
        ];
        let tally = Tally::of(vec!["a".into(), "b".into()], &entries);
        let full = pairing_summary(&entries, 0, 1, None);
        assert_eq!(tally.first_pairing(None), full);
        assert_eq!(tally.wdl, WdlCounts::new(3, 1, 1));
        assert_eq!(tally.pairs.by_score(), [0, 0, 1, 1, 0]);
        assert!(tally.score_line().starts_with("a 3.5 - 1.5 b  Elo +"), "{}", tally.score_line());
    }

    #[test]
    fn many_bots_show_the_leaders() {
        let names: Vec<String> = ["a", "b", "c", "d", "e"].iter().map(|n| (*n).to_owned()).collect();
        let entries =
            vec![entry(0, 2, 3, Some("S"), Reason::FrontRowEmpty), entry(1, 3, 2, None, Reason::MaxPlies)];
        let tally = Tally::of(names, &entries);
        assert_eq!(tally.score_line(), "c 1.5, d 0.5, a 0, b 0 (+1 more)");
    }
}
