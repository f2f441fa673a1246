//! `bao-alphabeta [--depth N | --nodes N | --time] [--seed N] [--capture-plies N] [--hand-weights] [--bench]`:
//! the strongest reference bot (iterative-deepening alpha-beta on a tuned evaluation).
//! `--bench` prints search speed and time to depth on two fixed positions and exits
//! (`--depth` sets the deepest depth, default 9).

use std::process::ExitCode;

use bao_sample_bots::{AlphaBetaBot, GameSeed, Level, bench, cli, weights};

fn main() -> ExitCode {
    let args = match cli::arguments("bao-alphabeta") {
        Ok(args) => args,
        Err(code) => return code,
    };
    if args.bench {
        let depth = match args.level {
            None => 9,
            Some(Level::Depth(d)) => d,
            Some(_) => return cli::usage_error("bao-alphabeta", "--bench takes --depth only"),
        };
        print!("{}", bench::table(&bench::run(depth)));
        return ExitCode::SUCCESS;
    }
    let weights = args.weights.unwrap_or(if args.hand_weights { weights::HAND_SET } else { weights::TUNED });
    let mut bot =
        AlphaBetaBot::with_weights(args.level.unwrap_or(Level::Time), GameSeed::new(args.seed), weights);
    if let Some(plies) = args.capture_plies {
        bot = bot.with_capture_plies(plies);
    }
    cli::serve("bao-alphabeta", bot)
}
