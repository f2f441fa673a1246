//! `bao-referee match`: one game between two bot programs.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use bao_rules::Side;
use tokio_util::sync::CancellationToken;

use crate::options::GameOptions;
use bao_game::log::{GameLog, LogRecord};
use bao_game::runner::GameObserver;
use bao_game::{GameConfig, GameResult, play_game};
use bao_supervise::BotSpec;

/// The arguments of `bao-referee match`.
#[derive(Debug, clap::Args)]
pub struct MatchArgs {
    /// The South bot's command line (program and arguments, shell-quoted), e.g. "python3 bot.py --fast".
    /// Default: the built-in greedy sample bot.
    #[arg(long)]
    pub south: Option<String>,
    /// The South bot's working directory.
    #[arg(long)]
    pub south_dir: Option<PathBuf>,
    /// The South bot's display name.
    #[arg(long)]
    pub south_name: Option<String>,
    /// The North bot's command line. Default: the built-in random sample bot.
    #[arg(long)]
    pub north: Option<String>,
    /// The North bot's working directory.
    #[arg(long)]
    pub north_dir: Option<PathBuf>,
    /// The North bot's display name.
    #[arg(long)]
    pub north_name: Option<String>,
    /// Game options.
    #[command(flatten)]
    pub game: GameOptions,
    /// A number recorded in the log (and given to the default random bot).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Where to write the game log (JSON Lines). Default: logs/game-<time>.jsonl.
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Print one JSON result line on stdout instead of the moves and board.
    #[arg(long)]
    pub json: bool,
}

/// A bot spec from a shell-quoted command line.
///
/// # Errors
/// A message naming the option when the command line is empty or badly quoted.
pub fn bot_spec(
    option: &str,
    command: &str,
    dir: Option<PathBuf>,
    name: Option<String>,
) -> anyhow::Result<BotSpec> {
    let mut words = shell_words::split(command)
        .with_context(|| format!("{option}: cannot split {command:?} into words"))?;
    if words.is_empty() {
        anyhow::bail!("{option}: the command line is empty");
    }
    let program = words.remove(0);
    Ok(BotSpec { name, program, args: words, dir })
}

/// The built-in sample bot `kind` (random or greedy), run as this executable's `sample-bot` subcommand.
///
/// # Errors
/// When the path of this executable is unknown.
pub fn sample_bot(kind: &str, seed: u64) -> anyhow::Result<BotSpec> {
    let exe =
        std::env::current_exe().context("cannot find the bao-referee executable for the sample bots")?;
    let mut args = vec!["sample-bot".to_owned(), kind.to_owned()];
    if kind == "random" {
        args.extend(["--seed".to_owned(), seed.to_string()]);
    }
    Ok(BotSpec { name: Some(format!("sample-{kind}")), program: exe.display().to_string(), args, dir: None })
}

/// Prints moves as they are played.
struct Console {
    quiet: bool,
}

impl GameObserver for Console {
    fn on_record(&mut self, record: &LogRecord) {
        if self.quiet {
            return;
        }
        let mut out = std::io::stdout().lock();
        let _ = match record {
            LogRecord::Header(h) => writeln!(
                out,
                "{} (South) vs {} (North), {}",
                h.south.reported.as_ref().map_or(h.south.name.as_str(), |r| r.name.as_str()),
                h.north.reported.as_ref().map_or(h.north.name.as_str(), |r| r.name.as_str()),
                h.variant
            ),
            LogRecord::Ply(p) => {
                writeln!(out, "{:>4}. {} {:<5} {:>8.1} ms", p.ply, p.side, p.mv, p.time_us as f64 / 1000.0)
            }
            LogRecord::Stderr(_) | LogRecord::Result(_) => Ok(()),
        };
    }
}

/// Runs `bao-referee match`; returns the exit code.
#[must_use]
pub fn run(args: MatchArgs) -> u8 {
    let config = match config(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            return crate::exit::MALFORMED;
        }
    };
    let log_path = args.log.clone().unwrap_or_else(default_log_path);
    let runtime = match bao_game::runtime::build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return crate::exit::INTERNAL;
        }
    };
    let outcome = runtime.block_on(async {
        let mut log = GameLog::create(&log_path)?;
        let cancel = CancellationToken::new();
        let on_signal = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                on_signal.cancel();
            }
        });
        let mut console = Console { quiet: args.json };
        // Time the referee itself loses is never charged to a bot (docs/tournament.md, "Timing fairness").
        let mut config = config;
        config.lag = Some(bao_game::lag::LagMonitor::start());
        play_game(&config, &mut log, &mut console, &cancel).await
    });
    match outcome {
        Ok(result) => {
            report(&args, &result, &log_path);
            if result.reason == bao_game::Reason::Aborted {
                crate::exit::INTERRUPTED
            } else {
                crate::exit::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            crate::exit::INTERNAL
        }
    }
}

fn config(args: &MatchArgs) -> anyhow::Result<GameConfig> {
    let south = match &args.south {
        Some(cmd) => bot_spec("--south", cmd, args.south_dir.clone(), args.south_name.clone())?,
        None => sample_bot("greedy", args.seed)?,
    };
    let north = match &args.north {
        Some(cmd) => bot_spec("--north", cmd, args.north_dir.clone(), args.north_name.clone())?,
        None => sample_bot("random", args.seed)?,
    };
    let mut config = GameConfig::new(south, north, args.game.variant);
    config.start = args.game.start_position();
    config.time = args.game.time_control();
    config.max_plies = args.game.max_plies();
    config.seed = args.seed;
    config.limits = args.game.limits();
    config.isolation = args.game.isolation();
    Ok(config)
}

fn default_log_path() -> PathBuf {
    let stamp = humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string().replace(':', "-");
    PathBuf::from("logs").join(format!("game-{stamp}.jsonl"))
}

fn report(args: &MatchArgs, result: &GameResult, log_path: &std::path::Path) {
    if args.json {
        let line = serde_json::json!({
            "result": result.summary(),
            "winner": result.winner.map(|w| w.to_string()),
            "reason": result.reason,
            "detail": result.detail,
            "plies": result.plies,
            "duration_ms": u64::try_from(result.duration.as_millis()).unwrap_or(u64::MAX),
            "south": result.names[0],
            "north": result.names[1],
            "log": log_path.display().to_string(),
        });
        println!("{line}");
        return;
    }
    println!();
    println!("{}", crate::rules_cmd::render_board(&result.final_position));
    println!();
    let names = |s: Side| &result.names[s.index()];
    println!(
        "Result: {} — South {} vs North {}, {} plies",
        result.summary(),
        names(Side::South),
        names(Side::North),
        result.plies
    );
    if !result.detail.is_empty() {
        println!("Detail: {}", result.detail);
    }
    println!("Log: {}", log_path.display());
}
