//! The reasons a game ends, as written in `game_over.reason` and the game log.
//!
//! `game_over.reason` is a plain string so that later referees may add reasons;
//! these constants are the reasons of protocol version 1. PROTOCOL.md says what
//! causes each one.

/// The winner emptied the loser's front row (a rules win).
pub const FRONT_ROW_EMPTY: &str = "front_row_empty";
/// The loser, to move, had no legal move (a rules win).
pub const NO_LEGAL_MOVES: &str = "no_legal_moves";
/// A bot answered with a move that is not legal (or not valid notation).
pub const ILLEGAL_MOVE: &str = "illegal_move";
/// A bot sent a line that is not a valid message.
pub const MALFORMED_LINE: &str = "malformed_line";
/// A bot sent a line longer than the limit.
pub const LINE_TOO_LONG: &str = "line_too_long";
/// A bot answered a `move_request` with another request's id.
pub const WRONG_ID: &str = "wrong_id";
/// A bot sent a valid message at the wrong time (e.g. `move` when no move was asked).
pub const UNEXPECTED_MESSAGE: &str = "unexpected_message";
/// A bot's clock ran out (used > time left + margin).
pub const TIMEOUT: &str = "timeout";
/// A bot's process exited during the game.
pub const BOT_EXITED: &str = "bot_exited";
/// A bot closed its stdout during the game.
pub const STDOUT_CLOSED: &str = "stdout_closed";
/// A bot did not answer `hello` with a valid `ready` within `startup_ms`, or could not be started.
pub const HANDSHAKE_FAILED: &str = "handshake_failed";
/// A bot went over its memory limit.
pub const MEMORY_LIMIT: &str = "memory_limit";
/// A bot went over its CPU-time limit.
pub const CPU_LIMIT: &str = "cpu_limit";
/// A bot wrote more than its output limit.
pub const OUTPUT_LIMIT: &str = "output_limit";
/// A bot started more processes than allowed.
pub const PROCESS_LIMIT: &str = "process_limit";
/// The game reached the ply limit and was adjudicated a draw.
pub const MAX_PLIES: &str = "max_plies";
/// The game was stopped from outside (e.g. Ctrl-C); no winner.
pub const ABORTED: &str = "aborted";

/// Every reason of protocol version 1, the rules' reasons first.
pub const ALL: [&str; 17] = [
    FRONT_ROW_EMPTY,
    NO_LEGAL_MOVES,
    ILLEGAL_MOVE,
    MALFORMED_LINE,
    LINE_TOO_LONG,
    WRONG_ID,
    UNEXPECTED_MESSAGE,
    TIMEOUT,
    BOT_EXITED,
    STDOUT_CLOSED,
    HANDSHAKE_FAILED,
    MEMORY_LIMIT,
    CPU_LIMIT,
    OUTPUT_LIMIT,
    PROCESS_LIMIT,
    MAX_PLIES,
    ABORTED,
];
