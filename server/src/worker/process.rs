//! `bao-referee worker`: a process on any machine that plays the ladder's games of a server
//! whose `games.executor` is `"workers"`. It holds nothing worth keeping: it claims games
//! from the shared database by lease, fetches the two bots' built folders (cached under
//! `--cache` by hash), plays each game in the sandbox through the server's own engine, and
//! records the log and the result in one transaction that succeeds only while it still holds
//! the lease. SIGTERM (or SIGINT, SIGHUP) hands its running games back at once and stops.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Duration;

use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::queue::{self, Lease, Played};
use super::{artifacts, status};
use crate::config::ArenaConfig;
use crate::db::{Db, Location, now_ms};
use crate::domain::{GameResult, VersionId};
use crate::engine::{CheckLimits, Engine};
use crate::error::ServerError;
use crate::{games, versions};

/// How `bao-referee worker` runs.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// The shared database's `postgres://` URL.
    pub database: String,
    /// Games played at once.
    pub concurrency: usize,
    /// Where the bots' built folders are kept, by hash, and the running games' logs.
    pub cache: PathBuf,
    /// How long a claim holds a game without renewal (it is renewed every third of it).
    pub lease: Duration,
}

/// The name the arena's settings go by in messages: they come from the database.
pub(super) const SETTINGS: &str = "arena.toml (the leader's, from the database)";

/// A game a worker failed to play this many times (the machine's fault each time: no
/// processes, no sandbox, a missing artifact...) is recorded aborted instead of claimed again.
pub const MAX_ATTEMPTS: i64 = 5;

/// How often a worker reports itself, and retries what failed.
pub(super) const TICK: Duration = Duration::from_secs(2);

/// How often a worker with a free slot looks for a game (one indexed `UPDATE` that finds
/// nothing, a fraction of a millisecond of the database's time): the most a queued game
/// waits for an idle worker.
const IDLE_POLL: Duration = Duration::from_millis(100);

/// One worker process.
pub(super) struct Worker {
    pub(super) db: Db,
    pub(super) id: String,
    /// The architecture it builds for and plays the artifacts of ([`artifacts::worker_arch`]).
    pub(super) arch: String,
    pub(super) cache: PathBuf,
    pub(super) lease_ms: i64,
    pub(super) engine: Engine,
    pub(super) shutdown: CancellationToken,
    pub(super) running: AtomicI64,
}

