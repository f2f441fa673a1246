//! The queue of builds for workers (`games.executor = "workers"` on PostgreSQL), with leases
//! as the games have ([`super::queue`]). A row of `build_tasks` is keyed by (version, arch):
//!
//! - arch [`GATE`] (`''`): a version's first build and its conformance check, queued with the
//!   version's row by the upload. Any worker takes it; its outcome is the version's state
//!   change — exactly those the server's own build loop makes (`crate::build::worker`):
//!   `rejected` when the build or the check fails, else `active` (or `evaluating` for a
//!   candidate) — with the build log, the check report and the built folder for the worker's
//!   architecture, in one transaction that commits only while the worker holds the lease.
//! - arch `aarch64` (...): a build of an active or evaluating version for the workers of that
//!   architecture, queued by such a worker when it finds the version without an artifact for
//!   it, and checked by the same conformance gate as the first build. Its outcome only adds
//!   that artifact, or records that the build or its check failed on that architecture
//!   (`version_arch_failures`), so that it is not tried again and no game is played with it.
//!
//! A claim writes the worker's name, a lease expiry on the database's clock and the next
//! attempt number (on PostgreSQL picking the row `FOR UPDATE SKIP LOCKED`); for a first build
//! it also moves the version to `building` — so the claim runs under the servers' write lock,
//! which a build (seconds to minutes) can afford. First builds go first, in the fair order of
//! users of the server's own build queue (`versions::claim_queued`): the user served least
//! recently first.

use crate::db::{Conn, OptionalExtension, params};
use crate::domain::{VersionChange, VersionId, VersionState};
use crate::error::ServerError;
use crate::versions;

use super::queue::{db_now, skip_locked};

/// The `arch` of a version's first build with its conformance check (any worker takes it).
pub const GATE: &str = "";

/// A worker's hold on one build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildLease {
    /// The version to build.
    pub version: VersionId,
    /// The task's architecture: [`GATE`] for the first build, else the one it builds for.
    pub arch: String,
    /// The worker holding it.
    pub worker: String,
    /// The attempt (1 for the first claim...).
    pub attempt: i64,
}

impl BuildLease {
    /// Whether this is the version's first build with its conformance check.
    #[must_use]
    pub fn is_gate(&self) -> bool {
        self.arch == GATE
    }
}

/// Queues a new version's first build (in the upload's transaction, with its row and its
/// source).
pub fn enqueue_gate(conn: &Conn, version: VersionId, now: i64) -> Result<(), ServerError> {
    conn.execute(
        "INSERT INTO build_tasks (version_id, arch, queued_at) VALUES (?1, ?2, ?3)",
        params![version, GATE, now],
    )?;
    Ok(())
}

/// Stores a version's uploaded folder (a gzip-compressed tar) in the caller's transaction.
pub fn store_source(conn: &Conn, version: VersionId, bytes: &[u8]) -> Result<(), ServerError> {
    let size = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
    conn.execute(
        "INSERT INTO version_sources (version_id, hash, bytes, data) VALUES (?1, ?2, ?3, ?4)",
        params![version, super::artifacts::hash(bytes), size, bytes],
    )?;
    Ok(())
}

