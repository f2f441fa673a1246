//! `bao-referee-e2e`: the `bao-referee` command line (the same `bao_referee::cli::main`),
//! built as a binary of this test package so that the end-to-end tests find it through
//! `CARGO_BIN_EXE_*`, in the profile the tests were built with, without a nested build.

use std::process::ExitCode;

fn main() -> ExitCode {
    bao_referee::cli::main()
}
