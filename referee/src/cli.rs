//! Command-line parsing and dispatch to the subcommands.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
    Play(crate::play_cmd::PlayArgs),
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
    let serving = matches!(&cli.command, Command::Serve(args) if args.command.is_none());
    init_tracing(cli.verbose.saturating_add(u8::from(serving)));
    let code = match cli.command {
        Command::Rules(cmd) => crate::rules_cmd::run(cmd),
        Command::Match(args) => crate::match_cmd::run(args),
        Command::Verify(args) => crate::verify_cmd::run(&args),
        Command::Record(args) => crate::record_cmd::run(&args),
        Command::Serve(args) => crate::serve_cmd::run_serve(&args),
        Command::Submit(args) => crate::serve_cmd::run_submit(&args),
        Command::Show(args) => crate::show_cmd::run(&args),
        Command::Tournament(args) => crate::tournament::run(args),
        Command::Merge(args) => crate::merge_cmd::run(&args),
        Command::SampleBot(args) => crate::sample_bot_cmd::run(&args),
        Command::Check(args) => crate::check_cmd::run(&args),
        Command::Play(args) => crate::play_cmd::run(&args),
    };
    // Output that could not be written (a full disk) is a failure even if the work was done.
    let code =
        if code == crate::exit::SUCCESS && crate::out::failed() { crate::exit::INTERNAL } else { code };
    ExitCode::from(code)
}

/// Diagnostics go to stderr; `RUST_LOG` wins over `-v`.
fn init_tracing(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .try_init();
}
