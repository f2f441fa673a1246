//! `bao-referee`: the command-line entry point. Everything lives in the
//! library crate; this only parses arguments and maps errors to exit codes.

use std::process::ExitCode;

fn main() -> ExitCode {
    bao_referee::cli::main()
}
