//! `bao-referee tournament`: many games between many bots, with a
//! deterministic schedule, fair colour-swapped pairs, statistics, an
//! append-only journal that survives a kill, resume, and shards.
//!
//! The pieces, one per module: the [`bots`] and [`args`], the [`schedule`]
//! and its [`openings`], the [`plan`] stored in the output [`folder`], the
//! [`journal`], the [`shard`]s, playing the games ([`execute`]) under
//! [`signals`] with [`progress`], and the [`results`] with the [`sprt`], kept up to date by the [`tally`].
//! The user's guide is docs/tournament.md.

pub mod args;
pub mod bots;
pub mod execute;
pub mod folder;
pub mod index_page;
pub mod journal;
pub mod journal_stream;
pub mod openings;
pub mod plan;
pub mod progress;
pub mod replay_pages;
pub mod results;
pub mod schedule;
pub mod shard;
pub mod signals;
pub mod sprt;
pub mod tally;

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;

pub use args::TournamentArgs;

use crate::tournament::execute::{Run, RunReport};
use crate::tournament::folder::OutDir;
use crate::tournament::index_page::RecentGames;
use crate::tournament::journal::{Journal, JournalEntry};
use crate::tournament::plan::{PLAN_VERSION, Plan};
use crate::tournament::progress::Progress;
use crate::tournament::schedule::Schedule;
use crate::tournament::tally::Tally;

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
    refuse_foreign_folder(&out)?;
    // A new tournament checks its bots before it creates its folder: a typo leaves nothing behind.
    let fresh = !out.plan().exists();
    if fresh && let Some(plan) = &described {
        check_before_playing(plan, args)?;
    }
    // The stored plan is read under the lock, so two referees never both start the same folder.
    let _lock = out.create_and_lock().map_err(malformed)?;
    let stored = stored_plan(&out)?;
    // Without bots on the command line, the stored plan is the plan.
    let plan = match (described, &stored) {
        (Some(plan), _) => plan,
        (None, Some(stored)) => stored.clone(),
        (None, None) => build_plan(args)?,
    };
    if let Some(difference) = stored.as_ref().and_then(|stored| stored.difference(&plan)) {
        return Err(malformed(anyhow::anyhow!(
            "{} holds another tournament: its plan.json differs at {difference}. \
             Use another --out, or delete the folder to start over.",
            out.root().display()
        )));
    }
    if !fresh {
        check_before_playing(&plan, args)?;
    }
    let planned = plan.games_to_play().count();
    if stored.is_none() {
        plan.save(&out.plan())
            .with_context(|| format!("cannot write {}", out.plan().display()))
            .map_err(internal)?;
    }
    // The journal is read as a stream: each entry is checked against the plan, folded into
    // the running counts and dropped (the newest are kept for the index page).
    let schedule = plan.schedule().map_err(malformed)?;
    let mut tally = Tally::new((0..plan.bots.len()).map(|i| plan.bot_name(i)).collect());
    let mut recent = RecentGames::default();
    let mut foreign = None;
    let (journal, found) = Journal::open(&out.journal(), |entry| {
        if foreign.is_some() {
            return;
        }
        match check_entry(&plan, &schedule, &entry) {
            Ok(()) => {
                tally.add(&entry);
                recent.push(entry);
            }
            Err(e) => foreign = Some(e),
        }
    })
    .map_err(internal)?;
    if let Some(error) = foreign {
        return Err(malformed(error));
    }

    let done = tally.counted().len();
    if stored.is_some() || found.torn_bytes > 0 {
        eprintln!(
            "resuming {}: {done} of {planned} games already played{}",
            out.root().display(),
            if found.torn_bytes > 0 { " (a torn last journal line was cut off)" } else { "" }
        );
    } else {
        eprintln!("tournament {}: {planned} games", out.root().display());
    }
    let concurrency = match args.concurrency {
        Some(n) => n,
        None => {
            let (n, why) = default_concurrency(&plan);
            eprintln!("concurrency {n}: {why}");
            n
        }
    };
    if let crate::trace::TraceTarget::Dir(dir) = &trace {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("--trace {}", dir.display()))
            .map_err(malformed)?;
    }
    if let Err(e) = replay_pages::write_shared_files(args.replays, &out.games()) {
        eprintln!("warning: {e}");
    }
    let plan = Arc::new(plan);
    let progress = Progress::new(planned as u64, done, args.plain);
    let report = execute::execute(Run {
        plan: Arc::clone(&plan),
        out: out.clone(),
        concurrency,
        journal,
        tally,
        recent,
        progress,
        trace,
        replays: args.replays,
    })
    .map_err(internal)?;
    finish(args, &plan, &out, report)
}