/// A version's uploaded folder and its hash, if stored.
pub fn source(conn: &Conn, version: VersionId) -> Result<Option<(String, Vec<u8>)>, ServerError> {
    Ok(conn
        .query_row("SELECT hash, data FROM version_sources WHERE version_id = ?1", [version], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?)
}

/// Queues a build for `arch` of every active or evaluating version that has its source in the
/// database, no artifact for `arch`, and no failed build on it; returns how many were queued.
/// The builds for `arch` of versions that no longer play (retired, rejected) and that nobody
/// holds are dropped.
pub fn enqueue_arch(conn: &Conn, arch: &str, now: i64) -> Result<usize, ServerError> {
    if arch == GATE {
        return Err(ServerError::Internal("an architecture has a name".into()));
    }
    conn.execute(
        "DELETE FROM build_tasks WHERE arch = ?1 AND leased_by IS NULL
           AND version_id IN (SELECT id FROM versions WHERE state NOT IN (?2, ?3))",
        params![arch, VersionState::Active, VersionState::Evaluating],
    )?;
    Ok(conn.execute(
        "INSERT INTO build_tasks (version_id, arch, queued_at)
         SELECT v.id, ?1, ?2 FROM versions v
         WHERE v.state IN (?3, ?4)
           AND EXISTS (SELECT 1 FROM version_sources s WHERE s.version_id = v.id)
           AND NOT EXISTS (SELECT 1 FROM version_artifacts a WHERE a.version_id = v.id AND a.arch = ?1)
           AND NOT EXISTS (SELECT 1 FROM version_arch_failures f WHERE f.version_id = v.id AND f.arch = ?1)
         ON CONFLICT (version_id, arch) DO NOTHING",
        params![arch, now, VersionState::Active, VersionState::Evaluating],
    )?)
}

/// The condition on a task `t` that nobody holds: never leased, handed back, or expired.
fn free(conn: &Conn) -> String {
    format!("(t.lease_expires_at IS NULL OR t.lease_expires_at < {})", db_now(conn))
}

/// Whether a build waits that a worker of `arch` may take (one indexed read, outside the
/// write lock: the claim itself takes it).
pub fn waiting(conn: &Conn, arch: &str) -> Result<bool, ServerError> {
    let sql =
        format!("SELECT count(*) FROM build_tasks t WHERE (t.arch = ?1 OR t.arch = ?2) AND {}", free(conn));
    let n: i64 = conn.query_row(&sql, params![GATE, arch], |r| r.get(0))?;
    Ok(n > 0)
}

/// Claims the next build a worker of `arch` may take, for `lease_ms` from the database's
/// clock: first builds first, in the users' turns, then builds for `arch`, oldest first. A
/// first build's version moves to `building` in the same transaction (from `queued`; from
/// `checking` through `queued`, as recovery would; a version already `building` stays so).
/// `None` when there is none.
pub fn claim(
    conn: &mut Conn,
    worker: &str,
    arch: &str,
    lease_ms: i64,
) -> Result<Option<BuildLease>, ServerError> {
    let tx = conn.transaction()?;
    let sql = format!(
        "UPDATE build_tasks SET leased_by = ?1, lease_expires_at = {now} + ?2, attempts = attempts + 1
         WHERE (version_id, arch) = (
             SELECT t.version_id, t.arch FROM build_tasks t
             JOIN versions v ON v.id = t.version_id JOIN bots b ON b.id = v.bot_id
             WHERE (t.arch = ?3 OR (t.arch = ?4 AND v.state IN (?6, ?7))) AND {free}
             ORDER BY CASE WHEN t.arch = ?3 THEN 0 ELSE 1 END,
                      coalesce((SELECT max(w.state_at) FROM versions w JOIN bots wb ON wb.id = w.bot_id
                                WHERE wb.owner_id = b.owner_id AND w.state != ?5), 0),
                      t.version_id
             LIMIT 1 {lock})
         RETURNING version_id, arch, attempts",
        now = db_now(&tx),
        free = free(&tx),
        lock = skip_locked(&tx),
    );
    loop {
        let got: Option<(VersionId, String, i64)> = tx
            .query_row(
                &sql,
                params![
                    worker,
                    lease_ms,
                    GATE,
                    arch,
                    VersionState::Queued,
                    VersionState::Active,
                    VersionState::Evaluating
                ],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let Some((version, task_arch, attempt)) = got else {
            tx.commit()?;
            return Ok(None);
        };
        let lease = BuildLease { version, arch: task_arch, worker: worker.to_owned(), attempt };
        if !lease.is_gate() {
            tx.commit()?;
            return Ok(Some(lease));
        }
        let state: Option<VersionState> =
            tx.query_row("SELECT state FROM versions WHERE id = ?1", [version], |r| r.get(0)).optional()?;
        let started = match state {
            Some(VersionState::Queued) => versions::set_state(&tx, version, VersionChange::START_BUILD, "")?,
            Some(VersionState::Building) => true,
            Some(VersionState::Checking) => {
                versions::set_state(&tx, version, VersionChange::REQUEUE_CHECK, "")?
                    && versions::set_state(&tx, version, VersionChange::START_BUILD, "")?
            }
            _ => false,
        };
        if started {
            tx.commit()?;
            return Ok(Some(lease));
        }
        // The version is past its build (no longer possible, but not to be built again): the
        // task ends, and the next one is looked for.
        tx.execute("DELETE FROM build_tasks WHERE version_id = ?1 AND arch = ?2", params![version, GATE])?;
    }
}

/// The lease's row, when still held (same worker, same attempt, not expired).
const HELD: &str = "version_id = ?1 AND arch = ?2 AND leased_by = ?3 AND attempts = ?4";

/// Extends a lease to `lease_ms` from the database's clock; false when it is no longer held.
pub fn renew(conn: &Conn, lease: &BuildLease, lease_ms: i64) -> Result<bool, ServerError> {
    let now = db_now(conn);
    let n = conn.execute(
        &format!(
            "UPDATE build_tasks SET lease_expires_at = {now} + ?5 WHERE {HELD} AND lease_expires_at >= {now}"
        ),
        params![lease.version, lease.arch, lease.worker, lease.attempt, lease_ms],
    )?;
    Ok(n == 1)
}

/// Hands a build back (a worker stopping, or one that could not run it): claimable again at
/// once. False when the lease was no longer held.
pub fn release(conn: &Conn, lease: &BuildLease) -> Result<bool, ServerError> {
    let n = conn.execute(
        &format!("UPDATE build_tasks SET leased_by = NULL, lease_expires_at = NULL WHERE {HELD}"),
        params![lease.version, lease.arch, lease.worker, lease.attempt],
    )?;
    Ok(n == 1)
}

/// Whether `lease` still holds its build.
fn held(conn: &Conn, lease: &BuildLease) -> Result<bool, ServerError> {
    let n: i64 = conn.query_row(
        &format!("SELECT count(*) FROM build_tasks WHERE {HELD} AND lease_expires_at >= {}", db_now(conn)),
        params![lease.version, lease.arch, lease.worker, lease.attempt],
        |r| r.get(0),
    )?;
    Ok(n == 1)
}

/// Ends the task in the caller's transaction if `lease` still holds it.
fn take(conn: &Conn, lease: &BuildLease) -> Result<bool, ServerError> {
    let n = conn.execute(
        &format!("DELETE FROM build_tasks WHERE {HELD} AND lease_expires_at >= {}", db_now(conn)),
        params![lease.version, lease.arch, lease.worker, lease.attempt],
    )?;
    Ok(n == 1)
}

/// A first build that succeeded moves its version to `checking` (one transaction, only while
/// `lease` holds the build). False: the lease was lost, or the version is not `building`.
pub fn start_check(conn: &mut Conn, lease: &BuildLease) -> Result<bool, ServerError> {
    let tx = conn.transaction()?;
    if !held(&tx, lease)? || !versions::set_state(&tx, lease.version, VersionChange::START_CHECK, "")? {
        return Ok(false);
    }
    tx.commit()?;
    Ok(true)
}

/// How a first build and its check ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The build failed: the version is rejected with this reason (from `building`).
    BuildFailed(String),
    /// The check failed, or the built folder cannot be stored: rejected with this reason
    /// (from `checking`).
    CheckFailed(String),
    /// Passed: the built folder (a gzip-compressed tar) for the worker's architecture.
    Passed(Vec<u8>),
    /// The workers' machines failed to build or check it [`super::process::MAX_ATTEMPTS`]
    /// times: rejected with this reason, which says it is the arena's failure.
    ServerFailed(String),
}

/// What a first build leaves for the version's owner, and its verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateRecord {
    /// The build's output (kept as it was when `None`).
    pub build_log: Option<String>,
    /// The conformance check's report (kept as it was when `None`).
    pub check_report: Option<String>,
    /// The verdict.
    pub verdict: Verdict,
}

