//! Migration 0005 on a populated database, on SQLite and PostgreSQL: a database made at
//! migration 0004 with versions in several states, games in each state, queued games (one
//! leased) and built folders, then opened by the program (which migrates it to the latest).
//! 0005's backfill writes each queued game's two versions beside its task; nothing else moves,
//! and the queue works on the backfilled rows (a worker claims a game only with both of its
//! versions built for its architecture).
//!
//! The database at 0004 is made here from the migration files themselves: on SQLite with the
//! same `rusqlite_migration` steps as `crate::db` (the schema version is SQLite's
//! `user_version`), on PostgreSQL with the bookkeeping of `crate::db`'s migrator (its
//! `bao_schema_version` table, one row per migration applied).

use crate::db::{Conn, Location, params};
use crate::domain::GameId;
use crate::worker::queue;

/// The migrations up to 0004, SQLite's and PostgreSQL's.
const SQLITE_0004: [&str; 4] = [
    include_str!("../../migrations/0001_initial.sql"),
    include_str!("../../migrations/0002_candidate_verdict.sql"),
    include_str!("../../migrations/0003_play.sql"),
    include_str!("../../migrations/0004_workers.sql"),
];
const POSTGRES_0004: [&str; 4] = [
    include_str!("../../migrations/postgres/0001_initial.sql"),
    include_str!("../../migrations/postgres/0002_candidate_verdict.sql"),
    include_str!("../../migrations/postgres/0003_play.sql"),
    include_str!("../../migrations/postgres/0004_workers.sql"),
];

/// Makes the database at `location` at migration 0004 (nothing after it).
fn at_0004(location: &Location) {
    match location {
        Location::Sqlite(path) => {
            let mut conn = rusqlite::Connection::open(path).expect("sqlite");
            let steps = rusqlite_migration::Migrations::new(
                SQLITE_0004.iter().map(|sql| rusqlite_migration::M::up(sql)).collect(),
            );
            steps.to_latest(&mut conn).expect("migrated to 0004");
            let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).expect("version");
            assert_eq!(version, 4);
        }
        Location::Postgres(_) => {
            let conn = location.connect(false).expect("connect");
            conn.execute_batch(
                "CREATE TABLE bao_schema_version (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)",
            )
            .expect("bookkeeping");
            for (i, sql) in POSTGRES_0004.iter().enumerate() {
                conn.execute_batch(sql).expect("a migration up to 0004");
                conn.execute(
                    "INSERT INTO bao_schema_version (version, applied_at) VALUES (?1, 0)",
                    [i64::try_from(i + 1).expect("small")],
                )
                .expect("recorded");
            }
        }
    }
}

/// Rows of an arena at 0004 (no `game_tasks.south_id`/`north_id`, no build tables): versions
/// 1–5 (active, active, retired, rejected, evaluating), games 1–5 (finished, aborted,
/// running and queued, running and leased, running and queued), built folders of 1 and 2 for
/// `x86_64` and of 5 for `aarch64`.
fn populate(conn: &Conn) {
    conn.execute_batch(
        "INSERT INTO users (id, name, created_at) VALUES (1, 'u', 0);
         INSERT INTO bots (id, name, owner_id, created_at) VALUES (1, 'a', 1, 0), (2, 'b', 1, 0);
         INSERT INTO versions (id, bot_id, number, language, source_name, source_bytes, state, submitted_at, state_at)
         VALUES (1, 1, 1, 'python', 'a.py', 1, 'active', 0, 0), (2, 2, 1, 'python', 'b.py', 1, 'active', 0, 0),
                (3, 1, 2, 'python', 'a.py', 1, 'retired', 0, 0), (4, 2, 2, 'python', 'b.py', 1, 'rejected', 0, 0),
                (5, 1, 3, 'python', 'a.py', 1, 'evaluating', 0, 0);
         INSERT INTO games (id, south_id, north_id, pair_key, opening_seed, purpose, state, result, plies, started_at, finished_at, log_path, played_by)
         VALUES (1, 1, 2, '1-2-1', 1, 'ladder', 'finished', 'south', 40, 10, 20, '', 'w-old'),
                (2, 2, 3, '2-3-2', 2, 'ladder', 'aborted', NULL, 0, 10, 20, '', NULL),
                (3, 2, 1, '1-2-3', 3, 'ladder', 'running', NULL, 0, 30, NULL, '', NULL),
                (4, 1, 2, '1-2-4', 4, 'placement', 'running', NULL, 0, 30, NULL, '', NULL),
                (5, 5, 1, '1-5-5', 5, 'candidate', 'running', NULL, 0, 30, NULL, '', NULL);
         INSERT INTO game_tasks (game_id, leased_by, lease_expires_at, attempts, queued_at)
         VALUES (3, NULL, NULL, 0, 30), (4, 'w-1', 9000000000000, 2, 31), (5, NULL, NULL, 1, 32);
         INSERT INTO version_artifacts (version_id, arch, hash)
         VALUES (1, 'x86_64', 'h1'), (2, 'x86_64', 'h2'), (5, 'aarch64', 'h5');",
    )
    .expect("rows at 0004");
    for (hash, arch) in [("h1", "x86_64"), ("h2", "x86_64"), ("h5", "aarch64")] {
        conn.execute(
            "INSERT INTO artifacts (hash, arch, bytes, data, created_at) VALUES (?1, ?2, 3, ?3, 0)",
            params![hash, arch, b"tar".to_vec()],
        )
        .expect("artifact");
    }
}

