//! Running the server: open the arena, recover from a stop, start the
//! background workers (builds, games, ratings), serve HTTP until SIGTERM or
//! Ctrl-C, then stop gracefully (running games are recorded as aborted).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::net::TcpListener;

use crate::arena::{Arena, SharedArena};
use crate::build::gate::ConformanceGate;
use crate::engine::{CheckLimits, Engine};
use crate::error::ServerError;

/// How to run the server.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The arena directory (created on first start).
    pub data_dir: PathBuf,
    /// Listen here instead of the configuration's `listen`.
    pub listen: Option<SocketAddr>,
}

/// Runs the server until SIGTERM or Ctrl-C.
pub async fn serve(opts: ServeOptions) -> Result<(), ServerError> {
    let arena = Arena::open(&opts.data_dir)?;
    let (aborted, requeued) = arena.recover()?;
    if aborted + requeued > 0 {
        tracing::warn!(aborted, requeued, "recovered from a stop: running games aborted, builds requeued");
    }
    crate::sandbox::probe::require(&arena.config, &arena.dir.join("arena.toml")).await?;
    let arena: SharedArena = Arc::new(arena);
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
    let gate: Arc<dyn ConformanceGate> = engine.clone();
    let mut workers = Vec::new();
    for _ in 0..arena.config.limits.build_concurrency {
        workers.push(tokio::spawn(crate::build::worker::run(arena.clone(), gate.clone())));
    }
    drop(gate);
    workers.push(tokio::spawn(crate::scheduler::run(arena.clone(), engine.clone())));
    workers.push(tokio::spawn(crate::ratings::run(arena.clone())));
    workers.push(tokio::spawn(crate::leaderboard_snapshot::run(arena.clone())));

    let app = crate::http::router(arena.clone());
    let shutdown = arena.shutdown.clone();
    tokio::spawn(async move {
        wait_for_signal().await;
        tracing::info!("shutting down");
        shutdown.cancel();
    });
    let token = arena.shutdown.clone();
    axum::serve(listener, app)
        .with_graceful_shutdown(async move { token.cancelled().await })
        .await
        .map_err(|e| ServerError::io("the HTTP server failed", e))?;
    for w in workers {
        let _ = w.await;
    }
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

async fn wait_for_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    tokio::select! {
        () = term => {}
        r = tokio::signal::ctrl_c() => { if let Err(e) = r { tracing::error!(error = %e, "ctrl-c"); } }
    }
}