/// Records a first build's outcome — the build log, the check report, the artifact for `arch`
/// and the version's state change — in one transaction (under the write lock) that changes
/// nothing unless `lease` still holds the build and the version is in the state the verdict
/// starts from. False: nothing recorded (the lease was lost: another attempt records it).
pub fn finish_gate(
    conn: &mut Conn,
    lease: &BuildLease,
    arch: &str,
    record: &GateRecord,
    now: i64,
) -> Result<bool, ServerError> {
    let id = lease.version;
    let tx = conn.transaction()?;
    if !lease.is_gate() || !take(&tx, lease)? {
        return Ok(false);
    }
    let Some(v) = versions::version(&tx, id)? else { return Ok(false) };
    if let Some(log) = &record.build_log {
        versions::set_build_log(&tx, id, log)?;
    }
    if let Some(report) = &record.check_report {
        versions::set_check_report(&tx, id, report)?;
    }
    let moved = match &record.verdict {
        Verdict::BuildFailed(why) => versions::set_state(&tx, id, VersionChange::BUILD_FAILED, why)?,
        Verdict::CheckFailed(why) => versions::set_state(&tx, id, VersionChange::CHECK_FAILED, why)?,
        Verdict::ServerFailed(why) => {
            let change = if v.state == VersionState::Checking {
                VersionChange::CHECK_FAILED
            } else {
                VersionChange::BUILD_FAILED
            };
            versions::set_state(&tx, id, change, why)?
        }
        Verdict::Passed(artifact) => {
            super::artifacts::store_in(&tx, id, arch, artifact, now)?;
            if v.candidate {
                versions::set_state(
                    &tx,
                    id,
                    VersionChange::START_EVALUATION,
                    "passed the checks; playing the active version",
                )?
            } else {
                versions::activate_in(&tx, id, VersionChange::ACTIVATE, "passed the checks")?
            }
        }
    };
    if !moved {
        return Ok(false);
    }
    tx.commit()?;
    Ok(true)
}

