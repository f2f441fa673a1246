//! `bao-referee sample-bot random|greedy`: the reference bots, built into the
//! referee so that `bao-referee match` with no bots plays a real game between
//! two real processes without building anything else.

use bao_sample_bots::{DEFAULT_SEED, GreedyBot, RandomBot};

/// Which sample bot to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SampleBotKind {
    /// A uniformly random legal move (seeded).
    Random,
    /// The move that leaves the best simple evaluation one ply ahead.
    Greedy,
}

/// The arguments of `bao-referee sample-bot`.
#[derive(Debug, clap::Args)]
pub struct SampleBotArgs {
    /// The bot.
    #[arg(value_enum)]
    pub kind: SampleBotKind,
    /// The random bot's seed.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
}

/// Runs a sample bot on stdin/stdout until quit or end of input; returns the exit code.
#[must_use]
pub fn run(args: &SampleBotArgs) -> u8 {
    let result = match args.kind {
        SampleBotKind::Random => bao_protocol::sdk::run(RandomBot::new(args.seed)),
        SampleBotKind::Greedy => bao_protocol::sdk::run(GreedyBot),
    };
    match result {
        Ok(()) => crate::exit::SUCCESS,
        Err(e) => {
            eprintln!("sample bot: {e}");
            crate::exit::INTERNAL
        }
    }
}
