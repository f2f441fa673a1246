//! The build worker: takes the oldest queued version, builds it in its
//! directory, runs the conformance gate on it, and records the outcome
//! (`active`, `evaluating` for a candidate, or `rejected` with the reason).
//! When the workers build (`games.executor = "workers"` on PostgreSQL), it does not run:
//! `crate::worker::build_task` makes the same changes on the worker processes.

use std::sync::Arc;
use std::time::Duration;

use crate::arena::Arena;
use crate::build::gate::{BuiltBot, ConformanceGate};
use crate::build::sandbox::run_build;
use crate::config::Executor;
use crate::domain::VersionChange;
use crate::error::ServerError;
use crate::versions::{self, Version};

/// Runs builds until `term` ends (shutdown, or this server no longer leads); none when the
/// workers build ([`super::on_workers`]).
pub async fn run(
    arena: Arc<Arena>,
    gate: Arc<dyn ConformanceGate>,
    term: tokio_util::sync::CancellationToken,
) {
    if super::on_workers(&arena) {
        tracing::info!("builds and conformance checks are the workers' tasks: this server builds nothing");
        return;
    }
    loop {
        match process_one(&arena, gate.as_ref()).await {
            Ok(true) => continue,
            Ok(false) => {}
            Err(e) => tracing::error!(error = %e, "build worker"),
        }
        tokio::select! {
            () = term.cancelled() => return,
            () = arena.build_wake.notified() => {}
            () = tokio::time::sleep(Duration::from_secs(5)) => {}
        }
    }
}

/// Builds and checks one queued version; false when none was queued.
pub async fn process_one(arena: &Arena, gate: &dyn ConformanceGate) -> Result<bool, ServerError> {
    let Some(v) = arena.db.write(|conn| versions::claim_queued(conn)).await? else { return Ok(false) };
    let span = tracing::info_span!("build", version = v.id.get(), bot = %v.bot, number = v.number);
    let _enter = span.enter();
    let dir = arena.version_dir(v.bot_id, v.number);
    let Some(language) = arena.config.language(&v.language).cloned() else {
        reject(
            arena,
            &v,
            VersionChange::BUILD_FAILED,
            format!("the language {:?} is no longer offered", v.language),
        )
        .await?;
        return Ok(true);
    };
    if !dir.is_dir() {
        reject(arena, &v, VersionChange::BUILD_FAILED, "the upload's files are missing on the server".into())
            .await?;
        return Ok(true);
    }
    let profile = crate::sandbox::Profile::build(&arena.config);
    let timeout = Duration::from_secs(arena.config.limits.build_timeout_secs);
    let outcome = if language.build.trim().is_empty() {
        None
    } else {
        let o = run_build(&language.build, &dir, &profile, crate::worker::artifacts::arch(), timeout).await;
        if o.not_started {
            // The server's own failure: the version waits for the next round.
            tracing::error!(log = %o.log, "cannot start a build; the version stays queued");
            let id = v.id;
            arena
                .db
                .write(move |conn| versions::set_state(conn, id, VersionChange::REQUEUE_BUILD, ""))
                .await?;
            return Ok(false);
        }
        arena.metrics.build_seconds.observe(o.elapsed.as_secs_f64());
        Some(o)
    };
    let log =
        outcome.as_ref().map_or_else(|| "(this language has no build step)\n".to_owned(), |o| o.log.clone());
    let id = v.id;
    arena.db.write(move |conn| versions::set_build_log(conn, id, &log)).await?;
    if outcome.as_ref().is_some_and(|o| !o.success) {
        arena.metrics.builds_failed.inc();
        reject(arena, &v, VersionChange::BUILD_FAILED, "the build failed (see the build log)".into()).await?;
        return Ok(true);
    }
    let moved =
        arena.db.write(move |conn| versions::set_state(conn, id, VersionChange::START_CHECK, "")).await?;
    if !moved {
        return Ok(true);
    }
    let argv = language.run_argv().map_err(ServerError::Invalid)?;
    let bot = BuiltBot { name: format!("{} v{}", v.bot, v.number), argv, dir };
    let report = gate.check(&bot).await;
    let text = report.report.clone();
    arena.db.write(move |conn| versions::set_check_report(conn, id, &text)).await?;
    if !report.passed {
        arena.metrics.checks_failed.inc();
        reject(
            arena,
            &v,
            VersionChange::CHECK_FAILED,
            "the conformance check failed (see the report)".into(),
        )
        .await?;
        return Ok(true);
    }
    if arena.config.games.executor == Executor::Workers {
        // The workers play it from the database: its built folder goes there now.
        match crate::worker::artifacts::ensure(arena, id, bot.dir.clone()).await {
            Ok(()) => {}
            Err(ServerError::Invalid(why)) => {
                reject(arena, &v, VersionChange::CHECK_FAILED, why).await?;
                return Ok(true);
            }
            Err(e) => return Err(e),
        }
    }
    if v.candidate {
        arena
            .db
            .write(move |conn| {
                versions::set_state(
                    conn,
                    id,
                    VersionChange::START_EVALUATION,
                    "passed the checks; playing the active version",
                )
            })
            .await?;
    } else {
        arena
            .db
            .write(move |conn| versions::activate(conn, id, VersionChange::ACTIVATE, "passed the checks"))
            .await?;
    }
    tracing::info!("version passed the gate");
    arena.game_wake.notify_one();
    arena.leaderboard.changed();
    Ok(true)
}

async fn reject(
    arena: &Arena,
    v: &Version,
    change: VersionChange,
    reason: String,
) -> Result<(), ServerError> {
    tracing::info!(version = v.id.get(), %reason, "version rejected");
    let id = v.id;
    arena.db.write(move |conn| versions::set_state(conn, id, change, &reason)).await?;
    Ok(())
}
