//! `bao-referee bench`: the referee's own overhead per ply against a raw pipe round trip
//! (`bench overhead`), and complete games per second (`bench games`), both with two
//! sample bots that answer at once. Results and how to read them: `docs/benchmarks/referee.md`.
//!
//! The hidden `bao-referee bench-echo` ([`echo`]) is the far end of the pipe baseline.

pub mod cpu_work;
pub mod echo;
pub mod games;
pub mod machine;
pub mod overhead;
pub mod pipe;
pub mod ply_timer;
pub mod report;
pub mod setup;
pub mod stats;

/// The arguments of `bao-referee bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Which benchmark.
    #[command(subcommand)]
    pub command: BenchCommand,
}

/// The benchmarks.
#[derive(Debug, clap::Subcommand)]
pub enum BenchCommand {
    /// Per-ply overhead of the referee (median, p90, p99 in µs) against raw pipe round trips.
    Overhead(overhead::OverheadArgs),
    /// Complete games per second, one after another, start-up and shutdown included.
    Games(games::GamesArgs),
}

/// Runs `bao-referee bench`; returns the exit code.
#[must_use]
pub fn run(args: &BenchArgs) -> u8 {
    // The same runtime as `bao-referee match`.
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return crate::exit::INTERNAL;
        }
    };
    let outcome = match &args.command {
        BenchCommand::Overhead(args) => overhead::run(args, &runtime),
        BenchCommand::Games(args) => games::run(args, &runtime),
    };
    match outcome {
        Ok(()) => crate::exit::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            crate::exit::INTERNAL
        }
    }
}
