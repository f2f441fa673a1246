//! `bao-greedy`: a bao-referee bot that plays the legal move leaving it the most seeds
//! on the board relative to its opponent (an immediate win first). Deterministic.

use std::process::ExitCode;

use bao_sample_bots::{GreedyBot, cli};

fn main() -> ExitCode {
    let args = match cli::arguments("bao-greedy") {
        Ok(args) => args,
        Err(code) => return code,
    };
    if args.beyond_seed() {
        return cli::usage_error("bao-greedy", "this bot takes no options but --seed");
    }
    if args.seed.is_some() {
        eprintln!("bao-greedy: --seed ignored: this bot is deterministic");
    }
    cli::serve("bao-greedy", GreedyBot::default())
}
