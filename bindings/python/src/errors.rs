//! The package's exceptions, and the conversion of `bao-rules` errors into them.

use bao_rules::{IllegalMove, ParseMoveError};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    bao,
    BaoError,
    PyValueError,
    "The base of every error this package raises for bad input: a ValueError."
);
create_exception!(
    bao,
    PositionError,
    BaoError,
    "A position's text is not a valid position; the message names the field and what is wrong."
);
create_exception!(
    bao,
    IllegalMoveError,
    BaoError,
    "A move is not legal in the position (or is not a move at all). `rule` names the rule it \
     breaks, `move` is the move as given."
);

/// A `BaoError` with `message`.
pub(crate) fn bao_error(message: impl Into<String>) -> PyErr {
    BaoError::new_err(message.into())
}

/// A `PositionError` for `text`, with the engine's reason.
pub(crate) fn position_error(text: &str, problem: &bao_rules::PositionError) -> PyErr {
    PositionError::new_err(format!("bad position {text:?}: {problem}"))
}

/// An `IllegalMoveError` with its `rule` and `move` attributes set.
fn illegal_move_error(py: Python<'_>, message: String, rule: &str, move_text: &str) -> PyErr {
    let error = IllegalMoveError::new_err(message);
    let value = error.value(py);
    // Setting attributes on a fresh exception instance cannot fail short of memory
    // exhaustion; if it does, that error is the one raised.
    if let Err(e) = value.setattr("rule", rule).and_then(|()| value.setattr("move", move_text)) {
        return e;
    }
    error
}

/// The error for a move that `bao-rules` finds illegal: the engine's message, and the rule
/// as the snake-case name of the `IllegalMove` variant (`capture_required`, `infinite`...).
pub(crate) fn illegal_move(py: Python<'_>, move_text: &str, illegal: &IllegalMove) -> PyErr {
    illegal_move_error(py, illegal.to_string(), &rule_name(illegal), move_text)
}

/// The error for a text that is not a move at all (rule `notation`).
pub(crate) fn bad_notation(py: Python<'_>, move_text: &str, problem: &ParseMoveError) -> PyErr {
    illegal_move_error(py, format!("{move_text:?} is not a move: {problem}"), "notation", move_text)
}

/// `IllegalMove::CaptureRequired(..)` → `capture_required`. Taken from the variant's name
/// (its `Debug` form) so that a rule added to `bao-rules` gets its name here unchanged.
fn rule_name(illegal: &IllegalMove) -> String {
    let debug = format!("{illegal:?}");
    let variant = debug.split(['(', ' ', '{']).next().unwrap_or("NotLegal");
    let mut name = String::with_capacity(variant.len() + 4);
    for (i, c) in variant.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                name.push('_');
            }
            name.push(c.to_ascii_lowercase());
        } else {
            name.push(c);
        }
    }
    name
}
