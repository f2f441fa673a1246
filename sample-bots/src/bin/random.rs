//! `bao-random [--seed N]`: a bao-referee bot that plays a uniformly random legal move
//! (a fresh seed per game unless `--seed` fixes it; the seed is printed on stderr).

use std::process::ExitCode;

use bao_sample_bots::{GameSeed, RandomBot, cli};

fn main() -> ExitCode {
    let args = match cli::arguments("bao-random") {
        Ok(args) => args,
        Err(code) => return code,
    };
    if args.beyond_seed() {
        return cli::usage_error("bao-random", "only --seed applies to this bot");
    }
    cli::serve("bao-random", RandomBot::new(GameSeed::new(args.seed)))
}
