//! Reference bots for bao-referee, written with the `bao_protocol` SDK.
//!
//! - [`RandomBot`] (binary `bao-random`): a uniformly random move from the referee's
//!   `legal` list, from a seeded ChaCha generator, so games are reproducible.
//! - [`GreedyBot`] (binary `bao-greedy`): plays every legal move on the rules engine and
//!   keeps the one with the best [`evaluate`] score; an immediate win beats everything.
//!
//! Both write nothing on stdout but protocol lines; diagnostics go to stderr.

mod args;
mod greedy_bot;
mod random_bot;

pub use args::{Args, USAGE, parse_args};
pub use greedy_bot::{GreedyBot, GreedyChoice, evaluate, greedy_choice};
pub use random_bot::{DEFAULT_SEED, RandomBot};
