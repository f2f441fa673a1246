//! Which games the live workers can play (`games.executor = "workers"`). A worker claims a game
//! only when both of its versions have an artifact for the worker's CPU architecture
//! ([`super::queue::claim`]); a worker of an architecture builds the artifacts its versions
//! lack, unless the build failed there ([`super::build_queue::enqueue_arch`]). So a version
//! can be played on architecture `A` when:
//!
//! - it has an artifact for `A`; or
//! - a worker of `A` will build one: the version is active or evaluating, its upload is in the
//!   database, and no build of it failed on `A` (the build or its conformance check); or
//! - `A` is the leading server's own architecture and the version has no artifact at all: a
//!   version the server built before the switch to workers, whose built folder the leader
//!   stores for its own architecture when it queues the game ([`super::artifacts::ensure`]).
//!
//! A game can be played when some architecture of a live worker (one that reported in the
//! last [`SEEN_MS`], on the database's clock) can play both of its versions. The matchmaker
//! queues no pair that cannot be played ([`playable_arches`]), and the leader aborts — not
//! counted — a queued game that nobody holds and no live worker can claim once it has waited
//! `games.unclaimable_abort_secs` ([`abort_if_unclaimable`]): the machines' failure, never
//! the bots'.

use std::collections::{HashMap, HashSet};

use crate::db::{Conn, params};
use crate::domain::{GameId, VersionId, VersionState};
use crate::error::ServerError;

use super::queue::db_now;
use super::status::SEEN_MS;

/// SQL: the version whose id is the expression `v` can be played on the architecture named by
/// the expression `a`; `?3` is the leader's own architecture (see the module's text).
fn playable_on(v: &str, a: &str) -> String {
    format!(
        "(EXISTS (SELECT 1 FROM version_artifacts x WHERE x.version_id = {v} AND x.arch = {a})
          OR (EXISTS (SELECT 1 FROM versions s WHERE s.id = {v} AND s.state IN ('{active}', '{evaluating}'))
              AND EXISTS (SELECT 1 FROM version_sources src WHERE src.version_id = {v})
              AND NOT EXISTS (SELECT 1 FROM version_arch_failures f WHERE f.version_id = {v} AND f.arch = {a}))
          OR ({a} = ?3 AND NOT EXISTS (SELECT 1 FROM version_artifacts y WHERE y.version_id = {v})))",
        active = VersionState::Active.as_str(),
        evaluating = VersionState::Evaluating.as_str(),
    )
}

/// SQL: the architectures of the workers heard from in the last [`SEEN_MS`] (`?2`).
fn live(conn: &Conn) -> String {
    format!("(SELECT DISTINCT arch FROM workers WHERE seen_at >= {} - ?2)", db_now(conn))
}

