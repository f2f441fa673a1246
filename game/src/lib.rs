//! One game of Bao between two supervised bot processes: the configuration, the clocks, the
//! one judge of a bot's reply, the verdicts, the game log and its verifier, and where a game
//! starts ([`opening`]: the one random-opening generator of tournaments and the server).
//!
//! This crate owns what a game *is*: `match`, `tournament`, `check` and the server all play
//! through [`play_game`] and judge replies with the same code. It uses `bao-supervise` to run
//! each bot and `bao-rules` to judge moves. It must not know about command lines, consoles,
//! tournaments or exit codes: those belong to its callers.

pub mod clock;
pub mod config;
pub mod defaults;
pub mod endpoint;
mod error;
pub mod human;
pub mod judge;
pub mod kept;
pub mod lag;
pub mod log;
pub mod opening;
mod ply_line;
pub mod process_chains;
pub mod reason;
pub mod record;
pub mod runner;
pub mod runtime;
pub mod verify;
pub mod wire;

#[cfg(test)]
mod fairness_tests;

pub use clock::Clock;
pub use config::{GameConfig, TimeControl};
pub use error::GameError;
pub use kept::{KeepPolicy, KeptProcess, Restart};
pub use reason::{AbortCause, GameResult, Reason};
pub use runner::{GameOutcome, play_game, play_game_keeping, play_game_with_seats};
