//! `bao._bao`: the Python extension module over `bao-rules`.
//!
//! Every answer comes from `bao-rules`; this crate only converts between Python objects
//! and the rules engine's types. The Python package `bao` (`python/bao/`) re-exports
//! these classes and adds the protocol SDK, which is plain Python.

mod absolute;
mod errors;
mod move_table;
mod native_bench;
mod outcome;
mod position;
mod sow_step;

use pyo3::prelude::*;

/// The module `bao._bao`.
#[pymodule]
fn _bao(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_SEEDS", bao_rules::MAX_SEEDS)?;
    m.add("MAX_LAPS", bao_rules::MAX_LAPS)?;
    m.add("RULES_REVISION", bao_rules::RULES_REVISION)?;
    m.add("BaoError", py.get_type::<errors::BaoError>())?;
    m.add("PositionError", py.get_type::<errors::PositionError>())?;
    m.add("IllegalMoveError", py.get_type::<errors::IllegalMoveError>())?;
    m.add_class::<position::PyPosition>()?;
    m.add_class::<outcome::PyOutcome>()?;
    m.add_class::<sow_step::PySowStep>()?;
    m.add_function(wrap_pyfunction!(absolute::to_absolute, m)?)?;
    m.add_function(wrap_pyfunction!(absolute::from_absolute, m)?)?;
    m.add_function(wrap_pyfunction!(native_bench::_native_random_play, m)?)?;
    Ok(())
}
