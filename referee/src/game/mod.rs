//! One game between two bot processes: configuration, clocks, verdicts, the
//! game log, and the loop that runs it.

pub mod clock;
pub mod config;
pub mod lag;
pub mod log;
pub mod reason;
pub mod runner;
pub mod wire;

#[cfg(test)]
mod fairness_tests;

pub use clock::Clock;
pub use config::{GameConfig, TimeControl};
pub use reason::{GameResult, Reason};
pub use runner::play_game;
