//! The conformance checker behind `bao-referee check CMD` (and the server's gate).
//!
//! It runs the bot through the protocol (handshake, moves from several positions, the end of
//! the game, quit) and through the cases a careless bot gets wrong (one legal move, namua and
//! mtaji positions, takasia, a safari choice, ids, unknown fields, end of input, a long game),
//! and prints what passed and what failed, with the lines exchanged.
//!
//! Every check ([`CheckKind`]) starts a fresh bot process ([`bao_supervise::BotProcess`], default
//! resource limits) and runs a scripted exchange in which the checker plays the referee (and,
//! in the games, the opponent, with the rules engine). A move is judged as the referee judges
//! it: in time (move time plus margin), the request's id, legal. Every wait has a deadline and
//! every process is ended, its whole tree included. `docs/check.md` documents every check.
//!
//! This crate owns the catalogue of cases and their report; it does not parse command lines
//! or choose exit codes (the `bao-referee` crate does).

mod catalog;
mod failure;
mod opponent;
mod positions;
pub mod report;
mod result;
mod scripts;
mod session;
pub mod settings;
pub mod suite;
mod transcript;

pub use catalog::{CheckKind, UnknownCheck};
pub use result::{CheckResult, Status};

pub use settings::Settings;
