//! The running counts of a tournament, updated game by game in constant time and memory:
//! everything `results.json`, the standings, the index page, the progress line and the SPRT
//! need is a sum, so no journal entry is kept. Per pair of bots that met: wins/draws/losses and
//! the pentanomial counts of complete game pairs; per bot: the same against the field; the
//! endings by reason, the aborted and the unverified games, and the worst lag. Which games are
//! counted is one bit per game; a game pair waits, with its first game's outcome, only until
//! its second game is counted.
//!
//! A journal read again (resume) and the games played now go through [`Tally::add`] alike, so
//! a resumed run and a merge of shards give the figures of one uninterrupted run. A game
//! journaled twice (only a merge of overlapping folders has any) counts once, as first seen.

use std::collections::BTreeMap;

use crate::journal::JournalEntry;
use bao_stats::{
    GameOutcome, OpenPairs, PairingSummary, PentanomialCounts, SprtParameters, SprtSummary, WdlCounts,
};

/// Wins/draws/losses and complete pairs, from one bot's perspective.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Single games.
    pub wdl: WdlCounts,
    /// Complete game pairs.
    pub pairs: PentanomialCounts,
}

impl Counts {
    /// The same counts from the opponent's perspective.
    #[must_use]
    pub fn reversed(&self) -> Counts {
        Counts { wdl: self.wdl.reversed(), pairs: self.pairs.reversed() }
    }
}

/// A set of game numbers, one bit per game.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameSet {
    words: Vec<u64>,
    len: u64,
}

impl GameSet {
    /// Adds `game`; `false` when it was already there.
    pub fn insert(&mut self, game: u32) -> bool {
        let (word, bit) = (game as usize / 64, 1u64 << (game % 64));
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        let fresh = self.words[word] & bit == 0;
        self.words[word] |= bit;
        self.len += u64::from(fresh);
        fresh
    }

    /// Whether `game` is in the set.
    #[must_use]
    pub fn contains(&self, game: u32) -> bool {
        self.words.get(game as usize / 64).is_some_and(|w| w & (1u64 << (game % 64)) != 0)
    }

    /// The number of games in the set.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the set is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The running counts of a tournament.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    names: Vec<String>,
    /// Each bot against the field.
    bots: Vec<Counts>,
    /// Each pair of bots that met (lower index first), from the lower index's perspective.
    meetings: BTreeMap<(usize, usize), Counts>,
    counted: GameSet,
    /// The first counted game of each pair whose other game is not counted yet, by pair, with
    /// its bots (lower index first).
    open_pairs: OpenPairs<u32, (usize, usize)>,
    duplicates: Vec<u32>,
    aborted: u64,
    reasons: BTreeMap<String, u64>,
    unverified: Vec<u32>,
    /// The worst lag of any journaled game, in microseconds, and the last game that had it.
    worst_lag: Option<(u64, u32)>,
}