/// Runs a worker until SIGTERM, SIGINT or SIGHUP.
pub async fn run(opts: WorkerOptions) -> Result<(), ServerError> {
    if opts.concurrency == 0 {
        return Err(ServerError::Invalid("--concurrency must be at least 1".into()));
    }
    if opts.lease < Duration::from_secs(3) {
        return Err(ServerError::Invalid("--lease-secs must be at least 3".into()));
    }
    let url = opts.database.trim();
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        return Err(ServerError::Invalid(
            "--database takes the postgres:// URL of the servers' database (workers need a shared database)"
                .into(),
        ));
    }
    let location = Location::Postgres(url.to_owned());
    // Absolute: the bots' folders under it are named to the sandbox.
    let cache = std::path::absolute(&opts.cache)
        .map_err(|e| ServerError::io(format!("cannot resolve {}", opts.cache.display()), e))?;
    let opts = WorkerOptions { cache, ..opts };
    // The sandboxes' own uids pass through the cache to their bot's folder (each
    // `artifacts/HASH` is 755) but list nothing: no other user of the machine finds the bots
    // there. The running games' logs are the worker's alone.
    for (dir, mode) in [
        (opts.cache.clone(), 0o711),
        (opts.cache.join("artifacts"), 0o711),
        (opts.cache.join("logs"), 0o700),
        (opts.cache.join("builds"), 0o711),
    ] {
        std::fs::create_dir_all(&dir)
            .map_err(|e| ServerError::io(format!("cannot create {}", dir.display()), e))?;
        crate::db::make_private(&dir, mode)?;
    }
    let shutdown = CancellationToken::new();
    bao_tournament::signals::install(shutdown.clone())
        .map_err(|e| ServerError::io("cannot install the signal handlers", e))?;
    let Some(db) = open_database(&location, &shutdown).await else { return Ok(()) };
    let Some(config) = wait_for_settings(&db, &shutdown).await? else { return Ok(()) };
    crate::sandbox::probe::require(&config, Path::new(SETTINGS)).await?;
    let machine = bao_supervise::cpu_confinement();
    if let Err(why) = &machine.limit
        && !config.games.allow_unconfined_cpu
    {
        return Err(ServerError::Config {
            path: SETTINGS.into(),
            message: format!(
                "a bot's CPU cannot be confined on this machine ({why}); the arena's games.allow_unconfined_cpu is false"
            ),
        });
    }
    let check_limits = CheckLimits {
        move_time: Duration::from_millis(config.gate.move_ms),
        startup: Duration::from_millis(config.gate.startup_ms),
        profile: crate::sandbox::Profile::bot(&config),
    };
    let engine = Engine::start(crate::live::LiveHub::new(), shutdown.clone(), check_limits)?;
    let id = format!("{}-{}-{:04x}", status::host_name(), std::process::id(), rand::random::<u16>());
    let lease_ms = i64::try_from(opts.lease.as_millis()).unwrap_or(i64::MAX);
    let arch = artifacts::worker_arch();
    let worker = Arc::new(Worker {
        db,
        id: id.clone(),
        arch: arch.clone(),
        cache: opts.cache.clone(),
        lease_ms,
        engine,
        shutdown: shutdown.clone(),
        running: AtomicI64::new(0),
    });
    // Its row first, then the first line on stdout that says the worker plays (tests wait
    // for that line, and may then look for the row).
    report_once(&worker, opts.concurrency).await;
    println!("worker {id} plays up to {} games at once from the {}", opts.concurrency, location.describe());
    tracing::info!(worker = %id, concurrency = opts.concurrency, %arch, "worker started");

    let reporter = tokio::spawn(report_loop(worker.clone(), opts.concurrency));
    let mut tasks = JoinSet::new();
    loop {
        while tasks.len() < opts.concurrency && !shutdown.is_cancelled() {
            // Builds before games: a version waits for its build, a game only for a worker.
            match super::build_task::claim(&worker).await {
                Ok(Some(lease)) => {
                    tasks.spawn(super::build_task::build_claimed(worker.clone(), lease));
                    continue;
                }
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "cannot claim a build; trying again"),
            }
            let w = worker.clone();
            match worker.db.read(move |c| queue::claim(c, &w.id, &w.arch, w.lease_ms)).await {
                Ok(Some(lease)) => {
                    tasks.spawn(play_claimed(worker.clone(), lease));
                }
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot claim a game; trying again");
                    break;
                }
            }
        }
        tokio::select! {
            () = shutdown.cancelled() => break,
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            () = tokio::time::sleep(IDLE_POLL) => {}
        }
    }
    tracing::info!(
        signal = bao_tournament::signals::received().unwrap_or("a signal"),
        "worker stopping: handing its games back"
    );
    while tasks.join_next().await.is_some() {}
    reporter.abort();
    let w = worker.clone();
    if let Err(e) = worker.db.read(move |c| status::remove(c, &w.id)).await {
        tracing::warn!(error = %e, "cannot remove this worker's row");
    }
    if let Ok(worker) = Arc::try_unwrap(worker) {
        let engine = worker.engine;
        let _ = tokio::task::spawn_blocking(move || engine.stop()).await;
    }
    Ok(())
}

/// Opens the database, trying again every [`TICK`] while it cannot be reached; `None` if
/// stopped first.
async fn open_database(location: &Location, shutdown: &CancellationToken) -> Option<Db> {
    let mut said = false;
    loop {
        let place = location.clone();
        match tokio::task::spawn_blocking(move || Db::open_location(&place)).await {
            Ok(Ok(db)) => return Some(db),
            Ok(Err(e)) => {
                if !said {
                    eprintln!(
                        "cannot open the {} ({e}); trying again every {} s",
                        location.describe(),
                        TICK.as_secs()
                    );
                    said = true;
                }
                tracing::warn!(error = %e, "cannot open the database; trying again");
            }
            Err(e) => tracing::error!(error = %e, "opening the database failed; trying again"),
        }
        tokio::select! {
            () = shutdown.cancelled() => return None,
            () = tokio::time::sleep(TICK) => {}
        }
    }
}

/// The leader's arena settings, waiting for them if no leader has published them yet;
/// `None` if stopped first.
async fn wait_for_settings(
    db: &Db,
    shutdown: &CancellationToken,
) -> Result<Option<ArenaConfig>, ServerError> {
    let mut said = false;
    loop {
        match db.read(|c| super::queued::settings(c)).await {
            Ok(Some(text)) => return ArenaConfig::parse(&text, Path::new(SETTINGS)).map(Some),
            Ok(None) if !said => {
                eprintln!("waiting for a server with games.executor = \"workers\" to publish its arena.toml");
                said = true;
            }
            Ok(None) => {}
            Err(e) => tracing::warn!(error = %e, "cannot read the arena's settings; trying again"),
        }
        tokio::select! {
            () = shutdown.cancelled() => return Ok(None),
            () = tokio::time::sleep(TICK) => {}
        }
    }
}

