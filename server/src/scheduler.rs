//! The game loop: keeps `games.concurrency` pairs of games running. Each slot
//! asks the matchmaker (or the candidate queue) for a pair, plays its two
//! colour-swapped games from a shared random opening through the engine, and
//! records each result. A game is in the database as `running` before its
//! bots start and becomes `finished` in one statement after its log is synced,
//! so a kill at any moment loses no finished game and counts none twice.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use bao_game::{GameConfig, TimeControl};

use crate::arena::Arena;
use crate::build::gate::BuiltBot;
use crate::config::{ArenaConfig, Executor};
use crate::db::now_ms;
use crate::domain::{GameResult, GameState, Purpose, VersionId, VersionState};
use crate::engine::Engine;
use crate::error::ServerError;
use crate::games::{self, NewGame};
use crate::live::GameStart;
use crate::matchmaking::{self, Entrant, PairCounts, Pairing};
use crate::pair_tasks::PairTasks;
use crate::versions::{self, Version};
use tokio_util::sync::CancellationToken;

/// A pair of games to play.
#[derive(Debug, Clone)]
pub struct PairPlan {
    /// Plays South in the first game.
    pub first: VersionId,
    /// Plays South in the second game.
    pub second: VersionId,
    /// Why the pair is played.
    pub purpose: Purpose,
    /// The candidate under test, for candidate pairs.
    pub candidate: Option<VersionId>,
}

/// Runs the game loop until `term` ends (shutdown, or this server no longer leads: see
/// [`crate::leader`]); the games of this server's engine are then aborted and recorded so,
/// and the games of workers stay with them.
pub async fn run(arena: Arc<Arena>, engine: Arc<Engine>, term: CancellationToken) {
    let stats = match arena.db.read(|c| LadderStats::load(c)).await {
        Ok(s) => Arc::new(std::sync::Mutex::new(s)),
        Err(e) => {
            tracing::error!(error = %e, "cannot read the games: the game loop does not run");
            return;
        }
    };
    if arena.config.games.executor == Executor::Workers
        && matches!(arena.db.location(), crate::db::Location::Sqlite(_))
    {
        tracing::error!(
            "games.executor = \"workers\" needs the servers' PostgreSQL database (serve --database postgres://…): \
             no worker can reach this arena's SQLite file; the game loop does not run"
        );
        eprintln!("games.executor = \"workers\" needs a PostgreSQL database: the game loop does not run");
        return;
    }
    if arena.config.games.executor == Executor::Workers
        && let Err(e) = crate::worker::queued::publish_settings(&arena).await
    {
        tracing::error!(error = %e, "cannot publish arena.toml for the workers: the game loop does not run");
        return;
    }
    let (slots, why) = arena.config.games.slots();
    tracing::info!("game slots: {slots} ({why})");
    eprintln!("game slots: {slots} ({why})");
    let mut running: PairTasks<bool> = PairTasks::default();
    // After a pair fails by the server's own fault (no descriptors, memory, disk, a database
    // error, a panic), no new pair starts for a while, doubling up to a minute: no tight
    // loop of aborts.
    let mut backoff = Duration::ZERO;
    let mut resume_at = tokio::time::Instant::now();
    loop {
        while running.len() < slots && !term.is_cancelled() && tokio::time::Instant::now() >= resume_at {
            match next_pair(&arena, &stats, running.busy()).await {
                Ok(Some(plan)) => {
                    let ids = [plan.first, plan.second];
                    let (arena, engine, stats) = (arena.clone(), engine.clone(), stats.clone());
                    let term = term.clone();
                    running.spawn(ids, async move {
                        let pair = play_pair(&arena, &engine, &stats, &plan, &term);
                        let outcome = if arena.config.games.executor == Executor::Workers {
                            // A worker's game is the workers' to record: this server stops
                            // waiting for it when its term ends.
                            tokio::select! {
                                r = pair => r,
                                () = term.cancelled() => Ok(()),
                            }
                        } else {
                            pair.await
                        };
                        match outcome {
                            Ok(()) => false,
                            Err(e) => {
                                tracing::error!(error = %e, "a pair of games failed");
                                true
                            }
                        }
                    });
                }
                Ok(None) => break,
                Err(e) => {
                    tracing::error!(error = %e, "matchmaking failed");
                    break;
                }
            }
        }
        tokio::select! {
            () = term.cancelled() => break,
            Some((_, done)) = running.join_next(), if !running.is_empty() => {
                // `None`: the task panicked, a failure of the server's own as well.
                if done.unwrap_or(true) {
                    backoff = (backoff * 2).clamp(MIN_BACKOFF, MAX_BACKOFF);
                    resume_at = tokio::time::Instant::now() + backoff;
                    tracing::warn!(secs = backoff.as_secs(), "no new game for a while after a failure of the server's own");
                } else {
                    backoff = Duration::ZERO;
                }
                arena.rating_wake.notify_one();
            }
            () = arena.game_wake.notified() => {}
            () = tokio::time::sleep_until(next_look(resume_at)) => {}
        }
    }
    // The engine aborts running games when the term ends; wait for them to be recorded.
    while running.join_next().await.is_some() {}
}

