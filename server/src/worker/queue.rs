//! The queue of games for workers, with leases. A game the scheduler wants played is a row of
//! `game_tasks` beside its `running` row of `games`. A worker claims the oldest unleased (or
//! expired) task by writing its name, a lease expiry and the next attempt number in one
//! statement; it renews the lease while it plays; it records the result, the log and the
//! task's end in one transaction that changes anything only while it still holds the lease
//! (the same worker, the same attempt, not expired). An expired lease makes the game
//! claimable again: it is played again elsewhere, and whichever attempt records first is the
//! one counted — the others find their lease gone and discard their result.
//!
//! On PostgreSQL the claim locks the row it takes with `FOR UPDATE SKIP LOCKED`, on a
//! connection whose statements do not take the server's global write lock: workers claiming
//! at once skip each other's rows instead of waiting, and no claim waits behind the leader's
//! writes. The recording transaction does take the write lock (it changes `games`, which the
//! leader's transactions read and then write on, relying on one writer at a time).

use crate::db::{Conn, OptionalExtension, params};
use crate::domain::{GameChange, GameId, GameResult};
use crate::error::ServerError;

/// A worker's hold on one game: the game, the worker, and which attempt this is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The game.
    pub game: GameId,
    /// The worker holding it.
    pub worker: String,
    /// The attempt (1 for the first claim, 2 after one lease expired or was handed back...).
    pub attempt: i64,
}

/// The database's clock in Unix milliseconds, as SQL: every lease expiry is written and
/// compared on the clock of the one database, never on the clock of the worker's machine,
/// so that a worker whose clock is ahead cannot take a live lease, nor one whose clock is
/// behind keep an expired one. (SQLite's `'now'` is the clock of the machine that runs the
/// statement: on SQLite, workers and servers share one machine anyway.)
#[must_use]
pub fn db_now(conn: &Conn) -> &'static str {
    if conn.kind() == "PostgreSQL" {
        "(extract(epoch from clock_timestamp()) * 1000)::bigint"
    } else {
        "CAST(unixepoch('subsec') * 1000 AS INTEGER)"
    }
}

/// The database's clock now (Unix ms): see [`db_now`].
pub fn db_now_ms(conn: &Conn) -> Result<i64, ServerError> {
    Ok(conn.query_row(&format!("SELECT {}", db_now(conn)), [], |r| r.get(0))?)
}

/// `FOR UPDATE OF t SKIP LOCKED` on PostgreSQL (a claim locks the row it picks and skips rows
/// other claims hold); nothing on SQLite, which runs one writing statement at a time anyway.
pub(crate) fn skip_locked(conn: &Conn) -> &'static str {
    if conn.kind() == "PostgreSQL" { "FOR UPDATE OF t SKIP LOCKED" } else { "" }
}

/// Queues a game for the workers (in the caller's transaction, after its `games` row), with its
/// two versions beside it for the claim's filter.
pub fn enqueue(conn: &Conn, game: GameId, now: i64) -> Result<(), ServerError> {
    conn.execute(
        "INSERT INTO game_tasks (game_id, queued_at, south_id, north_id)
         SELECT id, ?2, south_id, north_id FROM games WHERE id = ?1",
        params![game, now],
    )?;
    Ok(())
}

/// Claims the oldest game nobody holds (never leased, handed back, or with an expired lease)
/// whose two versions have a built folder for `arch`, for `worker`, for `lease_ms` from the
/// database's clock; `None` when there is none.
///
/// The artifacts are checked by scalar subqueries, not `EXISTS`: PostgreSQL turns `EXISTS`
/// into a join that reads and sorts the whole queue (16 ms a claim with 4,000 games queued,
/// `EXPLAIN ANALYZE`), where a subquery per row lets it walk the queue in order and stop at
/// the first game it can take (0.6 ms).
pub fn claim(conn: &Conn, worker: &str, arch: &str, lease_ms: i64) -> Result<Option<Lease>, ServerError> {
    let (now, lock) = (db_now(conn), skip_locked(conn));
    let sql = format!(
        "UPDATE game_tasks SET leased_by = ?1, lease_expires_at = {now} + ?2, attempts = attempts + 1
         WHERE game_id = (SELECT t.game_id FROM game_tasks t
                          WHERE (t.lease_expires_at IS NULL OR t.lease_expires_at < {now})
                            AND (SELECT 1 FROM version_artifacts a WHERE a.version_id = t.south_id AND a.arch = ?3) IS NOT NULL
                            AND (SELECT 1 FROM version_artifacts a WHERE a.version_id = t.north_id AND a.arch = ?3) IS NOT NULL
                          ORDER BY t.game_id LIMIT 1 {lock})
         RETURNING game_id, attempts"
    );
    let got: Option<(GameId, i64)> =
        conn.query_row(&sql, params![worker, lease_ms, arch], |r| Ok((r.get(0)?, r.get(1)?))).optional()?;
    Ok(got.map(|(game, attempt)| Lease { game, worker: worker.to_owned(), attempt }))
}

