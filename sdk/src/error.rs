//! Why [`crate::run`] or [`crate::raw::run`] stopped with an error.

use bao_protocol::ProtocolError;

/// Why a bot's protocol loop stopped before `quit` or the end of input. A raw bot's loop
/// stops only with the first three; the others are the typed SDK's checks.
#[derive(Debug, thiserror::Error)]
pub enum SdkError {
    /// Reading stdin or writing stdout failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// A line from the referee is not a valid message.
    #[error("line {line_number} from the referee: {source}")]
    Protocol {
        /// The 1-based number of the line.
        line_number: u64,
        /// What is wrong with it.
        source: ProtocolError,
    },
    /// The referee speaks another protocol version.
    #[error("the referee speaks protocol version {found}; this bot speaks version {supported}")]
    UnsupportedProtocol {
        /// The version in `hello`.
        found: u32,
        /// [`bao_protocol::PROTOCOL_VERSION`].
        supported: u32,
    },
    /// A `hello` names a variant or start position this engine cannot read.
    #[error("line {line_number} from the referee: {problem}")]
    BadHello {
        /// The 1-based number of the line.
        line_number: u64,
        /// What is wrong.
        problem: String,
    },
    /// A `move_request`'s position notation is not a valid position for this engine.
    #[error("move_request {id}: the position {notation:?} is not valid here: {problem}")]
    BadPosition {
        /// The request's id.
        id: u64,
        /// The notation sent.
        notation: String,
        /// Why bao-rules rejects it.
        problem: String,
    },
    /// A `move_request` for a position where the player to move has no legal move.
    #[error("move_request {id}: the position {notation:?} has no legal move (the game is over)")]
    NoLegalMove {
        /// The request's id.
        id: u64,
        /// The position.
        notation: String,
    },
    /// The referee's `legal` list is not this engine's list of legal moves
    /// (a different rules version): the bot cannot trust its own rules.
    #[error(
        "move_request {id}: the referee lists the legal moves {referee:?} in {notation:?}, \
         but this bot's rules engine finds {engine:?}"
    )]
    LegalMismatch {
        /// The request's id.
        id: u64,
        /// The position.
        notation: String,
        /// The referee's list.
        referee: Vec<String>,
        /// The engine's list.
        engine: Vec<String>,
    },
    /// The bot chose a move that is not legal (a bug in the bot): it is not sent.
    #[error(
        "move_request {id}: the bot chose {chosen}, which is not among the legal moves {legal:?} of {notation:?}"
    )]
    IllegalChoice {
        /// The request's id.
        id: u64,
        /// The position.
        notation: String,
        /// The move chosen.
        chosen: String,
        /// The legal moves.
        legal: Vec<String>,
    },
}
