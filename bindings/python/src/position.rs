//! `bao.Position`: an immutable position, every query answered by `bao-rules`.

use std::sync::OnceLock;

use bao_rules::{BoardPit, Move, Position, Side, Stage, Variant, perft};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};

use crate::errors;
use crate::move_table;
use crate::outcome::PyOutcome;
use crate::sow_step::PySowStep;

/// A position of Bao la Kiswahili or Bao la Kujifunza. Immutable: `play` returns a new one.
///
/// The first `legal_moves()` (or `successors()`) keeps every legal move with the position
/// after it, which listing the moves computes anyway; `play` of a listed move is then a
/// look-up, not a second run of the move.
#[pyclass(frozen, module = "bao", name = "Position")]
pub(crate) struct PyPosition {
    position: Position,
    successors: OnceLock<Box<[(Move, Position)]>>,
}

impl PyPosition {
    fn new_unexpanded(position: Position) -> Self {
        PyPosition { position, successors: OnceLock::new() }
    }

    /// Every legal move with the position after it (computed once).
    fn successor_list(&self) -> &[(Move, Position)] {
        self.successors.get_or_init(|| self.position.successors().into_iter().collect())
    }
}

/// `S`/`N` or `south`/`north` (any case) as a side.
pub(crate) fn parse_side(text: &str) -> PyResult<Side> {
    text.parse::<Side>().map_err(|e| errors::bao_error(e.to_string()))
}

#[pymethods]
impl PyPosition {
    /// The position written `text` (the notation of docs/rules.md); `PositionError` if it is
    /// not one.
    #[new]
    fn new(text: &str) -> PyResult<Self> {
        text.parse::<Position>().map(PyPosition::new_unexpanded).map_err(|e| errors::position_error(text, &e))
    }

    /// The start position of `variant` (`"kiswahili"` or `"kujifunza"`), South to move.
    #[classmethod]
    #[pyo3(signature = (variant = "kiswahili"))]
    fn start(_cls: &Bound<'_, PyType>, variant: &str) -> PyResult<Self> {
        let variant = variant.parse::<Variant>().map_err(|e| errors::bao_error(e.to_string()))?;
        Ok(PyPosition::new_unexpanded(Position::start(variant)))
    }

    /// The position written `text`; `PositionError` (naming the field) if it is not one.
    #[classmethod]
    fn from_text(_cls: &Bound<'_, PyType>, text: &str) -> PyResult<Self> {
        Self::new(text)
    }

    fn __str__(&self) -> String {
        self.position.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Position({:?})", self.position.to_string())
    }

    fn __eq__(&self, other: &Bound<'_, PyPosition>) -> bool {
        self.position == other.get().position
    }

    fn __ne__(&self, other: &Bound<'_, PyPosition>) -> bool {
        self.position != other.get().position
    }

    /// Python's hash: derived from `hash_key()`, the same in every process.
    fn __hash__(&self) -> u64 {
        self.position.hash_key()
    }

    /// The Zobrist key of the position, exactly `bao_rules::Position::hash_key`: an
    /// unsigned 64-bit integer, the same on every machine and in every run.
    fn hash_key(&self) -> u64 {
        self.position.hash_key()
    }

