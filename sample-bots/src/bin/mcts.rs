//! `bao-mcts [--nodes N | --depth N | --time] [--seed N]`: Monte Carlo tree search (UCT)
//! with the tuned evaluation at the leaves. `--nodes N`: N iterations per move;
//! `--depth N`: 1000 × N iterations; `--time` (default): the clock's soft budget.

use std::process::ExitCode;

use bao_sample_bots::{GameSeed, Level, MctsBot, cli};

fn main() -> ExitCode {
    let args = match cli::arguments("bao-mcts") {
        Ok(args) => args,
        Err(code) => return code,
    };
    if args.alphabeta_only() {
        return cli::usage_error("bao-mcts", "--bench and --capture-plies are for bao-alphabeta");
    }
    cli::serve("bao-mcts", MctsBot::new(args.level.unwrap_or(Level::Time), GameSeed::new(args.seed)))
}
