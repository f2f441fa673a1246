//! `bao-referee tournament`: the command line of `bao-tournament` (many games between many
//! bots, a deterministic schedule, colour-swapped pairs, statistics, a journal that survives a
//! kill, resume, shards). Here: the [`args`] turned into a plan, the checks before the first
//! game, the [`progress`] on stderr, the results printed and the exit code.
//! The user's guide is docs/tournament.md.

pub mod args;
pub mod progress;

use std::path::PathBuf;

use anyhow::Context;

pub use args::TournamentArgs;

use bao_tournament::folder::OutDir;
use bao_tournament::plan::Plan;
use bao_tournament::{Finished, PlanRequest, RunOptions, Tournament, bots, sprt};

use crate::tournament::progress::Progress;

/// A failure with the exit code it maps to.
struct Failure {
    code: u8,
    error: anyhow::Error,
}

fn malformed(error: impl Into<anyhow::Error>) -> Failure {
    Failure { code: crate::exit::MALFORMED, error: error.into() }
}

fn internal(error: impl Into<anyhow::Error>) -> Failure {
    Failure { code: crate::exit::INTERNAL, error: error.into() }
}

/// The library's error: the input's fault is exit 2, the machine's exit 3.
fn library(error: bao_tournament::Error) -> Failure {
    if error.is_input() { malformed(error) } else { internal(error) }
}

/// Runs `bao-referee tournament`; returns the exit code.
///
/// 0: every planned game (or an SPRT decision) is done and every log verified;
/// 1: a game's log did not verify; 2: bad arguments, or a folder holding
/// another plan; 3: the referee failed; 130: interrupted (resume to continue).
#[must_use]
pub fn run(args: TournamentArgs) -> u8 {
    match run_inner(&args) {
        Ok(code) => code,
        Err(failure) => {
            eprintln!("error: {}", crate::exit::describe(&failure.error));
            failure.code
        }
    }
}

fn run_inner(args: &TournamentArgs) -> Result<u8, Failure> {
    if args.dry_run {
        let plan = build_plan(args)?;
        crate::out::outln!("{}", serde_json::to_string_pretty(&plan).map_err(internal)?);
        return Ok(crate::exit::SUCCESS);
    }
    if args.resume && args.out.is_none() {
        return Err(malformed(anyhow::anyhow!(
            "--resume needs --out DIR: the folder of the tournament to continue"
        )));
    }
    let trace = trace_target(args).map_err(malformed)?;
    let out = OutDir::new(args.out.clone().unwrap_or_else(default_out));
    if args.resume && !out.plan().exists() {
        return Err(malformed(anyhow::anyhow!(
            "--resume: {} holds no tournament (no plan.json)",
            out.root().display()
        )));
    }
    // Bad arguments are reported before anything is written.
    let described = if args.has_bots() || !out.plan().exists() { Some(build_plan(args)?) } else { None };
    bao_tournament::tournament::refuse_foreign_folder(&out).map_err(library)?;
    // A new tournament checks its bots before it creates its folder: a typo leaves nothing behind.
    let fresh = !out.plan().exists();
    if fresh && let Some(plan) = &described {
        check_before_playing(plan, args)?;
    }
    let tournament = Tournament::open(out, described).map_err(library)?;
    if !fresh {
        check_before_playing(tournament.plan(), args)?;
    }
    let (planned, done) = (tournament.planned(), tournament.done());
    let root = tournament.out().root().display().to_string();
    if tournament.resumed() || tournament.torn_bytes() > 0 {
        eprintln!(
            "resuming {root}: {done} of {planned} games already played{}",
            if tournament.torn_bytes() > 0 { " (a torn last journal line was cut off)" } else { "" }
        );
    } else {
        eprintln!("tournament {root}: {planned} games");
    }
    let concurrency = match args.concurrency {
        Some(n) => n,
        None => {
            let (n, why) = bao_tournament::tournament::default_concurrency(tournament.plan());
            eprintln!("concurrency {n}: {why}");
            n
        }
    };
    if let crate::trace::TraceTarget::Dir(dir) = &trace {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("--trace {}", dir.display()))
            .map_err(malformed)?;
    }
    let out = tournament.out().clone();
    let progress = Box::new(Progress::new(planned as u64, done as u64, args.plain));
    let keep = args.keep_policy();
    let options = RunOptions { concurrency: Some(concurrency), progress, trace, replays: args.replays, keep };
    let finished = tournament.play(options).map_err(library)?;
    finish(args, &out, finished)
}

/// Where `--debug` or `--trace DIR` sends the games' protocol lines (a path under a file is
/// refused here, before any game).
fn trace_target(args: &TournamentArgs) -> anyhow::Result<crate::trace::TraceTarget> {
    use crate::trace::TraceTarget;
    match (&args.trace, args.debug) {
        (Some(dir), _) => {
            // Made just before the games (it may be inside --out, which must not exist yet).
            if let Some(file) = dir.ancestors().find(|a| a.exists() && !a.is_dir()) {
                anyhow::bail!("--trace {}: {} is not a directory", dir.display(), file.display());
            }
            Ok(TraceTarget::Dir(dir.clone()))
        }
        (None, true) => Ok(TraceTarget::Stderr { started: std::time::Instant::now() }),
        (None, false) => Ok(TraceTarget::Off),
    }
}

