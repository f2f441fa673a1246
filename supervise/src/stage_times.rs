//! Timestamps of the stub's steps, for `bao-bench bench sandbox --stages` (only with the
//! `stage-times` feature; otherwise [`mark`] does nothing and costs nothing).
//!
//! With the feature, a stub whose environment names a file in `BAO_STAGE_TIMES` appends one
//! line per step to it, `PID STEP NANOSECONDS` (`CLOCK_MONOTONIC`), from the stub, the
//! namespace's init and the program's process (the file is opened by the stub before it
//! enters its namespaces, and its descriptor inherited: the init still writes to it from the
//! new root). Never in a product build: the descriptor would reach the program.

/// The environment variable naming the file.
#[cfg(feature = "stage-times")]
const VARIABLE: &str = "BAO_STAGE_TIMES";

/// Records that this process reached `step`.
#[cfg(feature = "stage-times")]
pub(crate) fn mark(step: &str) {
    use std::io::Write;
    use std::sync::OnceLock;
    static FILE: OnceLock<Option<std::fs::File>> = OnceLock::new();
    let file = FILE.get_or_init(|| {
        let path = std::env::var_os(VARIABLE)?;
        std::fs::OpenOptions::new().append(true).create(true).open(path).ok()
    });
    if let Some(mut file) = file.as_ref() {
        let now = nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC)
            .map_or(0, |t| t.tv_sec() as i128 * 1_000_000_000 + i128::from(t.tv_nsec()));
        let _ = file.write_all(format!("{} {step} {now}\n", std::process::id()).as_bytes());
    }
}

/// Does nothing (built without the `stage-times` feature).
#[cfg(not(feature = "stage-times"))]
#[inline(always)]
pub(crate) fn mark(_step: &str) {}
