//! The schedule of a tournament: which bots meet, in which colours, with
//! which opening. A pure function of the bot count, the mode, the rounds and
//! the games per round, so the same inputs always give the same schedule.
//!
//! Games come in *pairs*: the two games of a pair share an opening and swap
//! colours. Game `2p` of pair `p` has the pairing's first bot as South, game
//! `2p + 1` has it as North. Within a round, every pairing plays its pairs
//! with the same openings, so no pairing gets easier openings than another.

use serde::{Deserialize, Serialize};

/// The most games one schedule may hold.
pub const MAX_GAMES: u64 = 10_000_000;

/// Who plays whom.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Every bot plays every other bot.
    RoundRobin,
    /// The first bot plays each of the others; the others do not meet.
    Gauntlet,
}

impl Mode {
    /// Every mode, in the order a help text lists them.
    pub const ALL: [Mode; 2] = [Mode::RoundRobin, Mode::Gauntlet];

    /// The name used on the command line and in the plan.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Mode::RoundRobin => "round-robin",
            Mode::Gauntlet => "gauntlet",
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = String;

    fn from_str(s: &str) -> Result<Mode, String> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("{s:?} is not a mode: round-robin or gauntlet"))
    }
}

/// One game of the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduledGame {
    /// The game's number, from 0; its log is `games/{game:05}.jsonl`.
    pub game: u32,
    /// The game pair it belongs to (`game / 2`).
    pub pair: u32,
    /// The round, from 0.
    pub round: u32,
    /// The pairing, from 0 (an index into [`pairings`]).
    pub pairing: u32,
    /// The bot playing South (an index into the plan's bots).
    pub south: usize,
    /// The bot playing North.
    pub north: usize,
    /// The opening (an index into the plan's openings).
    pub opening: u32,
}

pub use crate::error::ScheduleError;

/// The pairings of `mode` among `bots` bots, as (first, second) bot indices.
#[must_use]
pub fn pairings(mode: Mode, bots: usize) -> Vec<(usize, usize)> {
    match mode {
        Mode::RoundRobin => (0..bots).flat_map(|a| (a + 1..bots).map(move |b| (a, b))).collect(),
        Mode::Gauntlet => (1..bots).map(|b| (0, b)).collect(),
    }
}

/// The number of openings a schedule uses: one per game pair slot of a round, for every round.
#[must_use]
pub fn opening_count(rounds: u32, games_per_round: u32) -> u32 {
    rounds.saturating_mul(games_per_round / 2)
}

/// A tournament's schedule, derived on demand: game `n`'s pairing, colours and opening are
/// computed from the mode, the bot count, the rounds and the games per round, so that a
/// million-game schedule takes the memory of its pairings, not of its games.
///
/// Order: for each round, for each pair slot of the round, for each pairing, one game pair
/// (the pairing's first bot South, then North).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    pairings: Vec<(usize, usize)>,
    rounds: u32,
    games_per_round: u32,
    len: u32,
}

impl Schedule {
    /// The schedule of `mode` among `bots` bots.
    ///
    /// # Errors
    /// Fewer than two bots, an odd game count, no rounds, or too many games.
    pub fn new(
        mode: Mode,
        bots: usize,
        rounds: u32,
        games_per_round: u32,
    ) -> Result<Schedule, ScheduleError> {
        if bots < 2 {
            return Err(ScheduleError::TooFewBots(bots));
        }
        if games_per_round < 2 || !games_per_round.is_multiple_of(2) {
            return Err(ScheduleError::OddGames(games_per_round));
        }
        if rounds == 0 {
            return Err(ScheduleError::NoRounds);
        }
        // Counted before the pairings are listed: a huge bot count is refused, not allocated.
        let pairing_count = match mode {
            Mode::RoundRobin => (bots as u64).saturating_mul(bots as u64 - 1) / 2,
            Mode::Gauntlet => bots as u64 - 1,
        };
        let total =
            pairing_count.saturating_mul(u64::from(rounds)).saturating_mul(u64::from(games_per_round));
        if total > MAX_GAMES {
            return Err(ScheduleError::TooLarge(total));
        }
        let len = u32::try_from(total).map_err(|_| ScheduleError::TooLarge(total))?;
        Ok(Schedule { pairings: pairings(mode, bots), rounds, games_per_round, len })
    }

    /// The number of games.
    #[must_use]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the schedule has no games (never, for a schedule that was built).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The pairings, as (first, second) bot indices.
    #[must_use]
    pub fn pairings(&self) -> &[(usize, usize)] {
        &self.pairings
    }

    /// The number of openings: one per game pair slot of a round, for every round.
    #[must_use]
    pub fn opening_count(&self) -> u32 {
        opening_count(self.rounds, self.games_per_round)
    }

    /// Game `game`, or `None` past the end.
    #[must_use]
    pub fn game(&self, game: u32) -> Option<ScheduledGame> {
        if game >= self.len {
            return None;
        }
        let pairings = u32::try_from(self.pairings.len()).ok()?;
        let slots = self.games_per_round / 2;
        let pair = game / 2;
        let pairs_per_round = slots * pairings;
        let round = pair / pairs_per_round;
        let in_round = pair % pairs_per_round;
        let slot = in_round / pairings;
        let pairing = in_round % pairings;
        let (a, b) = self.pairings[pairing as usize];
        let (south, north) = if game.is_multiple_of(2) { (a, b) } else { (b, a) };
        Some(ScheduledGame { game, pair, round, pairing, south, north, opening: round * slots + slot })
    }

