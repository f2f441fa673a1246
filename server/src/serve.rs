//! Running the server: open the arena, recover from a stop, start the
//! background workers (builds, games, ratings), serve HTTP until SIGTERM, SIGINT
//! or SIGHUP, then stop gracefully (running games are recorded as aborted).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::net::TcpListener;

use crate::arena::{Arena, SharedArena};
use crate::build::gate::ConformanceGate;
use crate::config::ArenaConfig;
use crate::engine::{CheckLimits, Engine};
use crate::error::ServerError;
use crate::http::listener::{self, ConnectionLimits};

/// How to run the server.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The arena directory (created on first start).
    pub data_dir: PathBuf,
    /// The database's `postgres://` URL, or `None` for the arena's SQLite file.
    pub database: Option<String>,
    /// Listen here instead of the configuration's `listen`.
    pub listen: Option<SocketAddr>,
}

/// Runs the server until SIGTERM, SIGINT (Ctrl-C) or SIGHUP; `Ok` after such a stop.
pub async fn serve(opts: ServeOptions) -> Result<(), ServerError> {
    // Off the async threads: the database's own client may block (PostgreSQL's runs a
    // runtime of its own).
    let place = crate::ArenaPlace { dir: opts.data_dir.clone(), database: opts.database.clone() };
    let arena: SharedArena = Arc::new(
        tokio::task::spawn_blocking(move || Arena::open_place(&place))
            .await
            .map_err(|e| ServerError::Internal(format!("opening the arena failed: {e}")))??,
    );
    // The leader recovers from the last stop before this server listens (at once on SQLite,
    // and on PostgreSQL when no other server leads); a follower when it takes the lead.
    let first = crate::leader::try_acquire(arena.db.location()).await?;
    if first.is_some() {
        recover(&arena).await?;
    } else {
        tracing::info!(
            database = %arena.db.location().describe(),
            "another server leads the builds, games and ratings: serving pages and the API, ready to take over"
        );
    }
    crate::sandbox::probe::require(&arena.config, &arena.dir.join("arena.toml")).await?;
    let limits = connection_limits(&arena.config);
    let addr = opts.listen.unwrap_or(arena.config.listen);
    let listener =
        TcpListener::bind(addr).await.map_err(|e| ServerError::io(format!("cannot listen on {addr}"), e))?;
    let local = listener.local_addr().map_err(|e| ServerError::io("cannot read the listening address", e))?;
    // The first line on stdout says where the server listens (tests read it).
    println!("listening on http://{local}");
    tracing::info!(%local, dir = %arena.dir.display(), "serving");

    let check_limits = CheckLimits {
        move_time: std::time::Duration::from_millis(arena.config.gate.move_ms),
        startup: std::time::Duration::from_millis(arena.config.gate.startup_ms),
        profile: crate::sandbox::Profile::bot(&arena.config),
    };
    let engine = Arc::new(Engine::start(arena.live.clone(), arena.shutdown.clone(), check_limits)?);
    let workers = vec![tokio::spawn(crate::leaderboard_snapshot::run(arena.clone()))];
    let leading = tokio::spawn(lead(arena.clone(), engine.clone(), first));

    let app = crate::http::router(arena.clone());
    let shutdown = arena.shutdown.clone();
    // SIGTERM, SIGINT (Ctrl-C) or SIGHUP, each a graceful stop (README, "Exit codes": the
    // server then exits 130): the one signal module of every long-running command.
    let stop = tokio_util::sync::CancellationToken::new();
    bao_tournament::signals::install(stop.clone())
        .map_err(|e| ServerError::io("cannot install the signal handlers", e))?;
    tokio::spawn(async move {
        stop.cancelled().await;
        tracing::info!(signal = bao_tournament::signals::received().unwrap_or("a signal"), "shutting down");
        shutdown.cancel();
    });
    let metrics_server = match arena.config.http.metrics_listen {
        None => None,
        Some(addr) => {
            let metrics = TcpListener::bind(addr)
                .await
                .map_err(|e| ServerError::io(format!("cannot listen on {addr} (http.metrics_listen)"), e))?;
            tracing::info!(%addr, "serving /metrics");
            let few = ConnectionLimits { max_connections: 16, per_address: 16, ..limits };
            let router = crate::http::metrics_router(arena.clone());
            Some(tokio::spawn(listener::serve(metrics, router, few, arena.shutdown.clone())))
        }
    };
    listener::serve(listener, app, limits, arena.shutdown.clone()).await;
    if let Some(m) = metrics_server {
        let _ = m.await;
    }
    for w in workers {
        let _ = w.await;
    }
    let _ = leading.await;
    match Arc::try_unwrap(engine) {
        Ok(engine) => tokio::task::spawn_blocking(move || engine.stop())
            .await
            .map_err(|e| ServerError::Internal(format!("engine stop: {e}")))?,
        Err(_) => tracing::warn!("the engine is still in use at shutdown"),
    }
    // A last rating round so that the stored standings include every recorded game.
    if let Err(e) = crate::ratings::recompute(&arena, &mut crate::ratings::RatingState::default()).await {
        tracing::error!(error = %e, "final rating recomputation failed");
    }
    tracing::info!("stopped");
    Ok(())
}

