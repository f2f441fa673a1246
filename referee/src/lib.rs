//! The `bao-referee` command line: argument parsing, console output and the subcommands.
//!
//! This crate is thin: games are played by `bao-game`, bots are run by `bao-supervise`, the
//! statistics are `bao-stats` and the conformance checks are `bao-check`. What lives here is
//! what a person at a terminal needs: options, progress, tables, exit codes ([`exit`]), and the
//! tournament folder. It must not know how a bot is run or judged (it asks `bao-game`).
//!
//! The competition server (`serve`, `submit`: crate `bao-server`, its command line in
//! `bao_server::cli`) is behind the `server` feature, on by default; the README's first
//! command builds without it (`--no-default-features`), and then those two subcommands say
//! how to build them.

pub mod check_args;
pub mod check_cmd;
pub mod cli;
pub mod default_text;
pub mod exit;
pub mod isolation_arg;
pub mod match_cmd;
pub mod merge_cmd;
pub mod options;
pub mod out;
pub mod preflight;
pub mod record_cmd;
pub mod rules_cmd;
pub mod sample_bot_cmd;
pub mod serve_cmd;
pub mod show_cmd;
pub mod signals;
pub mod tournament;
pub mod trace;
pub mod verify_cmd;
