//! The Bao competition server (`bao-referee serve`): entrants submit bots,
//! the server builds them in isolation, runs the conformance gate, plays them
//! against each other continuously, rates them, and shows everything on web
//! pages and through a JSON API. See docs/server.md.
//!
//! The public entry points are [`serve`], [`user_add`], [`user_revoke`],
//! [`user_token`], [`export`] and [`submit_client`]; [`cli`] is their command line, which
//! `bao-referee serve` and `bao-referee submit` mount (the crate has no binary of its own).
//!
//! It must not know how a game is judged or a bot is run (it asks `bao-game`, `bao-check` and
//! `bao-supervise`), nor the process it runs in: [`cli`] returns what to print and the exit
//! code, and its caller prints and exits.

pub mod arena;
pub mod auth;
pub mod build;
pub mod candidate;
pub mod cli;
pub mod client;
pub mod config;
pub mod db;
pub mod domain;
pub mod engine;
pub mod error;
pub mod export;
pub mod failpoint;
pub mod games;
pub mod head_to_head;
pub mod http;
pub mod languages;
pub mod leader;
pub mod leaderboard_snapshot;
pub mod live;
pub mod live_pages;
pub mod matchmaking;
pub mod metrics;
pub mod my_bots;
pub mod names;
pub mod openapi;
pub mod pages;
pub mod paging;
pub mod pair_tasks;
pub mod play;
pub mod rating_history;
pub mod rating_plot;
pub mod ratings;
pub mod recovery;
pub mod result_words;
pub mod sandbox;
pub mod scheduler;
pub mod serve;
pub mod standings;
pub mod submit;
pub mod token;
pub mod upload;
pub mod users;
pub mod versions;
pub mod worker;

pub use client::{SubmitOptions, submit_client};
pub use error::ServerError;
pub use export::{ExportSummary, export};
pub use serve::{ServeOptions, serve};

pub use arena::ArenaPlace;

/// Revokes every API token and web session of the user `name` in the arena in `data_dir`.
pub fn user_revoke(place: impl Into<ArenaPlace>, name: &str) -> Result<users::Revoked, ServerError> {
    let arena = arena::Arena::open_place(&place.into())?;
    arena.db.write_blocking(|c| users::revoke_user(c, name))
}

/// Gives the user `name` of the arena in `data_dir` a new API token, shown only this once.
pub fn user_token(place: impl Into<ArenaPlace>, name: &str) -> Result<String, ServerError> {
    let arena = arena::Arena::open_place(&place.into())?;
    arena.db.write_blocking(|c| users::new_token(c, name))
}

/// Adds a user to the arena in `data_dir` (creating the arena if needed) and
/// returns its API token, which is shown only this once.
pub fn user_add(place: impl Into<ArenaPlace>, name: &str, admin: bool) -> Result<String, ServerError> {
    let arena = arena::Arena::open_place(&place.into())?;
    let (_, token) = arena.db.write_blocking(|c| users::create_user(c, name, admin))?;
    Ok(token)
}