    /// Every game, in order.
    pub fn games(&self) -> impl Iterator<Item = ScheduledGame> + '_ {
        (0..self.len).filter_map(|g| self.game(g))
    }

    /// Every game, in order, owning the schedule.
    pub fn into_games(self) -> impl Iterator<Item = ScheduledGame> {
        (0..self.len).filter_map(move |g| self.game(g))
    }
}

/// Lists the schedule: for each round, for each pair slot of the round, for
/// each pairing, one game pair (the first bot South, then North).
///
/// # Errors
/// Fewer than two bots, an odd game count, no rounds, or too many games.
pub fn build(
    mode: Mode,
    bots: usize,
    rounds: u32,
    games_per_round: u32,
) -> Result<Vec<ScheduledGame>, ScheduleError> {
    Ok(Schedule::new(mode, bots, rounds, games_per_round)?.into_games().collect())
}

/// The schedule listed by nested loops, as the plan stored it before it was derived (the
/// reference the derivation is tested against).
#[cfg(test)]
fn build_by_loops(mode: Mode, bots: usize, rounds: u32, games_per_round: u32) -> Vec<ScheduledGame> {
    let pairings = pairings(mode, bots);
    let slots = games_per_round / 2;
    let mut games = Vec::new();
    let mut pair: u32 = 0;
    for round in 0..rounds {
        for slot in 0..slots {
            let opening = round * slots + slot;
            for (pairing, &(a, b)) in (0u32..).zip(&pairings) {
                for (south, north) in [(a, b), (b, a)] {
                    let game = pair * 2 + u32::from(south != a);
                    games.push(ScheduledGame { game, pair, round, pairing, south, north, opening });
                }
                pair += 1;
            }
        }
    }
    games
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_pairs_every_bot_with_every_other() {
        assert_eq!(pairings(Mode::RoundRobin, 3), vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(pairings(Mode::RoundRobin, 4).len(), 6);
        assert_eq!(pairings(Mode::Gauntlet, 4), vec![(0, 1), (0, 2), (0, 3)]);
    }

    #[test]
    fn every_pair_swaps_colours_on_the_same_opening() {
        let games = build(Mode::RoundRobin, 3, 2, 4).unwrap();
        assert_eq!(games.len(), 3 * 2 * 4);
        for (i, g) in games.iter().enumerate() {
            assert_eq!(g.game as usize, i, "games are numbered in order");
            assert_eq!(g.pair, g.game / 2);
        }
        for pair in games.chunks(2) {
            assert_eq!(pair[0].south, pair[1].north);
            assert_eq!(pair[0].north, pair[1].south);
            assert_eq!(pair[0].opening, pair[1].opening);
            assert_eq!(pair[0].pairing, pair[1].pairing);
        }
        // Each bot plays South as often as North.
        for bot in 0..3 {
            let south = games.iter().filter(|g| g.south == bot).count();
            let north = games.iter().filter(|g| g.north == bot).count();
            assert_eq!(south, north);
            assert_eq!(south, 8);
        }
        // Two rounds of two slots: four openings, each used by every pairing.
        assert_eq!(opening_count(2, 4), 4);
        for opening in 0..4 {
            let users: Vec<u32> = games.iter().filter(|g| g.opening == opening).map(|g| g.pairing).collect();
            assert_eq!(users, vec![0, 0, 1, 1, 2, 2]);
        }
    }

    #[test]
    fn the_schedule_is_a_pure_function_of_its_inputs() {
        assert_eq!(build(Mode::Gauntlet, 5, 3, 2).unwrap(), build(Mode::Gauntlet, 5, 3, 2).unwrap());
        assert_ne!(build(Mode::Gauntlet, 5, 3, 2).unwrap(), build(Mode::RoundRobin, 5, 3, 2).unwrap());
    }

    #[test]
    fn the_derived_schedule_is_the_listed_one() {
        for (mode, bots, rounds, games) in [
            (Mode::RoundRobin, 2, 1, 2),
            (Mode::RoundRobin, 3, 2, 4),
            (Mode::RoundRobin, 5, 3, 6),
            (Mode::Gauntlet, 4, 2, 8),
        ] {
            let schedule = Schedule::new(mode, bots, rounds, games).unwrap();
            let listed = build_by_loops(mode, bots, rounds, games);
            assert_eq!(schedule.games().collect::<Vec<_>>(), listed, "{mode:?} {bots} {rounds} {games}");
            assert_eq!(schedule.len() as usize, listed.len());
            assert_eq!(schedule.game(schedule.len()), None);
        }
    }

    #[test]
    fn bad_inputs_are_refused_with_a_reason() {
        assert_eq!(build(Mode::RoundRobin, 1, 1, 2), Err(ScheduleError::TooFewBots(1)));
        assert_eq!(build(Mode::RoundRobin, 2, 1, 3), Err(ScheduleError::OddGames(3)));
        assert_eq!(build(Mode::RoundRobin, 2, 1, 0), Err(ScheduleError::OddGames(0)));
        assert_eq!(build(Mode::RoundRobin, 2, 0, 2), Err(ScheduleError::NoRounds));
        assert!(matches!(build(Mode::RoundRobin, 100, 1000, 1000), Err(ScheduleError::TooLarge(_))));
        assert!(matches!(Schedule::new(Mode::RoundRobin, usize::MAX, 1, 2), Err(ScheduleError::TooLarge(_))));
    }
}
