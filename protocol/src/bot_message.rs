//! The messages a bot sends to the referee: `ready`, `move` and `info`.

use serde::{Deserialize, Serialize};

use crate::parse::{Fields, tagged_object, without_newline};
use crate::{GamesPerProcess, MAX_COMMENT_BYTES, MAX_LINE_BYTES, MAX_NAME_CHARS, ProtocolError};

/// `{"type":"ready","name":"greedy","author":"...","version":"0.1.0"}`: the reply to `hello`.
/// A bot that can play several games in one process adds `"games":"many"` (protocol 1.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ready {
    /// The bot's name: non-empty, at most [`MAX_NAME_CHARS`] characters, no control characters.
    pub name: String,
    /// Who wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Its version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `"games"`: whether the process may be kept for further games (absent: one game).
    #[serde(default, skip_serializing_if = "GamesPerProcess::is_one")]
    pub games: GamesPerProcess,
}

impl Ready {
    /// A `ready` with only a name (one game per process, no author or version).
    #[must_use]
    pub fn named(name: impl Into<String>) -> Ready {
        Ready { name: name.into(), author: None, version: None, games: GamesPerProcess::One }
    }
}

/// `{"type":"move","id":1,"move":"A6<"}`: the reply to the `move_request` with the same id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveReply {
    /// The `id` of the `move_request` answered.
    pub id: u64,
    /// The move in RULES.md notation (`A6<`, `B3>`, `A5>+`).
    #[serde(rename = "move")]
    pub move_text: String,
}

/// `{"type":"info","depth":3,"score":12,"nodes":1000,"comment":"text"}`: optional
/// progress while thinking. Every field is optional; the referee logs them with the move.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Info {
    /// Search depth reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// The bot's evaluation, from its own point of view; the unit is the bot's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<i64>,
    /// Nodes searched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Free text; truncated to [`MAX_COMMENT_BYTES`] in the log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

impl Info {
    /// An `info` holding only a comment.
    #[must_use]
    pub fn comment(text: impl Into<String>) -> Info {
        Info { comment: Some(text.into()), ..Info::default() }
    }

    /// This info with its comment cut to [`MAX_COMMENT_BYTES`] (at a character boundary),
    /// as the referee logs it.
    #[must_use]
    pub fn truncated(mut self) -> Info {
        if let Some(comment) = &mut self.comment {
            let keep = crate::truncate_utf8(comment, MAX_COMMENT_BYTES).len();
            comment.truncate(keep);
        }
        self
    }
}

/// A message from a bot to the referee.
///
/// Read lines with [`BotMessage::parse`]; write them with [`BotMessage::to_line`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BotMessage {
    /// `ready`: the reply to `hello`.
    Ready(Ready),
    /// `move`: the reply to a `move_request`.
    Move(MoveReply),
    /// `info`: optional progress while thinking.
    Info(Info),
}

impl BotMessage {
    /// The `"type"` values a bot may send, in the order errors list them.
    pub const TYPES: &'static [&'static str] = &["ready", "move", "info"];

    /// Reads one line from a bot (with or without its trailing `'\n'`).
    ///
    /// Checks, in order: the length ([`MAX_LINE_BYTES`]), that the line is a JSON
    /// object, that it has a string `"type"` naming a bot message, then that message's
    /// fields. Unknown fields are ignored.
    ///
    /// # Errors
    /// A [`ProtocolError`] whose message names what is wrong, e.g.
    /// `move message: missing field "id"`.
    ///
    /// ```
    /// use bao_protocol::{BotMessage, MoveReply};
    /// let msg = BotMessage::parse(r#"{"type":"move","id":7,"move":"A6<"}"#).unwrap();
    /// assert_eq!(msg, BotMessage::Move(MoveReply { id: 7, move_text: "A6<".into() }));
    /// let err = BotMessage::parse(r#"{"type":"move","move":"A6<"}"#).unwrap_err();
    /// assert_eq!(err.to_string(), r#"move message: missing field "id""#);
    /// ```
    pub fn parse(line: &str) -> Result<BotMessage, ProtocolError> {
        let line = without_newline(line);
        if line.len() > MAX_LINE_BYTES {
            return Err(ProtocolError::LineTooLong { bytes: line.len(), max: MAX_LINE_BYTES });
        }
        // The reply of every ply, in its usual spelling, without building a JSON value.
        if let Some(reply) = crate::canonical_move::parse(line) {
            return Ok(BotMessage::Move(reply));
        }
        let (message_type, object) = tagged_object(line, Self::TYPES)?;
        let fields = Fields { message_type, object: &object };
        match message_type {
            "ready" => {
                let name: String = fields.required("name")?;
                check_name(&name).map_err(|problem| fields.invalid("name", problem))?;
                Ok(BotMessage::Ready(Ready {
                    name,
                    author: fields.optional("author")?,
                    version: fields.optional("version")?,
                    games: fields.optional("games")?.unwrap_or_default(),
                }))
            }
            "move" => Ok(BotMessage::Move(MoveReply {
                id: fields.required("id")?,
                move_text: fields.required("move")?,
            })),
            _ => Ok(BotMessage::Info(Info {
                depth: fields.optional("depth")?,
                score: fields.optional("score")?,
                nodes: fields.optional("nodes")?,
                comment: fields.optional("comment")?,
            })),
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
            BotMessage::Ready(_) => "ready",
            BotMessage::Move(_) => "move",
            BotMessage::Info(_) => "info",
        }
    }
}

/// Checks a bot name: non-empty, at most [`MAX_NAME_CHARS`] characters, no control characters.
fn check_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err("must not be empty".to_owned());
    }
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(format!("has {chars} characters; at most {MAX_NAME_CHARS} are allowed"));
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(format!("contains the control character {c:?}"));
    }
    Ok(())
}