/// The rows of `sql` (integer columns; as many as commas in its select list, plus one).
fn ints(conn: &Conn, sql: &str) -> Vec<Vec<Option<i64>>> {
    let width = columns(sql);
    let mut stmt = conn.prepare(sql).expect(sql);
    stmt.query_map([], |r| (0..width).map(|i| r.get::<_, Option<i64>>(i)).collect())
        .expect(sql)
        .collect::<Result<_, _>>()
        .expect(sql)
}

/// The rows of `sql` (text columns; as many as commas in its select list, plus one).
fn texts(conn: &Conn, sql: &str) -> Vec<Vec<Option<String>>> {
    let width = columns(sql);
    let mut stmt = conn.prepare(sql).expect(sql);
    stmt.query_map([], |r| (0..width).map(|i| r.get::<_, Option<String>>(i)).collect())
        .expect(sql)
        .collect::<Result<_, _>>()
        .expect(sql)
}

#[test]
fn migration_0005_backfills_the_queued_games_versions_on_a_populated_database() {
    for (_dir, location) in super::queue::tests::places() {
        eprintln!("on the {}", location.describe());
        at_0004(&location);
        {
            let conn = location.connect(false).expect("connect");
            populate(&conn);
        }
        let games_before = texts(
            &conn_of(&location),
            "SELECT CAST(id AS TEXT), state, result, reason, played_by FROM games ORDER BY id",
        );
        // The program opens it: migrated to the latest.
        let conn = crate::db::open_location(&location).expect("migrates to the latest");
        assert_eq!(
            ints(
                &conn,
                "SELECT game_id, south_id, north_id, attempts, queued_at FROM game_tasks ORDER BY game_id"
            ),
            vec![
                vec![Some(3), Some(2), Some(1), Some(0), Some(30)],
                vec![Some(4), Some(1), Some(2), Some(2), Some(31)],
                vec![Some(5), Some(5), Some(1), Some(1), Some(32)],
            ],
            "each task's two versions are its game's, its lease bookkeeping untouched"
        );
        assert_eq!(
            texts(&conn, "SELECT leased_by FROM game_tasks ORDER BY game_id"),
            vec![vec![None], vec![Some("w-1".into())], vec![None]]
        );
        assert_eq!(
            texts(&conn, "SELECT CAST(id AS TEXT), state, result, reason, played_by FROM games ORDER BY id"),
            games_before,
            "the games are not touched"
        );
        assert_eq!(
            texts(&conn, "SELECT state FROM versions ORDER BY id"),
            ["active", "active", "retired", "rejected", "evaluating"]
                .map(|s| vec![Some(s.to_owned())])
                .to_vec()
        );
        assert_eq!(
            texts(
                &conn,
                "SELECT version_id || ':' || arch || ':' || hash FROM version_artifacts ORDER BY version_id"
            ),
            ["1:x86_64:h1", "2:x86_64:h2", "5:aarch64:h5"].map(|s| vec![Some(s.to_owned())]).to_vec()
        );
        assert_eq!(ints(&conn, "SELECT count(*) FROM artifacts"), vec![vec![Some(3)]]);
        for table in ["build_tasks", "version_sources", "version_arch_failures"] {
            assert_eq!(ints(&conn, &format!("SELECT count(*) FROM {table}")), vec![vec![Some(0)]], "{table}");
        }
        // The queue reads the backfilled versions: an x86_64 worker claims game 3 (both built
        // for it), not 4 (leased) nor 5 (version 5 is built for aarch64 only); an aarch64
        // worker claims nothing (version 1 is not built for it).
        assert_eq!(queue::claim(&conn, "arm", "aarch64", 60_000).expect("claim"), None);
        let l = queue::claim(&conn, "x", "x86_64", 60_000).expect("claim").expect("game 3");
        assert_eq!((l.game, l.attempt), (GameId::new(3), 1));
        assert_eq!(queue::claim(&conn, "x", "x86_64", 60_000).expect("claim"), None, "4 held, 5 not built");
    }
}

/// The columns of a plain `SELECT a, b, c FROM ...`.
fn columns(sql: &str) -> usize {
    let list = sql.split(" FROM ").next().unwrap_or(sql);
    list.matches(',').count() + 1
}

/// A connection that does not migrate.
fn conn_of(location: &Location) -> Conn {
    location.connect(false).expect("connect")
}
