//! The reasons a game ends, as written in `game_over.reason` and the game log: [`Reason`].
//!
//! PROTOCOL.md says what causes each one; a test checks that the two lists are the same. On the
//! wire `game_over.reason` is read as a plain string so that a bot keeps working when a later
//! referee adds a reason.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Why a game ended. The first two are the rules' own; the others are the
/// referee's verdicts against a faulty bot (which loses), adjudication, or
/// an abort.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The winner emptied the loser's front row.
    FrontRowEmpty,
    /// The loser, to move, had no legal move.
    NoLegalMoves,
    /// The bot sent a move that is not legal (or not a move).
    IllegalMove,
    /// The bot sent a line that is not a valid protocol message.
    MalformedLine,
    /// The bot sent a line longer than the protocol's limit.
    LineTooLong,
    /// The bot answered with an id other than the request's.
    WrongId,
    /// The bot sent a message of a type not expected at that point.
    UnexpectedMessage,
    /// The bot did not answer in time.
    Timeout,
    /// The bot's process exited or was killed by a signal.
    BotExited,
    /// The bot closed its stdout but kept running.
    StdoutClosed,
    /// The bot could not be started or did not complete the handshake.
    HandshakeFailed,
    /// The bot exceeded its memory limit.
    MemoryLimit,
    /// The bot exceeded its CPU time limit.
    CpuLimit,
    /// The bot wrote more than its output limit.
    OutputLimit,
    /// The bot started more processes than allowed.
    ProcessLimit,
    /// Adjudicated a draw after the maximum number of plies.
    MaxPlies,
    /// The referee was interrupted; the game does not count.
    Aborted,
}

impl Reason {
    /// Every reason of protocol version 1, the rules' reasons first.
    pub const ALL: [Reason; 17] = [
        Reason::FrontRowEmpty,
        Reason::NoLegalMoves,
        Reason::IllegalMove,
        Reason::MalformedLine,
        Reason::LineTooLong,
        Reason::WrongId,
        Reason::UnexpectedMessage,
        Reason::Timeout,
        Reason::BotExited,
        Reason::StdoutClosed,
        Reason::HandshakeFailed,
        Reason::MemoryLimit,
        Reason::CpuLimit,
        Reason::OutputLimit,
        Reason::ProcessLimit,
        Reason::MaxPlies,
        Reason::Aborted,
    ];

    /// The snake_case name used in logs and the protocol (the serde name).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Reason::FrontRowEmpty => "front_row_empty",
            Reason::NoLegalMoves => "no_legal_moves",
            Reason::IllegalMove => "illegal_move",
            Reason::MalformedLine => "malformed_line",
            Reason::LineTooLong => "line_too_long",
            Reason::WrongId => "wrong_id",
            Reason::UnexpectedMessage => "unexpected_message",
            Reason::Timeout => "timeout",
            Reason::BotExited => "bot_exited",
            Reason::StdoutClosed => "stdout_closed",
            Reason::HandshakeFailed => "handshake_failed",
            Reason::MemoryLimit => "memory_limit",
            Reason::CpuLimit => "cpu_limit",
            Reason::OutputLimit => "output_limit",
            Reason::ProcessLimit => "process_limit",
            Reason::MaxPlies => "max_plies",
            Reason::Aborted => "aborted",
        }
    }

    /// Whether the rules themselves ended the game (not a verdict against a bot).
    #[must_use]
    pub const fn is_rules_ending(self) -> bool {
        matches!(self, Reason::FrontRowEmpty | Reason::NoLegalMoves)
    }

    /// Whether this is a verdict against a faulty bot.
    #[must_use]
    pub const fn is_fault(self) -> bool {
        !matches!(self, Reason::FrontRowEmpty | Reason::NoLegalMoves | Reason::MaxPlies | Reason::Aborted)
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A reason name that is not one of [`Reason::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown reason {0:?}")]
pub struct UnknownReason(pub String);

impl FromStr for Reason {
    type Err = UnknownReason;

    fn from_str(s: &str) -> Result<Reason, UnknownReason> {
        Reason::ALL.into_iter().find(|r| r.name() == s).ok_or_else(|| UnknownReason(s.to_owned()))
    }
}