/// The live workers' architectures on which each active or evaluating version can be played;
/// a version on none of them is absent. `leader_arch`: the leading server's architecture.
pub fn playable_arches(
    conn: &Conn,
    leader_arch: &str,
) -> Result<HashMap<VersionId, HashSet<String>>, ServerError> {
    let sql = format!(
        "SELECT v.id, w.arch FROM versions v CROSS JOIN {live} w
         WHERE v.state IN (?1, ?4) AND {on}",
        live = live(conn),
        on = playable_on("v.id", "w.arch"),
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt
        .query_map(params![VersionState::Active, SEEN_MS, leader_arch, VersionState::Evaluating], |r| {
            Ok((r.get::<_, VersionId>(0)?, r.get::<_, String>(1)?))
        })?;
    let mut map: HashMap<VersionId, HashSet<String>> = HashMap::new();
    for row in rows {
        let (v, arch) = row?;
        map.entry(v).or_default().insert(arch);
    }
    Ok(map)
}

/// Whether two versions share an architecture in `arches` ([`playable_arches`]).
#[must_use]
pub fn can_pair(arches: &HashMap<VersionId, HashSet<String>>, a: VersionId, b: VersionId) -> bool {
    match (arches.get(&a), arches.get(&b)) {
        (Some(x), Some(y)) => !x.is_disjoint(y),
        _ => false,
    }
}

/// SQL: the queued game `t` (a row of `game_tasks`) that nobody holds, queued at `?4` or
/// before, that no live worker can claim.
fn unclaimable(conn: &Conn) -> String {
    format!(
        "(t.lease_expires_at IS NULL OR t.lease_expires_at < {now}) AND t.queued_at <= ?4
         AND NOT EXISTS (SELECT 1 FROM {live} w WHERE {south} AND {north})",
        now = db_now(conn),
        live = live(conn),
        south = playable_on("t.south_id", "w.arch"),
        north = playable_on("t.north_id", "w.arch"),
    )
}

/// Whether the queued game `game` is unclaimable: nobody holds it, it was queued at
/// `queued_by` (Unix ms, the leader's clock that queued it) or before, and no live worker can
/// claim it. A read: the leader looks with it before it takes the write lock.
pub fn is_unclaimable(
    conn: &Conn,
    game: GameId,
    queued_by: i64,
    leader_arch: &str,
) -> Result<bool, ServerError> {
    let sql = format!("SELECT count(*) FROM game_tasks t WHERE t.game_id = ?1 AND {}", unclaimable(conn));
    let n: i64 = conn.query_row(&sql, params![game, SEEN_MS, leader_arch, queued_by], |r| r.get(0))?;
    Ok(n == 1)
}

/// Records the queued game `game` aborted (not counted, with a reason that says why) and ends
/// its task, in one transaction, if it is unclaimable ([`is_unclaimable`]) at that moment:
/// a claim committed first leaves it to its worker. True when aborted.
pub fn abort_if_unclaimable(
    conn: &mut Conn,
    game: GameId,
    queued_by: i64,
    leader_arch: &str,
    waited_secs: u64,
) -> Result<bool, ServerError> {
    let tx = conn.transaction()?;
    let n = tx.execute(
        &format!(
            "DELETE FROM game_tasks WHERE game_id IN
                 (SELECT t.game_id FROM game_tasks t WHERE t.game_id = ?1 AND {})",
            unclaimable(&tx)
        ),
        params![game, SEEN_MS, leader_arch, queued_by],
    )?;
    if n != 1 {
        return Ok(false);
    }
    let reason = format!(
        "no worker could play it: none that reported in the last {} s is of an architecture both bots are \
         built (or can be built) for, and it waited {waited_secs} s in the queue (not counted: the arena's \
         machines, not the bots)",
        SEEN_MS / 1000
    );
    crate::games::abort(&tx, game, &reason)?;
    tx.commit()?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{GameState, Purpose};
    use crate::worker::queue::tests::{ARCH, on_each};
    use crate::worker::status::{WorkerReport, report};

    const LEADER: &str = "leader-arch";

    /// A worker of `arch` reports now (on the database's clock).
    fn worker(conn: &Conn, id: &str, arch: &str) {
        let w = WorkerReport {
            id: id.into(),
            host: "h".into(),
            version: "0".into(),
            arch: arch.into(),
            concurrency: 1,
            running: 0,
            load: 0.0,
        };
        report(conn, &w).expect("report");
    }

    /// The worker `id` last reported longer ago than [`SEEN_MS`]: silent.
    fn silent(conn: &Conn, id: &str) {
        conn.execute(
            &format!("UPDATE workers SET seen_at = {} - ?2 WHERE id = ?1", db_now(conn)),
            params![id, SEEN_MS + 1],
        )
        .expect("silent");
    }

    /// Version `id` of bot 1, active, with (or without) its upload in the database.
    fn version(conn: &Conn, id: i64, source: bool) -> VersionId {
        conn.execute(
            "INSERT INTO versions (id, bot_id, number, language, source_name, source_bytes, state, submitted_at, state_at)
             VALUES (?1, 1, ?1, 'python', 'a.py', 1, 'active', 0, 0)",
            [id],
        )
        .expect("version");
        let v = VersionId::new(id);
        if source {
            crate::worker::build_queue::store_source(conn, v, b"source").expect("source");
        }
        v
    }

    fn arches(conn: &Conn, v: VersionId) -> Vec<String> {
        let mut a: Vec<String> = playable_arches(conn, LEADER)
            .expect("arches")
            .remove(&v)
            .unwrap_or_default()
            .into_iter()
            .collect();
        a.sort();
        a
    }

    fn queue(conn: &mut Conn, south: i64, north: i64, at: i64) -> GameId {
        let new = crate::games::NewGame {
            south_id: VersionId::new(south),
            north_id: VersionId::new(north),
            pair_key: format!("{south}-{north}-1"),
            opening_seed: 1,
            purpose: Purpose::Ladder,
        };
        crate::games::insert_queued(conn, &new, at).expect("queued")
    }

    fn game(conn: &Conn, id: GameId) -> (GameState, String) {
        conn.query_row("SELECT state, reason FROM games WHERE id = ?1", [id], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("game")
    }

    #[test]
    fn a_version_is_playable_only_where_a_live_worker_has_or_can_build_its_artifact() {
        on_each(|_, conn| {
            // 1 and 2: built for ARCH, no upload in the database. 20: an upload, no artifact.
            // 30: neither (the server built it before the switch to workers).
            let (v1, v2) = (VersionId::new(1), VersionId::new(2));
            let v20 = version(conn, 20, true);
            let v30 = version(conn, 30, false);
            assert!(playable_arches(conn, LEADER).expect("arches").is_empty(), "no worker: nothing playable");
            worker(conn, "a", ARCH);
            let map = playable_arches(conn, LEADER).expect("arches");
            assert!(can_pair(&map, v1, v2), "{map:?}");
            assert!(can_pair(&map, v1, v20), "20 is built for ARCH when a worker of it asks: {map:?}");
            assert!(!can_pair(&map, v1, v30), "30 only on the leader's architecture: {map:?}");
            worker(conn, "o", "other-arch");
            assert_eq!(arches(conn, v1), vec![ARCH.to_owned()], "no upload: not built for other-arch");
            assert_eq!(arches(conn, v20), vec!["other-arch".to_owned(), ARCH.to_owned()]);
            conn.execute(
                "INSERT INTO version_arch_failures (version_id, arch, reason, build_log, failed_at)
                 VALUES (20, 'other-arch', 'the conformance check failed', '', 0)",
                [],
            )
            .expect("failed there");
            assert_eq!(arches(conn, v20), vec![ARCH.to_owned()], "not where its build failed the gate");
            worker(conn, "l", LEADER);
            assert_eq!(arches(conn, v30), vec![LEADER.to_owned()], "the leader stores its own build");
            let map = playable_arches(conn, LEADER).expect("arches");
            assert!(!can_pair(&map, v1, v30), "no architecture plays both: {map:?}");
            conn.execute("UPDATE versions SET state = 'retired' WHERE id = 20", []).expect("retired");
            assert!(arches(conn, v20).is_empty(), "only the ladder's versions are listed");
            for id in ["a", "o", "l"] {
                silent(conn, id);
            }
            assert!(playable_arches(conn, LEADER).expect("arches").is_empty(), "silent workers play nothing");
        });
    }

    #[test]
    fn a_queued_game_no_live_worker_can_claim_is_aborted_after_its_wait_and_not_counted() {
        on_each(|_, conn| {
            worker(conn, "a", ARCH);
            let g = queue(conn, 1, 2, 1_000);
            assert!(
                !is_unclaimable(conn, g, 5_000, LEADER).expect("look"),
                "a live worker of ARCH can claim it"
            );
            assert!(!abort_if_unclaimable(conn, g, 5_000, LEADER, 4).expect("abort"));
            // The only worker of ARCH falls silent; one of another architecture, for which
            // neither version can be built (no upload), reports.
            silent(conn, "a");
            worker(conn, "o", "other-arch");
            assert!(!is_unclaimable(conn, g, 999, LEADER).expect("look"), "it has not waited long enough");
            assert!(!abort_if_unclaimable(conn, g, 999, LEADER, 0).expect("abort"));
            assert!(is_unclaimable(conn, g, 1_000, LEADER).expect("look"));
            // A game a worker holds under a live lease is its worker's, live or not.
            let held = queue(conn, 1, 2, 1_000);
            conn.execute(
                &format!(
                    "UPDATE game_tasks SET leased_by = 'a', attempts = 1, lease_expires_at = {} + 60000 WHERE game_id = ?1",
                    db_now(conn)
                ),
                [held],
            )
            .expect("held");
            assert!(!is_unclaimable(conn, held, 5_000, LEADER).expect("look"));
            assert!(!abort_if_unclaimable(conn, held, 5_000, LEADER, 4).expect("abort"));
            assert_eq!(game(conn, held).0, GameState::Running);
            assert!(abort_if_unclaimable(conn, g, 5_000, LEADER, 600).expect("abort"));
            let (state, reason) = game(conn, g);
            assert_eq!(state, GameState::Aborted, "recorded, not counted");
            assert!(
                reason.starts_with("no worker could play it") && reason.contains("waited 600 s"),
                "{reason}"
            );
            let tasks: i64 = conn
                .query_row("SELECT count(*) FROM game_tasks WHERE game_id = ?1", [g], |r| r.get(0))
                .expect("tasks");
            assert_eq!(tasks, 0, "its task ended");
            assert!(!abort_if_unclaimable(conn, g, 5_000, LEADER, 600).expect("again"), "once");
            // A worker of ARCH back: the next game waits for it, however long it waited.
            worker(conn, "a", ARCH);
            let next = queue(conn, 1, 2, 1_000);
            assert!(!abort_if_unclaimable(conn, next, 5_000, LEADER, 600).expect("abort"));
            assert_eq!(game(conn, next).0, GameState::Running);
        });
    }
}
