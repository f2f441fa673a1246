//! `bao-referee match`: one game between two bot programs.

use std::path::PathBuf;

use anyhow::Context;
use bao_rules::Side;
use tokio_util::sync::CancellationToken;

use crate::options::GameOptions;
use crate::trace::TraceWriter;
use bao_game::judge::LineDirection;
use bao_game::log::{GameLog, LogRecord};
use bao_game::runner::GameObserver;
use bao_game::{GameConfig, GameResult, play_game};
use bao_supervise::BotSpec;
use std::time::Instant;

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
    /// A number recorded in the log and given to the default random bot. Default: a fresh one
    /// for every game (printed at the end: `--seed N` replays the sample bots' game).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Where to write the game log (JSON Lines). Default: logs/game-<time>.jsonl.
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Print one JSON result line on stdout instead of the moves and board.
    #[arg(long)]
    pub json: bool,
    /// Print every line exchanged with each bot on stderr, timestamped (as cutechess -debug).
    #[arg(long, conflicts_with = "trace")]
    pub debug: bool,
    /// Write every line exchanged with each bot to FILE, timestamped (the format of --debug).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Play the game even when a bot cannot start or never answers ready (it then loses by
    /// handshake_failed, or by the limit it broke while starting, e.g. memory_limit); without
    /// it such a bot stops the match before it starts, with exit 2.
    #[arg(long)]
    pub forfeit_unstartable: bool,
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
    let program = crate::preflight::resolve_self(words.remove(0));
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

/// Prints moves as they are played, each with the last `info` the bot sent before it, and
/// traces the protocol lines when asked.
struct Console {
    quiet: bool,
    trace: Option<TraceWriter>,
}

impl GameObserver for Console {
    fn on_line(&mut self, side: Side, direction: LineDirection, line: &str, at: Instant) {
        if let Some(trace) = &mut self.trace {
            trace.line(side, direction, line, at);
        }
    }

    fn on_record(&mut self, record: &LogRecord) {
        if self.quiet {
            return;
        }
        match record {
            LogRecord::Header(h) => {
                crate::out::outln!("{} (South) vs {} (North), {}", h.south.name, h.north.name, h.variant);
            }
            LogRecord::Ready(r) => crate::out::outln!("{} is ready: {}", r.side, r.reported.name),
            LogRecord::Ply(p) => {
                let info = p.info.last().map(info_text).unwrap_or_default();
                let text = format!(
                    "{:>4}. {} {:<5} {:>8.1} ms{info}",
                    p.ply,
                    p.side,
                    p.mv,
                    p.time_us as f64 / 1000.0
                );
                crate::out::line(text.trim_end());
            }
            LogRecord::Stderr(_) | LogRecord::Result(_) => {}
        }
    }
}

/// `  depth 6  score +12  nodes 48213  "comment"`: the fields a bot reported, as cutechess shows them.
fn info_text(info: &bao_protocol::Info) -> String {
    let mut text = String::new();
    if let Some(depth) = info.depth {
        text.push_str(&format!("  depth {depth}"));
    }
    if let Some(score) = info.score {
        text.push_str(&format!("  score {score:+}"));
    }
    if let Some(nodes) = info.nodes {
        text.push_str(&format!("  nodes {nodes}"));
    }
    if let Some(comment) = info.comment.as_deref().filter(|c| !c.is_empty()) {
        text.push_str(&format!("  {comment:?}"));
    }
    text
}

