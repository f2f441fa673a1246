//! Why a game ended, and its result.

use std::fmt;
use std::time::Duration;

use bao_rules::Side;
use serde::{Deserialize, Serialize};

/// Why a game ended. The first two are the rules' own; the others are the
/// referee's verdicts against a faulty bot (which loses), adjudication, or
/// an abort.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
    /// The snake_case name used in logs and the protocol.
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

impl Reason {
    /// The verdict for a fault of the process layer during play.
    #[must_use]
    pub const fn for_fault(fault: &crate::bot::BotFault) -> Reason {
        use crate::bot::BotFault;
        match fault {
            BotFault::Timeout => Reason::Timeout,
            BotFault::LineTooLong { .. } => Reason::LineTooLong,
            BotFault::InvalidUtf8 => Reason::MalformedLine,
            BotFault::StdoutClosed => Reason::StdoutClosed,
            BotFault::OutputLimit { .. } => Reason::OutputLimit,
            BotFault::MemoryLimit => Reason::MemoryLimit,
            BotFault::CpuLimit => Reason::CpuLimit,
            BotFault::ProcessLimit => Reason::ProcessLimit,
            BotFault::Exited(_) | BotFault::Io(_) => Reason::BotExited,
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The end of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameResult {
    /// The winner; `None` for a draw (adjudication) or an aborted game.
    pub winner: Option<Side>,
    /// Why the game ended.
    pub reason: Reason,
    /// A sentence for people: what happened (the bot's line, its exit status...).
    pub detail: String,
    /// Plies played.
    pub plies: u32,
    /// Wall time of the whole game.
    pub duration: Duration,
    /// The names the bots reported (or their display names), South then North.
    pub names: [String; 2],
    /// The position at the end of the game.
    pub final_position: bao_rules::Position,
}

impl GameResult {
    /// `S wins (front_row_empty)`, `draw (max_plies)` or `aborted`.
    #[must_use]
    pub fn summary(&self) -> String {
        match (self.winner, self.reason) {
            (_, Reason::Aborted) => "aborted".to_owned(),
            (Some(w), r) => format!("{w} wins ({r})"),
            (None, r) => format!("draw ({r})"),
        }
    }
}
