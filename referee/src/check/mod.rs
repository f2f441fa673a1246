//! `bao-referee check CMD`: a conformance checker for bot authors.
//!
//! It runs the bot through the protocol (handshake, moves from several positions, the end of
//! the game, quit) and through the cases a careless bot gets wrong (one legal move, namua and
//! mtaji positions, takasia, a safari choice, ids, unknown fields, end of input, a long game),
//! and prints what passed and what failed, with the lines exchanged.
//!
//! Every check ([`CheckKind`]) starts a fresh bot process ([`crate::bot::BotProcess`], default
//! resource limits) and runs a scripted exchange in which the checker plays the referee (and,
//! in the games, the opponent, with the rules engine). A move is judged as the referee judges
//! it: in time (move time plus margin), the request's id, legal. Every wait has a deadline and
//! every process is ended, its whole tree included. `docs/check.md` documents every check.
//!
//! Exit codes ([`crate::exit`]): 0 when every check passed, 1 when one failed, 2 for bad
//! arguments (including a bot program that cannot be started), 3 when the checker itself
//! failed, 130 when interrupted.

mod args;
mod catalog;
mod failure;
mod opponent;
mod positions;
mod report;
mod result;
mod scripts;
mod session;
mod settings;
mod suite;
mod transcript;

pub use args::CheckArgs;
pub use catalog::CheckKind;
pub use result::{CheckResult, Status};

use settings::Settings;

/// Runs `bao-referee check`; returns the exit code.
#[must_use]
pub fn run(args: &CheckArgs) -> u8 {
    let settings = match Settings::from_args(args) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("error: {e:#}");
            return crate::exit::MALFORMED;
        }
    };
    let checks = args.selected();
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return crate::exit::INTERNAL;
        }
    };
    let json = args.json;
    if !json {
        println!("{}", report::header(&settings, checks.len()));
    }
    let outcome = runtime.block_on(async {
        let mut print = |result: &CheckResult| {
            if !json {
                println!("{}", report::human(result));
            }
        };
        let interrupted = async {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            results = suite::run(&settings, &checks, &mut print) => Some(results),
            () = interrupted => None,
        }
    });
    match outcome {
        None => {
            eprintln!("interrupted");
            crate::exit::INTERRUPTED
        }
        Some(Err(e)) => {
            eprintln!("error: {e}");
            crate::exit::MALFORMED
        }
        Some(Ok(results)) => {
            if json {
                println!("{}", report::json(&settings, &results));
            } else {
                println!("{}", report::summary(&results));
            }
            if results.iter().all(|r| r.status == Status::Pass) {
                crate::exit::SUCCESS
            } else {
                crate::exit::REJECTED
            }
        }
    }
}
