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
    /// The Tokio runtime to run the games on: `multi-thread` (two workers, as `bao-referee
    /// match`) or `current-thread` (everything on one thread, for comparison).
    #[arg(long, value_enum, default_value_t = RuntimeKind::MultiThread, global = true)]
    pub runtime: RuntimeKind,
    /// Which benchmark.
    #[command(subcommand)]
    pub command: BenchCommand,
}

/// A Tokio runtime flavour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuntimeKind {
    /// Two worker threads, as `bao-referee match` uses.
    MultiThread,
    /// One thread for everything.
    CurrentThread,
}

impl RuntimeKind {
    /// The name on the command line.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            RuntimeKind::MultiThread => "multi-thread",
            RuntimeKind::CurrentThread => "current-thread",
        }
    }

    /// Builds the runtime.
    ///
    /// # Errors
    /// The runtime could not be started.
    pub fn build(self) -> std::io::Result<tokio::runtime::Runtime> {
        match self {
            RuntimeKind::MultiThread => {
                tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()
            }
            RuntimeKind::CurrentThread => tokio::runtime::Builder::new_current_thread().enable_all().build(),
        }
    }
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
    let runtime = match args.runtime.build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return crate::exit::INTERNAL;
        }
    };
    let outcome = match &args.command {
        BenchCommand::Overhead(overhead_args) => overhead::run(overhead_args, args.runtime, &runtime),
        BenchCommand::Games(games_args) => games::run(games_args, args.runtime, &runtime),
    };
    match outcome {
        Ok(()) => crate::exit::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            crate::exit::INTERNAL
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("bao-referee").chain(args.iter().copied()))
    }

    #[test]
    fn the_command_line_reaches_the_benchmarks() {
        let cli = parse(&["bench", "overhead", "--games", "3", "--seed", "9", "--json"]).expect("parses");
        let Command::Bench(bench) = cli.command else { panic!("not bench: {:?}", cli.command) };
        assert_eq!(bench.runtime, RuntimeKind::MultiThread);
        let BenchCommand::Overhead(overhead) = bench.command else { panic!("not overhead") };
        assert_eq!((overhead.games, overhead.seed, overhead.json), (3, 9, true));
        assert_eq!((overhead.round_trips, overhead.warmup, overhead.cpu_repetitions), (20_000, 200, 5));

        let cli = parse(&["bench", "games", "--runtime", "current-thread"]).expect("a global option");
        let Command::Bench(bench) = cli.command else { panic!("not bench") };
        assert_eq!(bench.runtime, RuntimeKind::CurrentThread);
        assert!(matches!(
            bench.command,
            BenchCommand::Games(games::GamesArgs { games: 50, json: false, .. })
        ));

        assert!(matches!(parse(&["bench-echo"]).expect("hidden but there").command, Command::BenchEcho));
    }

    #[test]
    fn zero_counts_and_unknown_runtimes_are_refused() {
        for args in [
            &["bench", "games", "--games", "0"][..],
            &["bench", "overhead", "--games", "0"],
            &["bench", "overhead", "--round-trips", "0"],
            &["bench", "overhead", "--cpu-repetitions", "0"],
        ] {
            let error = parse(args).expect_err("refused");
            assert_eq!(error.kind(), clap::error::ErrorKind::ValueValidation, "{args:?}: {error}");
        }
        let error = parse(&["bench", "--runtime", "single", "games"]).expect_err("no such runtime");
        assert_eq!(error.kind(), clap::error::ErrorKind::InvalidValue, "{error}");
    }
}