/// Reports this worker every [`TICK`] (after the first report, made at its start).
async fn report_loop(w: Arc<Worker>, concurrency: usize) {
    loop {
        tokio::time::sleep(TICK).await;
        report_once(&w, concurrency).await;
    }
}

/// Reports this worker (its row in `workers`), and queues the builds its architecture lacks.
async fn report_once(w: &Arc<Worker>, concurrency: usize) {
    let report = status::WorkerReport {
        id: w.id.clone(),
        host: status::host_name(),
        version: env!("CARGO_PKG_VERSION").into(),
        arch: w.arch.clone(),
        concurrency: i64::try_from(concurrency).unwrap_or(i64::MAX),
        running: w.running.load(Ordering::Relaxed),
        load: status::load_average(),
    };
    if let Err(e) = w.db.read(move |c| status::report(c, &report)).await {
        tracing::warn!(error = %e, "cannot report this worker");
    }
    // Versions that play without a built folder for this architecture get a build for it.
    let arch = w.arch.clone();
    match w.db.read(move |c| super::build_queue::enqueue_arch(c, &arch, now_ms())).await {
        Ok(0) => {}
        Ok(n) => {
            tracing::info!(builds = n, arch = %w.arch, "versions queued to be built for this architecture")
        }
        Err(e) => tracing::warn!(error = %e, "cannot queue the builds for this architecture"),
    }
}

/// What playing a claimed game came to.
enum Outcome {
    Finished(Played),
    /// Aborted: by the machine's fault (`true`), or stopped (lease lost, worker stopping).
    Aborted(bool, String),
}

/// Plays a claimed game and records it, hands it back, or discards it (lease lost).
async fn play_claimed(w: Arc<Worker>, lease: Lease) {
    w.running.fetch_add(1, Ordering::Relaxed);
    let span = tracing::info_span!("game", id = lease.game.get(), attempt = lease.attempt);
    let _enter = span.enter();
    let stop = w.shutdown.child_token();
    let lost = Arc::new(AtomicBool::new(false));
    let keeper = tokio::spawn(keep_lease(w.clone(), lease.clone(), stop.clone(), lost.clone()));
    let outcome = play(&w, &lease, stop).await;
    keeper.abort();
    let l = lease.clone();
    match outcome {
        _ if lost.load(Ordering::Relaxed) => {
            tracing::warn!("this worker lost its lease on the game: its result is discarded");
        }
        Ok(Outcome::Finished(played)) => match w.db.write(move |c| queue::finish(c, &l, &played)).await {
            Ok(true) => tracing::info!("game recorded"),
            Ok(false) => tracing::warn!("the lease expired before the result was recorded: discarded"),
            Err(e) => {
                tracing::error!(error = %e, "cannot record the game: its lease will expire and it is played again")
            }
        },
        // Stopped: this worker is stopping. Handed back, played by another.
        Ok(Outcome::Aborted(false, _)) => release(&w, &lease).await,
        Ok(Outcome::Aborted(true, why)) => failed(&w, &lease, why).await,
        Err(e) => failed(&w, &lease, e.to_string()).await,
    }
    w.running.fetch_sub(1, Ordering::Relaxed);
}

/// Hands a game back.
async fn release(w: &Worker, lease: &Lease) {
    let l = lease.clone();
    if let Err(e) = w.db.read(move |c| queue::release(c, &l)).await {
        tracing::warn!(error = %e, "cannot hand the game back: its lease will expire");
    }
}

/// This worker could not play the game (the machine's fault, never a bot's): handed back, or
/// recorded aborted (not counted) after [`MAX_ATTEMPTS`] attempts by any workers.
async fn failed(w: &Worker, lease: &Lease, why: String) {
    if lease.attempt >= MAX_ATTEMPTS {
        tracing::error!(error = %why, "the workers failed to play the game {MAX_ATTEMPTS} times: aborted");
        // Shown to anyone: the worker's folders left out, and a bounded length.
        let mut last = scrub(w, &why);
        if let Some((cut, _)) = last.char_indices().nth(300) {
            last.truncate(cut);
            last.push('…');
        }
        let reason = format!("the workers failed to play it {MAX_ATTEMPTS} times (last: {last})");
        let l = lease.clone();
        if let Err(e) = w.db.write(move |c| queue::abort(c, &l, &reason)).await {
            tracing::warn!(error = %e, "cannot record the game aborted: its lease will expire");
        }
        return;
    }
    tracing::error!(error = %why, "this worker could not play the game: handed back");
    release(w, lease).await;
    if !w.shutdown.is_cancelled() {
        // No tight loop of failures on a machine that cannot play.
        tokio::time::sleep(TICK).await;
    }
}