/// Prints the results and the warnings, and picks the exit code.
fn finish(args: &TournamentArgs, out: &OutDir, finished: Finished) -> Result<u8, Failure> {
    let Finished { results, report, warnings } = finished;
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
    if args.json {
        crate::out::outln!("{}", serde_json::to_string(&results).map_err(internal)?);
    } else {
        crate::out::text(&bao_tournament::results::render(&results));
        crate::out::outln!("Folder: {}", out.root().display());
    }
    if let Some(error) = report.error {
        return Err(internal(error));
    }
    if report.aborted > 0 {
        eprintln!(
            "{} running game(s) were aborted; they do not count and are played again on --resume",
            report.aborted
        );
    }
    Ok(if !results.unverified.is_empty() {
        crate::exit::REJECTED
    } else if report.interrupted && !results.complete {
        eprintln!("interrupted: run the same command again (or add --resume) to continue");
        crate::exit::INTERRUPTED
    } else {
        crate::exit::SUCCESS
    })
}

/// The replay warning and the preflight, for a plan with games to play.
fn check_before_playing(plan: &Plan, args: &TournamentArgs) -> Result<(), Failure> {
    if plan.games_to_play().next().is_none() {
        return Ok(());
    }
    if let Some(warning) = plan.replay_warning() {
        eprintln!("warning: {warning}");
    }
    preflight(plan, args.forfeit_unstartable)
}

/// Starts each bot once before the first game: a bot that cannot start stops the run (exit 2),
/// unless `forfeit` scores its games as losses.
fn preflight(plan: &Plan, forfeit: bool) -> Result<(), Failure> {
    // Ctrl-C here ends the bots being started (dropping them kills their trees) and exits 130.
    let Some(unstartable) = bao_tournament::preflight::check_plan(plan).map_err(library)? else {
        return Err(Failure {
            code: crate::exit::INTERRUPTED,
            error: anyhow::anyhow!(
                "interrupted by {} while the bots were being started, before the first game: they were \
                 ended and no game was played",
                crate::signals::received().unwrap_or("a signal")
            ),
        });
    };
    if unstartable.is_empty() {
        return Ok(());
    }
    if unstartable.iter().any(|bot| bot.referee_fault) {
        for bot in &unstartable {
            eprintln!("error: {bot}");
        }
        return Err(internal(anyhow::anyhow!(
            "no game was played: the referee itself could not start a bot (not the bot's fault)"
        )));
    }
    let level = if forfeit { "warning" } else { "error" };
    for bot in &unstartable {
        eprintln!("{level}: {bot}");
    }
    if forfeit {
        eprintln!("--forfeit-unstartable: the games of these bots are played and scored as their forfeits");
        return Ok(());
    }
    Err(malformed(anyhow::anyhow!(
        "no game was played: fix the bot's command (try `bao-referee check \"CMD\"`), or add \
         --forfeit-unstartable to score its games as forfeits"
    )))
}

/// Builds the plan the arguments describe.
fn build_plan(args: &TournamentArgs) -> Result<Plan, Failure> {
    let game = &args.game;
    let sandbox = game.sandbox().map_err(|e| malformed(anyhow::Error::msg(e)))?;
    let bots = bots::collect(args.config.as_deref(), &args.bots.0).map_err(malformed)?;
    let specs: Vec<&bao_supervise::BotSpec> = bots.iter().map(|b| &b.spec).collect();
    bao_tournament::preflight::check_isolation(&specs, game.isolation()).map_err(malformed)?;
    game.check_cpu_confinement().map_err(|e| malformed(anyhow::Error::msg(e)))?;
    let sprt = args.sprt.as_deref().map(sprt::parse_words).transpose();
    let sprt = sprt.map_err(|e| malformed(anyhow::anyhow!("--sprt: {e}")))?;
    let shard = args.shard.map(|s| s.resolve(|name| std::env::var(name).ok())).transpose();
    PlanRequest {
        bots,
        mode: args.mode,
        rounds: args.rounds,
        games_per_round: args.games,
        seed: args.seed,
        openings: args.openings.clone(),
        start: game.start_position().map_err(|e| malformed(anyhow::Error::msg(e)))?,
        time_control: game.time_control(),
        max_plies: game.max_plies(),
        limits: game.limits(),
        isolation: game.isolation(),
        pass_env: sandbox.pass_env,
        no_ponder: game.no_ponder,
        sprt,
        shard: shard.map_err(malformed)?,
    }
    .into_plan()
    .map_err(library)
}

fn default_out() -> PathBuf {
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string().replace(':', "-");
    PathBuf::from(format!("tournament-{stamp}"))
}
