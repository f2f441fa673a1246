//! Between the protocol's mover-perspective moves (`A5<`, whoever moves) and absolute ones
//! (game records: South's `A5<`, North's `a5<`).

use bao_rules::{MoveText, Side};
use pyo3::prelude::*;

use crate::errors;
use crate::position::{parse_side, side_letter};

fn parse(py: Python<'_>, text: &str) -> PyResult<MoveText> {
    text.parse::<MoveText>().map_err(|e| errors::bad_notation(py, text, &e))
}

/// `side`'s move `move_text` (written from `side`'s own seat, as the protocol's `legal`,
/// `move` and `opponent_move` are) in absolute notation: unchanged for South, the row in
/// lower case for North (`A5<` → `a5<`). A lower-case row is accepted for North only.
#[pyfunction]
pub(crate) fn to_absolute(py: Python<'_>, move_text: &str, side: &str) -> PyResult<String> {
    let side = parse_side(side)?;
    let parsed = parse(py, move_text)?;
    if parsed.lower_case() && side == Side::South {
        return Err(errors::bao_error(format!(
            "{move_text:?}: a lower-case row names a North move, not South's"
        )));
    }
    let absolute = MoveText::new(parsed.pit(), parsed.direction(), parsed.safari(), side == Side::North);
    Ok(absolute.to_string())
}

/// An absolute move (`A5<` South's, `a5<` North's) as `(side, move)`, the move in the
/// mover's canonical notation: `a5<` → `("N", "A5<")`.
#[pyfunction]
pub(crate) fn from_absolute(py: Python<'_>, move_text: &str) -> PyResult<(&'static str, String)> {
    let parsed = parse(py, move_text)?;
    let side = if parsed.lower_case() { Side::North } else { Side::South };
    Ok((side_letter(side), parsed.to_move_unchecked().to_string()))
}
