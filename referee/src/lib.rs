//! The bao-referee library: the subcommands of the `bao-referee` binary.
//!
//! Exit codes are documented in [`exit`].

pub mod bench_cmd;
pub mod bot;
pub mod check;
pub mod cli;
pub mod exec_stub;
pub mod exit;
pub mod game;
pub mod match_cmd;
pub mod merge_cmd;
pub mod options;
pub mod rules_cmd;
pub mod sample_bot_cmd;
pub mod stats;
pub mod tournament;
pub mod verify;
