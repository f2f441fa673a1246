//! `bao-greedy`: a bao-referee bot that plays the legal move leaving it the most seeds
//! on the board relative to its opponent (an immediate win first). Deterministic.
//!
//! Speaks the protocol on stdin/stdout (see PROTOCOL.md); diagnostics go to stderr.
//! Exit status: 0 after `quit` or end of input, 1 on a protocol or I/O error, 2 on bad arguments.

use std::process::ExitCode;

use bao_sample_bots::{GreedyBot, USAGE, parse_args};

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("bao-greedy: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if args.help {
        eprintln!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    if args.seed.is_some() {
        eprintln!("bao-greedy: --seed ignored: this bot is deterministic");
    }
    match bao_protocol::sdk::run(GreedyBot) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bao-greedy: {e}");
            ExitCode::FAILURE
        }
    }
}