/// Extends a lease to `lease_ms` from the database's clock; false when it is no longer held
/// (expired, claimed by another worker, or the game recorded): the worker then stops playing
/// the game.
pub fn renew(conn: &Conn, lease: &Lease, lease_ms: i64) -> Result<bool, ServerError> {
    let now = db_now(conn);
    let n = conn.execute(
        &format!(
            "UPDATE game_tasks SET lease_expires_at = {now} + ?4
             WHERE game_id = ?1 AND leased_by = ?2 AND attempts = ?3 AND lease_expires_at >= {now}"
        ),
        params![lease.game, lease.worker, lease.attempt, lease_ms],
    )?;
    Ok(n == 1)
}

/// Hands a game back (a worker stopping, or one that could not play it): claimable again at
/// once. False when the lease was no longer held.
pub fn release(conn: &Conn, lease: &Lease) -> Result<bool, ServerError> {
    let n = conn.execute(
        "UPDATE game_tasks SET leased_by = NULL, lease_expires_at = NULL
         WHERE game_id = ?1 AND leased_by = ?2 AND attempts = ?3",
        params![lease.game, lease.worker, lease.attempt],
    )?;
    Ok(n == 1)
}

/// Ends the task in the caller's transaction if `lease` still holds it (on the database's
/// clock).
fn take(conn: &Conn, lease: &Lease) -> Result<bool, ServerError> {
    let n = conn.execute(
        &format!(
            "DELETE FROM game_tasks WHERE game_id = ?1 AND leased_by = ?2 AND attempts = ?3 AND lease_expires_at >= {}",
            db_now(conn)
        ),
        params![lease.game, lease.worker, lease.attempt],
    )?;
    Ok(n == 1)
}

/// What a worker's game came to.
#[derive(Debug, Clone)]
pub struct Played {
    /// Who won.
    pub result: GameResult,
    /// How it ended, in words.
    pub reason: String,
    /// Plies played.
    pub plies: u32,
    /// The game's log (JSON lines), stored compressed.
    pub log: Vec<u8>,
}

/// Records a finished game: its log, its result and the end of its task, in one transaction
/// (holding the write lock) that changes nothing unless `lease` still holds the game.
/// False: the lease was lost, the result is discarded (another attempt records it).
pub fn finish(conn: &mut Conn, lease: &Lease, played: &Played) -> Result<bool, ServerError> {
    let tx = conn.transaction()?;
    if !take(&tx, lease)? {
        return Ok(false);
    }
    super::logs::store(&tx, lease.game, &played.log)?;
    if !crate::games::finish(&tx, lease.game, played.result, &played.reason, played.plies)? {
        return Ok(false);
    }
    tx.execute("UPDATE games SET played_by = ?2 WHERE id = ?1", params![lease.game, lease.worker])?;
    tx.commit()?;
    Ok(true)
}

/// Records a game aborted (not counted) and ends its task, only while `lease` holds it: a
/// game the workers failed to play too many times. False: the lease was lost.
pub fn abort(conn: &mut Conn, lease: &Lease, reason: &str) -> Result<bool, ServerError> {
    let tx = conn.transaction()?;
    if !take(&tx, lease)? {
        return Ok(false);
    }
    crate::games::abort(&tx, lease.game, reason)?;
    tx.commit()?;
    Ok(true)
}

