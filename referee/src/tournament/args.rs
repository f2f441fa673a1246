//! The arguments of `bao-referee tournament`.

use std::path::PathBuf;

use bao_tournament::openings::OpeningSource;
use bao_tournament::replay_pages::ReplayPages;
use bao_tournament::schedule::Mode;
use bao_tournament::shard::ShardArg;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser as _};

use bao_game::{KeepPolicy, Restart};

use crate::options::GameOptions;

/// The arguments of `bao-referee tournament`.
#[derive(Debug, clap::Args)]
pub struct TournamentArgs {
    /// The `--bot` options.
    #[command(flatten)]
    pub bots: BotWords,
    /// A JSON or TOML file listing bots: `[[bots]]` with name, cmd, args, dir (its bots come first).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Who plays whom: round-robin (everyone meets everyone) or gauntlet (the first bot meets each other).
    #[arg(long, default_value = "round-robin",
          value_parser = PossibleValuesParser::new(mode_values()).try_map(|s| s.parse::<Mode>()))]
    pub mode: Mode,
    /// Games per pairing in each round; even, as each opening is played twice with colours swapped.
    #[arg(long, default_value_t = 2)]
    pub games: u32,
    /// Rounds; each round plays --games games per pairing, with fresh openings.
    #[arg(long, default_value_t = 1)]
    pub rounds: u32,
    /// Games played at once (default: what the CPUs can give every bot that may be thinking
    /// its --cpus-per-bot: CPUs / (2 × CPUs per bot), or CPUs / CPUs per bot with --no-ponder;
    /// at least 1; printed at start).
    #[arg(long, value_name = "N", value_parser = parse_concurrency)]
    pub concurrency: Option<usize>,
    /// Openings: start, random:PLIES (random legal plies from the start, seeded), or a file of
    /// positions (one per line, # comments), used in order and cycled.
    #[arg(long, default_value = "start", value_parser = clap::value_parser!(OpeningSource))]
    pub openings: OpeningSource,
    /// The seed of the random openings; the same seed gives the same schedule and openings.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Game options.
    #[command(flatten)]
    pub game: GameOptions,
    /// Stop early when a sequential probability ratio test decides (two bots only):
    /// `--sprt elo0=0 elo1=5 [alpha=0.05] [beta=0.05]`.
    #[arg(long, value_name = "KEY=VALUE", num_args = 2..=4)]
    pub sprt: Option<Vec<String>>,
    /// The output folder: plan.json, journal.jsonl, games/, results.json. Default: `tournament-<UTC time>`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Continue the tournament in --out (bots and options may be omitted: the stored plan is used).
    #[arg(long)]
    pub resume: bool,
    /// Play only shard I of N (game pairs p with p % N == I-1); `auto` reads the job index from
    /// JOB_COMPLETION_INDEX (Kubernetes) or SLURM_ARRAY_TASK_ID (Slurm).
    #[arg(long, value_name = "I/N|auto[/N]", value_parser = clap::value_parser!(ShardArg))]
    pub shard: Option<ShardArg>,
    /// Print the results as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Print the plan (schedule, openings, options) as JSON on stdout and exit: no game is
    /// played and nothing is written.
    #[arg(long)]
    pub dry_run: bool,
    /// Plain progress lines on stderr even on a terminal.
    #[arg(long)]
    pub plain: bool,
    /// Print every line exchanged with each bot on stderr, timestamped, with its game number
    /// (as cutechess -debug; best with --plain or --concurrency 1).
    #[arg(long, conflicts_with = "trace")]
    pub debug: bool,
    /// Write every line exchanged with each bot to DIR/NNNNN.trace, one file per game (the
    /// number of its log games/NNNNN.jsonl), timestamped as --debug; DIR is created if needed.
    #[arg(long, value_name = "DIR")]
    pub trace: Option<PathBuf>,
    /// The replay page written next to each game's log: `log` (the log embedded, the viewer's
    /// script and style shared in games/; no sowing animation), `full` (self-contained and
    /// animated, as `bao-referee show LOG --html`; costs a replay of the log per game) or `none`.
    #[arg(long, default_value = "log", value_name = "PAGES",
          value_parser = PossibleValuesParser::new(replay_values())
              .try_map(|s| s.parse::<ReplayPages>()))]
    pub replays: ReplayPages,
    /// Score a bot that cannot start (or never answers ready) as losing every game by forfeit,
    /// instead of stopping before the first game with exit 2.
    #[arg(long)]
    pub forfeit_unstartable: bool,
    /// When a bot's process is started anew: on-fault (the default: a bot whose ready declared
    /// "games":"many" keeps its process for its next game in the same worker slot, until a
    /// fault of its own, --max-games-per-process or the end) or always (a new process for every
    /// game, as protocol 1). Games with --max-cpu or --max-output start every process anew.
    #[arg(long, value_name = "WHEN", value_parser = PossibleValuesParser::new(restart_values())
              .map(|s| if s == "always" { Restart::Always } else { Restart::OnFault }))]
    pub restart: Option<Restart>,
    /// At most N games in one kept process; then it is sent quit and its bot's next game
    /// starts a new one.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_games_per_process: Option<u32>,
}