/// Why a build for an architecture failed (a row of `version_arch_failures`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchFailure {
    /// In words: the build failed, its conformance check failed, or the machines failed.
    pub reason: String,
    /// The build's output, then the conformance check's report when it ran.
    pub log: String,
}

/// The reason of a build for `arch` whose conformance check failed.
#[must_use]
pub fn check_failed_on(arch: &str) -> String {
    format!("the conformance check failed on {arch} (see the report): no game is played there")
}

/// Records a build for `lease.arch`: its artifact, or that it (or its conformance check)
/// failed on that architecture, in one transaction that changes nothing unless `lease` still
/// holds the build. The version's state is not changed (its first build decided it).
pub fn finish_arch(
    conn: &mut Conn,
    lease: &BuildLease,
    outcome: &Result<Vec<u8>, ArchFailure>,
    now: i64,
) -> Result<bool, ServerError> {
    let tx = conn.transaction()?;
    if lease.is_gate() || !take(&tx, lease)? {
        return Ok(false);
    }
    match outcome {
        Ok(artifact) => {
            super::artifacts::store_in(&tx, lease.version, &lease.arch, artifact, now)?;
        }
        Err(failure) => {
            tx.execute(
                "INSERT INTO version_arch_failures (version_id, arch, reason, build_log, failed_at)
                 VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (version_id, arch) DO NOTHING",
                params![lease.version, lease.arch, failure.reason, failure.log, now],
            )?;
        }
    }
    tx.commit()?;
    Ok(true)
}

/// A build of a version for one architecture that failed, as its owner sees it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct ArchFailureRecord {
    /// The CPU architecture.
    pub arch: String,
    /// Why: the build failed, its conformance check failed, or the workers' machines failed.
    pub reason: String,
    /// The build's output, then the conformance check's report when it ran.
    pub log: String,
    /// When it was recorded (Unix ms).
    pub failed_at: i64,
}

