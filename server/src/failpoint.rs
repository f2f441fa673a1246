//! Crash injection for tests: with `BAO_SERVER_FAILPOINT=NAME` in its
//! environment the server aborts (as a power cut or `kill -9` would stop it)
//! when it reaches the point `NAME`, between two writes of a state change.
//! The e2e tests start the server again and check that the next start
//! completes or rolls back the change (server/tests/e2e/crash.rs). Without the
//! variable every point is one comparison of an unset option.

use std::sync::LazyLock;

/// The environment variable naming the point to crash at.
pub const ENV: &str = "BAO_SERVER_FAILPOINT";

/// Every point, between the writes named.
pub const POINTS: &[&str] = &[
    // The upload is unpacked in tmp/ and nothing is recorded yet.
    "submit.after_unpack",
    // The version row is written (not committed) and the files not yet moved.
    "submit.after_insert",
    // The files are in the version's directory, the row not committed.
    "submit.after_move",
    // A version is made active, the bot's previous active version not yet retired.
    "activate.between_writes",
    // A candidate's LLR is written, its verdict not yet.
    "verdict.after_llr",
    // A candidate's verdict (`sprt_result`) is written, its state not yet changed.
    "verdict.after_result",
];

static CHOSEN: LazyLock<Option<String>> = LazyLock::new(|| std::env::var(ENV).ok());

/// Aborts the process if `name` is the chosen point.
pub fn hit(name: &str) {
    debug_assert!(POINTS.contains(&name), "failpoint {name} is not listed in POINTS");
    if CHOSEN.as_deref() == Some(name) {
        eprintln!("{ENV}={name}: aborting here, as a crash would");
        std::process::abort();
    }
}
