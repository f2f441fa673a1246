//! Iterative-deepening negamax with alpha-beta and principal variation search, a
//! transposition table, move ordering (table move, killers, seeds captured, history)
//! and a capture extension at the horizon.
//!
//! Bao has no quiet/noisy split like chess: captures are mandatory, so a position where
//! the side to move can capture is a forced sequence of captures. At the horizon such a
//! position is searched further (up to [`Limits::capture_plies`] plies), every capture
//! move included (there is no "standing pat": the capture must be made).

use std::time::Instant;

use arrayvec::ArrayVec;
use bao_rules::{Move, Position, Side};

use super::tt::{Bound, Entry, Table};
use crate::board::{Rings, board_seeds, captures, rings};
use crate::eval::{Weights, evaluate_with};

/// The score of a won position, less one per ply to the win.
pub const WIN: i32 = 1_000_000;
/// Scores beyond this are wins or losses.
pub const WIN_BOUND: i32 = WIN - 1000;
/// The deepest ply a search reaches (iterations stop before).
pub const MAX_PLY: usize = 96;

/// How much a search may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The last iteration's depth.
    pub depth: u32,
    /// Stop once this many nodes are searched (checked at every node, once the first
    /// iteration is complete: a depth-1 search always finishes).
    pub nodes: Option<u64>,
    /// Stop at this instant (checked every 256 nodes, about 0.1 ms).
    pub hard_stop: Option<Instant>,
    /// Plies of capture extension at the horizon.
    pub capture_plies: u32,
}

impl Limits {
    /// A fixed depth, no other limit.
    #[must_use]
    pub const fn depth(depth: u32) -> Limits {
        Limits { depth, nodes: None, hard_stop: None, capture_plies: DEFAULT_CAPTURE_PLIES }
    }
}

/// The default capture extension.
pub const DEFAULT_CAPTURE_PLIES: u32 = 2;

/// The result of one completed (or, for the last, partly completed) iteration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Iteration {
    /// Its depth.
    pub depth: u32,
    /// The best move's score for the side to move.
    pub score: i32,
    /// The best move.
    pub best: Move,
    /// The principal variation, starting with `best`.
    pub pv: Vec<Move>,
    /// Nodes searched so far in this search.
    pub nodes: u64,
    /// Whether the iteration finished (false: cut short by a limit, best move kept).
    pub complete: bool,
}

/// The index of a move in 0..64, for killer and history tables.
#[must_use]
pub fn move_index(m: Move) -> u8 {
    #[expect(clippy::cast_possible_truncation, reason = "pit index < 16")]
    let pit = m.pit().index() as u8;
    pit * 4 + u8::from(m.direction() == bao_rules::Direction::Clockwise) * 2 + u8::from(m.safari())
}

type Successors = ArrayVec<(Move, Position), 32>;

/// A searcher: its tables survive from move to move of a game.
#[derive(Debug, Clone)]
pub struct Searcher {
    table: Table,
    killers: [[Option<Move>; 2]; MAX_PLY],
    history: [[u32; 64]; 2],
    pv: [ArrayVec<Move, MAX_PLY>; MAX_PLY],
    weights: Weights,
    nodes: u64,
    stopped: bool,
    /// The node limit applies once the first iteration is complete.
    node_limit_armed: bool,
    limits: Limits,
}

impl Searcher {
    /// A searcher with a table of `2^table_bits` entries and evaluation `weights`.
    #[must_use]
    pub fn new(table_bits: u32, weights: Weights) -> Searcher {
        Searcher {
            table: Table::new(table_bits),
            killers: [[None; 2]; MAX_PLY],
            history: [[0; 64]; 2],
            pv: std::array::from_fn(|_| ArrayVec::new()),
            weights,
            nodes: 0,
            stopped: false,
            node_limit_armed: false,
            limits: Limits::depth(1),
        }
    }

    /// Forgets everything learnt (a new game): searches are then reproducible.
    pub fn clear(&mut self) {
        self.table.clear();
        self.killers = [[None; 2]; MAX_PLY];
        self.history = [[0; 64]; 2];
    }

