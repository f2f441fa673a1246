//! Runs `examples/tiny_tournament.rs` as a test: a program plays a tournament through the
//! library alone (no CLI), and the test fails unless both games were played and verified.

use std::process::ExitCode;

#[path = "../examples/tiny_tournament.rs"]
mod example;

fn main() -> ExitCode {
    // Run by the tournament as one of its bots, or as the test: then always in a temporary
    // folder, whatever the test harness was given (`cargo test -p bao-tournament FILTER` must
    // not make a folder named FILTER in the crate).
    if std::env::args().nth(1).as_deref() == Some("--bot") { example::main() } else { example::play_in(None) }
}