/// The architectures on which `version`'s build failed (no game is played with it there).
pub fn failures(conn: &Conn, version: VersionId) -> Result<Vec<ArchFailureRecord>, ServerError> {
    let mut stmt = conn.prepare_cached(
        "SELECT arch, reason, build_log, failed_at FROM version_arch_failures WHERE version_id = ?1 ORDER BY arch",
    )?;
    let rows = stmt.query_map([version], |r| {
        Ok(ArchFailureRecord { arch: r.get(0)?, reason: r.get(1)?, log: r.get(2)?, failed_at: r.get(3)? })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The SQL condition, on a version's `id`, that a worker holds its first build under a live
/// lease (for recovery, which leaves such versions `building` or `checking`).
#[must_use]
pub fn held_by_a_worker(conn: &Conn) -> String {
    format!(
        "id IN (SELECT version_id FROM build_tasks WHERE arch = '' AND leased_by IS NOT NULL AND lease_expires_at >= {})",
        db_now(conn)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::queue::tests::{ARCH, on_each};

    /// Adds version `id` (number `id`) of bot 1 in `state`, with its source and (when `queued`)
    /// its first build queued, as an upload under workers makes it.
    fn add(conn: &Conn, id: i64, state: VersionState, candidate: bool) -> VersionId {
        conn.execute(
            "INSERT INTO versions (id, bot_id, number, language, source_name, source_bytes, state, candidate, submitted_at, state_at)
             VALUES (?1, 1, ?1, 'python', 'a.py', 1, ?2, ?3, 0, 0)",
            params![id, state, candidate],
        )
        .expect("version");
        let v = VersionId::new(id);
        store_source(conn, v, b"source").expect("source");
        if state == VersionState::Queued {
            enqueue_gate(conn, v, 0).expect("task");
        }
        v
    }

    fn state(conn: &Conn, v: VersionId) -> (VersionState, String) {
        conn.query_row("SELECT state, reason FROM versions WHERE id = ?1", [v], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .expect("state")
    }

    fn logs(conn: &Conn, v: VersionId) -> (String, String) {
        conn.query_row("SELECT build_log, check_report FROM versions WHERE id = ?1", [v], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .expect("logs")
    }

    fn expire(conn: &Conn, v: VersionId) {
        conn.execute(
            &format!("UPDATE build_tasks SET lease_expires_at = {} - 1 WHERE version_id = ?1", db_now(conn)),
            [v],
        )
        .expect("expire");
    }

    fn tasks(conn: &Conn) -> i64 {
        conn.query_row("SELECT count(*) FROM build_tasks", [], |r| r.get(0)).expect("tasks")
    }

    fn passed(log: &str) -> GateRecord {
        GateRecord {
            build_log: Some(log.into()),
            check_report: Some("all checks passed".into()),
            verdict: Verdict::Passed(b"built".to_vec()),
        }
    }

    #[test]
    fn a_first_build_is_claimed_once_handed_over_when_its_lease_expires_and_recorded_once() {
        on_each(|_, conn| {
            conn.execute("DELETE FROM version_artifacts", []).expect("no artifacts");
            conn.execute("UPDATE versions SET state = 'retired'", []).expect("old versions");
            let v = add(conn, 10, VersionState::Queued, false);
            assert!(waiting(conn, ARCH).expect("waiting"));
            let a = claim(conn, "a", ARCH, 60_000).expect("claim").expect("the build");
            assert_eq!((a.version, a.arch.as_str(), a.attempt), (v, GATE, 1));
            assert_eq!(state(conn, v).0, VersionState::Building, "claimed: building");
            assert_eq!(claim(conn, "b", "other-arch", 60_000).expect("claim"), None, "held");
            assert!(!waiting(conn, ARCH).expect("waiting"));
            assert!(renew(conn, &a, 60_000).expect("renew"));
            assert!(start_check(conn, &a).expect("start check"));
            assert_eq!(state(conn, v).0, VersionState::Checking);
            // a goes silent past its lease (killed): b, of another architecture, takes the
            // build over, and the version is built again from the start.
            expire(conn, v);
            assert!(!renew(conn, &a, 60_000).expect("renew"), "an expired lease is not extended");
            let b = claim(conn, "b", "other-arch", 60_000).expect("claim").expect("handed over");
            assert_eq!((b.version, b.attempt), (v, 2));
            assert_eq!(state(conn, v).0, VersionState::Building, "checking, queued again, building");
            assert!(!start_check(conn, &a).expect("a's check"), "a's lease is gone");
            assert!(
                !finish_gate(conn, &a, ARCH, &passed("a's"), 0).expect("a records"),
                "a's outcome is discarded"
            );
            assert_eq!(state(conn, v).0, VersionState::Building);
            assert!(start_check(conn, &b).expect("b's check"));
            assert!(finish_gate(conn, &b, "other-arch", &passed("b's log"), 0).expect("b records"));
            assert_eq!(state(conn, v), (VersionState::Active, "passed the checks".into()));
            assert_eq!(logs(conn, v), ("b's log".into(), "all checks passed".into()));
            assert!(crate::worker::artifacts::hash_of(conn, v, "other-arch").expect("artifact").is_some());
            assert_eq!(crate::worker::artifacts::hash_of(conn, v, ARCH).expect("artifact"), None);
            assert_eq!(tasks(conn), 0, "the task ended");
            assert!(
                !finish_gate(conn, &b, "other-arch", &passed("again"), 0).expect("again"),
                "recorded once"
            );
        });
    }

    #[test]
    fn a_first_build_ends_as_the_servers_own_build_loop_ends_it() {
        on_each(|_, conn| {
            // Build failed: rejected from building, with the build log.
            let v = add(conn, 10, VersionState::Queued, false);
            let l = claim(conn, "a", ARCH, 60_000).expect("claim").expect("build");
            let record = GateRecord {
                build_log: Some("error: no".into()),
                check_report: None,
                verdict: Verdict::BuildFailed("the build failed (see the build log)".into()),
            };
            assert!(finish_gate(conn, &l, ARCH, &record, 0).expect("record"));
            assert_eq!(
                state(conn, v),
                (VersionState::Rejected, "the build failed (see the build log)".into())
            );
            assert_eq!(logs(conn, v).0, "error: no");
            // The machines failed during the check five times: rejected, saying it is the arena's fault.
            let v = add(conn, 11, VersionState::Queued, false);
            let l = claim(conn, "a", ARCH, 60_000).expect("claim").expect("build");
            assert!(start_check(conn, &l).expect("check"));
            let record = GateRecord {
                build_log: None,
                check_report: None,
                verdict: Verdict::ServerFailed("the arena's workers could not build or check it".into()),
            };
            assert!(finish_gate(conn, &l, ARCH, &record, 0).expect("record"));
            assert_eq!(
                state(conn, v),
                (VersionState::Rejected, "the arena's workers could not build or check it".into())
            );
            // A candidate that passes is evaluated against the active version.
            let v = add(conn, 12, VersionState::Queued, true);
            let l = claim(conn, "a", ARCH, 60_000).expect("claim").expect("build");
            assert!(start_check(conn, &l).expect("check"));
            assert!(finish_gate(conn, &l, ARCH, &passed("ok"), 0).expect("record"));
            assert_eq!(state(conn, v).0, VersionState::Evaluating);
            // A version that passes replaces the bot's active one.
            let v = add(conn, 13, VersionState::Queued, false);
            let l = claim(conn, "a", ARCH, 60_000).expect("claim").expect("build");
            assert!(
                !finish_gate(conn, &l, ARCH, &passed("ok"), 0).expect("not checked"),
                "not from building"
            );
            assert!(start_check(conn, &l).expect("check"));
            assert!(finish_gate(conn, &l, ARCH, &passed("ok"), 0).expect("record"));
            let active: Vec<i64> = conn
                .prepare("SELECT id FROM versions WHERE state = 'active' ORDER BY id")
                .expect("query")
                .query_map([], |r| r.get(0))
                .expect("rows")
                .collect::<Result<_, _>>()
                .expect("rows");
            assert_eq!(active, vec![v.get()], "exactly one active version");
        });
    }

    #[test]
    fn builds_for_an_architecture_are_queued_once_and_only_add_an_artifact_or_a_failure() {
        on_each(|_, conn| {
            // Versions 1 and 2 (active) are built for ARCH; 20 and 21 are active with their
            // sources; 22 is retired.
            let v20 = add(conn, 20, VersionState::Active, false);
            let v21 = add(conn, 21, VersionState::Evaluating, false);
            add(conn, 22, VersionState::Retired, false);
            assert_eq!(enqueue_arch(conn, ARCH, 0).expect("queue"), 2, "20 and 21 (1 and 2 have no source)");
            assert_eq!(enqueue_arch(conn, ARCH, 0).expect("again"), 0, "queued once");
            assert_eq!(claim(conn, "x", "other-arch", 60_000).expect("claim"), None, "not for other-arch");
            let queued = add(conn, 23, VersionState::Queued, false);
            let first = claim(conn, "w", ARCH, 60_000).expect("claim").expect("a build");
            assert_eq!(first.version, queued, "first builds go first");
            let a = claim(conn, "w", ARCH, 60_000).expect("claim").expect("a build");
            let b = claim(conn, "w", ARCH, 60_000).expect("claim").expect("a build");
            assert_eq!((a.version, a.arch.as_str(), b.version), (v20, ARCH, v21));
            assert!(!finish_gate(conn, &a, ARCH, &passed("x"), 0).expect("not a first build"));
            assert!(finish_arch(conn, &a, &Ok(b"built".to_vec()), 0).expect("record"));
            assert!(crate::worker::artifacts::hash_of(conn, v20, ARCH).expect("artifact").is_some());
            assert!(
                finish_arch(
                    conn,
                    &b,
                    &Err(ArchFailure { reason: "the build failed on test-arch".into(), log: "log".into() }),
                    0
                )
                .expect("record")
            );
            assert_eq!(state(conn, v20).0, VersionState::Active, "the state is not changed");
            assert_eq!(state(conn, v21).0, VersionState::Evaluating, "the state is not changed");
            assert!(crate::worker::artifacts::hash_of(conn, v21, ARCH).expect("artifact").is_none());
            assert_eq!(enqueue_arch(conn, ARCH, 0).expect("again"), 0, "neither built nor failed again");
            assert!(!finish_arch(conn, &b, &Ok(b"x".to_vec()), 0).expect("twice"), "recorded once");
            // A version retired before its build for an architecture ran: not built, dropped.
            let v24 = add(conn, 24, VersionState::Active, false);
            assert_eq!(enqueue_arch(conn, ARCH, 0).expect("queue"), 1);
            conn.execute("UPDATE versions SET state = 'retired' WHERE id = ?1", [v24]).expect("retired");
            assert_eq!(claim(conn, "w", ARCH, 60_000).expect("claim"), None, "no longer built");
            assert_eq!(enqueue_arch(conn, ARCH, 0).expect("again"), 0);
            let left: i64 = conn
                .query_row("SELECT count(*) FROM build_tasks WHERE arch = ?1", [ARCH], |r| r.get(0))
                .expect("count");
            assert_eq!(left, 0, "its task dropped");
        });
    }

    /// A build for another architecture that fails the gate there: recorded as that
    /// architecture's failure with the check's report, never built there again, the version's
    /// state unchanged, and no game of it claimed by a worker of that architecture (one of
    /// the first architecture still takes it).
    #[test]
    fn a_build_that_fails_the_gate_on_an_architecture_is_a_failure_there_and_plays_nothing_there() {
        on_each(|_, conn| {
            let (good, bad) =
                (add(conn, 20, VersionState::Active, false), add(conn, 21, VersionState::Active, false));
            conn.execute(
                "INSERT INTO version_artifacts (version_id, arch, hash) VALUES (20, ?1, 'h20'), (21, ?1, 'h21')",
                [ARCH],
            )
            .expect("built for ARCH by their first builds");
            assert_eq!(enqueue_arch(conn, "other-arch", 0).expect("queue"), 2);
            let a = claim(conn, "o", "other-arch", 60_000).expect("claim").expect("a build");
            let b = claim(conn, "o", "other-arch", 60_000).expect("claim").expect("a build");
            assert_eq!((a.version, b.version), (good, bad));
            assert!(finish_arch(conn, &a, &Ok(b"built".to_vec()), 0).expect("record"));
            let failure = ArchFailure {
                reason: check_failed_on("other-arch"),
                log: "the build succeeded\n--- the conformance check on other-arch ---\nillegal move".into(),
            };
            assert!(finish_arch(conn, &b, &Err(failure), 7).expect("record"));
            assert_eq!(state(conn, bad), (VersionState::Active, String::new()), "its first build decided it");
            assert!(crate::worker::artifacts::hash_of(conn, bad, "other-arch").expect("artifact").is_none());
            let seen = failures(conn, bad).expect("failures");
            assert_eq!(seen.len(), 1, "{seen:?}");
            assert_eq!(seen[0].arch, "other-arch");
            assert!(seen[0].reason.contains("conformance check failed on other-arch"), "{seen:?}");
            assert!(seen[0].log.contains("illegal move"), "the report is kept: {seen:?}");
            assert!(failures(conn, good).expect("failures").is_empty());
            assert_eq!(enqueue_arch(conn, "other-arch", 0).expect("again"), 0, "not built there again");
            let new = crate::games::NewGame {
                south_id: good,
                north_id: bad,
                pair_key: "20-21-1".into(),
                opening_seed: 1,
                purpose: crate::domain::Purpose::Ladder,
            };
            let g = crate::games::insert_queued(conn, &new, 0).expect("queued");
            assert_eq!(
                crate::worker::queue::claim(conn, "o", "other-arch", 60_000).expect("claim"),
                None,
                "no game with a build that failed the gate there"
            );
            let l =
                crate::worker::queue::claim(conn, "n", ARCH, 60_000).expect("claim").expect("ARCH plays it");
            assert_eq!(l.game, g);
        });
    }

    #[test]
    fn recovery_leaves_builds_that_workers_hold_and_queues_the_others_again() {
        on_each(|_, conn| {
            let held = add(conn, 30, VersionState::Queued, false);
            let dead = add(conn, 31, VersionState::Queued, false);
            let l = claim(conn, "a", ARCH, 60_000).expect("claim").expect("build");
            assert_eq!(l.version, held);
            let d = claim(conn, "b", ARCH, 60_000).expect("claim").expect("build");
            assert!(start_check(conn, &d).expect("check"));
            expire(conn, dead);
            let dir = tempfile::tempdir().expect("dir");
            let c = crate::config::ArenaConfig::default_config().candidate;
            let done = crate::recovery::recover(conn, dir.path(), &c).expect("recover");
            assert_eq!(done.requeued, 1);
            assert_eq!(state(conn, held).0, VersionState::Building, "a live lease: left to its worker");
            assert_eq!(state(conn, dead).0, VersionState::Queued, "queued again");
            // The worker records its build; the other is claimed again from its task.
            assert!(start_check(conn, &l).expect("check"));
            assert!(finish_gate(conn, &l, ARCH, &passed("ok"), 0).expect("record"));
            let again = claim(conn, "c", ARCH, 60_000).expect("claim").expect("the dead one's build");
            assert_eq!((again.version, again.attempt), (dead, 2));
            assert_eq!(state(conn, dead).0, VersionState::Building);
        });
    }

    #[test]
    fn first_builds_take_turns_between_users() {
        on_each(|_, conn| {
            conn.execute_batch(
                "INSERT INTO users (id, name, created_at) VALUES (2, 'v', 0);
                 INSERT INTO bots (id, name, owner_id, created_at) VALUES (2, 'c', 2, 0);",
            )
            .expect("a second user");
            // User 1 was served (their versions left the queue); three of theirs wait, then
            // one of user 2, who was never served: user 2's goes first.
            conn.execute("UPDATE versions SET state_at = 5", []).expect("served");
            for id in [40, 41, 42] {
                add(conn, id, VersionState::Queued, false);
            }
            let other = add(conn, 43, VersionState::Queued, false);
            conn.execute("UPDATE versions SET bot_id = 2 WHERE id = 43", []).expect("user 2's");
            let first = claim(conn, "w", ARCH, 60_000).expect("claim").expect("a build");
            assert_eq!(first.version, other, "the user never served goes first");
            let second = claim(conn, "w", ARCH, 60_000).expect("claim").expect("a build");
            assert_eq!(second.version, VersionId::new(40), "then the oldest of the other's");
        });
    }
}