/// When the loop looks again without being woken: every 2 s, or at the end of a pause.
fn next_look(resume_at: tokio::time::Instant) -> tokio::time::Instant {
    let now = tokio::time::Instant::now();
    let look = now + Duration::from_secs(2);
    if resume_at > now { resume_at.min(look) } else { look }
}

/// A game's reason as shown to anyone: the arena's folder left out of it.
pub(crate) fn public_text(arena: &Arena, text: &str) -> String {
    crate::http::log_privacy::scrub_text(text, &crate::http::log_privacy::arena_prefixes(&arena.dir))
}

/// The first pause after a failure of the server's own.
const MIN_BACKOFF: Duration = Duration::from_secs(1);
/// The longest pause.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// What the game loop knows of past games, read once at start and then kept
/// up to date by the loop itself (the only writer of games), so that choosing
/// a pair never scans the games table.
#[derive(Debug, Default)]
pub struct LadderStats {
    /// Finished ladder and placement games per version.
    games: HashMap<VersionId, u32>,
    /// The last start of a game per version (Unix ms).
    last_start: HashMap<VersionId, i64>,
    /// Finished games per pair of versions.
    pairs: PairCounts<VersionId>,
}

impl LadderStats {
    /// Reads the statistics of every game so far.
    pub fn load(conn: &crate::db::Conn) -> Result<LadderStats, ServerError> {
        let mut stats = LadderStats::default();
        let mut stmt = conn.prepare(
            "SELECT south_id, north_id, count(*), max(started_at), sum(CASE WHEN state = ?1 THEN 1 ELSE 0 END) FROM games
             WHERE purpose != ?2 GROUP BY south_id, north_id",
        )?;
        let rows = stmt.query_map(crate::db::params![GameState::Finished, Purpose::Candidate], |r| {
            Ok((
                r.get::<_, VersionId>(0)?,
                r.get::<_, VersionId>(1)?,
                r.get::<_, i64>(3)?,
                r.get::<_, u32>(4)?,
            ))
        })?;
        for row in rows {
            let (s, n, last, finished) = row?;
            stats.pairs.add(s, n, finished);
            for v in [s, n] {
                *stats.games.entry(v).or_insert(0) += finished;
                let l = stats.last_start.entry(v).or_insert(0);
                *l = (*l).max(last);
            }
        }
        Ok(stats)
    }

    fn started(&mut self, a: VersionId, b: VersionId, at: i64) {
        self.last_start.insert(a, at);
        self.last_start.insert(b, at);
    }

    fn finished(&mut self, a: VersionId, b: VersionId) {
        self.pairs.add(a, b, 1);
        *self.games.entry(a).or_insert(0) += 1;
        *self.games.entry(b).or_insert(0) += 1;
    }
}

/// The shared statistics.
pub type SharedStats = Arc<std::sync::Mutex<LadderStats>>;

