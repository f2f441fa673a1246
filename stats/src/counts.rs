//! Result counts: wins/draws/losses of single games, and the pentanomial counts of game pairs.
//!
//! Every count is from the first player's perspective (the engine under test in a
//! `bao-referee tournament` pairing). A *pair* is two games from the same opening with the sides
//! swapped; its score is the first player's points over both games: 0, ½, 1, 1½ or 2.

use serde::{Deserialize, Serialize};

/// The result of one game from the first player's perspective.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameOutcome {
    /// The first player won.
    Win,
    /// Neither player won.
    Draw,
    /// The first player lost.
    Loss,
}

impl GameOutcome {
    /// The first player's points for this game: 1, ½ or 0.
    pub fn points(self) -> f64 {
        f64::from(self.half_points()) / 2.0
    }

    /// The first player's points in half points: 2, 1 or 0.
    pub fn half_points(self) -> u8 {
        match self {
            GameOutcome::Win => 2,
            GameOutcome::Draw => 1,
            GameOutcome::Loss => 0,
        }
    }

    /// The outcome of a game in which the first player scored `score` (1, ½ or 0; a score above
    /// ¾ is a win, below ¼ a loss, anything else a draw).
    pub fn from_score(score: f64) -> GameOutcome {
        if score > 0.75 {
            GameOutcome::Win
        } else if score < 0.25 {
            GameOutcome::Loss
        } else {
            GameOutcome::Draw
        }
    }

    /// The same game from the other player's perspective.
    pub fn reversed(self) -> GameOutcome {
        match self {
            GameOutcome::Win => GameOutcome::Loss,
            GameOutcome::Draw => GameOutcome::Draw,
            GameOutcome::Loss => GameOutcome::Win,
        }
    }
}

/// Wins, losses and draws of single games, from the first player's perspective.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WdlCounts {
    /// Games the first player won.
    pub wins: u64,
    /// Games the first player lost.
    pub losses: u64,
    /// Drawn games.
    pub draws: u64,
}

impl WdlCounts {
    /// Counts with the given numbers of wins, losses and draws (in that order, as fastchess prints them).
    pub fn new(wins: u64, losses: u64, draws: u64) -> Self {
        WdlCounts { wins, losses, draws }
    }

    /// Adds one game.
    pub fn record(&mut self, outcome: GameOutcome) {
        let count = match outcome {
            GameOutcome::Win => &mut self.wins,
            GameOutcome::Draw => &mut self.draws,
            GameOutcome::Loss => &mut self.losses,
        };
        *count = count.saturating_add(1);
    }

    /// The number of games (saturating at `u64::MAX`).
    pub fn games(&self) -> u64 {
        self.wins.saturating_add(self.losses).saturating_add(self.draws)
    }

    /// The first player's points: wins + draws/2.
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// The first player's mean score per game, in [0, 1]; `None` when no game was played.
    pub fn score(&self) -> Option<f64> {
        let games = self.games();
        (games > 0).then(|| self.points() / games as f64)
    }

    /// The fraction of games drawn, in [0, 1]; `None` when no game was played.
    pub fn draw_ratio(&self) -> Option<f64> {
        let games = self.games();
        (games > 0).then(|| self.draws as f64 / games as f64)
    }

    /// The same counts from the second player's perspective (wins and losses swapped).
    pub fn reversed(&self) -> WdlCounts {
        WdlCounts { wins: self.losses, losses: self.wins, draws: self.draws }
    }

    /// The counts as `[losses, draws, wins]`, ordered by the first player's score 0, ½, 1.
    pub fn by_score(&self) -> [u64; 3] {
        [self.losses, self.draws, self.wins]
    }
}

impl FromIterator<GameOutcome> for WdlCounts {
    fn from_iter<I: IntoIterator<Item = GameOutcome>>(outcomes: I) -> Self {
        let mut counts = WdlCounts::default();
        for outcome in outcomes {
            counts.record(outcome);
        }
        counts
    }
}

/// Game pairs counted by the first player's pair score (0, ½, 1, 1½, 2 points over both games).
///
/// The names say which results make up the pair in either order: `ld` is a loss and a draw,
/// `dd_or_wl` is two draws or a win and a loss (both score 1), and so on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PentanomialCounts {
    /// Pairs scoring 0: two losses.
    pub ll: u64,
    /// Pairs scoring ½: a loss and a draw.
    pub ld: u64,
    /// Pairs scoring 1: two draws, or a win and a loss.
    pub dd_or_wl: u64,
    /// Pairs scoring 1½: a win and a draw.
    pub wd: u64,
    /// Pairs scoring 2: two wins.
    pub ww: u64,
}

impl PentanomialCounts {
    /// Counts with the given numbers of pairs, in order of pair score 0, ½, 1, 1½, 2.
    pub fn new(ll: u64, ld: u64, dd_or_wl: u64, wd: u64, ww: u64) -> Self {
        PentanomialCounts { ll, ld, dd_or_wl, wd, ww }
    }

    /// Counts built from pairs of game results, each from the first player's perspective
    /// (the order of the two games within a pair does not matter).
    pub fn from_pairs<I: IntoIterator<Item = (GameOutcome, GameOutcome)>>(pairs: I) -> Self {
        let mut counts = PentanomialCounts::default();
        for (first_game, second_game) in pairs {
            counts.record_pair(first_game, second_game);
        }
        counts
    }

    /// Adds one pair: the results of its two games, each from the first player's perspective.
    pub fn record_pair(&mut self, first_game: GameOutcome, second_game: GameOutcome) {
        let count = match first_game.half_points() + second_game.half_points() {
            0 => &mut self.ll,
            1 => &mut self.ld,
            2 => &mut self.dd_or_wl,
            3 => &mut self.wd,
            _ => &mut self.ww,
        };
        *count = count.saturating_add(1);
    }

