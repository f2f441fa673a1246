//! The two-stage reading shared by both directions: JSON value, then a typed object.
//!
//! Stage one checks that the line is a JSON object with a known string `"type"`;
//! stage two reads the fields of that one message type, so that every error names
//! the message and the field.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::ProtocolError;

/// The longest `"type"` value quoted back in an error.
const MAX_QUOTED_TYPE_BYTES: usize = 64;

/// How a JSON value's kind is named in errors: `"a number"`, `"an array"`, ...
#[must_use]
pub(crate) const fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `line` without one trailing `"\n"` (and a `"\r"` before it).
#[must_use]
pub(crate) fn without_newline(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

/// Parses `line` as a JSON object whose `"type"` is one of `expected`.
/// Returns that type (as the `'static` entry of `expected`) and the object.
pub(crate) fn tagged_object(
    line: &str,
    expected: &'static [&'static str],
) -> Result<(&'static str, Map<String, Value>), ProtocolError> {
    if line.trim().is_empty() {
        return Err(ProtocolError::EmptyLine);
    }
    let value: Value = serde_json::from_str(line).map_err(|e| ProtocolError::NotJson(e.to_string()))?;
    let Value::Object(object) = value else {
        return Err(ProtocolError::NotAnObject(kind_of(&value)));
    };
    let message_type = match object.get("type") {
        None => return Err(ProtocolError::MissingType),
        Some(Value::String(found)) => {
            expected.iter().copied().find(|t| t == found).ok_or_else(|| ProtocolError::UnknownType {
                found: crate::truncate_utf8(found, MAX_QUOTED_TYPE_BYTES).to_owned(),
                expected,
            })?
        }
        Some(other) => return Err(ProtocolError::TypeNotString(kind_of(other))),
    };
    Ok((message_type, object))
}

/// Reads typed fields from one message's object, naming the message and the field in errors.
pub(crate) struct Fields<'a> {
    /// The message's `"type"`.
    pub(crate) message_type: &'static str,
    /// Its fields.
    pub(crate) object: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    /// A field that must be present (`null` is present, and rejected by `T` unless `T` accepts it).
    pub(crate) fn required<T: Deserialize<'a>>(&self, field: &'static str) -> Result<T, ProtocolError> {
        let value = self
            .object
            .get(field)
            .ok_or(ProtocolError::MissingField { message_type: self.message_type, field })?;
        self.decode(field, value)
    }

    /// A field that may be absent or `null`.
    pub(crate) fn optional<T: Deserialize<'a>>(
        &self,
        field: &'static str,
    ) -> Result<Option<T>, ProtocolError> {
        match self.object.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => self.decode(field, value).map(Some),
        }
    }

    fn decode<T: Deserialize<'a>>(&self, field: &'static str, value: &'a Value) -> Result<T, ProtocolError> {
        T::deserialize(value).map_err(|e| self.invalid(field, e.to_string()))
    }

    /// An [`ProtocolError::InvalidField`] for `field` of this message.
    pub(crate) fn invalid(&self, field: &'static str, problem: impl Into<String>) -> ProtocolError {
        ProtocolError::InvalidField {
            message_type: self.message_type,
            field,
            problem: printable(&problem.into()),
        }
    }
}

/// `text` with its control characters escaped (`\u{0}`, `\n`...): a problem quotes what the
/// bot sent, and goes into logs, reasons and pages, where a raw NUL or line break does harm.
pub(crate) fn printable(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_owned();
    }
    text.chars()
        .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() })
        .collect()
}

/// Decodes a whole message object with its derived `Deserialize` (used for the
/// referee's messages, read by the SDK).
pub(crate) fn whole<T: serde::de::DeserializeOwned>(
    message_type: &'static str,
    object: Map<String, Value>,
) -> Result<T, ProtocolError> {
    T::deserialize(Value::Object(object))
        .map_err(|e| ProtocolError::InvalidMessage { message_type, problem: printable(&e.to_string()) })
}