/// The games to play at once when `--concurrency` is not given, and why: as many as the CPUs
/// this process may use can give every bot that may be thinking a full share (its
/// `--cpus-per-bot`, one CPU without a limit): one bot a game with `--no-ponder`, both
/// otherwise (a bot may ponder in its opponent's time). At least one.
fn default_concurrency(plan: &Plan) -> (usize, String) {
    let cpus = bao_supervise::allowed_cpus().len().max(1);
    let per_bot = plan.limits.cpus.map_or(1, |c| c.whole_cpus() as usize);
    let (thinking, how) = if plan.no_ponder {
        (1, "one bot a game thinks at a time (--no-ponder)")
    } else {
        (2, "both bots of a game may think at once (pondering; --no-ponder halves this)")
    };
    let n = (cpus / (per_bot * thinking)).max(1);
    (n, format!("{cpus} CPUs, {per_bot} CPU per thinking bot, {how}"))
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

/// Writes results.json, prints the results, and picks the exit code.
fn finish(args: &TournamentArgs, plan: &Plan, out: &OutDir, report: RunReport) -> Result<u8, Failure> {
    let worst_lag_run = Some(report.worst_lag);
    let results = results::compute(plan, &report.tally, worst_lag_run);
    // Written through a buffer: the list of missing games of a large unfinished plan is long.
    folder::write_atomically_with(&out.results(), |file| {
        serde_json::to_writer_pretty(&mut *file, &results)?;
        file.write_all(b"\n")
    })
    .with_context(|| format!("cannot write {}", out.results().display()))
    .map_err(internal)?;
    if let Err(e) = index_page::write_index(out, &results, &report.tally, &report.recent, args.replays) {
        eprintln!("warning: {e}");
    }
    if args.json {
        crate::out::outln!("{}", serde_json::to_string(&results).map_err(internal)?);
    } else {
        crate::out::text(&results::render(&results));
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
    warn_if_replayed(plan);
    preflight(plan, args.forfeit_unstartable)
}

/// Warns when the tournament would play the same game again and again: every game starts from
/// one position and a pairing meets more than once with the same colours, so deterministic bots
/// (most engines, and the sample bots with a fixed `--seed`) replay identical games and the
/// statistics count copies.
fn warn_if_replayed(plan: &Plan) {
    let one_opening = plan.one_opening();
    let per_colour = u64::from(plan.games_per_round) * u64::from(plan.rounds) / 2;
    if one_opening && per_colour > 1 {
        eprintln!(
            "warning: every game starts from the same position and each pairing plays {per_colour} games \
             with the same colours: deterministic bots will replay identical games, and the statistics \
             would count copies. Use --openings random:6 (or a file of openings) for distinct games."
        );
    }
}

/// Starts each bot once before the first game: a bot that cannot start stops the run (exit 2),
/// unless `forfeit` scores its games as losses.
fn preflight(plan: &Plan, forfeit: bool) -> Result<(), Failure> {
    let start = plan.opening(0).unwrap_or_else(|_| bao_rules::Position::start(bao_rules::Variant::Kiswahili));
    let with = crate::preflight::Preflight {
        start: &start,
        time: &plan.time_control,
        limits: &plan.limits,
        isolation: plan.isolation,
    };
    let runtime = bao_game::runtime::build().context("cannot start the async runtime").map_err(internal)?;
    let specs: Vec<&bao_supervise::BotSpec> = plan.bots.iter().collect();
    // Ctrl-C here ends the bots being started (dropping them kills their trees) and exits 130.
    let cancel = tokio_util::sync::CancellationToken::new();
    let checked = runtime
        .block_on(async {
            crate::signals::install(cancel.clone())?;
            Ok::<_, std::io::Error>(tokio::select! {
                () = cancel.cancelled() => None,
                found = crate::preflight::check_all(&specs, &with) => Some(found),
            })
        })
        .context("cannot install the signal handlers")
        .map_err(internal)?;
    let Some(unstartable) = checked else {
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

/// The plan stored in the folder, if there is one.
fn stored_plan(out: &OutDir) -> Result<Option<Plan>, Failure> {
    if !out.plan().exists() {
        return Ok(None);
    }
    Plan::load(&out.plan()).map(Some).map_err(malformed)
}

/// Refuses a folder without plan.json that holds anything but an earlier start's leftovers.
fn refuse_foreign_folder(out: &OutDir) -> Result<(), Failure> {
    if out.plan().exists() {
        return Ok(());
    }
    let Ok(entries) = std::fs::read_dir(out.root()) else { return Ok(()) };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !folder::is_leftover_of_a_start(&name) {
            return Err(malformed(anyhow::anyhow!(
                "{} exists and is not a tournament folder (it holds {:?} but no plan.json); choose another --out",
                out.root().display(),
                name
            )));
        }
    }
    Ok(())
}

/// A journal entry must be a game of this plan and shard, between the bots the plan puts there.
fn check_entry(plan: &Plan, schedule: &Schedule, entry: &JournalEntry) -> anyhow::Result<()> {
    let fits = schedule.game(entry.game).is_some_and(|g| {
        g.south == entry.south_bot
            && g.north == entry.north_bot
            && g.pair == entry.pair
            && plan.shard.is_none_or(|s| s.holds_pair(g.pair))
    });
    if !fits {
        anyhow::bail!(
            "the journal holds game {} ({} vs {}), which is not a game of this plan{}",
            entry.game,
            entry.south,
            entry.north,
            plan.shard.map(|s| format!(" and shard {s}")).unwrap_or_default()
        );
    }
    Ok(())
}

/// Builds the plan the arguments describe.
fn build_plan(args: &TournamentArgs) -> Result<Plan, Failure> {
    let sandbox = args.game.sandbox().map_err(|e| malformed(anyhow::Error::msg(e)))?;
    let bots = bots::collect(args.config.as_deref(), &args.bots.0).map_err(malformed)?;
    crate::match_cmd::isolation_preflight(
        &bots.iter().map(|b| &b.spec).collect::<Vec<_>>(),
        args.game.isolation(),
    )
    .map_err(malformed)?;
    args.game.check_cpu_confinement().map_err(|e| malformed(anyhow::Error::msg(e)))?;
    if bots.is_empty() {
        return Err(malformed(anyhow::anyhow!(
            "no bots: give them with --bot name=NAME cmd=CMD or --config FILE"
        )));
    }
    let schedule = Schedule::new(args.mode, bots.len(), args.rounds, args.games).map_err(malformed)?;
    let start = args.game.start_position().map_err(|e| malformed(anyhow::Error::msg(e)))?;
    // Only a file's positions are stored; start and random openings are derived from the seed.
    let book = match &args.openings {
        openings::OpeningSource::File(path) => openings::read_file(path, start.variant())
            .map_err(malformed)?
            .iter()
            .map(ToString::to_string)
            .collect(),
        openings::OpeningSource::Start | openings::OpeningSource::Random { .. } => Vec::new(),
    };
    if let openings::OpeningSource::Random { plies } = args.openings {
        // Random plies that always end the game are refused before anything is written.
        openings::random_opening(&start, plies, args.seed, 0).map_err(malformed)?;
    }
    let sprt = args
        .sprt
        .as_deref()
        .map(sprt::parse_words)
        .transpose()
        .map_err(|e| malformed(anyhow::anyhow!("--sprt: {e}")))?;
    if sprt.is_some() && bots.len() != 2 {
        return Err(malformed(anyhow::anyhow!("--sprt needs exactly two bots, {} given", bots.len())));
    }
    let shard =
        args.shard.map(|s| s.resolve(|name| std::env::var(name).ok())).transpose().map_err(malformed)?;
    if sprt.is_some() && shard.is_some() {
        return Err(malformed(anyhow::anyhow!(
            "--sprt cannot be combined with --shard: the test must see every game to decide when to stop"
        )));
    }
    let time = args.game.time_control();
    let bot_time_controls: Vec<Option<bao_game::TimeControl>> =
        bots.iter().map(|b| b.clock.map(|c| c.time_control(time.startup, time.margin))).collect();
    Ok(Plan {
        plan_version: PLAN_VERSION,
        rules_revision: bao_rules::RULES_REVISION,
        seed: args.seed,
        mode: args.mode,
        rounds: args.rounds,
        games_per_round: args.games,
        bot_time_controls: if bot_time_controls.iter().all(Option::is_none) {
            Vec::new()
        } else {
            bot_time_controls
        },
        bots: bots.into_iter().map(|b| b.spec).collect(),
        time_control: args.game.time_control(),
        max_plies: args.game.max_plies(),
        limits: args.game.limits(),
        isolation: args.game.isolation(),
        pass_env: sandbox.pass_env,
        no_ponder: args.game.no_ponder,
        games: schedule.len(),
        opening_source: args.openings.to_string(),
        start: start.to_string(),
        book,
        sprt,
        shard,
    })
}

fn default_out() -> PathBuf {
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string().replace(':', "-");
    PathBuf::from(format!("tournament-{stamp}"))
}