    /// Nodes searched by the last search.
    #[must_use]
    pub const fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Searches `root` by iterative deepening within `limits`, calling `on_iteration`
    /// after each iteration, which says whether to start the next one; returns the last
    /// iteration's result (`None` only when `root` has no legal move). `root_order`
    /// permutes the root moves before the first iteration (a seeded shuffle, to vary
    /// play between games).
    pub fn search(
        &mut self,
        root: &Position,
        limits: Limits,
        root_order: impl FnOnce(&mut [(Move, Position)]),
        mut on_iteration: impl FnMut(&Iteration) -> bool,
    ) -> Option<Iteration> {
        self.limits = limits;
        self.nodes = 0;
        self.stopped = false;
        self.node_limit_armed = false;
        let mut moves = root.successors();
        if moves.is_empty() {
            return None;
        }
        root_order(&mut moves);
        let mut best: Option<Iteration> = None;
        let max_depth = limits.depth.min(MAX_PLY as u32 - 8);
        for depth in 1..=max_depth {
            let result = self.root(&mut moves, depth);
            let finished = !self.stopped;
            // A cut-short iteration still counts: its first move was the previous best,
            // and any move it prefers was searched to the end with the full window.
            let mut go_on = finished;
            if let Some(iteration) = result {
                go_on &= on_iteration(&iteration) && iteration.score.abs() < WIN_BOUND;
                best = Some(iteration);
            }
            self.node_limit_armed = true;
            if !go_on {
                break;
            }
        }
        if best.is_none() {
            // Stopped (at the hard deadline) inside the first iteration: the move whose
            // position evaluates best, so that the answer is never blind.
            let (m, score) = moves
                .iter()
                .map(|(m, next)| (*m, -evaluate_with(next, &self.weights)))
                .max_by_key(|&(_, score)| score)?;
            let fallback =
                Iteration { depth: 0, score, best: m, pv: vec![m], nodes: self.nodes, complete: false };
            on_iteration(&fallback);
            best = Some(fallback);
        }
        best
    }

    /// One iteration at the root; moves are reordered best first for the next one.
    /// Returns `None` if stopped before the first move's score was known.
    fn root(&mut self, moves: &mut Successors, depth: u32) -> Option<Iteration> {
        let mut alpha = -WIN - 1;
        let beta = WIN + 1;
        let mut best_index = None;
        let depth = i32::try_from(depth).unwrap_or(1);
        self.pv[0].clear();
        for i in 0..moves.len() {
            let (m, next) = moves[i];
            let score = if i == 0 {
                -self.negamax(&next, depth - 1, -beta, -alpha, 1)
            } else {
                let s = -self.negamax(&next, depth - 1, -alpha - 1, -alpha, 1);
                if s > alpha && !self.stopped { -self.negamax(&next, depth - 1, -beta, -alpha, 1) } else { s }
            };
            if self.stopped {
                break;
            }
            if score > alpha {
                alpha = score;
                best_index = Some(i);
                self.update_pv(0, m);
            }
        }
        let i = best_index?;
        // The best move first for the next iteration; the others keep their order.
        moves[..=i].rotate_right(1);
        Some(Iteration {
            depth: u32::try_from(depth).unwrap_or(0),
            score: alpha,
            best: moves[0].0,
            pv: self.pv[0].to_vec(),
            nodes: self.nodes,
            complete: !self.stopped,
        })
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        if let Some(child) = tail.first() {
            for &c in child.iter().take(MAX_PLY - 1) {
                line.push(c);
            }
        }
    }

    /// Counts a node; sets `stopped` when a limit is reached.
    fn tick(&mut self) {
        self.nodes += 1;
        if self.node_limit_armed && self.limits.nodes.is_some_and(|n| self.nodes >= n) {
            self.stopped = true;
        }
        if self.nodes & 255 == 0 && self.limits.hard_stop.is_some_and(|t| Instant::now() >= t) {
            self.stopped = true;
        }
    }

    /// The score of a finished position for the side to move, if it is finished by
    /// an empty front row.
    fn front_row_end(position: &Position, r: &Rings, ply: usize) -> Option<i32> {
        let me = position.side_to_move();
        let empty = |s: Side| r[s.index()][..8].iter().all(|&c| c == 0);
        let ply = i32::try_from(ply).unwrap_or(0);
        if empty(me) {
            Some(-WIN + ply)
        } else if empty(me.opponent()) {
            Some(WIN - ply)
        } else {
            None
        }
    }

