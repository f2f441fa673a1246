//! `bao-bench`: benchmarks of the referee's overhead (see the crate doc of `bao_bench`).

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    bao_supervise::exec_stub::run_if_requested();
    ExitCode::from(bao_bench::main(bao_bench::Cli::parse()))
}