    /// The number of pairs (saturating at `u64::MAX`).
    pub fn pairs(&self) -> u64 {
        self.by_score().iter().fold(0_u64, |total, &count| total.saturating_add(count))
    }

    /// The number of games: two per pair (saturating at `u64::MAX`).
    pub fn games(&self) -> u64 {
        self.pairs().saturating_mul(2)
    }

    /// The first player's mean score per game, in [0, 1]; `None` when no pair was played.
    pub fn score(&self) -> Option<f64> {
        let pairs = self.pairs();
        let half_points: f64 =
            self.by_score().iter().zip(0_u32..).map(|(&count, score)| count as f64 * f64::from(score)).sum();
        // Each pair holds 4 half points.
        (pairs > 0).then(|| half_points / (4.0 * pairs as f64))
    }

    /// The same counts from the second player's perspective.
    pub fn reversed(&self) -> PentanomialCounts {
        PentanomialCounts { ll: self.ww, ld: self.wd, dd_or_wl: self.dd_or_wl, wd: self.ld, ww: self.ll }
    }

    /// The counts as `[ll, ld, dd_or_wl, wd, ww]`, ordered by pair score 0, ½, 1, 1½, 2.
    pub fn by_score(&self) -> [u64; 5] {
        [self.ll, self.ld, self.dd_or_wl, self.wd, self.ww]
    }
}

#[cfg(test)]
mod tests {
    use super::GameOutcome::{Draw, Loss, Win};
    use super::*;

    #[test]
    fn wdl_counts_tally_outcomes() {
        let counts: WdlCounts = [Win, Win, Draw, Loss, Win, Draw].into_iter().collect();
        assert_eq!(counts, WdlCounts::new(3, 1, 2));
        assert_eq!(counts.games(), 6);
        assert_eq!(counts.points(), 4.0);
        assert_eq!(counts.score(), Some(4.0 / 6.0));
        assert_eq!(counts.draw_ratio(), Some(2.0 / 6.0));
        assert_eq!(counts.by_score(), [1, 2, 3]);
        assert_eq!(counts.reversed(), WdlCounts::new(1, 3, 2));
        assert_eq!(counts.reversed().score(), Some(2.0 / 6.0));
    }

    #[test]
    fn a_score_gives_the_outcome_and_back() {
        for outcome in [Win, Draw, Loss] {
            assert_eq!(GameOutcome::from_score(outcome.points()), outcome);
        }
        assert_eq!(GameOutcome::from_score(0.8), Win);
        assert_eq!(GameOutcome::from_score(0.2), Loss);
        assert_eq!(GameOutcome::from_score(0.75), Draw);
    }

    #[test]
    fn empty_counts_have_no_score() {
        assert_eq!(WdlCounts::default().score(), None);
        assert_eq!(WdlCounts::default().draw_ratio(), None);
        assert_eq!(PentanomialCounts::default().score(), None);
        assert_eq!(PentanomialCounts::default().pairs(), 0);
    }

    #[test]
    fn counts_saturate_instead_of_overflowing() {
        let mut counts = WdlCounts::new(u64::MAX, 5, 5);
        assert_eq!(counts.games(), u64::MAX);
        counts.record(Win);
        assert_eq!(counts.wins, u64::MAX);
        let pairs = PentanomialCounts::new(u64::MAX, 1, 0, 0, 0);
        assert_eq!(pairs.pairs(), u64::MAX);
        assert_eq!(pairs.games(), u64::MAX);
    }

    #[test]
    fn every_pair_lands_in_the_bucket_of_its_score() {
        let cases = [
            ((Loss, Loss), [1, 0, 0, 0, 0]),
            ((Loss, Draw), [0, 1, 0, 0, 0]),
            ((Draw, Loss), [0, 1, 0, 0, 0]),
            ((Draw, Draw), [0, 0, 1, 0, 0]),
            ((Win, Loss), [0, 0, 1, 0, 0]),
            ((Loss, Win), [0, 0, 1, 0, 0]),
            ((Win, Draw), [0, 0, 0, 1, 0]),
            ((Draw, Win), [0, 0, 0, 1, 0]),
            ((Win, Win), [0, 0, 0, 0, 1]),
        ];
        for ((first, second), expected) in cases {
            let counts = PentanomialCounts::from_pairs([(first, second)]);
            assert_eq!(counts.by_score(), expected, "pair {first:?} {second:?}");
            assert_eq!(counts.score(), Some((first.points() + second.points()) / 2.0));
        }
    }

    #[test]
    fn pentanomial_score_equals_the_score_of_the_same_games() {
        let pairs = [(Win, Loss), (Draw, Draw), (Win, Draw), (Win, Win), (Loss, Draw), (Draw, Win)];
        let pentanomial = PentanomialCounts::from_pairs(pairs);
        let wdl: WdlCounts = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        assert_eq!(pentanomial, PentanomialCounts::new(0, 1, 2, 2, 1));
        assert_eq!(pentanomial.games(), wdl.games());
        assert_eq!(pentanomial.score(), wdl.score());
        assert_eq!(pentanomial.reversed(), PentanomialCounts::new(1, 2, 2, 1, 0));
        assert_eq!(pentanomial.reversed().score(), wdl.reversed().score());
    }

    #[test]
    fn outcomes_serialise_in_snake_case() {
        assert_eq!(serde_json::to_string(&Win).ok().as_deref(), Some("\"win\""));
        assert_eq!(Loss.reversed(), Win);
        assert_eq!(Draw.points(), 0.5);
    }
}
