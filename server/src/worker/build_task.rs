//! A worker's builds ([`super::build_queue`]): it claims a build by lease, fetches the
//! version's uploaded folder from the database (checking its hash), runs the language's build
//! in the build sandbox (`crate::build::sandbox::run_build` with `Profile::build`, as the
//! server does) in a folder of its cache, and then:
//!
//! - for a first build, runs the conformance gate (the server's own `ConformanceGate`, through
//!   the worker's engine), packs the built folder as the artifact for its architecture, and
//!   records the build log, the report, the artifact and the version's state change in one
//!   transaction that commits only while it holds the lease;
//! - for a build for its architecture, runs the same conformance gate on it (other code than
//!   the first build's, which no check has run yet), and records the artifact, or that the
//!   build or its check failed there (the version's state does not change).
//!
//! A failure of the machine (a build that cannot start, no sandbox, the database gone) is
//! never charged to the bot: the build is handed back, and after [`MAX_ATTEMPTS`] attempts it
//! is recorded as the arena's failure, saying so. A worker stopping (SIGTERM) stops its builds
//! and hands them back; one killed loses its lease, and another worker builds again.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::artifacts;
use super::build_queue::{self, ArchFailure, BuildLease, GateRecord, Verdict};
use super::process::{MAX_ATTEMPTS, SETTINGS, TICK, Worker};
use crate::build::gate::{BuiltBot, ConformanceGate};
use crate::build::sandbox::run_build;
use crate::config::ArenaConfig;
use crate::db::now_ms;
use crate::error::ServerError;
use crate::versions;

/// Claims a build this worker may take, if one waits (a read outside the write lock first:
/// idle workers look often, builds are rare).
pub(super) async fn claim(w: &Arc<Worker>) -> Result<Option<BuildLease>, ServerError> {
    let arch = w.arch.clone();
    if !w.db.read(move |c| build_queue::waiting(c, &arch)).await? {
        return Ok(None);
    }
    let me = w.clone();
    w.db.write(move |c| build_queue::claim(c, &me.id, &me.arch, me.lease_ms)).await
}

/// What running a claimed build came to.
enum Outcome {
    /// A first build's record.
    Gate(GateRecord),
    /// A build for an architecture: its artifact, or why it (or its check) failed.
    Arch(Result<Vec<u8>, ArchFailure>),
    /// Stopped (the worker is stopping, or the lease was lost): handed back.
    Stopped,
}

/// Runs a claimed build and records it, hands it back, or discards it (lease lost).
pub(super) async fn build_claimed(w: Arc<Worker>, lease: BuildLease) {
    w.running.fetch_add(1, Ordering::Relaxed);
    let span = tracing::info_span!(
        "build",
        version = lease.version.get(),
        arch = %lease.arch,
        attempt = lease.attempt
    );
    let _enter = span.enter();
    let stop = w.shutdown.child_token();
    let lost = Arc::new(AtomicBool::new(false));
    let keeper = tokio::spawn(keep_lease(w.clone(), lease.clone(), stop.clone(), lost.clone()));
    let outcome = match tempfile::Builder::new()
        .prefix(&format!("v{}-", lease.version))
        .tempdir_in(w.cache.join("builds"))
    {
        Ok(dir) => {
            let o = run(&w, &lease, dir.path(), &stop).await;
            // The build's files may belong to the sandbox's uid: removed as far as allowed.
            let path = dir.keep();
            let _ = tokio::task::spawn_blocking(move || std::fs::remove_dir_all(path)).await;
            o
        }
        Err(e) => Err(ServerError::io("cannot make a build folder in the cache", e)),
    };
    keeper.abort();
    let l = lease.clone();
    match outcome {
        _ if lost.load(Ordering::Relaxed) => {
            tracing::warn!("this worker lost its lease on the build: its outcome is discarded");
        }
        Ok(Outcome::Stopped) => release(&w, &lease).await,
        Ok(Outcome::Gate(record)) => {
            let arch = w.arch.clone();
            match w.db.write(move |c| build_queue::finish_gate(c, &l, &arch, &record, now_ms())).await {
                Ok(true) => tracing::info!("first build and check recorded"),
                Ok(false) => tracing::warn!("the lease expired before the build was recorded: discarded"),
                Err(e) => {
                    tracing::error!(error = %e, "cannot record the build: its lease will expire and it is built again")
                }
            }
        }
        Ok(Outcome::Arch(result)) => {
            match w.db.write(move |c| build_queue::finish_arch(c, &l, &result, now_ms())).await {
                Ok(true) => tracing::info!("build for this architecture recorded"),
                Ok(false) => tracing::warn!("the lease expired before the build was recorded: discarded"),
                Err(e) => {
                    tracing::error!(error = %e, "cannot record the build: its lease will expire and it is built again")
                }
            }
        }
        Err(e) => failed(&w, &lease, e.to_string()).await,
    }
    w.running.fetch_sub(1, Ordering::Relaxed);
}