/// The active versions as the matchmaker sees them.
fn entrants(
    conn: &crate::db::Conn,
    stats: &LadderStats,
    placement_games: u32,
) -> Result<Vec<Entrant<VersionId>>, ServerError> {
    let now = now_ms();
    let mut stmt = conn.prepare_cached(
        "SELECT v.id, coalesce(r.elo, 1500.0), v.state_at
         FROM versions v LEFT JOIN ratings r ON r.version_id = v.id WHERE v.state = ?1 ORDER BY v.id",
    )?;
    let rows = stmt.query_map([VersionState::Active], |r| {
        Ok((r.get::<_, VersionId>(0)?, r.get::<_, f64>(1)?, r.get::<_, i64>(2)?))
    })?;
    let mut list = Vec::new();
    for row in rows {
        let (id, rating, active_since) = row?;
        let since = stats.last_start.get(&id).copied().unwrap_or(0).max(active_since);
        let games = stats.games.get(&id).copied().unwrap_or(0);
        list.push(Entrant {
            id,
            rating,
            placement_left: placement_games.saturating_sub(games),
            waited_ms: u64::try_from(now - since).unwrap_or(0),
        });
    }
    Ok(list)
}

/// The next pair to play: ladder versions over the wait bound first, then a
/// candidate under test, then the matchmaker's choice.
async fn next_pair(
    arena: &Arena,
    stats: &SharedStats,
    busy: &HashSet<VersionId>,
) -> Result<Option<PairPlan>, ServerError> {
    let placement = arena.config.matchmaking.placement_games;
    let bound = arena.config.matchmaking.wait_bound_secs;
    let shared = stats.clone();
    let workers = arena.config.games.executor == Executor::Workers;
    let (list, candidates, queued, reach) = arena
        .db
        .read(move |c| {
            let stats = shared.lock().map_err(|_| ServerError::Internal("stats lock poisoned".into()))?;
            let list = entrants(c, &stats, placement)?;
            let mut stmt = c.prepare_cached(
                "SELECT v.id, v.baseline_id FROM versions v JOIN versions b ON b.id = v.baseline_id
                 WHERE v.state = ?1 AND v.sprt_result IS NULL AND b.state = ?2 ORDER BY v.id",
            )?;
            let candidates: Vec<(VersionId, VersionId)> = stmt
                .query_map([VersionState::Evaluating, VersionState::Active], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            // With workers, the versions of every game still queued or played are busy too:
            // those of a former leader's pairs as well as this one's.
            let queued: Vec<(VersionId, VersionId)> = if workers {
                c.prepare_cached(
                    "SELECT g.south_id, g.north_id FROM game_tasks t JOIN games g ON g.id = t.game_id",
                )?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?
            } else {
                Vec::new()
            };
            // With workers, a pair is queued only if a live worker can play it (or build its
            // versions for its architecture): docs/worker.md, "No worker for a game".
            let reach = if workers {
                Some(crate::worker::reach::playable_arches(c, crate::worker::artifacts::arch())?)
            } else {
                None
            };
            Ok((list, candidates, queued, reach))
        })
        .await?;
    let can_pair =
        |a: VersionId, b: VersionId| reach.as_ref().is_none_or(|r| crate::worker::reach::can_pair(r, a, b));
    let mut busy_ids = busy.clone();
    busy_ids.extend(queued.into_iter().flat_map(|(s, n)| [s, n]));
    if let Some(r) = &reach {
        busy_ids.extend(list.iter().map(|e| e.id).filter(|id| !r.contains_key(id)));
    }
    let busy = &busy_ids;
    let mut jitter = || rand::random::<f64>();
    let ladder = {
        let stats = stats.lock().map_err(|_| ServerError::Internal("stats lock poisoned".into()))?;
        match matchmaking::choose(&list, &stats.pairs, &busy_ids, bound, &mut jitter) {
            // Workers of several architectures, and no live one plays both: the anchor's
            // opponent is chosen again among the versions it can be played with.
            Some(p) if !can_pair(p.anchor, p.opponent) => {
                let mut apart = busy_ids.clone();
                apart.extend(
                    list.iter().map(|e| e.id).filter(|&id| id != p.anchor && !can_pair(p.anchor, id)),
                );
                matchmaking::choose(&list, &stats.pairs, &apart, bound, &mut jitter)
                    .filter(|q| can_pair(q.anchor, q.opponent))
            }
            other => other,
        }
    };
    let plan_of = |p: Pairing<VersionId>| PairPlan {
        first: p.anchor,
        second: p.opponent,
        purpose: if p.reason == matchmaking::Reason::Placement {
            Purpose::Placement
        } else {
            Purpose::Ladder
        },
        candidate: None,
    };
    if let Some(p) = ladder
        && p.reason == matchmaking::Reason::WaitBound
    {
        return Ok(Some(plan_of(p)));
    }
    if let Some(&(cand, base)) =
        candidates.iter().find(|&&(c, b)| !busy.contains(&c) && !busy.contains(&b) && can_pair(c, b))
    {
        return Ok(Some(PairPlan {
            first: cand,
            second: base,
            purpose: Purpose::Candidate,
            candidate: Some(cand),
        }));
    }
    Ok(ladder.map(plan_of))
}

/// The bot of a version, as the engine runs it.
pub(crate) fn built(arena: &Arena, v: &Version) -> Result<BuiltBot, ServerError> {
    built_in(&arena.config, v, arena.version_dir(v.bot_id, v.number))
}

/// The bot of a version whose built folder is `dir` (the arena's, or a worker's copy).
pub(crate) fn built_in(
    config: &ArenaConfig,
    v: &Version,
    dir: std::path::PathBuf,
) -> Result<BuiltBot, ServerError> {
    let language = config
        .language(&v.language)
        .ok_or_else(|| ServerError::Invalid(format!("the language {:?} is no longer offered", v.language)))?;
    Ok(BuiltBot {
        name: format!("{} v{}", v.bot, v.number),
        argv: language.run_argv().map_err(ServerError::Invalid)?,
        dir,
    })
}

/// The configuration of one game between two built bots, by the arena's settings: the one
/// function the server's engine and the workers take their games from.
pub(crate) fn game_config(
    config: &ArenaConfig,
    south: &BuiltBot,
    north: &BuiltBot,
    seed: u64,
) -> Result<GameConfig, ServerError> {
    let g = &config.games;
    // Every entrant's bot in the sandbox, with the limits of arena.toml.
    let profile = crate::sandbox::Profile::bot(config);
    let mut game = GameConfig::new(profile.bot_spec(south), profile.bot_spec(north), config.variant());
    game.start = crate::engine::opening::random_opening(config.variant(), g.opening_plies, seed)
        .map_err(|e| ServerError::Invalid(format!("games.opening_plies = {}: {e}", g.opening_plies)))?;
    game.time = TimeControl {
        base: Some(Duration::from_millis(g.base_ms)),
        increment: Duration::from_millis(g.increment_ms),
        move_time: None,
        startup: Duration::from_millis(g.startup_ms),
        margin: TimeControl::default().margin,
    };
    game.max_plies = Some(g.max_plies);
    game.seed = seed;
    game.limits = profile.limits;
    game.isolation = profile.options.isolation;
    game.sandbox = profile.options.sandbox;
    game.no_ponder = g.no_ponder;
    Ok(game)
}

/// Plays the two games of a pair, recording each.
pub async fn play_pair(
    arena: &Arena,
    engine: &Engine,
    stats: &SharedStats,
    plan: &PairPlan,
    term: &CancellationToken,
) -> Result<(), ServerError> {
    let (a, b) = (plan.first, plan.second);
    let (va, vb) = arena.db.read(move |c| Ok((versions::version(c, a)?, versions::version(c, b)?))).await?;
    let (Some(va), Some(vb)) = (va, vb) else {
        return Err(ServerError::NotFound("a version of the pair".into()));
    };
    let seed = rand::random::<u32>();
    let pair_key = format!("{}-{}-{seed}", a.min(b), a.max(b));
    let pairing = PairGames { key: &pair_key, seed, purpose: plan.purpose };
    if arena.config.games.executor == Executor::Workers {
        // Both games queued at once: two workers may play them side by side.
        if let Ok(mut s) = stats.lock() {
            s.started(a, b, now_ms());
        }
        let (first, second) = tokio::join!(
            play_one(arena, engine, &va, &vb, pairing, term),
            play_one(arena, engine, &vb, &va, pairing, term),
        );
        for (finished, (south, north)) in [(first?, (a, b)), (second?, (b, a))] {
            if finished
                && plan.purpose.is_rated()
                && let Ok(mut s) = stats.lock()
            {
                s.finished(south, north);
            }
        }
        if let Some(cand) = plan.candidate {
            crate::candidate::update(arena, cand).await?;
            arena.leaderboard.changed();
        }
        return Ok(());
    }
    for (south, north) in [(&va, &vb), (&vb, &va)] {
        if term.is_cancelled() {
            break;
        }
        if let Ok(mut s) = stats.lock() {
            s.started(south.id, north.id, now_ms());
        }
        let finished = play_one(arena, engine, south, north, pairing, term).await?;
        if finished
            && plan.purpose.is_rated()
            && let Ok(mut s) = stats.lock()
        {
            s.finished(south.id, north.id);
        }
    }
    if let Some(cand) = plan.candidate {
        crate::candidate::update(arena, cand).await?;
        arena.leaderboard.changed();
    }
    Ok(())
}

/// What the two games of a pair share.
#[derive(Clone, Copy)]
struct PairGames<'a> {
    key: &'a str,
    seed: u32,
    purpose: Purpose,
}

