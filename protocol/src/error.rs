//! Why a line is not a valid protocol message, in words a bot author can act on.

/// Why a line could not be read as a message. Every variant names the problem;
/// [`ProtocolError::verdict_reason`] says which game-over reason it leads to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// The line is longer than the limit (not counting the `'\n'`).
    #[error("line too long: {bytes} bytes, the limit is {max} bytes")]
    LineTooLong {
        /// The line's length in bytes (or a lower bound, if reading stopped early).
        bytes: usize,
        /// The limit.
        max: usize,
    },
    /// The line is empty or holds only white space.
    #[error("empty line: every line must hold one JSON object")]
    EmptyLine,
    /// The line is not valid UTF-8.
    #[error("line is not valid UTF-8 (byte {valid_up_to} starts an invalid sequence)")]
    NotUtf8 {
        /// The length of the valid prefix in bytes.
        valid_up_to: usize,
    },
    /// The line is not JSON; holds serde_json's message with line and column.
    #[error("not JSON: {0}")]
    NotJson(String),
    /// The line is JSON but not an object.
    #[error("expected a JSON object, found {0}")]
    NotAnObject(&'static str),
    /// The object has no `"type"` field.
    #[error("missing field \"type\": every message is a JSON object with a string field \"type\"")]
    MissingType,
    /// The `"type"` field is not a string.
    #[error("field \"type\" must be a string, found {0}")]
    TypeNotString(&'static str),
    /// The `"type"` is not one of the message types this side accepts.
    #[error("unknown type {found:?}, expected one of {}", .expected.join(", "))]
    UnknownType {
        /// The type found (cut to 64 bytes).
        found: String,
        /// The types accepted.
        expected: &'static [&'static str],
    },
    /// A required field is absent.
    #[error("{message_type} message: missing field {field:?}")]
    MissingField {
        /// The message's `"type"`.
        message_type: &'static str,
        /// The absent field.
        field: &'static str,
    },
    /// A field has the wrong JSON type or an invalid value.
    #[error("{message_type} message: field {field:?}: {problem}")]
    InvalidField {
        /// The message's `"type"`.
        message_type: &'static str,
        /// The field.
        field: &'static str,
        /// What is wrong with it.
        problem: String,
    },
    /// A message (of a type decoded by serde as a whole) does not have the expected shape.
    #[error("{message_type} message: {problem}")]
    InvalidMessage {
        /// The message's `"type"`.
        message_type: &'static str,
        /// serde_json's description of the problem.
        problem: String,
    },
}

impl ProtocolError {
    /// The game-over reason the referee gives a bot that sends such a line during play:
    /// `line_too_long` for [`ProtocolError::LineTooLong`], `malformed_line` otherwise.
    /// (During the handshake every failure is `handshake_failed`.)
    #[must_use]
    pub const fn verdict_reason(&self) -> crate::Reason {
        match self {
            ProtocolError::LineTooLong { .. } => crate::Reason::LineTooLong,
            _ => crate::Reason::MalformedLine,
        }
    }
}