/// Hands a build back.
async fn release(w: &Worker, lease: &BuildLease) {
    let l = lease.clone();
    if let Err(e) = w.db.read(move |c| build_queue::release(c, &l)).await {
        tracing::warn!(error = %e, "cannot hand the build back: its lease will expire");
    }
}

/// This worker could not run the build (the machine's fault, never the bot's): handed back,
/// or after [`MAX_ATTEMPTS`] attempts by any workers recorded as the arena's failure.
async fn failed(w: &Worker, lease: &BuildLease, why: String) {
    if lease.attempt < MAX_ATTEMPTS {
        tracing::error!(error = %why, "this worker could not run the build: handed back");
        release(w, lease).await;
        if !w.shutdown.is_cancelled() {
            // No tight loop of failures on a machine that cannot build.
            tokio::time::sleep(TICK).await;
        }
        return;
    }
    tracing::error!(error = %why, "the workers failed to run the build {MAX_ATTEMPTS} times: recorded");
    let reason = format!(
        "the arena's workers could not build or check it ({MAX_ATTEMPTS} attempts; a failure of the arena's \
         machines, not of the submission: submit it again later); last: {why}"
    );
    let l = lease.clone();
    let r = if lease.is_gate() {
        let arch = w.arch.clone();
        let record =
            GateRecord { build_log: None, check_report: None, verdict: Verdict::ServerFailed(reason) };
        w.db.write(move |c| build_queue::finish_gate(c, &l, &arch, &record, now_ms())).await
    } else {
        let outcome = Err(ArchFailure { reason, log: String::new() });
        w.db.write(move |c| build_queue::finish_arch(c, &l, &outcome, now_ms())).await
    };
    if let Err(e) = r {
        tracing::warn!(error = %e, "cannot record the failed build: its lease will expire");
    }
}

/// Renews the lease every third of its length; when it is lost (or cannot be renewed before
/// it expires), sets `lost` and stops the build.
async fn keep_lease(w: Arc<Worker>, lease: BuildLease, stop: CancellationToken, lost: Arc<AtomicBool>) {
    let every = Duration::from_millis(u64::try_from(w.lease_ms / 3).unwrap_or(1000));
    let mut held_until =
        tokio::time::Instant::now() + Duration::from_millis(u64::try_from(w.lease_ms).unwrap_or(0)) - every;
    loop {
        tokio::time::sleep(every).await;
        let (l, lease_ms) = (lease.clone(), w.lease_ms);
        let asked = tokio::time::Instant::now();
        match w.db.read(move |c| build_queue::renew(c, &l, lease_ms)).await {
            Ok(true) => held_until = asked + Duration::from_millis(u64::try_from(lease_ms).unwrap_or(0)),
            Ok(false) => break,
            Err(e) if tokio::time::Instant::now() < held_until => {
                tracing::warn!(error = %e, "cannot renew the build's lease; trying again")
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot renew the build's lease before it expires");
                break;
            }
        }
    }
    lost.store(true, Ordering::Relaxed);
    stop.cancel();
}

