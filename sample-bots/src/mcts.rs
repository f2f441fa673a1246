//! `mcts`: Monte Carlo tree search (UCT) with the tuned evaluation at the leaves instead
//! of random playouts (random Bao playouts are long and say little).
//!
//! Each iteration walks down the tree by UCB1, expands the leaf it reaches (all its
//! moves at once), scores it — a finished game exactly, otherwise the logistic of the
//! evaluation, `1 / (1 + e^(-eval / 1000))`, as the probability that the side to move
//! wins — and backs the value up. The move played is the root child visited most.

use std::time::Duration;

use bao_sdk::{Bot, Deadline, Identity, Info, Move, MoveList, NewGame, Position, TimeMode};
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::GameSeed;
use crate::alphabeta::Level;
use crate::eval::evaluate;

/// The UCB1 exploration constant.
pub const EXPLORATION: f64 = 0.7;

/// One node of the tree.
#[derive(Debug, Clone)]
struct Node {
    position: Position,
    /// The move that led here (none at the root).
    by: Option<Move>,
    /// Children, once expanded: indices into the arena.
    children: Vec<u32>,
    expanded: bool,
    visits: u32,
    /// Sum of values for the player who moved into this node.
    value: f64,
}

/// The result of a search: the move, iterations run and the root's visit share.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MctsResult {
    /// The most visited move.
    pub best: Move,
    /// Iterations run.
    pub iterations: u64,
    /// The mean value of the best move for the side to move (0..1).
    pub value: f64,
}

/// The probability that the side to move wins, by the evaluation.
fn leaf_value(position: &Position) -> f64 {
    let me = position.side_to_move();
    if position.front_row_empty(me) {
        return 0.0;
    }
    if position.front_row_empty(me.opponent()) {
        return 1.0;
    }
    1.0 / (1.0 + (-f64::from(evaluate(position)) / 1000.0).exp())
}

/// Runs UCT from `root` for at most `iterations` iterations or until `stop()` says so
/// (asked every 64 iterations). `None` when `root` has no legal move.
pub fn search(
    root: &Position,
    iterations: u64,
    rng: &mut ChaCha8Rng,
    mut stop: impl FnMut() -> bool,
) -> Option<MctsResult> {
    let mut arena = vec![Node {
        position: *root,
        by: None,
        children: Vec::new(),
        expanded: false,
        visits: 0,
        value: 0.0,
    }];
    let mut path: Vec<u32> = Vec::with_capacity(64);
    let mut done = 0;
    while done < iterations {
        if done % 64 == 0 && done > 0 && stop() {
            break;
        }
        done += 1;
        path.clear();
        let mut at = 0u32;
        path.push(at);
        // Selection.
        while arena[at as usize].expanded && !arena[at as usize].children.is_empty() {
            let parent_visits = f64::from(arena[at as usize].visits.max(1));
            let log_n = parent_visits.ln();
            let mut best = f64::NEG_INFINITY;
            let mut pick = arena[at as usize].children[0];
            for &c in &arena[at as usize].children {
                let child = &arena[c as usize];
                let ucb = if child.visits == 0 {
                    f64::INFINITY
                } else {
                    let n = f64::from(child.visits);
                    child.value / n + EXPLORATION * (log_n / n).sqrt()
                };
                if ucb > best {
                    best = ucb;
                    pick = c;
                }
            }
            at = pick;
            path.push(at);
            if arena[at as usize].visits == 0 {
                break;
            }
        }
        // Expansion and evaluation: the value for the side to move at the leaf.
        let leaf = at as usize;
        let mut value = if arena[leaf].expanded {
            // Expanded with no children: finished by a front row, or no legal move.
            let position = &arena[leaf].position;
            let me = position.side_to_move();
            if position.front_row_empty(me) || position.front_row_empty(me.opponent()) {
                leaf_value(position)
            } else {
                0.0
            }
        } else {
            let position = arena[leaf].position;
            let over = position.front_row_empty(position.side_to_move())
                || position.front_row_empty(position.side_to_move().opponent());
            if !over {
                let mut successors = position.successors();
                successors.shuffle(rng);
                let first = arena.len();
                for (m, next) in successors {
                    arena.push(Node {
                        position: next,
                        by: Some(m),
                        children: Vec::new(),
                        expanded: false,
                        visits: 0,
                        value: 0.0,
                    });
                }
                let ids: Vec<u32> =
                    (first..arena.len()).map(|i| u32::try_from(i).unwrap_or(u32::MAX)).collect();
                arena[leaf].children = ids;
            }
            arena[leaf].expanded = true;
            if !over && arena[leaf].children.is_empty() { 0.0 } else { leaf_value(&position) }
        };
        // Backup: each node holds the value for the player who moved into it.
        for &n in path.iter().rev() {
            let node = &mut arena[n as usize];
            node.visits += 1;
            node.value += 1.0 - value;
            value = 1.0 - value;
        }
    }
    let root_node = &arena[0];
    let best = root_node.children.iter().copied().max_by_key(|&c| arena[c as usize].visits)?;
    let child = &arena[best as usize];
    Some(MctsResult {
        best: child.by?,
        iterations: done,
        value: child.value / f64::from(child.visits.max(1)),
    })
}

