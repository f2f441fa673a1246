//! `bao-random [--seed N]`: a bao-referee bot that plays a uniformly random legal move.
//!
//! Speaks the protocol on stdin/stdout (see PROTOCOL.md); diagnostics go to stderr.
//! Exit status: 0 after `quit` or end of input, 1 on a protocol or I/O error, 2 on bad arguments.

use std::process::ExitCode;

use bao_sample_bots::{DEFAULT_SEED, RandomBot, USAGE, parse_args};

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("bao-random: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if args.help {
        eprintln!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    match bao_protocol::sdk::run(RandomBot::new(args.seed.unwrap_or(DEFAULT_SEED))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bao-random: {e}");
            ExitCode::FAILURE
        }
    }
}
