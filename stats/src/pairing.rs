//! Completing game pairs: the two games of a pair (same opening, sides swapped) arrive one at a
//! time, in any order and interleaved with other pairs' games, and a pair counts in the
//! pentanomial only once both of its games are in. `bao-referee tournament` (its tally, game by
//! game from the journal) and the server (a candidate's games, from the database) both complete
//! their pairs here.

use std::collections::HashMap;
use std::hash::Hash;

use crate::{GameOutcome, PentanomialCounts};

/// The pairs with one game in: per pair key, who played it and its outcome.
///
/// `P` identifies the pair's two players in a fixed order (for example the lower bot index
/// first), and each outcome is that first player's; `()` when every game is between the same two.
#[derive(Debug, Clone)]
pub struct OpenPairs<K, P = ()> {
    open: HashMap<K, (P, GameOutcome)>,
}

impl<K, P> Default for OpenPairs<K, P> {
    fn default() -> Self {
        OpenPairs { open: HashMap::new() }
    }
}

impl<K: Eq + Hash, P: Eq> OpenPairs<K, P> {
    /// No pair open.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one game of pair `pair`, played by `players`, with `outcome` for their first player.
    /// Returns the pair's two outcomes (the game added first, first) when this game completes it.
    /// A game whose pair was opened by other players closes that pair without completing it:
    /// neither game counts as a pair (only a hand-edited record has one).
    pub fn add(&mut self, pair: K, players: P, outcome: GameOutcome) -> Option<(GameOutcome, GameOutcome)> {
        match self.open.remove(&pair) {
            Some((first_players, first)) => (first_players == players).then_some((first, outcome)),
            None => {
                self.open.insert(pair, (players, outcome));
                None
            }
        }
    }

    /// The number of pairs with one game in.
    #[must_use]
    pub fn len(&self) -> usize {
        self.open.len()
    }

    /// Whether no pair has only one game in.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }
}

impl PentanomialCounts {
    /// The pentanomial counts of games given one at a time with their pair's key, each outcome
    /// from the first player's perspective: a pair counts once both of its games are given, the
    /// game given first as the pair's first game; a game whose pair never completes does not
    /// count. A third game with a key starts a new pair.
    pub fn from_keyed_games<K: Eq + Hash>(games: impl IntoIterator<Item = (K, GameOutcome)>) -> Self {
        let mut open = OpenPairs::<K>::new();
        let mut counts = PentanomialCounts::default();
        for (key, outcome) in games {
            if let Some((first, second)) = open.add(key, (), outcome) {
                counts.record_pair(first, second);
            }
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use GameOutcome::{Draw, Loss, Win};

    #[test]
    fn a_pair_completes_with_its_second_game_whatever_comes_between() {
        let mut open = OpenPairs::<u32, (usize, usize)>::new();
        assert_eq!(open.add(7, (0, 1), Win), None);
        assert_eq!(open.add(8, (0, 1), Draw), None);
        assert_eq!(open.len(), 2);
        assert_eq!(open.add(7, (0, 1), Loss), Some((Win, Loss)));
        assert_eq!(open.len(), 1);
        // Other players on pair 8's key: the pair is closed, not completed.
        assert_eq!(open.add(8, (1, 2), Win), None);
        assert!(open.is_empty());
    }

    #[test]
    fn keyed_games_count_complete_pairs_only() {
        let games = [("a", Win), ("b", Draw), ("a", Draw), ("c", Loss), ("b", Loss), ("d", Win)];
        let counts = PentanomialCounts::from_keyed_games(games);
        assert_eq!(counts.pairs(), 2);
        assert_eq!(counts, PentanomialCounts::from_pairs([(Win, Draw), (Draw, Loss)]));
        assert_eq!(PentanomialCounts::from_keyed_games(Vec::<(u8, GameOutcome)>::new()).pairs(), 0);
    }
}
