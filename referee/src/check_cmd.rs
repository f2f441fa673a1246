//! `bao-referee check CMD`: runs the conformance checker of `bao-check` and prints its report.
//!
//! Exit codes ([`crate::exit`]): 0 when every check passed, 1 when one failed, 2 for bad
//! arguments (including a bot program that cannot be started), 3 when the checker itself
//! failed, 130 when interrupted.

use bao_check::{CheckResult, Settings, Status, report, suite};

use crate::check_args::CheckArgs;

/// The settings the command line asks for.
fn settings(args: &CheckArgs) -> anyhow::Result<Settings> {
    anyhow::ensure!(!args.move_time.is_zero(), "--move-time must be more than zero");
    anyhow::ensure!(!args.startup_time.is_zero(), "--startup-time must be more than zero");
    let spec = crate::match_cmd::bot_spec("the bot command", &args.command, args.dir.clone(), None)?;
    Ok(Settings::new(spec, args.move_time, args.startup_time))
}

/// Runs `bao-referee check`; returns the exit code.
#[must_use]
pub fn run(args: &CheckArgs) -> u8 {
    let settings = match settings(args) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("error: {e:#}");
            return crate::exit::MALFORMED;
        }
    };
    let checks = args.selected();
    let runtime = match bao_game::runtime::build() {
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
