//! Bao tournaments as a library: many games between many bots, with a deterministic schedule,
//! colour-swapped game pairs, an append-only journal that survives a kill, resume, shards and
//! their merge, statistics, and the game executor that the competition server shares.
//!
//! The pieces, one per module: the [`bots`], the [`schedule`] and its [`openings`], the
//! [`plan`] stored in the output [`folder`], the [`journal`] (read as a stream by
//! [`journal_stream`]), the [`shard`]s and their [`merge`], playing one game into a folder of
//! logs ([`executor`]: the one executor of the tournament and the server) and a plan's games
//! ([`execute`]) under the [`signals`], the [`results`] with the [`sprt`], kept up to date by
//! the [`tally`], and the pages ([`index_page`], [`replay_pages`]). [`Tournament`] ties them
//! together: open a folder for a plan, play, get the results. Every error is in [`error`].
//!
//! What this crate must not know: the command line (no `clap`: the CLI parses words into a
//! [`plan::Plan`]), the terminal (no progress bar, no colours: progress is reported through
//! [`execute::Progress`], which the CLI draws), exit codes, and the server (its database, its
//! web pages). It plays games through `bao-game` and runs bots through `bao-supervise`.
//!
//! A program runs a tournament without the CLI like this (`examples/tiny_tournament.rs` is a
//! complete one that plays its own bots):
//!
//! ```no_run
//! use bao_tournament::{Tournament, RunOptions, folder::OutDir, plan::Plan, schedule::Mode};
//! use bao_supervise::BotSpec;
//!
//! # fn main() -> Result<(), bao_tournament::Error> {
//! let bot = |name: &str, program: &str| BotSpec {
//!     name: Some(name.to_owned()),
//!     program: program.to_owned(),
//!     args: Vec::new(),
//!     dir: None,
//! };
//! let plan = Plan::new(vec![bot("random", "bao-random"), bot("greedy", "bao-greedy")], Mode::RoundRobin, 1, 2)?;
//! let tournament = Tournament::open(OutDir::new("my-tournament"), Some(plan))?;
//! let finished = tournament.play(RunOptions::default())?;
//! println!("{}", bao_tournament::results::render(&finished.results));
//! # Ok(())
//! # }
//! ```

pub mod bots;
pub mod error;
pub mod execute;
pub mod executor;
pub mod folder;
pub mod index_page;
pub mod index_rewrites;
pub mod journal;
pub mod journal_stream;
pub mod merge;
pub mod openings;
pub mod plan;
pub mod plan_request;
pub mod preflight;
pub mod replay_pages;
pub mod results;
pub mod schedule;
pub mod shard;
pub mod signals;
pub mod sprt;
pub mod tally;
pub mod tournament;
pub mod trace;
pub mod units;

pub use error::Error;
pub use plan_request::PlanRequest;
pub use tournament::{Finished, RunOptions, Tournament};