    /// Positions are immutable: a copy is the position itself.
    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }

    /// Pickling goes through the notation.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let class = py.get_type::<PyPosition>();
        (class, (self.position.to_string(),)).into_pyobject(py)
    }

    /// `"kiswahili"` or `"kujifunza"`.
    #[getter]
    fn variant(&self) -> &'static str {
        self.position.variant().name()
    }

    /// The player to move: `"S"` or `"N"`.
    #[getter]
    fn side_to_move(&self) -> &'static str {
        side_letter(self.position.side_to_move())
    }

    /// The stage of the player to move: `"namua"` (seeds in hand) or `"mtaji"`.
    #[getter]
    fn stage(&self) -> &'static str {
        Stage::name(self.position.stage(self.position.side_to_move()))
    }

    /// The stage of `side`.
    fn stage_of(&self, side: &str) -> PyResult<&'static str> {
        Ok(Stage::name(self.position.stage(parse_side(side)?)))
    }

    /// Seeds in hand, `(South, North)`.
    #[getter]
    fn hands(&self) -> (u8, u8) {
        (self.position.hand(Side::South), self.position.hand(Side::North))
    }

    /// Seeds in `side`'s hand.
    fn hand(&self, side: &str) -> PyResult<u8> {
        Ok(self.position.hand(parse_side(side)?))
    }

    /// Whether each player still owns their nyumba, `(South, North)`.
    #[getter]
    fn nyumba(&self) -> (bool, bool) {
        (self.position.owns_nyumba(Side::South), self.position.owns_nyumba(Side::North))
    }

    /// Whether `side` still owns their nyumba.
    fn owns_nyumba(&self, side: &str) -> PyResult<bool> {
        Ok(self.position.owns_nyumba(parse_side(side)?))
    }

    /// The front pit of the player to move that is under takasia, in that player's
    /// notation (`"A3"`), or `None`.
    #[getter]
    fn takasia(&self) -> Option<String> {
        self.position.takasia().map(|pit| pit.to_string())
    }

    /// The four rows as the protocol's `rows`: `{"A": ..., "B": ..., "a": ..., "b": ...}`,
    /// South's front and back rows, then North's, each a tuple of 8 counts in its owner's
    /// numbering (index 0 is column 1).
    #[getter]
    fn rows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let rows = PyDict::new(py);
        rows.set_item("A", PyTuple::new(py, self.position.front_row(Side::South))?)?;
        rows.set_item("B", PyTuple::new(py, self.position.back_row(Side::South))?)?;
        rows.set_item("a", PyTuple::new(py, self.position.front_row(Side::North))?)?;
        rows.set_item("b", PyTuple::new(py, self.position.back_row(Side::North))?)?;
        Ok(rows)
    }

    /// `side`'s front row, a tuple of 8 counts, columns 1..8 in its own numbering.
    fn front_row<'py>(&self, py: Python<'py>, side: &str) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.position.front_row(parse_side(side)?))
    }

    /// `side`'s back row, a tuple of 8 counts, columns 1..8 in its own numbering.
    fn back_row<'py>(&self, py: Python<'py>, side: &str) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.position.back_row(parse_side(side)?))
    }

    /// The seeds in one pit, named absolutely: `"A1"`..`"B8"` South's, `"a1"`..`"b8"` North's.
    fn count(&self, pit: &str) -> PyResult<u8> {
        let pit = pit.parse::<BoardPit>().map_err(|e| errors::bao_error(e.to_string()))?;
        Ok(self.position.count(pit.side(), pit.pit()))
    }

    /// The seeds in `side`'s 16 pits (not counting its hand).
    fn board_seeds(&self, side: &str) -> PyResult<u32> {
        let side = parse_side(side)?;
        let front = self.position.front_row(side);
        let back = self.position.back_row(side);
        Ok(front.iter().chain(back.iter()).map(|&c| u32::from(c)).sum())
    }

    /// All seeds on the board and in hand.
    #[getter]
    fn total_seeds(&self) -> u32 {
        self.position.total_seeds()
    }

    /// Every legal move, in canonical notation (the mover's perspective), sorted in byte
    /// order: the protocol's `legal`. Empty when the game is over.
    fn legal_moves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let successors = self.successor_list();
        let mut texts = Vec::with_capacity(successors.len());
        for &(m, _) in successors {
            texts.push(move_table::text(py, m)?);
        }
        PyList::new(py, texts)
    }

    /// Every legal move with the position after it, `[(move, position), ...]`, in the
    /// order of `legal_moves()`.
    fn successors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for &(m, next) in self.successor_list() {
            list.append((move_table::text(py, m)?, PyPosition::new_unexpanded(next)))?;
        }
        Ok(list)
    }

    /// The position after `move` (the mover's notation; a lower-case row is accepted for
    /// North). `IllegalMoveError` naming the rule if it is not legal here.
    #[pyo3(signature = (move_text, /))]
    fn play(&self, move_text: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        let m = move_table::resolve(&self.position, move_text)?;
        if let Some(successors) = self.successors.get()
            && let Some(&(_, next)) = successors.iter().find(|&&(listed, _)| listed == m)
        {
            return Ok(PyPosition::new_unexpanded(next));
        }
        match self.position.play_without_outcome(m) {
            Ok(next) => Ok(PyPosition::new_unexpanded(next)),
            Err(illegal) => Err(errors::illegal_move(move_text.py(), &display(move_text), &illegal)),
        }
    }

    /// Whether `move` is legal here.
    #[pyo3(signature = (move_text, /))]
    fn is_legal(&self, move_text: &Bound<'_, PyAny>) -> PyResult<bool> {
        match move_table::resolve(&self.position, move_text) {
            Ok(m) => Ok(self.successor_list().iter().any(|&(listed, _)| listed == m)),
            Err(e) if e.is_instance_of::<errors::IllegalMoveError>(move_text.py()) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The state of the game here: won (a front row is empty, or the player to move has no
    /// legal move) or ongoing.
    fn outcome(&self) -> PyOutcome {
        PyOutcome(self.position.outcome())
    }

    /// The atomic steps of playing `move` here, in order (pits named absolutely): what an
    /// animated replay shows. `IllegalMoveError` as for `play`.
    #[pyo3(signature = (move_text, /))]
    fn sowing_steps(&self, move_text: &Bound<'_, PyAny>) -> PyResult<Vec<PySowStep>> {
        let m = move_table::resolve(&self.position, move_text)?;
        match self.position.sowing_steps(m) {
            Ok(steps) => Ok(steps.into_iter().map(PySowStep).collect()),
            Err(illegal) => Err(errors::illegal_move(move_text.py(), &display(move_text), &illegal)),
        }
    }

    /// The number of move sequences of length `depth` from here (a game-ending move is one
    /// leaf), as `bao_rules::perft` counts them. Releases the GIL while counting.
    fn perft(&self, py: Python<'_>, depth: u32) -> u64 {
        let position = self.position;
        py.detach(move || perft(&position, depth))
    }
}

/// `"S"` or `"N"`.
pub(crate) fn side_letter(side: Side) -> &'static str {
    match side {
        Side::South => "S",
        Side::North => "N",
    }
}

/// The text of a move argument, for an error message.
fn display(move_text: &Bound<'_, PyAny>) -> String {
    move_text.cast::<PyString>().map_or_else(|_| move_text.to_string(), |s| s.to_string_lossy().into_owned())
}
