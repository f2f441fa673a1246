//! The `bao-referee` command line: argument parsing, console output and the subcommands.
//!
//! This crate is thin: games are played by `bao-game`, bots are run by `bao-supervise`, the
//! statistics are `bao-stats` and the conformance checks are `bao-check`. What lives here is
//! what a person at a terminal needs: options, progress, tables, exit codes ([`exit`]). The
//! tournaments themselves (plan, journal, shards, merge, the game executor, the signals) are
//! `bao-tournament`. It must not know how a bot is run or judged (it asks `bao-game`) nor how
//! a tournament is kept (it asks `bao-tournament`).
//!
//! The competition server (`serve`, `submit`: crate `bao-server`, its command line in
//! `bao_server::cli`) and the browser game (`play`: crate `bao-play`) are behind the `server`
//! and `play` features, on by default; the README's first command builds without them
//! (`--no-default-features`), and then those subcommands say how to build them.

pub mod check_args;
pub mod check_cmd;
pub mod cli;
pub mod default_text;
pub mod exit;
pub mod isolation_arg;
pub mod match_cmd;
pub mod merge_cmd;
pub mod not_built;
pub mod options;
pub mod out;
#[cfg(feature = "play")]
pub mod play_cmd;
pub mod record_cmd;
pub mod rules_cmd;
pub mod sample_bot_cmd;
pub mod serve_cmd;
pub mod show_cmd;
pub mod tournament;
pub mod verify_cmd;

pub use bao_tournament::{preflight, signals, trace};