/// At a leader's start, in its recovery transaction: every `running` game that no worker holds
/// under a live lease is recorded aborted and its task (if any) ends; the others stay with
/// their workers (leases compared on the database's clock). Returns the games aborted.
pub fn recover(conn: &Conn, now: i64) -> Result<usize, ServerError> {
    let abort = GameChange::ABORT;
    let n = conn.execute(
        &format!(
            "UPDATE games SET state = ?2, reason = 'the server stopped during the game', finished_at = ?1
             WHERE state = ?3 AND id NOT IN (SELECT game_id FROM game_tasks WHERE lease_expires_at >= {})",
            db_now(conn)
        ),
        params![now, abort.to(), abort.from()],
    )?;
    conn.execute(
        "DELETE FROM game_tasks WHERE game_id IN (SELECT id FROM games WHERE state != ?1)",
        params![abort.from()],
    )?;
    Ok(n)
}

/// Games waiting for a worker and games a worker holds, for `/metrics`.
pub fn counts(conn: &Conn) -> Result<(i64, i64), ServerError> {
    let now = db_now(conn);
    Ok(conn.query_row(
        &format!(
            "SELECT coalesce(sum(CASE WHEN lease_expires_at >= {now} THEN 0 ELSE 1 END), 0),
                    coalesce(sum(CASE WHEN lease_expires_at >= {now} THEN 1 ELSE 0 END), 0) FROM game_tasks"
        ),
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::domain::{GameState, Purpose};
    use crate::games::NewGame;

    use crate::db::Location;

    /// The architecture the test versions are built for.
    pub(crate) const ARCH: &str = "test-arch";

    /// Where the tests run: a SQLite file, and a new database of the PostgreSQL cluster of
    /// `BAO_TEST_POSTGRES` when it is set (without it the PostgreSQL half says it is skipped,
    /// and fails under `BAO_REQUIRE_ALL=1`).
    pub(crate) fn places() -> Vec<(tempfile::TempDir, Location)> {
        let dir = tempfile::tempdir().expect("tempdir");
        let sqlite = Location::Sqlite(dir.path().join("a.sqlite3"));
        let mut all = vec![(dir, sqlite)];
        if let Some(url) = crate::db::postgres_tests::fresh_database() {
            all.push((tempfile::tempdir().expect("tempdir"), Location::Postgres(url)));
        }
        all
    }

    /// The arena's tables with a user, a bot and two versions built for [`ARCH`].
    pub(crate) fn arena_db(location: &Location) -> Conn {
        let conn = crate::db::open_location(location).expect("db");
        conn.execute_batch(
            "INSERT INTO users (id, name, created_at) VALUES (1, 'u', 0);
             INSERT INTO bots (id, name, owner_id, created_at) VALUES (1, 'b', 1, 0);
             INSERT INTO versions (id, bot_id, number, language, source_name, source_bytes, state, submitted_at, state_at)
             VALUES (1, 1, 1, 'python', 'a.py', 1, 'active', 0, 0), (2, 1, 2, 'python', 'a.py', 1, 'active', 0, 0);
             INSERT INTO version_artifacts (version_id, arch, hash) VALUES (1, 'test-arch', 'h1'), (2, 'test-arch', 'h2');",
        )
        .expect("rows");
        conn
    }

    /// Runs `test` on every database of [`places`].
    pub(crate) fn on_each(test: impl Fn(&Location, &mut Conn)) {
        for (_dir, location) in places() {
            eprintln!("on the {}", location.describe());
            let mut conn = arena_db(&location);
            test(&location, &mut conn);
        }
    }

    fn queue_game(conn: &mut Conn) -> GameId {
        let new = NewGame {
            south_id: crate::domain::VersionId::new(1),
            north_id: crate::domain::VersionId::new(2),
            pair_key: "1-2-7".into(),
            opening_seed: 7,
            purpose: Purpose::Ladder,
        };
        crate::games::insert_queued(conn, &new, 0).expect("queued")
    }

    fn state(conn: &Conn, id: GameId) -> GameState {
        conn.query_row("SELECT state FROM games WHERE id = ?1", [id], |r| r.get(0)).expect("state")
    }

    /// Moves a game's lease expiry to `ms` from the database's clock (negative: expired).
    fn expires_in(conn: &Conn, id: GameId, ms: i64) {
        conn.execute(
            &format!("UPDATE game_tasks SET lease_expires_at = {} + ?2 WHERE game_id = ?1", db_now(conn)),
            params![id, ms],
        )
        .expect("lease expiry");
    }

    fn expiry(conn: &Conn, id: GameId) -> i64 {
        conn.query_row("SELECT lease_expires_at FROM game_tasks WHERE game_id = ?1", [id], |r| r.get(0))
            .expect("expiry")
    }

    fn played() -> Played {
        Played { result: GameResult::South, reason: "stones".into(), plies: 12, log: b"{\"x\":1}\n".to_vec() }
    }

    #[test]
    fn a_claim_takes_one_free_game_and_a_lease_excludes_others_until_it_expires() {
        on_each(|_, conn| a_claim_takes_one_free_game(conn));
    }

    fn a_claim_takes_one_free_game(conn: &mut Conn) {
        let g1 = queue_game(conn);
        let g2 = queue_game(conn);
        let a = claim(conn, "a", ARCH, 60_000).expect("claim").expect("a game");
        assert_eq!((a.game, a.attempt), (g1, 1), "the oldest first");
        let b = claim(conn, "b", ARCH, 60_000).expect("claim").expect("a game");
        assert_eq!(b.game, g2, "a leased game is not claimed again");
        assert_eq!(claim(conn, "c", ARCH, 60_000).expect("claim"), None, "both held");
        // b's lease expires, a's does not: c takes b's game.
        expires_in(conn, g2, -1);
        assert!(renew(conn, &a, 60_000).expect("renew"));
        let c = claim(conn, "c", ARCH, 60_000).expect("claim").expect("the expired one");
        assert_eq!((c.game, c.attempt), (g2, 2));
        assert!(!renew(conn, &b, 60_000).expect("renew"), "b lost its lease");
        assert!(renew(conn, &a, 60_000).expect("renew"), "a still holds its game");
    }

    /// The lease's expiry is the database's clock plus the lease, whatever the clock of the
    /// worker's machine says (no call takes the worker's time): a worker whose clock runs far
    /// ahead cannot take a live lease, and one whose clock runs far behind cannot renew or
    /// record under an expired one.
    #[test]
    fn leases_run_on_the_databases_clock_not_the_workers() {
        on_each(|_, conn| leases_on_the_databases_clock(conn));
    }

    fn leases_on_the_databases_clock(conn: &mut Conn) {
        let g = queue_game(conn);
        let before = db_now_ms(conn).expect("db clock");
        let a = claim(conn, "a", ARCH, 10_000).expect("claim").expect("a game");
        let after = db_now_ms(conn).expect("db clock");
        let until = expiry(conn, g);
        assert!(
            (before + 10_000..=after + 10_000).contains(&until),
            "the expiry {until} is the database's clock ({before}..{after}) plus the lease"
        );
        // A worker whose clock is an hour ahead would have seen this lease as expired if the
        // comparison were made on its clock; on the database's, the lease holds.
        assert_eq!(claim(conn, "ahead", ARCH, 10_000).expect("claim"), None, "a live lease is not taken");
        // The lease expired on the database's clock: a worker whose clock is an hour behind
        // would still see it live on its own; it can neither renew it nor record under it.
        expires_in(conn, g, -1);
        assert!(!renew(conn, &a, 10_000).expect("renew"), "an expired lease is not extended");
        assert!(!finish(conn, &a, &played()).expect("finish"), "nor recorded");
        assert_eq!(state(conn, g), GameState::Running);
    }

    #[test]
    fn only_games_whose_two_versions_are_built_for_the_workers_architecture_are_claimed() {
        on_each(|_, conn| {
            let g = queue_game(conn);
            assert_eq!(claim(conn, "w", "other-arch", 60_000).expect("claim"), None, "no artifacts");
            conn.execute(
                "INSERT INTO version_artifacts (version_id, arch, hash) VALUES (1, 'other-arch', 'h')",
                [],
            )
            .expect("one artifact");
            assert_eq!(claim(conn, "w", "other-arch", 60_000).expect("claim"), None, "one of the two");
            conn.execute(
                "INSERT INTO version_artifacts (version_id, arch, hash) VALUES (2, 'other-arch', 'h')",
                [],
            )
            .expect("the other");
            let l = claim(conn, "w", "other-arch", 60_000).expect("claim").expect("both built");
            assert_eq!(l.game, g);
        });
    }

    #[test]
    fn only_the_holder_of_a_live_lease_records_the_game_and_it_counts_once() {
        on_each(|_, conn| only_the_holder_records(conn));
    }

    fn only_the_holder_records(conn: &mut Conn) {
        let g = queue_game(conn);
        let first = claim(conn, "a", ARCH, 60_000).expect("claim").expect("game");
        // a is silent past its lease; b plays the game again.
        expires_in(conn, g, -1);
        let second = claim(conn, "b", ARCH, 60_000).expect("claim").expect("game again");
        assert_eq!(second.attempt, 2);
        assert!(!finish(conn, &first, &played()).expect("finish"), "a's result is discarded");
        assert_eq!(state(conn, g), GameState::Running);
        let logs: i64 = conn.query_row("SELECT count(*) FROM game_logs", [], |r| r.get(0)).expect("logs");
        assert_eq!(logs, 0, "nothing of a's attempt is kept");
        assert!(finish(conn, &second, &played()).expect("finish"));
        assert_eq!(state(conn, g), GameState::Finished);
        let by: Option<String> =
            conn.query_row("SELECT played_by FROM games WHERE id = ?1", [g], |r| r.get(0)).expect("by");
        assert_eq!(by.as_deref(), Some("b"));
        assert_eq!(super::super::logs::stored(conn, g).expect("log"), Some(played().log));
        // Once recorded, nobody records it again, nor claims it.
        assert!(!finish(conn, &second, &played()).expect("again"));
        assert_eq!(claim(conn, "c", ARCH, 100).expect("claim"), None);
        let tasks: i64 = conn.query_row("SELECT count(*) FROM game_tasks", [], |r| r.get(0)).expect("tasks");
        assert_eq!(tasks, 0);
    }

    #[test]
    fn an_expired_lease_records_nothing_even_unclaimed_and_a_handed_back_game_is_free() {
        on_each(|_, conn| an_expired_lease_records_nothing(conn));
    }

    fn an_expired_lease_records_nothing(conn: &mut Conn) {
        let g = queue_game(conn);
        let a = claim(conn, "a", ARCH, 60_000).expect("claim").expect("game");
        expires_in(conn, g, -1);
        assert!(!finish(conn, &a, &played()).expect("finish"), "expired, though nobody claimed it");
        assert!(!abort(conn, &a, "x").expect("abort"));
        assert_eq!(state(conn, g), GameState::Running);
        let b = claim(conn, "b", ARCH, 60_000).expect("claim").expect("game");
        assert!(release(conn, &b).expect("release"));
        let c = claim(conn, "c", ARCH, 60_000).expect("claim").expect("handed back: free at once");
        assert_eq!(c.attempt, 3);
        assert!(abort(conn, &c, "the workers could not play it").expect("abort"));
        assert_eq!(state(conn, g), GameState::Aborted);
    }

    #[test]
    fn recovery_keeps_the_games_workers_hold_and_aborts_the_rest() {
        on_each(|_, conn| recovery_keeps_held_games(conn));
    }

    fn recovery_keeps_held_games(conn: &mut Conn) {
        let held = queue_game(conn);
        let waiting = queue_game(conn);
        let expired = queue_game(conn);
        let lease = claim(conn, "a", ARCH, 60_000).expect("claim").expect("held");
        assert_eq!(lease.game, held);
        conn.execute("UPDATE game_tasks SET leased_by = 'b' WHERE game_id = ?1", [expired]).expect("leased");
        expires_in(conn, expired, -5);
        assert_eq!(recover(conn, 2000).expect("recover"), 2);
        assert_eq!(state(conn, held), GameState::Running);
        assert_eq!(state(conn, waiting), GameState::Aborted);
        assert_eq!(state(conn, expired), GameState::Aborted);
        assert_eq!(counts(conn).expect("counts"), (0, 1));
        assert!(finish(conn, &lease, &played()).expect("finish"), "the worker still records it");
    }

    /// Workers claiming at once, each on a connection of its own outside the write lock (as
    /// the worker claims): every game is claimed by exactly one of them.
    #[test]
    fn workers_claiming_at_once_take_each_game_once() {
        on_each(|location, conn| {
            let games: Vec<GameId> = (0..40).map(|_| queue_game(conn)).collect();
            let claimed: Vec<Vec<GameId>> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..4)
                    .map(|w| {
                        s.spawn(move || {
                            let c = location.connect(false).expect("a connection of its own");
                            let mut mine = Vec::new();
                            while let Some(l) = claim(&c, &format!("w{w}"), ARCH, 60_000).expect("claim") {
                                mine.push(l.game);
                            }
                            mine
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().expect("a claimer")).collect()
            });
            let mut all: Vec<GameId> = claimed.concat();
            all.sort_unstable();
            assert_eq!(all, games, "each game claimed once: {claimed:?}");
        });
    }
}
