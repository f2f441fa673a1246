//! `bao-referee check CMD`: runs the conformance checker of `bao-check` and prints its report.
//!
//! Exit codes ([`crate::exit`]): 0 when every check passed, 1 when one failed, 2 for bad
//! arguments (including a bot program that cannot be started), 3 when the checker itself
//! failed, 130 when interrupted (SIGINT, SIGTERM or SIGHUP, see [`crate::signals`]).

use bao_check::{CheckResult, Settings, Status, report, suite};

use crate::check_args::CheckArgs;

/// The settings the command line asks for.
fn settings(args: &CheckArgs) -> anyhow::Result<Settings> {
    let spec = crate::match_cmd::bot_spec("the bot command", &args.command, args.dir.clone(), None)?;
    let mut settings = match (args.move_time, args.tc) {
        (Some(move_time), _) => Settings::new(spec, move_time, args.startup_time),
        (None, Some((base, increment))) => Settings::fischer(spec, base, increment, args.startup_time),
        (None, None) => Settings::fischer(
            spec,
            bao_game::defaults::BASE,
            bao_game::defaults::INCREMENT,
            args.startup_time,
        ),
    };
    settings.isolation = bao_supervise::Isolation { level: args.isolation.into(), no_network: false };
    settings.sandbox = crate::options::pass_env_profile(&args.pass_env, args.isolation.into())
        .map_err(anyhow::Error::msg)?;
    settings.limits.cpus = args.cpus_per_bot.0;
    Ok(settings)
}

/// Runs `bao-referee check`; returns the exit code.
#[must_use]
pub fn run(args: &CheckArgs) -> u8 {
    let settings = match settings(args) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("error: {}", crate::exit::describe(&e));
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
        crate::out::outln!("{}", report::header(&settings, checks.len()));
    }
    let outcome = runtime.block_on(async {
        let mut print = |result: &CheckResult| {
            if !json {
                crate::out::outln!("{}", report::human(result));
            }
        };
        let stop = tokio_util::sync::CancellationToken::new();
        if let Err(e) = crate::signals::install(stop.clone()) {
            return Some(Err(format!("cannot install the signal handlers: {e}")));
        }
        // On a signal the suite is dropped, and with it the bot: its whole tree is SIGKILLed.
        tokio::select! {
            results = suite::run(&settings, &checks, &mut print) => Some(results.map_err(|e| e.to_string())),
            () = stop.cancelled() => None,
        }
    });
    match outcome {
        None => {
            eprintln!("{}", crate::signals::stopped_message());
            crate::exit::INTERRUPTED
        }
        Some(Err(e)) => {
            eprintln!("error: {e}");
            crate::exit::MALFORMED
        }
        Some(Ok(results)) => {
            if json {
                crate::out::outln!("{}", report::json(&settings, &results));
            } else {
                crate::out::outln!("{}", report::summary(&results));
            }
            if results.iter().all(|r| r.status == Status::Pass) {
                crate::exit::SUCCESS
            } else {
                crate::exit::REJECTED
            }
        }
    }
}