/// Fetches, builds and (for a first build) checks the version in `dir`.
async fn run(
    w: &Worker,
    lease: &BuildLease,
    dir: &Path,
    stop: &CancellationToken,
) -> Result<Outcome, ServerError> {
    let id = lease.version;
    let (version, settings, source) =
        w.db.read(move |c| {
            Ok((versions::version(c, id)?, super::queued::settings(c)?, build_queue::source(c, id)?))
        })
        .await?;
    let version = version.ok_or_else(|| ServerError::Internal(format!("the version {id} has no row")))?;
    let text = settings.ok_or_else(|| ServerError::Internal("the arena's settings are gone".into()))?;
    let config = ArenaConfig::parse(&text, Path::new(SETTINGS))?;
    // What the server's own build loop says of a submission it cannot build.
    let refuse = |why: String| {
        Ok(if lease.is_gate() {
            Outcome::Gate(GateRecord {
                build_log: None,
                check_report: None,
                verdict: Verdict::BuildFailed(why),
            })
        } else {
            Outcome::Arch(Err(ArchFailure { reason: why, log: String::new() }))
        })
    };
    let Some(language) = config.language(&version.language).cloned() else {
        return refuse(format!("the language {:?} is no longer offered", version.language));
    };
    let Some((hash, bytes)) = source else {
        return refuse("the upload's files are missing on the server".into());
    };
    let got = artifacts::hash(&bytes);
    if got != hash {
        return Err(ServerError::Internal(format!(
            "the stored upload of version {id} has hash {got}, not {hash}"
        )));
    }
    let target = dir.to_path_buf();
    tokio::task::spawn_blocking(move || artifacts::unpack_into(&bytes, &target))
        .await
        .map_err(|e| ServerError::Internal(format!("unpacking an upload failed: {e}")))?
        .map_err(|e| ServerError::io(format!("cannot unpack version {id}'s upload"), e))?;

    let outcome = if language.build.trim().is_empty() {
        None
    } else {
        let profile = crate::sandbox::Profile::build(&config);
        let timeout = Duration::from_secs(config.limits.build_timeout_secs);
        let o = tokio::select! {
            o = run_build(&language.build, dir, &profile, &w.arch, timeout) => o,
            () = stop.cancelled() => return Ok(Outcome::Stopped),
        };
        if o.not_started {
            // The machine's failure: handed back, never charged to the bot.
            return Err(ServerError::Internal(w_scrub(w, &o.log)));
        }
        Some(o)
    };
    let log = outcome
        .as_ref()
        .map_or_else(|| "(this language has no build step)\n".to_owned(), |o| w_scrub(w, &o.log));
    if outcome.as_ref().is_some_and(|o| !o.success) {
        return Ok(if lease.is_gate() {
            Outcome::Gate(GateRecord {
                build_log: Some(log),
                check_report: None,
                verdict: Verdict::BuildFailed("the build failed (see the build log)".into()),
            })
        } else {
            Outcome::Arch(Err(ArchFailure { reason: format!("the build failed on {}", lease.arch), log }))
        });
    }
    if lease.is_gate() {
        let l = lease.clone();
        if !w.db.write(move |c| build_queue::start_check(c, &l)).await? {
            // The lease was lost meanwhile: another worker builds it again.
            return Ok(Outcome::Stopped);
        }
    }
    // Every build is checked by the gate, the first and each architecture's: a build for
    // another architecture is other code, which no check has run yet.
    let argv = language.run_argv().map_err(ServerError::Invalid)?;
    let bot = BuiltBot { name: format!("{} v{}", version.bot, version.number), argv, dir: dir.to_path_buf() };
    let report = tokio::select! {
        r = w.engine.check(&bot) => r,
        () = stop.cancelled() => return Ok(Outcome::Stopped),
    };
    if w.shutdown.is_cancelled() {
        // The engine stops with the worker: a check cut short says nothing of the bot.
        return Ok(Outcome::Stopped);
    }
    let text = w_scrub(w, &report.report);
    if !lease.is_gate() {
        if !report.passed {
            let log = format!("{log}\n--- the conformance check on {} ---\n{text}", lease.arch);
            return Ok(Outcome::Arch(Err(ArchFailure {
                reason: build_queue::check_failed_on(&lease.arch),
                log,
            })));
        }
        return match pack(dir.to_path_buf()).await {
            Ok(bytes) => Ok(Outcome::Arch(Ok(bytes))),
            Err(ServerError::Invalid(reason)) => Ok(Outcome::Arch(Err(ArchFailure { reason, log }))),
            Err(e) => Err(e),
        };
    }
    if !report.passed {
        return Ok(Outcome::Gate(GateRecord {
            build_log: Some(log),
            check_report: Some(text),
            verdict: Verdict::CheckFailed("the conformance check failed (see the report)".into()),
        }));
    }
    let verdict = match pack(dir.to_path_buf()).await {
        Ok(bytes) => Verdict::Passed(bytes),
        Err(ServerError::Invalid(why)) => Verdict::CheckFailed(why),
        Err(e) => return Err(e),
    };
    Ok(Outcome::Gate(GateRecord { build_log: Some(log), check_report: Some(text), verdict }))
}

/// The built folder as an artifact (refused above the artifacts' size limit).
async fn pack(dir: std::path::PathBuf) -> Result<Vec<u8>, ServerError> {
    tokio::task::spawn_blocking(move || artifacts::pack(&dir))
        .await
        .map_err(|e| ServerError::Internal(format!("packing a built folder failed: {e}")))?
}

/// Text shown to the version's owner, the worker's folders left out.
fn w_scrub(w: &Worker, text: &str) -> String {
    super::process::scrub(w, text)
}