async fn play_one(
    arena: &Arena,
    engine: &Engine,
    south: &Version,
    north: &Version,
    pairing: PairGames<'_>,
    term: &CancellationToken,
) -> Result<bool, ServerError> {
    let PairGames { key: pair_key, seed, purpose } = pairing;
    if arena.config.games.executor == Executor::Workers {
        return crate::worker::queued::play_one(arena, south, north, pair_key, seed, purpose).await;
    }
    let config = game_config(&arena.config, &built(arena, south)?, &built(arena, north)?, u64::from(seed))?;
    let new = NewGame {
        south_id: south.id,
        north_id: north.id,
        pair_key: pair_key.to_owned(),
        opening_seed: i64::from(seed),
        purpose,
    };
    let games_dir = arena.dir.join("games");
    let id = arena
        .db
        .write(move |c| {
            games::insert_running(c, &new, |id| {
                games_dir.join(format!("{id}.jsonl")).to_string_lossy().into_owned()
            })
        })
        .await?;
    arena.metrics.games_running.inc();
    arena.leaderboard.changed();
    arena.live.start(
        id.get(),
        &GameStart {
            south: format!("{} v{}", south.bot, south.number),
            north: format!("{} v{}", north.bot, north.number),
            purpose,
        },
    );
    let outcome = engine.play_until(config, arena.game_log_path(id), id.get(), term.child_token()).await;
    // Ends the live feed if the log did not (a game the server could not play has no result).
    arena.live.finish(id.get(), "the game was stopped");
    arena.metrics.games_running.dec();
    let finished = matches!(&outcome, Ok(r) if r.reason != bao_game::Reason::Aborted);
    match outcome {
        Ok(r) if r.reason == bao_game::Reason::Aborted => {
            arena.metrics.games_aborted.inc();
            let why = public_text(arena, &r.detail);
            arena.db.write(move |c| games::abort(c, id, &why)).await?;
            if let Some(bao_game::AbortCause::RefereeFault(why)) = r.aborted {
                // Never a result: played again later, after the loop's pause.
                arena.leaderboard.changed();
                return Err(ServerError::Internal(format!(
                    "game {id} aborted by the server's own failure: {why}"
                )));
            }
        }
        Ok(r) => {
            let result = GameResult::of_winner(r.winner);
            let reason = if r.detail.is_empty() {
                r.reason.to_string()
            } else {
                format!("{}: {}", r.reason, public_text(arena, &r.detail))
            };
            let plies = r.plies;
            arena.db.write(move |c| games::finish(c, id, result, &reason, plies)).await?;
            arena.metrics.games_finished.inc();
            arena.metrics.game_seconds.observe(r.duration.as_secs_f64());
        }
        Err(e) => {
            arena.metrics.games_aborted.inc();
            let why = public_text(arena, &format!("the server failed to play the game: {e}"));
            arena.db.write(move |c| games::abort(c, id, &why)).await?;
            arena.leaderboard.changed();
            return Err(e);
        }
    }
    arena.leaderboard.changed();
    Ok(finished)
}
