//! Runs `examples/tiny_tournament.rs` as a test: a program plays a tournament through the
//! library alone (no CLI), and the test fails unless both games were played and verified.

use std::process::ExitCode;

#[path = "../examples/tiny_tournament.rs"]
mod example;

fn main() -> ExitCode {
    example::main()
}
