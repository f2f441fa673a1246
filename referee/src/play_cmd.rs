//! `bao-referee play`: a person plays a bot in the browser. Serves one game on 127.0.0.1
//! (the `bao-play` crate), prints its address, and writes the game log as `match` does; the
//! same judge decides every move of both sides.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use bao_rules::{Side, Variant};
use bao_supervise::BotSpec;
use tokio_util::sync::CancellationToken;

use crate::out::outln;

/// The built-in reference bots `--bot` accepts by name.
const REFERENCE_BOTS: [&str; 4] = ["random", "greedy", "alphabeta", "mcts"];

/// The person's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SideChoice {
    /// South (moves first).
    South,
    /// North.
    North,
    /// Either, drawn at random.
    Random,
}

/// The arguments of `bao-referee play`.
#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    /// The opponent: a built-in reference bot (random, greedy, alphabeta, mcts) or a bot's
    /// command line, shell-quoted ("python3 my_bot.py").
    #[arg(long, default_value = "random", value_name = "CMD")]
    pub bot: String,
    /// The variant: kiswahili or kujifunza.
    #[arg(long, default_value = "kiswahili", value_parser = parse_variant)]
    pub variant: Variant,
    /// Your side.
    #[arg(long, value_enum, default_value = "south")]
    pub side: SideChoice,
    /// The clock: `none` (you have no clock; the bot has the referee's default 10+0.1) or
    /// BASE+INC in seconds for both sides, e.g. 300+5.
    #[arg(long, default_value = "none", value_parser = parse_play_tc)]
    pub tc: PlayClock,
    /// Your name, as the game log records your seat.
    #[arg(long, default_value = "you")]
    pub name: String,
    /// Where to write the game log (JSON Lines). Default: logs/play-<time>.jsonl.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// The port to listen on, on 127.0.0.1 (0: any free port).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Adjudicate a draw after this many plies (0: never).
    #[arg(long, default_value_t = bao_game::defaults::MAX_PLIES)]
    pub max_plies: u32,
    /// Exit when the game is over instead of serving its page until Ctrl-C.
    #[arg(long)]
    pub exit_when_over: bool,
    /// Do not open the page in a browser (by default it is opened with `xdg-open` when there
    /// is a graphical session: DISPLAY or WAYLAND_DISPLAY is set).
    #[arg(long)]
    pub no_open: bool,
}

fn parse_variant(s: &str) -> Result<Variant, String> {
    s.parse::<Variant>().map_err(|e| e.to_string())
}

/// `--tc`: no clock for the person, or a Fischer clock (base, increment) for both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayClock(pub Option<(Duration, Duration)>);

fn parse_play_tc(s: &str) -> Result<PlayClock, String> {
    if s == "none" {
        return Ok(PlayClock(None));
    }
    crate::options::parse_tc(s).map(|tc| PlayClock(Some(tc))).map_err(|e| format!("{e}, or none"))
}

/// The opponent's spec: a reference bot by name, or a command line.
fn opponent(bot: &str, seed: u64) -> anyhow::Result<BotSpec> {
    if REFERENCE_BOTS.contains(&bot) {
        return crate::match_cmd::sample_bot(bot, seed);
    }
    crate::match_cmd::bot_spec("--bot", bot, None, None)
}

/// The game's options for the `bao-play` server.
fn options(args: &PlayArgs) -> anyhow::Result<bao_play::PlayOptions> {
    let seed = rand::random::<u64>();
    let side = match args.side {
        SideChoice::South => Some(Side::South),
        SideChoice::North => Some(Side::North),
        SideChoice::Random => None,
    };
    let log = args.log.clone().unwrap_or_else(|| {
        let stamp =
            humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string().replace(':', "-");
        PathBuf::from("logs").join(format!("play-{stamp}.jsonl"))
    });
    let choices = bao_play::Choices {
        bot: opponent(&args.bot, seed)?,
        variant: args.variant,
        side,
        clock: args.tc.0,
        name: args.name.clone(),
        max_plies: args.max_plies,
        seed,
        log,
        port: args.port,
    };
    let options = choices.into_options().map_err(|e| anyhow::anyhow!("--name: {e}"))?;
    // A bot that cannot be isolated as asked is an error now, not a forfeit in the page.
    let bot = if options.you == Side::South { &options.config.north } else { &options.config.south };
    bao_tournament::preflight::check_isolation(&[bot], options.config.isolation)?;
    Ok(options)
}

/// Runs `bao-referee play`; returns the exit code.
#[must_use]
pub fn run(args: &PlayArgs) -> u8 {
    let options = match options(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e:#}");
            return crate::exit::MALFORMED;
        }
    };
    let runtime = match bao_game::runtime::build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return crate::exit::INTERNAL;
        }
    };
    match runtime.block_on(serve(options, args.exit_when_over, !args.no_open)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            crate::exit::INTERNAL
        }
    }
}

async fn serve(options: bao_play::PlayOptions, exit_when_over: bool, open: bool) -> anyhow::Result<u8> {
    let stop = CancellationToken::new();
    crate::signals::install(stop.clone()).context("cannot install the signal handlers")?;
    let log = options.log.clone();
    let you = options.you;
    let mut running = bao_play::start(options).await?;
    outln!("Play at {}", running.url);
    if open && let Err(e) = bao_play::open_browser(&running.url) {
        eprintln!("note: could not open a browser (xdg-open: {e}); open the address above");
    }
    let side = if you == Side::South { "South (you move first)" } else { "North" };
    outln!("You play {side}; the game log goes to {}. Ctrl-C stops.", log.display());
    let finished = tokio::select! {
        result = running.finished() => Some(result),
        () = stop.cancelled() => None,
    };
    let result = match finished {
        Some(result) => result,
        None => {
            running.cancel.cancel();
            running.finished().await
        }
    }?;
    outln!("Game over: {} ({} plies). Log: {}", result.summary(), result.plies, log.display());
    if !exit_when_over && !stop.is_cancelled() {
        outln!("The page stays up until Ctrl-C.");
        stop.cancelled().await;
    } else if exit_when_over {
        // The page gets the result before the server goes.
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    running.stop().await;
    Ok(if crate::signals::received().is_some() && result.aborted.is_some() {
        crate::exit::INTERRUPTED
    } else {
        crate::exit::SUCCESS
    })
}
