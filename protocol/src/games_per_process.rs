//! `ready`'s optional `"games"` field (protocol 1.1): whether a bot's process plays one game
//! or may be kept for several.

use serde::{Deserialize, Serialize};

/// How many games a bot's process can play, as its `ready` declares in `"games"`.
///
/// Absent (or `null`) is [`GamesPerProcess::One`]: the bot is treated exactly as a version-1
/// bot, sent `quit` after every `game_over`. With [`GamesPerProcess::Many`] the referee may,
/// after `game_over`, send a new `hello` for the bot's next game instead of `quit`
/// (PROTOCOL.md, "Protocol 1.1"). Any other value is an error naming the field: a misspelt
/// declaration is reported at once rather than silently ignored.
///
/// ```
/// use bao_protocol::{BotMessage, GamesPerProcess};
/// let BotMessage::Ready(ready) = BotMessage::parse(r#"{"type":"ready","name":"b","games":"many"}"#).unwrap()
/// else { unreachable!() };
/// assert_eq!(ready.games, GamesPerProcess::Many);
/// let err = BotMessage::parse(r#"{"type":"ready","name":"b","games":"lots"}"#).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     r#"ready message: field "games": unknown variant `lots`, expected `one` or `many`"#
/// );
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GamesPerProcess {
    /// `"one"` (or absent): one game per process, as in protocol 1.
    #[default]
    One,
    /// `"many"`: the process may be kept and sent `hello` again for its next game.
    Many,
}

impl GamesPerProcess {
    /// Whether this is [`GamesPerProcess::One`], the default (not written in `ready`).
    #[must_use]
    pub const fn is_one(&self) -> bool {
        matches!(self, GamesPerProcess::One)
    }

    /// The wire spelling: `"one"` or `"many"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            GamesPerProcess::One => "one",
            GamesPerProcess::Many => "many",
        }
    }
}