impl TournamentArgs {
    /// Whether processes are kept between games (`--restart`, `--max-games-per-process`);
    /// says on stderr when an explicit `--restart on-fault` cannot keep any.
    #[must_use]
    pub fn keep_policy(&self) -> KeepPolicy {
        let policy = KeepPolicy {
            restart: self.restart.unwrap_or(Restart::OnFault),
            max_games_per_process: self.max_games_per_process,
        };
        if self.restart == Some(Restart::OnFault) && !policy.allows(&self.game.limits()) {
            eprintln!(
                "warning: --restart on-fault keeps no process with --max-cpu or --max-output (limits \
                 counted per process): every game starts its bots anew"
            );
        }
        policy
    }
}

/// The values of `--restart`, with their help.
fn restart_values() -> [PossibleValue; 2] {
    [
        PossibleValue::new(Restart::OnFault.name())
            .help("A bot that declared \"games\":\"many\" keeps its process until a fault (PROTOCOL.md)"),
        PossibleValue::new(Restart::Always.name()).help("A new process for every game"),
    ]
}

/// The values of `--mode`, with their help.
fn mode_values() -> [PossibleValue; 2] {
    [
        PossibleValue::new(Mode::RoundRobin.name()).help("Every bot plays every other bot"),
        PossibleValue::new(Mode::Gauntlet.name())
            .help("The first bot plays each of the others; the others do not meet"),
    ]
}

/// The values of `--replays`, with their help.
fn replay_values() -> [PossibleValue; 3] {
    [
        PossibleValue::new(ReplayPages::Log.name())
            .help("A log page: the log embedded, the viewer's script and style shared; no sowing animation"),
        PossibleValue::new(ReplayPages::Full.name()).help(
            "The self-contained, animated page (`bao-referee show LOG --html`), built by replaying the log",
        ),
        PossibleValue::new(ReplayPages::None.name()).help("No page"),
    ]
}

/// The most games `--concurrency` plays at once.
pub const MAX_CONCURRENCY: usize = 1024;

fn parse_concurrency(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_CONCURRENCY).contains(&n) => Ok(n),
        _ => Err(format!("{s:?} is not a number of games from 1 to {MAX_CONCURRENCY}")),
    }
}

/// The words of every `--bot` option, one list per occurrence:
/// `--bot name=NAME cmd="PROGRAM ARGS" [arg=ARG]... [dir=DIR]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BotWords(pub Vec<Vec<String>>);

const BOT_ID: &str = "bot";

impl clap::FromArgMatches for BotWords {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let occurrences = matches
            .get_occurrences::<String>(BOT_ID)
            .map(|groups| groups.map(|words| words.cloned().collect()).collect())
            .unwrap_or_default();
        Ok(BotWords(occurrences))
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Args for BotWords {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.arg(
            clap::Arg::new(BOT_ID)
                .long("bot")
                .value_name("KEY=VALUE")
                .num_args(1..)
                .action(clap::ArgAction::Append)
                .help(
                    "A bot: --bot name=NAME cmd=\"PROGRAM ARGS\" [arg=ARG]... [dir=DIR] [option.NAME=VALUE]... \
                     [tc=BASE+INC | st=SECONDS] (cmd is shell-quoted; each arg= appends one argument, each \
                     option.NAME=VALUE the two arguments --NAME VALUE; tc=/st= give this bot its own clock). \
                     Repeat for every bot",
                ),
        )
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl TournamentArgs {
    /// Whether the command line describes a tournament (bots given), rather than only naming a folder to resume.
    #[must_use]
    pub fn has_bots(&self) -> bool {
        !self.bots.0.is_empty() || self.config.is_some()
    }
}
