//! The messages the referee sends to a bot: `hello`, `move_request`, `game_over`, `quit`.

use serde::{Deserialize, Serialize};

use crate::parse::{tagged_object, whole, without_newline};
use crate::{
    MAX_COMMENT_BYTES, MAX_INFO_PER_MOVE, MAX_LINE_BYTES, PROTOCOL_VERSION, PositionJson, ProtocolError, Side,
};

/// `hello`: the first message to each bot, which must answer `ready` within
/// `time_control.startup_ms`. Protocol 1.1: a bot kept for several games gets one `hello`
/// per game (after the previous game's `game_over`), and answers each with `ready`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// The protocol version, [`PROTOCOL_VERSION`].
    pub protocol: u32,
    /// The side this bot plays.
    pub side: Side,
    /// `"kiswahili"` or `"kujifunza"`.
    pub variant: String,
    /// The start position, in the notation of RULES.md section 11.
    pub start: String,
    /// The clocks of this game.
    pub time_control: TimeControl,
    /// The limits the referee enforces.
    pub limits: Limits,
}

/// The time control of a game: Fischer (`base_ms` + `increment_ms`) or a fixed time per
/// move (`move_time_ms`). Exactly one of `base_ms` and `move_time_ms` is non-null.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControl {
    /// Fischer: each clock's starting time. `null` in fixed move-time mode.
    pub base_ms: Option<u64>,
    /// Fischer: time added to a bot's clock after each of its moves (0 in move-time mode).
    pub increment_ms: u64,
    /// Fixed move-time mode: the time for every move. `null` in Fischer mode.
    pub move_time_ms: Option<u64>,
    /// The time to answer `hello` with `ready`.
    pub startup_ms: u64,
    /// Lateness forgiven on every move: a move is late when used > time left + margin.
    pub margin_ms: u64,
}

impl TimeControl {
    /// A Fischer time control, with the startup time and the margin (the referee's defaults
    /// are in `bao_game::defaults`: the wire has none).
    #[must_use]
    pub const fn fischer(base_ms: u64, increment_ms: u64, startup_ms: u64, margin_ms: u64) -> TimeControl {
        TimeControl { base_ms: Some(base_ms), increment_ms, move_time_ms: None, startup_ms, margin_ms }
    }

    /// A fixed time per move, with the startup time and the margin.
    #[must_use]
    pub const fn move_time(move_time_ms: u64, startup_ms: u64, margin_ms: u64) -> TimeControl {
        TimeControl {
            base_ms: None,
            increment_ms: 0,
            move_time_ms: Some(move_time_ms),
            startup_ms,
            margin_ms,
        }
    }
}

/// The limits the referee enforces on what bots send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// The longest line a bot may send, in bytes, without the `'\n'`.
    pub max_line_bytes: usize,
    /// `info` lines kept per move; later ones are dropped.
    pub max_info_per_move: usize,
    /// Bytes of an `info` comment kept in the log; the rest is cut.
    #[serde(default = "default_max_comment_bytes")]
    pub max_comment_bytes: usize,
}

const fn default_max_comment_bytes() -> usize {
    MAX_COMMENT_BYTES
}

impl Default for Limits {
    /// The limits of this crate's constants.
    fn default() -> Limits {
        Limits {
            max_line_bytes: MAX_LINE_BYTES,
            max_info_per_move: MAX_INFO_PER_MOVE,
            max_comment_bytes: MAX_COMMENT_BYTES,
        }
    }
}

/// `move_request`: asks the bot to move. The bot answers `move` with the same `id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveRequest {
    /// 1 for the first request to this bot, then one more for each request to it.
    pub id: u64,
    /// Plies played so far in the game (0 for the first move of the game).
    pub ply: u32,
    /// The position; the bot is `position.to_move`.
    pub position: PositionJson,
    /// Every legal move, in canonical notation, sorted by byte order. Never empty.
    pub legal: Vec<String>,
    /// The opponent's last move, or `null` if there is none.
    pub opponent_move: Option<String>,
    /// The clocks.
    pub clock: Clock,
}

/// The clocks at a `move_request`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    /// Time left on this bot's clock for this move (move-time mode: the move time).
    pub you_ms: u64,
    /// Time left on the opponent's clock (move-time mode: the move time).
    pub opponent_ms: u64,
    /// Fischer increment added after this move (0 in move-time mode).
    pub increment_ms: u64,
    /// The fixed move time, or `null` in Fischer mode.
    pub move_time_ms: Option<u64>,
}

/// `game_over`: the game has ended. A `quit` follows, or, to a bot whose `ready` said
/// `"games":"many"` and whose process the referee keeps (protocol 1.1), the `hello` of its
/// next game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameOver {
    /// The result in words: `"S wins (front_row_empty)"`, `"draw (max_plies)"`.
    pub result: String,
    /// The winner, or `null` for a draw (or an aborted game).
    pub winner: Option<Side>,
    /// Why the game ended: one of [`crate::reason::ALL`] (a plain string for forward compatibility).
    pub reason: String,
    /// Plies played.
    pub plies: u32,
}

/// A message from the referee to a bot.
///
/// Write lines with [`RefereeMessage::to_line`]; read them (in a bot) with
/// [`RefereeMessage::parse`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RefereeMessage {
    /// `hello`: the game's facts; answer `ready`.
    Hello(Hello),
    /// `move_request`: answer `move` with the same id.
    MoveRequest(MoveRequest),
    /// `game_over`: the result.
    GameOver(GameOver),
    /// `quit`: exit now.
    Quit,
}

impl RefereeMessage {
    /// The `"type"` values the referee sends, in the order errors list them.
    pub const TYPES: &'static [&'static str] = &["hello", "move_request", "game_over", "quit"];

    /// A `hello` for protocol [`PROTOCOL_VERSION`] with the default [`Limits`].
    #[must_use]
    pub fn hello(side: Side, variant: &str, start: &str, time_control: TimeControl) -> RefereeMessage {
        RefereeMessage::Hello(Hello {
            protocol: PROTOCOL_VERSION,
            side,
            variant: variant.to_owned(),
            start: start.to_owned(),
            time_control,
            limits: Limits::default(),
        })
    }

    /// Reads one line from the referee (with or without its trailing `'\n'`),
    /// in two stages like [`crate::BotMessage::parse`]. Unknown fields are ignored.
    /// No length limit is applied here: the reader bounds lines.
    ///
    /// # Errors
    /// A [`ProtocolError`] naming what is wrong.
    pub fn parse(line: &str) -> Result<RefereeMessage, ProtocolError> {
        let (message_type, object) = tagged_object(without_newline(line), Self::TYPES)?;
        match message_type {
            "hello" => whole(message_type, object).map(RefereeMessage::Hello),
            "move_request" => whole(message_type, object).map(RefereeMessage::MoveRequest),
            "game_over" => whole(message_type, object).map(RefereeMessage::GameOver),
            _ => Ok(RefereeMessage::Quit),
        }
    }

    /// The message as one line of JSON, without the terminating `'\n'`.
    #[must_use]
    pub fn to_line(&self) -> String {
        crate::to_json_line(self)
    }

    /// The message's `"type"`.
    #[must_use]
    pub const fn message_type(&self) -> &'static str {
        match self {
            RefereeMessage::Hello(_) => "hello",
            RefereeMessage::MoveRequest(_) => "move_request",
            RefereeMessage::GameOver(_) => "game_over",
            RefereeMessage::Quit => "quit",
        }
    }
}