/// Puts the arena back in a consistent state after a stop (on a blocking thread).
async fn recover(arena: &SharedArena) -> Result<(), ServerError> {
    let a = arena.clone();
    let (aborted, requeued) = tokio::task::spawn_blocking(move || a.recover())
        .await
        .map_err(|e| ServerError::Internal(format!("recovery failed: {e}")))??;
    if aborted + requeued > 0 {
        tracing::warn!(aborted, requeued, "recovered from a stop: running games aborted, builds requeued");
    }
    Ok(())
}

/// Leads the background work — builds, matchmaking and games, rating rounds — whenever this
/// server holds the lead (`first`, or when it takes it), until shutdown.
///
/// A term of leadership ends when the lock's connection fails (see [`crate::leader`]): the
/// server then steps down in place — its builds, matchmaker and rating rounds stop, its own
/// engine's games are aborted (their recording changes nothing if the next leader already
/// recovered them) — and goes on answering HTTP as a follower, trying for the lead again.
async fn lead(arena: SharedArena, engine: Arc<Engine>, first: Option<crate::leader::Leadership>) {
    let mut next = first;
    loop {
        let leadership = match next.take() {
            Some(l) => l,
            None => {
                let Some(l) = crate::leader::acquire(arena.db.location(), &arena.shutdown).await else {
                    return;
                };
                tracing::warn!("this server now leads the builds, games and ratings");
                if let Err(e) = recover(&arena).await {
                    // Given up with the lock: another server (or this one, later) tries again.
                    tracing::error!(error = %e, "recovery on taking the lead failed; stepping down");
                    drop(l);
                    tokio::select! {
                        () = arena.shutdown.cancelled() => return,
                        () = tokio::time::sleep(crate::leader::POLL) => {}
                    }
                    continue;
                }
                l
            }
        };
        arena.metrics.leader.set(1);
        // The term: ends at shutdown, or when this server no longer leads.
        let term = arena.shutdown.child_token();
        let gate: Arc<dyn ConformanceGate> = engine.clone();
        let mut workers = Vec::new();
        for _ in 0..arena.config.limits.build_concurrency {
            workers.push(tokio::spawn(crate::build::worker::run(arena.clone(), gate.clone(), term.clone())));
        }
        drop(gate);
        workers.push(tokio::spawn(crate::scheduler::run(arena.clone(), engine.clone(), term.clone())));
        workers.push(tokio::spawn(crate::ratings::run(arena.clone(), term.clone())));
        tokio::select! {
            () = leadership.lost() => {
                tracing::error!(
                    "lost the lead (the database connection that held it failed): stepping down, serving on as a follower"
                );
            }
            () = arena.shutdown.cancelled() => {}
        }
        term.cancel();
        for w in workers {
            let _ = w.await;
        }
        arena.metrics.leader.set(0);
        drop(leadership);
        if arena.shutdown.is_cancelled() {
            return;
        }
        arena.metrics.leader_stepped_down.inc();
    }
}

/// Descriptors kept for the games, builds, database and logs, out of the connections' reach.
fn reserved_descriptors(config: &ArenaConfig) -> u64 {
    // A game: two bots, each with its pipes, pidfd, cgroup files, log; a build likewise.
    let games = config.games.slots().0 as u64 * 2;
    let builds = config.limits.build_concurrency as u64;
    128 + 48 * games + 32 * builds
}

/// Raises the soft descriptor limit to the hard one and fits the connection cap under it.
fn connection_limits(config: &ArenaConfig) -> ConnectionLimits {
    let http = &config.http;
    let descriptors = raise_descriptor_limit();
    let room = descriptors.map(|n| n.saturating_sub(reserved_descriptors(config)));
    let mut max_connections = http.max_connections;
    if let Some(room) = room {
        let room = usize::try_from(room).unwrap_or(usize::MAX).max(1);
        if room < max_connections {
            tracing::warn!(
                configured = max_connections,
                used = room,
                descriptors,
                "http.max_connections lowered to fit the descriptor limit (raise `ulimit -n` or LimitNOFILE)"
            );
            max_connections = room;
        }
    }
    tracing::info!(max_connections, per_address = http.max_connections_per_address, "connection caps");
    ConnectionLimits {
        header_timeout: http.header_timeout(),
        max_connections,
        per_address: http.max_connections_per_address.min(max_connections),
    }
}

/// Sets the soft `RLIMIT_NOFILE` to the hard limit; returns the soft limit now in force.
fn raise_descriptor_limit() -> Option<u64> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).ok()?;
    if soft >= hard {
        return Some(soft);
    }
    match setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
        Ok(()) => {
            tracing::info!(from = soft, to = hard, "raised the descriptor limit");
            Some(hard)
        }
        Err(e) => {
            tracing::warn!(error = %e, soft, hard, "cannot raise the descriptor limit");
            Some(soft)
        }
    }
}
