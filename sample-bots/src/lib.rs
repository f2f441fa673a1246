//! Reference bots for bao-referee, written with the typed SDK (`bao-sdk`).
//!
//! - [`RandomBot`] (binary `bao-random`): a uniformly random legal move.
//! - [`GreedyBot`] (binary `bao-greedy`): the move leaving the best seed balance one ply
//!   ahead; an immediate win beats everything.
//! - [`AlphaBetaBot`] (binary `bao-alphabeta`): iterative-deepening alpha-beta search
//!   on a tuned Bao evaluation; the top of the ladder (docs/ladder.md).
//! - [`MctsBot`] (binary `bao-mcts`): Monte Carlo tree search (UCT) on the same evaluation.
//!
//! Each game gets a fresh seed unless `--seed` fixes it; the seed is printed on stderr
//! and sent as the `info` comment `seed N` with the first move. The bots write nothing
//! on stdout but protocol lines. They must not know the referee: they are bots like any
//! other, on the SDK.

pub mod alphabeta;
mod args;
pub mod bench;
pub mod board;
pub mod cli;
pub mod eval;
mod game_seed;
mod greedy_bot;
pub mod mcts;
mod random_bot;
pub mod tuning;
pub mod weights;

pub use alphabeta::{AlphaBetaBot, Level};
pub use args::{Args, USAGE, parse_args};
pub use game_seed::GameSeed;
pub use greedy_bot::{GreedyBot, evaluate, greedy_choice};
pub use mcts::MctsBot;
pub use random_bot::RandomBot;