/// Runs `bao-referee match`; returns the exit code.
#[must_use]
pub fn run(args: MatchArgs) -> u8 {
    let config = match config(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {}", crate::exit::describe(&e));
            return crate::exit::MALFORMED;
        }
    };
    let log_path = args.log.clone().unwrap_or_else(default_log_path);
    if let Some(parent) = log_path.parent().filter(|p| p.exists() && !p.is_dir()) {
        eprintln!("error: --log {}: {} is not a directory", log_path.display(), parent.display());
        return crate::exit::MALFORMED;
    }
    let runtime = match bao_game::runtime::build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return crate::exit::INTERNAL;
        }
    };
    let cancel = CancellationToken::new();
    if let Err(e) = runtime.block_on(async { crate::signals::install(cancel.clone()) }) {
        eprintln!("error: cannot install the signal handlers: {e}");
        return crate::exit::INTERNAL;
    }
    // Interrupted while the bots are first started: no game began, so none is logged (a log
    // would say "not started" of bots that had been running); the bots are ended.
    let checked = runtime.block_on(async {
        tokio::select! {
            () = cancel.cancelled() => None,
            found = preflight(&config) => Some(found),
        }
    });
    let Some(unstartable) = checked else {
        eprintln!(
            "interrupted by {} while the bots were being started, before the game: they were ended, \
             no game was played and no log was written",
            crate::signals::received().unwrap_or("a signal")
        );
        return crate::exit::INTERRUPTED;
    };
    if unstartable.iter().any(|bot| bot.referee_fault) {
        for bot in &unstartable {
            eprintln!("error: {bot}");
        }
        eprintln!("No game was played: the referee itself could not start a bot (not the bot's fault).");
        return crate::exit::INTERNAL;
    }
    if !unstartable.is_empty() {
        let level = if args.forfeit_unstartable { "warning" } else { "error" };
        for bot in &unstartable {
            eprintln!("{level}: {bot}");
        }
        if !args.forfeit_unstartable {
            eprintln!(
                "No game was played. Check the command with `bao-referee check \"CMD\"`, or add \
                 --forfeit-unstartable to play it anyway (the bot then loses: handshake_failed, or the \
                 limit it broke)."
            );
            return crate::exit::MALFORMED;
        }
    }
    let trace = match open_trace(&args, &config) {
        Ok(trace) => trace,
        Err(e) => {
            eprintln!("error: {}", crate::exit::describe(&e));
            return crate::exit::MALFORMED;
        }
    };
    let seed = config.seed;
    let outcome = runtime.block_on(async {
        let mut log = GameLog::create(&log_path)?;
        let mut console = Console { quiet: args.json, trace };
        // Each move is charged to its reply's arrival (docs/tournament.md, "Timing fairness").
        let result = play_game(&config, &mut log, &mut console, &cancel).await;
        if let Some(trace) = console.trace.take()
            && let Err(e) = trace.finish()
        {
            eprintln!("error: cannot write the trace: {e}");
        }
        result
    });
    match outcome {
        Ok(result) => {
            report(&args, &result, &log_path, seed);
            if let Some(bao_game::AbortCause::RefereeFault(why)) = &result.aborted {
                // Not a result: neither bot is charged with what the machine could not do.
                eprintln!("error: the game was aborted by the referee's own failure, not a bot's: {why}");
                crate::exit::INTERNAL
            } else if result.reason == bao_game::Reason::Aborted {
                eprintln!("{}", crate::signals::stopped_message());
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

/// The trace `--debug` (stderr) or `--trace FILE` asks for.
fn open_trace(args: &MatchArgs, config: &GameConfig) -> anyhow::Result<Option<TraceWriter>> {
    let out: Box<dyn std::io::Write + Send> = match (&args.trace, args.debug) {
        (Some(path), _) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("--trace {}", path.display()))?,
        )),
        (None, true) => Box::new(std::io::stderr()),
        (None, false) => return Ok(None),
    };
    let names = [config.south.display_name(), config.north.display_name()];
    Ok(Some(TraceWriter::new(out, Instant::now(), names)))
}

/// Starts each bot once: a bot that cannot start is the operator's error, not a forfeit.
async fn preflight(config: &GameConfig) -> Vec<crate::preflight::Unstartable> {
    let with = crate::preflight::Preflight {
        start: &config.start,
        time: &config.time,
        limits: &config.limits,
        isolation: config.isolation,
    };
    crate::preflight::check_all(&[&config.south, &config.north], &with).await
}

fn config(args: &MatchArgs) -> anyhow::Result<GameConfig> {
    let seed = args.seed.unwrap_or_else(rand::random);
    let south = match &args.south {
        Some(cmd) => bot_spec("--south", cmd, args.south_dir.clone(), args.south_name.clone())?,
        None => sample_bot("greedy", seed)?,
    };
    let north = match &args.north {
        Some(cmd) => bot_spec("--north", cmd, args.north_dir.clone(), args.north_name.clone())?,
        None => sample_bot("random", seed)?,
    };
    let mut config = GameConfig::new(south, north, args.game.variant());
    config.start = args.game.start_position().map_err(anyhow::Error::msg)?;
    config.time = args.game.time_control();
    config.max_plies = args.game.max_plies();
    config.seed = seed;
    config.limits = args.game.limits();
    config.isolation = args.game.isolation();
    config.sandbox = args.game.sandbox().map_err(anyhow::Error::msg)?;
    config.no_ponder = args.game.no_ponder;
    args.game.check_cpu_confinement().map_err(anyhow::Error::msg)?;
    bao_tournament::preflight::check_isolation(&[&config.south, &config.north], config.isolation)?;
    Ok(config)
}

fn default_log_path() -> PathBuf {
    let stamp = humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string().replace(':', "-");
    PathBuf::from("logs").join(format!("game-{stamp}.jsonl"))
}

fn report(args: &MatchArgs, result: &GameResult, log_path: &std::path::Path, seed: u64) {
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
            "seed": seed,
        });
        crate::out::outln!("{line}");
        return;
    }
    crate::out::outln!();
    crate::out::outln!("{}", crate::rules_cmd::render_board(&result.final_position));
    crate::out::outln!();
    let names = |s: Side| &result.names[s.index()];
    crate::out::outln!(
        "Result: {} — South {} vs North {}, {} plies",
        result.summary(),
        names(Side::South),
        names(Side::North),
        result.plies
    );
    if !result.detail.is_empty() {
        crate::out::outln!("Detail: {}", result.detail);
    }
    crate::out::outln!("Log: {} (seed {seed})", log_path.display());
}
