//! `bao-referee sample-bot random|greedy|alphabeta|mcts`: the reference bots, built into
//! the referee so that `bao-referee match` with no bots plays a real game between two
//! real processes without building anything else.

use bao_sample_bots::{AlphaBetaBot, GameSeed, GreedyBot, Level, MctsBot, RandomBot};

/// Which sample bot to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SampleBotKind {
    /// A uniformly random legal move (seeded).
    Random,
    /// The move that leaves the best simple evaluation one ply ahead.
    Greedy,
    /// Iterative-deepening alpha-beta search on a tuned evaluation (the strongest).
    Alphabeta,
    /// Monte Carlo tree search (UCT) on the same evaluation.
    Mcts,
}

/// The arguments of `bao-referee sample-bot`.
#[derive(Debug, clap::Args)]
pub struct SampleBotArgs {
    /// The bot.
    #[arg(value_enum)]
    pub kind: SampleBotKind,
    /// The seed of every game (default: a fresh seed per game, printed on stderr).
    #[arg(long)]
    pub seed: Option<u64>,
    /// alphabeta: search this many plies, 1 to 88 (mcts: 1000 × N iterations).
    #[arg(long, conflicts_with_all = ["nodes", "time"], value_parser = clap::value_parser!(u32).range(1..=MAX_DEPTH))]
    pub depth: Option<u32>,
    /// alphabeta: search this many nodes per move (mcts: iterations), 1 to 10^12.
    #[arg(long, conflicts_with = "time", value_parser = clap::value_parser!(u64).range(1..=MAX_NODES))]
    pub nodes: Option<u64>,
    /// alphabeta, mcts: think as long as the clock allows (the default).
    #[arg(long)]
    pub time: bool,
}

/// The deepest `--depth`: the search's own cap (`MAX_PLY` less the plies kept for its
/// capture extension); deeper would silently search this deep.
const MAX_DEPTH: i64 = bao_sample_bots::alphabeta::search::MAX_PLY as i64 - 8;

/// The most `--nodes`: 10^12, hours of search per move; more is surely a typo.
const MAX_NODES: u64 = 1_000_000_000_000;

impl SampleBotArgs {
    /// The search option given to a bot that does not search (random, greedy), if any.
    fn unused_search_option(&self) -> Option<&'static str> {
        if matches!(self.kind, SampleBotKind::Alphabeta | SampleBotKind::Mcts) {
            return None;
        }
        [(self.depth.is_some(), "--depth"), (self.nodes.is_some(), "--nodes"), (self.time, "--time")]
            .into_iter()
            .find_map(|(given, name)| given.then_some(name))
    }

    fn level(&self) -> Level {
        match (self.depth, self.nodes) {
            (Some(d), _) => Level::Depth(d),
            (None, Some(n)) => Level::Nodes(n),
            (None, None) => Level::Time,
        }
    }
}

/// Runs a sample bot on stdin/stdout until quit or end of input; returns the exit code.
#[must_use]
pub fn run(args: &SampleBotArgs) -> u8 {
    if let Some(option) = args.unused_search_option() {
        let kind = clap::ValueEnum::to_possible_value(&args.kind).map(|v| v.get_name().to_owned());
        eprintln!(
            "error: {option}: the {} sample bot does not search; only alphabeta and mcts take \
             --depth, --nodes and --time",
            kind.unwrap_or_default()
        );
        return crate::exit::MALFORMED;
    }
    let seeds = GameSeed::new(args.seed);
    let result = match args.kind {
        SampleBotKind::Random => bao_sdk::run(RandomBot::new(seeds)),
        SampleBotKind::Greedy => bao_sdk::run(GreedyBot::default()),
        SampleBotKind::Alphabeta => bao_sdk::run(AlphaBetaBot::new(args.level(), seeds)),
        SampleBotKind::Mcts => bao_sdk::run(MctsBot::new(args.level(), seeds)),
    };
    match result {
        Ok(()) => crate::exit::SUCCESS,
        // Its stdout closed (`| head`, or a referee that has gone): the bot ends quietly.
        Err(bao_sdk::SdkError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => crate::exit::SUCCESS,
        Err(e) => {
            eprintln!("sample bot: {e}");
            crate::exit::INTERNAL
        }
    }
}
