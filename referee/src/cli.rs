//! Command-line parsing and dispatch to the subcommands.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tracing_subscriber::filter::{LevelFilter, Targets};

/// A referee for Bao la Kiswahili bots.
#[derive(Debug, Parser)]
#[command(name = "bao-referee", version, about, propagate_version = true)]
pub struct Cli {
    /// More diagnostics on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Rules tooling for bot authors and scripts: start, legal, play, perft, show.
    #[command(subcommand)]
    Rules(crate::rules_cmd::RulesCommand),
    /// Plays one game between two bot programs (default: two sample bots).
    // A negative number is read as an option's value, so that `--games -2` is refused
    // naming --games (not "unexpected argument '-2'").
    #[command(allow_negative_numbers = true)]
    Match(crate::match_cmd::MatchArgs),
    /// Replays a game log and checks every move, position and the result.
    Verify(crate::verify_cmd::VerifyArgs),
    /// Prints a game log as a game record: numbered move pairs (`1. A6< a6<`) and the result.
    Record(crate::record_cmd::RecordArgs),
    /// Runs the competition server (submissions, conformance gate, ladder, web pages, API).
    Serve(crate::serve_cmd::ServeArgs),
    /// Submits a bot to a competition server.
    Submit(crate::serve_cmd::SubmitArgs),
    /// Plays a competition server's ladder games from its PostgreSQL database, on any machine.
    Worker(crate::serve_cmd::WorkerArgs),
    /// Draws a game log as boards in the terminal, or writes it as an HTML replay.
    // A negative number is read as an option's value, so that `--games -2` is refused
    // naming --games (not "unexpected argument '-2'").
    #[command(allow_negative_numbers = true)]
    Show(crate::show_cmd::ShowArgs),
    /// Plays a tournament: many bots, many games, statistics; resumable and shardable.
    // A negative number is read as an option's value, so that `--games -2` is refused
    // naming --games (not "unexpected argument '-2'").
    #[command(allow_negative_numbers = true)]
    Tournament(crate::tournament::TournamentArgs),
    /// Combines the output folders of a tournament's shards into one result.
    Merge(crate::merge_cmd::MergeArgs),
    /// Runs a built-in sample bot on stdin/stdout (an opponent for your bot).
    // A negative number is read as an option's value, so that `--games -2` is refused
    // naming --games (not "unexpected argument '-2'").
    #[command(allow_negative_numbers = true)]
    SampleBot(crate::sample_bot_cmd::SampleBotArgs),
    /// Checks that a bot follows the protocol: runs it through every case and reports each.
    // A negative number is read as an option's value, so that `--games -2` is refused
    // naming --games (not "unexpected argument '-2'").
    #[command(allow_negative_numbers = true)]
    Check(crate::check_args::CheckArgs),
    /// Plays you against a bot in your browser: serves the game on 127.0.0.1 and prints its address.
    #[cfg(feature = "play")]
    Play(crate::play_cmd::PlayArgs),
    /// Plays you against a bot in your browser: serves the game on 127.0.0.1 and prints its address.
    #[cfg(not(feature = "play"))]
    Play(crate::not_built::NotBuiltArgs),
}

/// Parses the command line, runs the subcommand and returns its exit code.
pub fn main() -> ExitCode {
    bao_supervise::exec_stub::run_if_requested();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { crate::exit::MALFORMED } else { crate::exit::SUCCESS };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // The server logs at `info` by default (docs/server.md); the other commands at `warn`.
    #[cfg(feature = "server")]
    let serving = matches!(&cli.command, Command::Serve(args) if args.command.is_none())
        || matches!(&cli.command, Command::Worker(_));
    #[cfg(not(feature = "server"))]
    let serving = false;
    init_tracing(cli.verbose.saturating_add(u8::from(serving)));
    let code = match cli.command {
        Command::Rules(cmd) => crate::rules_cmd::run(cmd),
        Command::Match(args) => crate::match_cmd::run(args),
        Command::Verify(args) => crate::verify_cmd::run(&args),
        Command::Record(args) => crate::record_cmd::run(&args),
        Command::Serve(args) => crate::serve_cmd::run_serve(&args),
        Command::Submit(args) => crate::serve_cmd::run_submit(&args),
        Command::Worker(args) => crate::serve_cmd::run_worker(&args),
        Command::Show(args) => crate::show_cmd::run(&args),
        Command::Tournament(args) => crate::tournament::run(args),
        Command::Merge(args) => crate::merge_cmd::run(&args),
        Command::SampleBot(args) => crate::sample_bot_cmd::run(&args),
        Command::Check(args) => crate::check_cmd::run(&args),
        #[cfg(feature = "play")]
        Command::Play(args) => crate::play_cmd::run(&args),
        #[cfg(not(feature = "play"))]
        Command::Play(_) => crate::not_built::run("play", "play"),
    };
    // Output that could not be written (a full disk) is a failure even if the work was done.
    let code =
        if code == crate::exit::SUCCESS && crate::out::failed() { crate::exit::INTERNAL } else { code };
    ExitCode::from(code)
}

/// Diagnostics go to stderr; `RUST_LOG` wins over `-v`.
fn init_tracing(verbose: u8) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let default = match verbose {
        0 => LevelFilter::WARN,
        1 => LevelFilter::INFO,
        2 => LevelFilter::DEBUG,
        _ => LevelFilter::TRACE,
    };
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let _ = tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(ansi))
        .with(log_filter(std::env::var("RUST_LOG").ok().as_deref(), default))
        .try_init();
}

/// What `RUST_LOG` asks for: a level and `target=level` directives (`debug`,
/// `warn,bao_game=debug`), read by `tracing-subscriber`'s `Targets` (no regular expressions to
/// compile, in the build or at start); `default` when it is unset, empty or unreadable (said on
/// stderr).
fn log_filter(rust_log: Option<&str>, default: LevelFilter) -> Targets {
    match rust_log.map(str::trim).filter(|s| !s.is_empty()) {
        None => Targets::new().with_default(default),
        Some(directives) => directives.parse().unwrap_or_else(|e| {
            eprintln!("warning: RUST_LOG={directives:?} is not a list of [target=]level directives ({e}); using {default}");
            Targets::new().with_default(default)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_log_wins_over_the_default_and_a_bad_one_is_ignored() {
        let warn = log_filter(None, LevelFilter::WARN);
        assert!(warn.would_enable("bao_game", &LevelFilter::WARN.into_level().unwrap()));
        assert!(!warn.would_enable("bao_game", &LevelFilter::INFO.into_level().unwrap()));
        assert_eq!(log_filter(Some(" "), LevelFilter::INFO).default_level(), Some(LevelFilter::INFO));
        let targeted = log_filter(Some("warn,bao_server::leaderboard_snapshot=debug"), LevelFilter::ERROR);
        assert!(
            targeted
                .would_enable("bao_server::leaderboard_snapshot", &LevelFilter::DEBUG.into_level().unwrap())
        );
        assert!(!targeted.would_enable("bao_game", &LevelFilter::INFO.into_level().unwrap()));
        assert!(targeted.would_enable("bao_game", &LevelFilter::WARN.into_level().unwrap()));
        assert_eq!(log_filter(Some("=#!"), LevelFilter::DEBUG).default_level(), Some(LevelFilter::DEBUG));
    }
}
