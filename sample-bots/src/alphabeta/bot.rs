//! The alpha-beta bot on the typed SDK: levels, time management and `info` lines.
//!
//! Time: with [`Level::Time`] the search stops starting iterations at the deadline's
//! soft budget and stops searching at its hard budget (see `bao_sdk::Deadline`). The soft
//! budget is doubled when the position is critical (the best move changed in the last
//! iteration, or the score fell by a quarter of a logit), and an iteration is not
//! started when less than half the soft budget is left (it would not finish). A forced
//! move (a single legal move) is played at once.
//!
//! Determinism: with a fixed `--seed` and [`Level::Depth`] or [`Level::Nodes`], the bot
//! plays the same moves every time (the tables are cleared at every new game, the
//! seeded shuffle of the root moves is the only randomness, and the clock is consulted
//! only for the hard budget, which fixed levels do not reach at sane time controls).

use std::time::Duration;

use bao_sdk::{Bot, Deadline, Identity, Info, Move, MoveList, NewGame, Position, TimeMode};
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::search::{DEFAULT_CAPTURE_PLIES, Iteration, Limits, MAX_PLY, Searcher};
use crate::GameSeed;
use crate::eval::Weights;

/// How strong the bot plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Search to this depth (plies, before the capture extension).
    Depth(u32),
    /// Search this many nodes.
    Nodes(u64),
    /// Use the time the clock allows.
    Time,
}

/// The table size: 2^19 entries of 24 bytes, 12 MiB.
pub const TABLE_BITS: u32 = 19;

/// The alpha-beta bot.
#[derive(Debug, Clone)]
pub struct AlphaBetaBot {
    level: Level,
    searcher: Searcher,
    seeds: GameSeed,
    rng: ChaCha8Rng,
    info: Vec<Info>,
    capture_plies: u32,
    name: &'static str,
}

impl AlphaBetaBot {
    /// A bot at `level`, seeded by `seeds`, with the tuned weights.
    #[must_use]
    pub fn new(level: Level, seeds: GameSeed) -> AlphaBetaBot {
        AlphaBetaBot::with_weights(level, seeds, crate::weights::TUNED)
    }

    /// A bot with other evaluation weights (for tuning and comparisons).
    #[must_use]
    pub fn with_weights(level: Level, mut seeds: GameSeed, weights: Weights) -> AlphaBetaBot {
        let (rng, info) = seeds.start_game(None);
        AlphaBetaBot {
            level,
            searcher: Searcher::new(TABLE_BITS, weights),
            seeds,
            rng,
            info,
            capture_plies: DEFAULT_CAPTURE_PLIES,
            name: "alphabeta",
        }
    }

    /// This bot with another capture extension (plies).
    #[must_use]
    pub fn with_capture_plies(mut self, plies: u32) -> AlphaBetaBot {
        self.capture_plies = plies;
        self
    }

    /// This bot under another name (in `ready`).
    #[must_use]
    pub fn named(mut self, name: &'static str) -> AlphaBetaBot {
        self.name = name;
        self
    }

    /// The search result for `position` within `deadline` (the heart of
    /// [`Bot::choose_move`], public for tests and benchmarks). `None` only when
    /// there is no legal move.
    pub fn think(&mut self, position: &Position, deadline: &Deadline) -> Option<Iteration> {
        let start = deadline.start();
        let at = |d: Option<Duration>| d.and_then(|d| start.checked_add(d));
        let hard_stop = at(deadline.hard());
        let (depth, nodes, soft) = match self.level {
            Level::Depth(d) => (d, None, None),
            Level::Nodes(n) => (MAX_PLY as u32, Some(n), None),
            Level::Time => (MAX_PLY as u32, None, deadline.soft()),
        };
        let limits = Limits { depth, nodes, hard_stop, capture_plies: self.capture_plies };
        let move_time = matches!(deadline.mode(), TimeMode::MoveTime(_));
        let rng = &mut self.rng;
        let info = &mut self.info;
        let mut last: Option<(Move, i32)> = None;
        self.searcher.search(
            position,
            limits,
            |moves| moves.shuffle(rng),
            |iteration: &Iteration| {
                let elapsed = start.elapsed();
                info.push(iteration_info(iteration, elapsed));
                let critical = last
                    .is_some_and(|(m, score)| m != iteration.best || iteration.score < score - CRITICAL_DROP);
                last = Some((iteration.best, iteration.score));
                let Some(soft) = soft else { return true };
                let soft = if critical { deadline.extend_soft(2, 1).soft().unwrap_or(soft) } else { soft };
                // The next iteration takes several times as long as all before it.
                if move_time { elapsed < soft } else { elapsed * 2 < soft }
            },
        )
    }
}

/// A fall in score (thousandths of a logit) that makes a position critical.
pub const CRITICAL_DROP: i32 = 250;

/// The `info` line of an iteration: depth, score, nodes, and the PV, time and speed
/// in the comment.
fn iteration_info(iteration: &Iteration, elapsed: Duration) -> Info {
    let ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
    let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX).max(1);
    let nps = iteration.nodes.saturating_mul(1_000_000) / micros;
    let pv: Vec<String> = iteration.pv.iter().map(ToString::to_string).collect();
    Info {
        depth: Some(iteration.depth),
        score: Some(i64::from(iteration.score)),
        nodes: Some(iteration.nodes),
        comment: Some(format!(
            "pv {} time {ms} nps {nps}{}",
            pv.join(" "),
            if iteration.complete { "" } else { " partial" }
        )),
    }
}

impl Bot for AlphaBetaBot {
    fn identity(&self) -> Identity {
        Identity::new(self.name).with_author("bao-referee").with_version(env!("CARGO_PKG_VERSION"))
    }

    fn new_game(&mut self, _game: &NewGame) {
        (self.rng, self.info) = self.seeds.start_game(Some(self.name));
        self.searcher.clear();
    }

    fn choose_move(&mut self, position: &Position, legal: &MoveList, deadline: &Deadline) -> Move {
        if legal.len() == 1 {
            self.info.push(Info::comment("forced"));
            return legal[0];
        }
        match self.think(position, deadline) {
            Some(iteration) => iteration.best,
            None => legal[0],
        }
    }

    fn take_info(&mut self) -> Vec<Info> {
        std::mem::take(&mut self.info)
    }
}
