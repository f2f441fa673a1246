//! `bao.Position`: an immutable position, every query answered by `bao-rules`.

use bao_rules::{BoardPit, Position, Side, Stage, Variant, perft};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};

use crate::errors;
use crate::move_table;
use crate::outcome::PyOutcome;
use crate::sow_step::PySowStep;

/// A position of Bao la Kiswahili or Bao la Kujifunza. Immutable: `play` returns a new one.
#[pyclass(frozen, module = "bao", name = "Position")]
#[derive(Clone, Copy)]
pub(crate) struct PyPosition(pub(crate) Position);

/// `S`/`N` or `south`/`north` (any case) as a side.
pub(crate) fn parse_side(text: &str) -> PyResult<Side> {
    text.parse::<Side>().map_err(|e| errors::bao_error(e.to_string()))
}

fn stage_name(stage: Stage) -> &'static str {
    stage.name()
}

#[pymethods]
impl PyPosition {
    /// The position written `text` (the notation of docs/rules.md); `PositionError` if it is
    /// not one.
    #[new]
    fn new(text: &str) -> PyResult<Self> {
        text.parse::<Position>().map(PyPosition).map_err(|e| errors::position_error(text, &e))
    }

    /// The start position of `variant` (`"kiswahili"` or `"kujifunza"`), South to move.
    #[classmethod]
    #[pyo3(signature = (variant = "kiswahili"))]
    fn start(_cls: &Bound<'_, PyType>, variant: &str) -> PyResult<Self> {
        let variant = variant.parse::<Variant>().map_err(|e| errors::bao_error(e.to_string()))?;
        Ok(PyPosition(Position::start(variant)))
    }