/// The MCTS bot.
#[derive(Debug, Clone)]
pub struct MctsBot {
    level: Level,
    seeds: GameSeed,
    rng: ChaCha8Rng,
    info: Vec<Info>,
}

/// Iterations per move at [`Level::Depth`] `d`: `1000 × d` (mcts has no depth).
pub const ITERATIONS_PER_DEPTH: u64 = 1000;

impl MctsBot {
    /// A bot at `level` seeded by `seeds`.
    #[must_use]
    pub fn new(level: Level, mut seeds: GameSeed) -> MctsBot {
        let (rng, info) = seeds.start_game(None);
        MctsBot { level, seeds, rng, info }
    }

    /// The search for `position` within `deadline`.
    pub fn think(&mut self, position: &Position, deadline: &Deadline) -> Option<MctsResult> {
        let (iterations, soft) = match self.level {
            Level::Depth(d) => (u64::from(d) * ITERATIONS_PER_DEPTH, None),
            Level::Nodes(n) => (n, None),
            Level::Time => (u64::MAX, deadline.soft()),
        };
        // MCTS is anytime: use the soft budget (the whole of it in move-time mode).
        let budget = match (soft, deadline.mode()) {
            (Some(_), TimeMode::MoveTime(_)) => deadline.hard().map(|h| h * 3 / 4),
            (soft, _) => soft,
        };
        let start = deadline.start();
        let result = search(position, iterations, &mut self.rng, || {
            deadline.expired() || budget.is_some_and(|b: Duration| start.elapsed() >= b)
        })?;
        self.info.push(Info {
            depth: None,
            score: Some((result.value * 1000.0) as i64),
            nodes: Some(result.iterations),
            comment: Some(format!("best {} time {} ms", result.best, start.elapsed().as_millis())),
        });
        Some(result)
    }
}

impl Bot for MctsBot {
    fn identity(&self) -> Identity {
        Identity::new("mcts").with_author("bao-referee").with_version(env!("CARGO_PKG_VERSION"))
    }

    fn new_game(&mut self, _game: &NewGame) {
        (self.rng, self.info) = self.seeds.start_game(Some("mcts"));
    }

    fn choose_move(&mut self, position: &Position, legal: &MoveList, deadline: &Deadline) -> Move {
        if legal.len() == 1 {
            return legal[0];
        }
        self.think(position, deadline).map_or(legal[0], |r| r.best)
    }

    fn take_info(&mut self) -> Vec<Info> {
        std::mem::take(&mut self.info)
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn takes_an_immediate_win_and_is_reproducible() {
        let pos: Position =
            "kujifunza N 1,1,1,2,4,4,3,0/0,1,3,3,0,3,0,1/0,1,0,1,1,1,5,3/5,0,6,3,6,2,1,2 0,0 -- -"
                .parse()
                .expect("valid");
        let run = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            search(&pos, 2000, &mut rng, || false).expect("moves")
        };
        let a = run(1);
        assert_eq!(a.best.to_string(), "B1>", "the only winning move");
        assert_eq!(a.iterations, 2000);
        assert_eq!(a, run(1));
    }
}
