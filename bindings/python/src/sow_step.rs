//! `bao.SowStep`: one atomic step of executing a move.

use bao_rules::SowStep;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// One step of a move: `op` is `hand`, `pick`, `drop`, `capture`, `kichwa`, `safari` or
/// `nyumba_lost`; `pit` the pit it concerns, named absolutely (`"A5"`, `"a3"`), `None`
/// for `hand`; `seeds` the seeds lifted (`pick`) or captured (`capture`), else `None`.
#[pyclass(frozen, module = "bao", name = "SowStep")]
#[derive(Clone)]
pub(crate) struct PySowStep(pub(crate) SowStep);

impl PySowStep {
    fn parts(&self) -> (&'static str, Option<String>, Option<u8>) {
        match self.0 {
            SowStep::Hand => ("hand", None, None),
            SowStep::Pick { pit, seeds } => ("pick", Some(pit.to_string()), Some(seeds)),
            SowStep::Drop { pit } => ("drop", Some(pit.to_string()), None),
            SowStep::Capture { pit, seeds } => ("capture", Some(pit.to_string()), Some(seeds)),
            SowStep::Kichwa { pit } => ("kichwa", Some(pit.to_string()), None),
            SowStep::Safari { pit } => ("safari", Some(pit.to_string()), None),
            SowStep::NyumbaLost { pit } => ("nyumba_lost", Some(pit.to_string()), None),
        }
    }
}

#[pymethods]
impl PySowStep {
    /// The kind of step.
    #[getter]
    fn op(&self) -> &'static str {
        self.parts().0
    }

    /// The pit, named absolutely, or `None` (for `hand`).
    #[getter]
    fn pit(&self) -> Option<String> {
        self.parts().1
    }

    /// The seeds lifted or captured (`pick`, `capture`), or `None`.
    #[getter]
    fn seeds(&self) -> Option<u8> {
        self.parts().2
    }

    /// The step as the JSON object of the game log and the replay viewer:
    /// `{"op": "pick", "pit": "A5", "seeds": 6}` (absent fields left out).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (op, pit, seeds) = self.parts();
        let dict = PyDict::new(py);
        dict.set_item("op", op)?;
        if let Some(pit) = pit {
            dict.set_item("pit", pit)?;
        }
        if let Some(seeds) = seeds {
            dict.set_item("seeds", seeds)?;
        }
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        match self.parts() {
            (op, None, _) => format!("SowStep({op:?})"),
            (op, Some(pit), None) => format!("SowStep({op:?}, {pit:?})"),
            (op, Some(pit), Some(seeds)) => format!("SowStep({op:?}, {pit:?}, {seeds})"),
        }
    }

    fn __eq__(&self, other: &Bound<'_, PySowStep>) -> bool {
        self.0 == other.get().0
    }

    fn __ne__(&self, other: &Bound<'_, PySowStep>) -> bool {
        self.0 != other.get().0
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::hash::DefaultHasher::new();
        self.0.hash(&mut hasher);
        hasher.finish()
    }
}
