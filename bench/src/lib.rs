//! `bao-bench` (not part of the product binary): the referee's own overhead per ply against a raw pipe round trip
//! (`bench overhead`), and complete games per second (`bench games`), both with two
//! sample bots that answer at once; and the real `bao-referee` binary measured from outside
//! with C instant bots (`bench referee`). Results and how to read them:
//! `docs/benchmarks/referee.md`.
//!
//! The hidden `bao-bench bench-echo` ([`echo`]) is the far end of the pipe baseline; the
//! hidden `sample-bot` and `__exec-bot` subcommands run the bots and the re-exec stub. It
//! must not be needed by anything else: no product crate depends on it.

/// Exit codes of `bao-bench`.
pub mod exit {
    /// Success.
    pub const SUCCESS: u8 = 0;
    /// The benchmark failed.
    pub const INTERNAL: u8 = 3;
}

pub mod child_run;
pub mod cpu_work;
pub mod echo;
pub mod exec_floor;
pub mod fit;
pub mod floor;
pub mod games;
pub mod instant_bot;
pub mod machine;
pub mod overhead;
pub mod pipe;
pub mod ply_timer;
pub mod referee_runs;
pub mod report;
pub mod sandbox_cost;
pub mod sandbox_stages;
pub mod setup;
pub mod spawn_cost;
pub mod stats;

/// The command line of `bao-bench`.
#[derive(Debug, clap::Parser)]
#[command(name = "bao-bench", about = "Benchmarks of the bao-referee runner")]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands of `bao-bench`.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// The benchmarks.
    Bench(BenchArgs),
    /// Internal: the far end of `bench overhead`'s pipe baseline (answers each line at once).
    #[command(hide = true)]
    BenchEcho,
    /// Internal: a sample bot (the instant bots of the benchmarks).
    #[command(hide = true)]
    SampleBot(SampleBotArgs),
}

/// The arguments of the hidden `sample-bot` subcommand.
#[derive(Debug, clap::Args)]
pub struct SampleBotArgs {
    /// `random` or `greedy`.
    pub kind: String,
    /// The random bot's seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// Runs `bao-bench`; returns the exit code.
#[must_use]
pub fn main(cli: Cli) -> u8 {
    match cli.command {
        Command::Bench(args) => run(&args),
        Command::BenchEcho => echo::run(),
        Command::SampleBot(args) => {
            let result = match args.kind.as_str() {
                "greedy" => bao_sdk::run(bao_sample_bots::GreedyBot::default()),
                _ => bao_sdk::run(bao_sample_bots::RandomBot::new(bao_sample_bots::GameSeed::new(Some(
                    args.seed,
                )))),
            };
            if let Err(e) = result {
                eprintln!("sample bot: {e}");
                return exit::INTERNAL;
            }
            exit::SUCCESS
        }
    }
}

/// The arguments of `bao-bench bench`.
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
            RuntimeKind::CurrentThread => bao_game::runtime::build(),
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
    /// The real `bao-referee tournament` with two C instant bots, measured from outside:
    /// floor, ply cycle, referee CPU per ply and per game, games/s, fixed cost per game.
    Referee(referee_runs::RefereeArgs),
    /// Experiment: ways of starting and ending a bot (stub, cgroup join, migration,
    /// `clone3(CLONE_INTO_CGROUP)`) and of reading `cpu.stat`, timed by a C program.
    Spawn(spawn_cost::SpawnArgs),
    /// What the sandbox (`--isolation full`) costs a bot's start and life against
    /// `--isolation pid`, through the library (the bot is `/bin/cat`).
    Sandbox(sandbox_cost::SandboxArgs),
}

/// Runs `bao-bench bench`; returns the exit code.
#[must_use]
pub fn run(args: &BenchArgs) -> u8 {
    if let BenchCommand::Referee(referee_args) = &args.command {
        // Runs other processes only: no runtime needed.
        return report_outcome(referee_runs::run(referee_args));
    }
    if let BenchCommand::Spawn(spawn_args) = &args.command {
        return report_outcome(spawn_cost::run(spawn_args));
    }
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
        BenchCommand::Referee(referee_args) => referee_runs::run(referee_args),
        BenchCommand::Spawn(spawn_args) => spawn_cost::run(spawn_args),
        BenchCommand::Sandbox(sandbox_args) => sandbox_cost::run(sandbox_args, &runtime),
    };
    report_outcome(outcome)
}

/// The exit code of a benchmark's outcome (the error printed).
fn report_outcome(outcome: anyhow::Result<()>) -> u8 {
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

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("bao-bench").chain(args.iter().copied()))
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