/// Renews the lease every third of its length; when it is lost (or cannot be renewed before
/// it expires), sets `lost` and stops the game.
async fn keep_lease(w: Arc<Worker>, lease: Lease, stop: CancellationToken, lost: Arc<AtomicBool>) {
    let every = Duration::from_millis(u64::try_from(w.lease_ms / 3).unwrap_or(1000));
    let mut held_until = now_ms() + w.lease_ms - every.as_millis() as i64;
    loop {
        tokio::time::sleep(every).await;
        let (l, now, lease_ms) = (lease.clone(), now_ms(), w.lease_ms);
        match w.db.read(move |c| queue::renew(c, &l, lease_ms)).await {
            Ok(true) => held_until = now + lease_ms,
            Ok(false) => break,
            Err(e) if now_ms() < held_until => {
                tracing::warn!(error = %e, "cannot renew the lease; trying again")
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot renew the lease before it expires");
                break;
            }
        }
    }
    lost.store(true, Ordering::Relaxed);
    stop.cancel();
}

/// Plays the claimed game in the engine.
async fn play(w: &Worker, lease: &Lease, stop: CancellationToken) -> Result<Outcome, ServerError> {
    let id = lease.game;
    let (game, settings) = w.db.read(move |c| Ok((games::game(c, id)?, super::queued::settings(c)?))).await?;
    let game = game.ok_or_else(|| ServerError::Internal(format!("the claimed game {id} has no row")))?;
    let text = settings.ok_or_else(|| ServerError::Internal("the arena's settings are gone".into()))?;
    let config = ArenaConfig::parse(&text, Path::new(SETTINGS))?;
    let (s, n) = (game.south.version_id, game.north.version_id);
    let (south, north) = w.db.read(move |c| Ok((versions::version(c, s)?, versions::version(c, n)?))).await?;
    let (Some(south), Some(north)) = (south, north) else {
        return Err(ServerError::Internal(format!("a version of game {id} has no row")));
    };
    let south = crate::scheduler::built_in(&config, &south, artifact_dir(w, s).await?)?;
    let north = crate::scheduler::built_in(&config, &north, artifact_dir(w, n).await?)?;
    let seed = u64::try_from(game.opening_seed).unwrap_or(0);
    let game_config = crate::scheduler::game_config(&config, &south, &north, seed)?;
    let log_path = w.cache.join("logs").join(format!("{id}-{}.jsonl", lease.attempt));
    let result = w.engine.play_until(game_config, log_path.clone(), id.get(), stop).await;
    let outcome = match result {
        Ok(r) if r.reason == bao_game::Reason::Aborted => {
            let fault = matches!(r.aborted, Some(bao_game::AbortCause::RefereeFault(_)));
            Ok(Outcome::Aborted(fault, scrub(w, &r.detail)))
        }
        Ok(r) => match tokio::fs::read(&log_path).await {
            Ok(log) => Ok(Outcome::Finished(Played {
                result: GameResult::of_winner(r.winner),
                reason: if r.detail.is_empty() {
                    r.reason.to_string()
                } else {
                    format!("{}: {}", r.reason, scrub(w, &r.detail))
                },
                plies: r.plies,
                // The worker's folders are nobody's business (the server's are left out of
                // what others see likewise): the bots' paths read `artifacts/HASH/...`.
                log: scrub(w, &String::from_utf8_lossy(&log)).into_bytes(),
            })),
            Err(e) => Err(ServerError::io(format!("cannot read the log {}", log_path.display()), e)),
        },
        Err(e) => Err(e),
    };
    let _ = tokio::fs::remove_file(&log_path).await;
    outcome
}

/// A reason shown to anyone: the worker's folders left out of it.
pub(super) fn scrub(w: &Worker, text: &str) -> String {
    crate::http::log_privacy::scrub_text(text, &crate::http::log_privacy::arena_prefixes(&w.cache))
}

/// The folder of a version's built bot in the cache, fetched from the database if missing.
async fn artifact_dir(w: &Worker, version: VersionId) -> Result<PathBuf, ServerError> {
    let arch = w.arch.clone();
    let a = arch.clone();
    let hash = w.db.read(move |c| artifacts::hash_of(c, version, &a)).await?.ok_or_else(|| {
        ServerError::Internal(format!("no built folder of version {version} for {arch} in the database"))
    })?;
    let cache = w.cache.join("artifacts");
    if cache.join(&hash).is_dir() {
        return Ok(cache.join(&hash));
    }
    let h = hash.clone();
    let bytes =
        w.db.read(move |c| artifacts::bytes(c, &h, &arch))
            .await?
            .ok_or_else(|| ServerError::Internal(format!("the artifact {hash} is not in the database")))?;
    tokio::task::spawn_blocking(move || artifacts::unpack_cached(&cache, &hash, &bytes))
        .await
        .map_err(|e| ServerError::Internal(format!("unpacking an artifact failed: {e}")))?
}