impl Tally {
    /// An empty tally for bots with these names.
    #[must_use]
    pub fn new(names: Vec<String>) -> Tally {
        let bots = vec![Counts::default(); names.len()];
        Tally { names, bots, ..Tally::default() }
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

    /// Adds a journal entry. Every entry counts for the worst lag; an aborted game is counted
    /// as aborted only; a game already counted is a duplicate and counts no further.
    pub fn add(&mut self, entry: &JournalEntry) {
        if self.worst_lag.is_none_or(|(lag, _)| entry.worst_lag_us >= lag) {
            self.worst_lag = Some((entry.worst_lag_us, entry.game));
        }
        if !entry.counts() {
            self.aborted += 1;
            return;
        }
        if !self.counted.insert(entry.game) {
            self.duplicates.push(entry.game);
            return;
        }
        match self.reasons.get_mut(entry.reason.name()) {
            Some(n) => *n += 1,
            None => {
                self.reasons.insert(entry.reason.name().to_owned(), 1);
            }
        }
        if !entry.verified {
            self.unverified.push(entry.game);
        }
        let (low, high) = (entry.south_bot.min(entry.north_bot), entry.south_bot.max(entry.north_bot));
        let Some(score) = entry.score_of(low) else { return };
        let result = GameOutcome::from_score(score);
        for (bot, result) in [(low, result), (high, result.reversed())] {
            if let Some(counts) = self.bots.get_mut(bot) {
                counts.wdl.record(result);
            }
        }
        self.meetings.entry((low, high)).or_default().wdl.record(result);
        // A pair of other bots (only a hand-edited journal) is closed without being complete.
        if let Some((first, second)) = self.open_pairs.add(entry.pair, (low, high), result) {
            self.record_pair((low, high), first, second);
        }
    }

    fn record_pair(&mut self, (low, high): (usize, usize), first: GameOutcome, second: GameOutcome) {
        self.meetings.entry((low, high)).or_default().pairs.record_pair(first, second);
        if let Some(counts) = self.bots.get_mut(low) {
            counts.pairs.record_pair(first, second);
        }
        if let Some(counts) = self.bots.get_mut(high) {
            counts.pairs.record_pair(first.reversed(), second.reversed());
        }
    }

    /// The bots' names.
    #[must_use]
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether game `game` is counted.
    #[must_use]
    pub fn is_counted(&self, game: u32) -> bool {
        self.counted.contains(game)
    }

    /// The counted games.
    #[must_use]
    pub fn counted(&self) -> &GameSet {
        &self.counted
    }

    /// Games journaled again after they were counted, in journal order.
    #[must_use]
    pub fn duplicates(&self) -> &[u32] {
        &self.duplicates
    }

    /// Aborted games (journal lines that do not count).
    #[must_use]
    pub fn aborted(&self) -> u64 {
        self.aborted
    }

    /// The counted games by reason.
    #[must_use]
    pub fn reasons(&self) -> &BTreeMap<String, u64> {
        &self.reasons
    }

    /// The counted games whose log did not verify, in game order.
    #[must_use]
    pub fn unverified(&self) -> Vec<u32> {
        let mut games = self.unverified.clone();
        games.sort_unstable();
        games
    }

    /// The worst lag of a journaled game (microseconds, more than 0) and that game.
    #[must_use]
    pub fn worst_lag(&self) -> Option<(u64, u32)> {
        self.worst_lag.filter(|&(lag, _)| lag > 0)
    }

    /// Bot `a`'s games against bot `b`, from `a`'s perspective.
    #[must_use]
    pub fn between(&self, a: usize, b: usize) -> Counts {
        if a <= b {
            self.meetings.get(&(a, b)).copied().unwrap_or_default()
        } else {
            self.between(b, a).reversed()
        }
    }

    /// Bot `bot`'s games against the field.
    #[must_use]
    pub fn of_bot(&self, bot: usize) -> Counts {
        self.bots.get(bot).copied().unwrap_or_default()
    }

    /// The first two bots' statistics (with the SPRT, if given), from bot 0's perspective.
    #[must_use]
    pub fn first_pairing(&self, sprt: Option<&SprtParameters>) -> PairingSummary {
        let counts = self.between(0, 1);
        PairingSummary::new(counts.wdl, Some(counts.pairs), sprt)
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
                crate::results::elo_text(&stats)
            );
        }
        let mut points: Vec<(&String, f64)> =
            self.names.iter().zip(self.bots.iter().map(|c| c.wdl.points())).collect();
        points.sort_by(|x, y| y.1.total_cmp(&x.1).then_with(|| x.0.cmp(y.0)));
        let shown: Vec<String> = points.iter().take(4).map(|(name, p)| format!("{name} {p}")).collect();
        let more = if points.len() > 4 { format!(" (+{} more)", points.len() - 4) } else { String::new() };
        format!("{}{more}", shown.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::tests::entry;
    use bao_game::Reason;
    use bao_rules::Side::{North, South};

    #[test]
    fn the_tally_counts_games_pairs_and_both_perspectives() {
        let entries = vec![
            entry(0, 0, 1, Some(South), Reason::FrontRowEmpty),
            entry(3, 1, 0, Some(North), Reason::Timeout),
            entry(1, 1, 0, Some(South), Reason::NoLegalMoves),
            entry(2, 0, 1, None, Reason::MaxPlies),
            entry(2, 0, 1, None, Reason::MaxPlies),
            entry(5, 1, 0, None, Reason::Aborted),
            entry(4, 0, 1, Some(South), Reason::FrontRowEmpty),
        ];
        let tally = Tally::of(vec!["a".into(), "b".into()], &entries);
        let counts = tally.between(0, 1);
        assert_eq!(counts.wdl, WdlCounts::new(3, 1, 1));
        assert_eq!(counts.pairs.by_score(), [0, 0, 1, 1, 0]);
        assert_eq!(tally.between(1, 0), counts.reversed());
        assert_eq!(tally.of_bot(0), counts);
        assert_eq!(tally.of_bot(1), counts.reversed());
        assert_eq!(tally.first_pairing(None), PairingSummary::new(counts.wdl, Some(counts.pairs), None));
        assert_eq!((tally.counted().len(), tally.duplicates(), tally.aborted()), (5, &[2][..], 1));
        assert!(tally.is_counted(4) && !tally.is_counted(5));
        assert!(tally.score_line().starts_with("a 3.5 - 1.5 b  Elo +"), "{}", tally.score_line());
        // Game 4's pair is open: its game counts in W/D/L only.
        assert_eq!(tally.open_pairs.len(), 1);
    }

    #[test]
    fn many_bots_show_the_leaders() {
        let names: Vec<String> = ["a", "b", "c", "d", "e"].iter().map(|n| (*n).to_owned()).collect();
        let entries =
            vec![entry(0, 2, 3, Some(South), Reason::FrontRowEmpty), entry(1, 3, 2, None, Reason::MaxPlies)];
        let tally = Tally::of(names, &entries);
        assert_eq!(tally.score_line(), "c 1.5, d 0.5, a 0, b 0 (+1 more)");
        assert_eq!(tally.of_bot(2).pairs.by_score(), [0, 0, 0, 1, 0]);
        assert_eq!(tally.between(3, 2).pairs.by_score(), [0, 1, 0, 0, 0]);
    }

    #[test]
    fn the_worst_lag_is_the_last_of_the_largest_and_counts_aborted_games() {
        let mut entries: Vec<JournalEntry> =
            (0..4).map(|g| entry(g, 0, 1, Some(South), Reason::FrontRowEmpty)).collect();
        entries[1].worst_lag_us = 700;
        entries[3].worst_lag_us = 700;
        let mut aborted = entry(4, 0, 1, None, Reason::Aborted);
        aborted.worst_lag_us = 900;
        let tally = Tally::of(vec!["a".into(), "b".into()], &entries);
        assert_eq!(tally.worst_lag(), Some((700, 3)));
        entries.push(aborted);
        assert_eq!(Tally::of(vec!["a".into(), "b".into()], &entries).worst_lag(), Some((900, 4)));
        let none = Tally::of(vec!["a".into(), "b".into()], &entries[..1]);
        assert_eq!(none.worst_lag(), None);
    }

    #[test]
    fn a_game_set_holds_a_bit_per_game() {
        let mut set = GameSet::default();
        assert!(set.is_empty() && !set.contains(5));
        assert!(set.insert(5) && set.insert(1_000_000) && !set.insert(5));
        assert!(set.contains(5) && set.contains(1_000_000) && !set.contains(999_999));
        assert_eq!(set.len(), 2);
        assert!(set.words.len() * 8 < 130_000, "a million games in 125 KB");
    }
}
