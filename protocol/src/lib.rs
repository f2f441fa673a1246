//! The bao-referee line protocol: message types and framing limits.
//!
//! Bots and the referee exchange one JSON object per line (UTF-8, `'\n'`-terminated),
//! each with a string field `"type"`. PROTOCOL.md at the repository root is the full
//! specification; this crate is its Rust form:
//!
//! - referee → bot: [`RefereeMessage`] ([`Hello`], [`MoveRequest`], [`GameOver`], `quit`);
//! - bot → referee: [`BotMessage`] ([`Ready`], [`MoveReply`], [`Info`]); `ready`'s
//!   [`GamesPerProcess`] is protocol 1.1's opt-in to several games in one process;
//! - reading either side's lines: [`BotMessage::parse`] and [`RefereeMessage::parse`],
//!   which check the line in two stages (JSON object with a known `"type"`, then that
//!   message's fields) and return a [`ProtocolError`] that names the problem;
//! - the limits ([`MAX_LINE_BYTES`], [`MAX_INFO_PER_MOVE`], ...) and the game-over
//!   reasons ([`Reason`]).
//!
//! The crate uses the rules engine only for the one [`Side`] type: positions travel as
//! [`PositionJson`], filled by the referee. It has no I/O, process, thread or async dependency:
//! the loop a bot runs (read, answer, flush) is the SDK's, in `bao-sdk` (`bao_sdk::raw` for
//! the wire messages themselves). It must not know processes, I/O or referee policy (default
//! clocks, margins, grace periods, verdicts).
//!
//! ```
//! use bao_protocol::{BotMessage, ProtocolError};
//! let err = BotMessage::parse(r#"{"type":"resign"}"#).unwrap_err();
//! assert_eq!(err.to_string(), r#"unknown type "resign", expected one of ready, move, info"#);
//! assert!(matches!(err, ProtocolError::UnknownType { .. }));
//! ```

mod bot_message;
mod canonical_move;
mod error;
mod games_per_process;
mod limits;
mod parse;
mod position;
mod reason;
mod referee_message;
mod side;

pub use bot_message::{BotMessage, Info, MoveReply, Ready};
pub use error::ProtocolError;
pub use games_per_process::GamesPerProcess;
pub use limits::{
    MAX_COMMENT_BYTES, MAX_INFO_PER_MOVE, MAX_LINE_BYTES, MAX_NAME_CHARS, PROTOCOL_VERSION, truncate_utf8,
};
pub use position::{PositionJson, Rows};
pub use reason::{Reason, UnknownReason};
pub use referee_message::{Clock, GameOver, Hello, Limits, MoveRequest, RefereeMessage, TimeControl};
pub use side::{PerSide, Side};

/// `value` as one line of JSON (no newline).
fn to_json_line<T: serde::Serialize>(value: &T) -> String {
    // The protocol's types are structs of strings, numbers, booleans, options and
    // arrays with string keys: serde_json cannot fail to serialise them.
    serde_json::to_string(value).expect("protocol messages always serialise to JSON")
}
