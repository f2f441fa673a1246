//! `bao.Outcome`: the state of a game at a position.

use bao_rules::Outcome;
use pyo3::prelude::*;

use crate::position::side_letter;

/// Ongoing, or won by a side for a reason. The rules have no draws.
#[pyclass(frozen, module = "bao", name = "Outcome")]
#[derive(Clone, Copy)]
pub(crate) struct PyOutcome(pub(crate) Outcome);

#[pymethods]
impl PyOutcome {
    /// Whether the game is over.
    #[getter]
    fn is_over(&self) -> bool {
        self.0.is_over()
    }

    /// The winner, `"S"` or `"N"`, or `None` while the game goes on.
    #[getter]
    fn winner(&self) -> Option<&'static str> {
        match self.0 {
            Outcome::Ongoing => None,
            Outcome::Win { winner, .. } => Some(side_letter(winner)),
        }
    }

    /// Why the game ended, `"front_row_empty"` or `"no_legal_moves"`, or `None`.
    #[getter]
    fn reason(&self) -> Option<&'static str> {
        match self.0 {
            Outcome::Ongoing => None,
            Outcome::Win { reason, .. } => Some(reason.name()),
        }
    }

    /// `ongoing`, or `S wins (front_row_empty)` and the like: the `result` of the rules
    /// cases and of the protocol's `game_over`.
    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Outcome({:?})", self.0.to_string())
    }

    fn __eq__(&self, other: &Bound<'_, PyOutcome>) -> bool {
        self.0 == other.get().0
    }

    fn __ne__(&self, other: &Bound<'_, PyOutcome>) -> bool {
        self.0 != other.get().0
    }

    fn __hash__(&self) -> u64 {
        match self.0 {
            Outcome::Ongoing => 0,
            Outcome::Win { winner, reason } => 1 + winner as u64 * 2 + reason as u64,
        }
    }
}