    fn negamax(&mut self, position: &Position, depth: i32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.tick();
        if self.stopped {
            return 0;
        }
        self.pv[ply].clear();
        let r = rings(position);
        if let Some(score) = Self::front_row_end(position, &r, ply) {
            return score;
        }
        if depth <= 0 || ply >= MAX_PLY - 4 {
            return self.capture_extension(position, &r, alpha, beta, ply, self.limits.capture_plies);
        }
        let key = position.hash_key();
        let entry = self.table.probe(key);
        if let Some(e) = entry
            && i32::from(e.depth) >= depth
        {
            let score = from_table(e.score, ply);
            let usable = match e.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if usable {
                return score;
            }
        }
        let mut moves = position.successors();
        if moves.is_empty() {
            return -WIN + i32::try_from(ply).unwrap_or(0);
        }
        self.order(position, &r, &mut moves, entry.and_then(|e| e.best), ply);
        let original_alpha = alpha;
        let mut best_score = -WIN - 1;
        let mut best_move = None;
        for (i, (m, next)) in moves.iter().enumerate() {
            let score = if i == 0 {
                -self.negamax(next, depth - 1, -beta, -alpha, ply + 1)
            } else {
                let s = -self.negamax(next, depth - 1, -alpha - 1, -alpha, ply + 1);
                if s > alpha && s < beta && !self.stopped {
                    -self.negamax(next, depth - 1, -beta, -alpha, ply + 1)
                } else {
                    s
                }
            };
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_move = Some(*m);
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, *m);
                    if score >= beta {
                        self.reward(position.side_to_move(), *m, depth, ply);
                        break;
                    }
                }
            }
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.table.store(Entry {
            key,
            score: to_table(best_score, ply),
            depth: i16::try_from(depth).unwrap_or(i16::MAX),
            best: best_move.map(move_index),
            bound,
        });
        best_score
    }

    /// At the horizon: the evaluation, unless the side to move must capture, in which
    /// case every capture is searched (up to `plies` more plies).
    fn capture_extension(
        &mut self,
        position: &Position,
        r: &Rings,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        plies: u32,
    ) -> i32 {
        let me = position.side_to_move();
        if plies == 0 || ply >= MAX_PLY - 2 || captures(r, me, position.stage(me)).moves == 0 {
            return evaluate_with(position, &self.weights);
        }
        let mut moves = position.successors();
        if moves.is_empty() {
            return -WIN + i32::try_from(ply).unwrap_or(0);
        }
        order_by_capture(r, me, &mut moves);
        let mut best = -WIN - 1;
        for (_, next) in &moves {
            self.tick();
            if self.stopped {
                return 0;
            }
            let nr = rings(next);
            let score = match Self::front_row_end(next, &nr, ply + 1) {
                Some(s) => -s,
                None => -self.capture_extension(next, &nr, -beta, -alpha, ply + 1, plies - 1),
            };
            if score > best {
                best = score;
                alpha = alpha.max(score);
                if score >= beta {
                    break;
                }
            }
        }
        best
    }

    /// Orders `moves`: the table move, then killers, then by seeds captured and history.
    fn order(&self, position: &Position, r: &Rings, moves: &mut Successors, tt_move: Option<u8>, ply: usize) {
        let me = position.side_to_move();
        let before = board_seeds(r, me.opponent());
        let killers = self.killers[ply];
        let history = &self.history[me.index()];
        let mut keyed: ArrayVec<(u64, (Move, Position)), 32> = moves
            .iter()
            .map(|&(m, next)| {
                let index = move_index(m);
                let key = if Some(index) == tt_move {
                    u64::MAX
                } else if killers[0] == Some(m) {
                    u64::MAX - 1
                } else if killers[1] == Some(m) {
                    u64::MAX - 2
                } else {
                    let taken = before.saturating_sub(opponent_seeds(&next, me));
                    (u64::from(taken) << 32) | u64::from(history[usize::from(index)])
                };
                (key, (m, next))
            })
            .collect();
        // A stable sort keeps the notation order among equal keys: deterministic.
        keyed.sort_by_key(|entry| std::cmp::Reverse(entry.0));
        for (slot, (_, entry)) in moves.iter_mut().zip(keyed) {
            *slot = entry;
        }
    }

    /// A move that caused a cut-off: a killer at this ply, and history credit.
    fn reward(&mut self, side: Side, m: Move, depth: i32, ply: usize) {
        if self.killers[ply][0] != Some(m) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(m);
        }
        let h = &mut self.history[side.index()][usize::from(move_index(m))];
        let depth = u32::try_from(depth).unwrap_or(0);
        *h = h.saturating_add(depth * depth);
        if *h > 1 << 30 {
            for v in &mut self.history[side.index()] {
                *v /= 2;
            }
        }
    }
}

/// Seeds on the board of `mover`'s opponent in `next`.
fn opponent_seeds(next: &Position, mover: Side) -> u32 {
    let opp = mover.opponent();
    next.front_row(opp).iter().chain(next.back_row(opp).iter()).map(|&c| u32::from(c)).sum()
}

/// Captures that take the most first.
fn order_by_capture(r: &Rings, me: Side, moves: &mut Successors) {
    let before = board_seeds(r, me.opponent());
    moves.sort_by_key(|(_, next)| opponent_seeds(next, me).min(before));
}

/// A score as stored in the table: wins counted from this node, not from the root.
fn to_table(score: i32, ply: usize) -> i32 {
    let ply = i32::try_from(ply).unwrap_or(0);
    if score >= WIN_BOUND {
        score + ply
    } else if score <= -WIN_BOUND {
        score - ply
    } else {
        score
    }
}

/// A stored score, as seen from a node at `ply`.
fn from_table(score: i32, ply: usize) -> i32 {
    let ply = i32::try_from(ply).unwrap_or(0);
    if score >= WIN_BOUND {
        score - ply
    } else if score <= -WIN_BOUND {
        score + ply
    } else {
        score
    }
}
