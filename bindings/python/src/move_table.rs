//! The texts of all 64 moves as interned Python strings, and the way from a Python move
//! argument to a `bao_rules::Move`.
//!
//! `legal_moves()` returns these shared string objects (no allocation per move), and
//! `play()` finds a canonical move text by one dictionary look-up; anything else (a
//! lower-case row for North, or a text that is not a move) is parsed by `bao-rules`.

use bao_rules::{Direction, IllegalMove, Move, MoveText, Pit, Position, Side};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString};

use crate::errors;

/// The number of distinct moves: 16 pits × 2 directions × with or without safari.
const MOVES: usize = 64;

/// The texts, indexed by [`code`], and the dictionary from text to code.
struct Table {
    texts: Vec<Py<PyString>>,
    codes: Py<PyDict>,
}

static TABLE: PyOnceLock<Table> = PyOnceLock::new();

/// A move's index in the table.
fn code(m: Move) -> usize {
    let dir = match m.direction() {
        Direction::AntiClockwise => 0,
        Direction::Clockwise => 1,
    };
    m.pit().index() * 4 + dir * 2 + usize::from(m.safari())
}

/// The move at index `code` (< 64).
fn from_code(code: usize) -> Option<Move> {
    let pit = Pit::from_index(u8::try_from(code / 4).ok()?)?;
    let dir = if code & 2 == 0 { Direction::AntiClockwise } else { Direction::Clockwise };
    Some(Move::new(pit, dir, code & 1 == 1))
}

fn table(py: Python<'_>) -> PyResult<&Table> {
    TABLE.get_or_try_init(py, || {
        let codes = PyDict::new(py);
        let mut texts = Vec::with_capacity(MOVES);
        for c in 0..MOVES {
            let m = from_code(c).ok_or_else(|| errors::bao_error("internal: move table"))?;
            let text = PyString::intern(py, &m.to_string());
            codes.set_item(&text, c)?;
            texts.push(text.unbind());
        }
        Ok(Table { texts, codes: codes.unbind() })
    })
}

/// The canonical text of `m`, a shared string object.
pub(crate) fn text<'py>(py: Python<'py>, m: Move) -> PyResult<Bound<'py, PyString>> {
    Ok(table(py)?.texts[code(m)].bind(py).clone())
}

/// The move `text` names for the player to move in `position`: a canonical text, or a
/// lower-case row from North (as game records write it). Legality is not checked here.
pub(crate) fn resolve(position: &Position, text: &Bound<'_, PyAny>) -> PyResult<Move> {
    let py = text.py();
    if let Some(found) = table(py)?.codes.bind(py).get_item(text)? {
        let c: usize = found.extract()?;
        return from_code(c).ok_or_else(|| errors::bao_error("internal: move code"));
    }
    let text: String = text.extract()?;
    let parsed = text.parse::<MoveText>().map_err(|e| errors::bad_notation(py, &text, &e))?;
    if parsed.lower_case() && position.side_to_move() == Side::South {
        return Err(errors::illegal_move(py, &text, &IllegalMove::LowerCaseForSouth(parsed)));
    }
    Ok(parsed.to_move_unchecked())
}
