//! A typed SDK for writing bao-referee bots in Rust.
//!
//! Implement [`Bot`] and call [`run`]. The runner speaks the protocol of PROTOCOL.md on
//! stdin/stdout: it answers `hello` with `ready`, and for each `move_request` it
//!
//! 1. starts a [`Deadline`] from the request's clock the moment the line is read,
//! 2. rebuilds the [`Position`] from the request's notation with bao-rules,
//! 3. checks that the referee's `legal` list is exactly the engine's legal moves,
//! 4. calls [`Bot::choose_move`] with the position, the legal moves and the deadline,
//! 5. checks the answer is one of the legal moves, sends the bot's queued `info` lines
//!    ([`Bot::take_info`]) and then the `move`, flushing each line.
//!
//! The bot never sees a string: positions, moves and sides are bao-rules types. This crate
//! must not know the referee: PROTOCOL.md is all it relies on.
//!
//! **Several games in one process** (protocol 1.1): `ready` says `"games":"many"` (the
//! [`Identity`] default), so a tournament may keep the bot's process after `game_over` and
//! send the next game's `hello` instead of `quit`. The loop answers it like the first one,
//! calling [`Bot::new_game`] again: nothing else is needed from the bot. What a bot may keep
//! between games, and what it must not assume, is under [`Bot::new_game`];
//! [`Identity::one_game_per_process`] opts out.
//!
//! ```no_run
//! use bao_sdk::{Bot, Deadline, Identity, Move, MoveList, Position};
//!
//! struct FirstLegal;
//!
//! impl Bot for FirstLegal {
//!     fn identity(&self) -> Identity {
//!         Identity::new("first-legal")
//!     }
//!     fn choose_move(&mut self, _position: &Position, legal: &MoveList, _deadline: &Deadline) -> Move {
//!         legal[0]
//!     }
//! }
//!
//! fn main() -> Result<(), bao_sdk::SdkError> {
//!     bao_sdk::run(FirstLegal)
//! }
//! ```
//!
//! The raw, string-level SDK (a bot that receives the wire messages themselves) is [`raw`]:
//! both run on the same protocol loop and stop with the same [`SdkError`].

mod bot;
mod deadline;
mod error;
mod game;
mod protocol_loop;
pub mod raw;
mod runner;

pub use bao_protocol::{GamesPerProcess, Info, TimeControl};
pub use bao_rules::{Move, MoveList, Position, Side, Variant};
pub use bot::Bot;
pub use deadline::{Deadline, HARD_PER_SOFT, MIN_SAFETY, MOVES_TO_GO, TimeMode, safety};
pub use error::SdkError;
pub use game::{GameEnd, NewGame};
pub use protocol_loop::SDK_MAX_LINE_BYTES;
pub use raw::Identity;
pub use runner::{run, run_with_io};
