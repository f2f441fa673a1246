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
    /// alphabeta: search this many plies (mcts: 1000 × N iterations).
    #[arg(long, conflicts_with_all = ["nodes", "time"])]
    pub depth: Option<u32>,
    /// alphabeta: search this many nodes per move (mcts: iterations).
    #[arg(long, conflicts_with = "time")]
    pub nodes: Option<u64>,
    /// alphabeta, mcts: think as long as the clock allows (the default).
    #[arg(long)]
    pub time: bool,
}

impl SampleBotArgs {
    fn level(&self) -> Level {
        match (self.depth, self.nodes) {
            (Some(d), _) => Level::Depth(d.max(1)),
            (None, Some(n)) => Level::Nodes(n.max(1)),
            (None, None) => Level::Time,
        }
    }
}

/// Runs a sample bot on stdin/stdout until quit or end of input; returns the exit code.
#[must_use]
pub fn run(args: &SampleBotArgs) -> u8 {
    let seeds = GameSeed::new(args.seed);
    let result = match args.kind {
        SampleBotKind::Random => bao_sdk::run(RandomBot::new(seeds)),
        SampleBotKind::Greedy => bao_sdk::run(GreedyBot::default()),
        SampleBotKind::Alphabeta => bao_sdk::run(AlphaBetaBot::new(args.level(), seeds)),
        SampleBotKind::Mcts => bao_sdk::run(MctsBot::new(args.level(), seeds)),
    };
    match result {
        Ok(()) => crate::exit::SUCCESS,
        Err(e) => {
            eprintln!("sample bot: {e}");
            crate::exit::INTERNAL
        }
    }
}