    /// The position written `text`; `PositionError` (naming the field) if it is not one.
    #[classmethod]
    fn from_text(_cls: &Bound<'_, PyType>, text: &str) -> PyResult<Self> {
        Self::new(text)
    }

    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Position({:?})", self.0.to_string())
    }

    fn __eq__(&self, other: &Bound<'_, PyPosition>) -> bool {
        self.0 == other.get().0
    }

    fn __ne__(&self, other: &Bound<'_, PyPosition>) -> bool {
        self.0 != other.get().0
    }

    /// Python's hash: derived from `hash_key()`, the same in every process.
    fn __hash__(&self) -> u64 {
        self.0.hash_key()
    }

    /// The Zobrist key of the position, exactly `bao_rules::Position::hash_key`: an
    /// unsigned 64-bit integer, the same on every machine and in every run.
    fn hash_key(&self) -> u64 {
        self.0.hash_key()
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
        (class, (self.0.to_string(),)).into_pyobject(py)
    }

    /// `"kiswahili"` or `"kujifunza"`.
    #[getter]
    fn variant(&self) -> &'static str {
        self.0.variant().name()
    }

    /// The player to move: `"S"` or `"N"`.
    #[getter]
    fn side_to_move(&self) -> &'static str {
        side_letter(self.0.side_to_move())
    }

    /// The stage of the player to move: `"namua"` (seeds in hand) or `"mtaji"`.
    #[getter]
    fn stage(&self) -> &'static str {
        stage_name(self.0.stage(self.0.side_to_move()))
    }

    /// The stage of `side`.
    fn stage_of(&self, side: &str) -> PyResult<&'static str> {
        Ok(stage_name(self.0.stage(parse_side(side)?)))
    }

    /// Seeds in hand, `(South, North)`.
    #[getter]
    fn hands(&self) -> (u8, u8) {
        (self.0.hand(Side::South), self.0.hand(Side::North))
    }

    /// Seeds in `side`'s hand.
    fn hand(&self, side: &str) -> PyResult<u8> {
        Ok(self.0.hand(parse_side(side)?))
    }

    /// Whether each player still owns their nyumba, `(South, North)`.
    #[getter]
    fn nyumba(&self) -> (bool, bool) {
        (self.0.owns_nyumba(Side::South), self.0.owns_nyumba(Side::North))
    }

    /// Whether `side` still owns their nyumba.
    fn owns_nyumba(&self, side: &str) -> PyResult<bool> {
        Ok(self.0.owns_nyumba(parse_side(side)?))
    }

    /// The front pit of the player to move that is under takasia, in that player's
    /// notation (`"A3"`), or `None`.
    #[getter]
    fn takasia(&self) -> Option<String> {
        self.0.takasia().map(|pit| pit.to_string())
    }

    /// The four rows as the protocol's `rows`: `{"A": ..., "B": ..., "a": ..., "b": ...}`,
    /// South's front and back rows, then North's, each a tuple of 8 counts in its owner's
    /// numbering (index 0 is column 1).
    #[getter]
    fn rows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let rows = PyDict::new(py);
        rows.set_item("A", PyTuple::new(py, self.0.front_row(Side::South))?)?;
        rows.set_item("B", PyTuple::new(py, self.0.back_row(Side::South))?)?;
        rows.set_item("a", PyTuple::new(py, self.0.front_row(Side::North))?)?;
        rows.set_item("b", PyTuple::new(py, self.0.back_row(Side::North))?)?;
        Ok(rows)
    }

    /// `side`'s front row, columns 1..8 in its own numbering.
    fn front_row(&self, side: &str) -> PyResult<[u8; 8]> {
        Ok(self.0.front_row(parse_side(side)?))
    }

    /// `side`'s back row, columns 1..8 in its own numbering.
    fn back_row(&self, side: &str) -> PyResult<[u8; 8]> {
        Ok(self.0.back_row(parse_side(side)?))
    }

    /// The seeds in one pit, named absolutely: `"A1"`..`"B8"` South's, `"a1"`..`"b8"` North's.
    fn count(&self, pit: &str) -> PyResult<u8> {
        let pit = pit.parse::<BoardPit>().map_err(|e| errors::bao_error(e.to_string()))?;
        Ok(self.0.count(pit.side(), pit.pit()))
    }

    /// All seeds on the board and in hand.
    #[getter]
    fn total_seeds(&self) -> u32 {
        self.0.total_seeds()
    }

    /// Every legal move, in canonical notation (the mover's perspective), sorted in byte
    /// order: the protocol's `legal`. Empty when the game is over.
    fn legal_moves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let moves = self.0.legal_moves();
        let mut texts = Vec::with_capacity(moves.len());
        for m in moves {
            texts.push(move_table::text(py, m)?);
        }
        PyList::new(py, texts)
    }

    /// Every legal move with the position after it, `[(move, position), ...]`, in the
    /// order of `legal_moves()`.
    fn successors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for (m, next) in self.0.successors() {
            list.append((move_table::text(py, m)?, PyPosition(next)))?;
        }
        Ok(list)
    }

    /// The position after `move` (the mover's notation; a lower-case row is accepted for
    /// North). `IllegalMoveError` naming the rule if it is not legal here.
    #[pyo3(signature = (move_text, /))]
    fn play(&self, move_text: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        let m = move_table::resolve(&self.0, move_text)?;
        match self.0.play_without_outcome(m) {
            Ok(next) => Ok(PyPosition(next)),
            Err(illegal) => Err(errors::illegal_move(move_text.py(), &display(move_text), &illegal)),
        }
    }

    /// Whether `move` is legal here.
    #[pyo3(signature = (move_text, /))]
    fn is_legal(&self, move_text: &Bound<'_, PyAny>) -> PyResult<bool> {
        match move_table::resolve(&self.0, move_text) {
            Ok(m) => Ok(self.0.play_without_outcome(m).is_ok()),
            Err(e) if e.is_instance_of::<errors::IllegalMoveError>(move_text.py()) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The state of the game here: won (a front row is empty, or the player to move has no
    /// legal move) or ongoing.
    fn outcome(&self) -> PyOutcome {
        PyOutcome(self.0.outcome())
    }

    /// The atomic steps of playing `move` here, in order (pits named absolutely): what an
    /// animated replay shows. `IllegalMoveError` as for `play`.
    #[pyo3(signature = (move_text, /))]
    fn sowing_steps(&self, move_text: &Bound<'_, PyAny>) -> PyResult<Vec<PySowStep>> {
        let m = move_table::resolve(&self.0, move_text)?;
        match self.0.sowing_steps(m) {
            Ok(steps) => Ok(steps.into_iter().map(PySowStep).collect()),
            Err(illegal) => Err(errors::illegal_move(move_text.py(), &display(move_text), &illegal)),
        }
    }

    /// The number of move sequences of length `depth` from here (a game-ending move is one
    /// leaf), as `bao_rules::perft` counts them. Releases the GIL while counting.
    fn perft(&self, py: Python<'_>, depth: u32) -> u64 {
        let position = self.0;
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
    move_text
        .cast::<PyString>()
        .map_or_else(|_| move_text.to_string(), |s| s.to_string_lossy().into_owned())
}
