//! The database layer on PostgreSQL: the schema equals SQLite's, values and transactions
//! behave as on SQLite, and writers of different connections take turns. These need a
//! PostgreSQL cluster (`BAO_TEST_POSTGRES`, as `deploy/postgres/throwaway.sh start` prints):
//! without one they fail under `BAO_REQUIRE_ALL=1` and otherwise say why they are skipped.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};

use super::*;

/// A new, empty database of the test cluster; its URL. `None` (skipped, saying so) without a
/// cluster; a failure under `BAO_REQUIRE_ALL=1`. The other modules' PostgreSQL tests use it too.
pub(crate) fn fresh_database() -> Option<String> {
    let Some(base) = std::env::var("BAO_TEST_POSTGRES").ok().filter(|u| !u.trim().is_empty()) else {
        assert!(
            std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"),
            "BAO_REQUIRE_ALL=1 but BAO_TEST_POSTGRES is not set (deploy/postgres/throwaway.sh start DIR)"
        );
        eprintln!("skipped: BAO_TEST_POSTGRES is not set (deploy/postgres/throwaway.sh start DIR prints it)");
        return None;
    };
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let name =
        format!("bao_unit_{}_{}_{}", std::process::id(), now_ms(), NEXT.fetch_add(1, Ordering::Relaxed));
    let mut admin =
        ::postgres::Client::connect(&base, ::postgres::NoTls).expect("BAO_TEST_POSTGRES connects");
    admin.batch_execute(&format!("CREATE DATABASE {name}")).expect("create database");
    let mut config: ::postgres::Config = base.parse().expect("a URL");
    config.dbname(&name);
    let host = match &config.get_hosts()[0] {
        ::postgres::config::Host::Tcp(h) => h.clone(),
        ::postgres::config::Host::Unix(p) => p.display().to_string(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    Some(format!("postgres://{}@{host}:{port}/{name}", config.get_user().unwrap_or("postgres")))
}

/// Column name → (type class, not null), per table.
type Schema = BTreeMap<String, BTreeMap<String, (String, bool)>>;

fn sqlite_schema(conn: &Conn) -> Schema {
    let tables: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .expect("tables")
        .query_map([], |r| r.get(0))
        .expect("tables")
        .collect::<Result<_, _>>()
        .expect("tables");
    let mut schema = Schema::new();
    for table in tables {
        let columns: Vec<(String, String, i64, i64)> = conn
            .prepare(&format!("SELECT name, type, \"notnull\", pk FROM pragma_table_info('{table}')"))
            .expect("columns")
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .expect("columns")
            .collect::<Result<_, _>>()
            .expect("columns");
        let class = |t: &str| match t {
            "INTEGER" => "integer",
            "TEXT" => "text",
            "REAL" => "real",
            "BLOB" => "bytes",
            other => panic!("a SQLite column type the PostgreSQL schema has no counterpart for: {other}"),
        };
        schema.insert(
            table,
            columns
                .into_iter()
                .map(|(n, t, nn, pk)| (n, (class(&t).to_owned(), nn != 0 || pk != 0)))
                .collect(),
        );
    }
    schema
}

fn postgres_schema(conn: &Conn) -> Schema {
    let rows: Vec<(String, String, String, String)> = conn
        .prepare(
            "SELECT table_name::text, column_name::text, udt_name::text, is_nullable::text
             FROM information_schema.columns WHERE table_schema = 'public' AND table_name != 'bao_schema_version'
             ORDER BY table_name, ordinal_position",
        )
        .expect("columns")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .expect("columns")
        .collect::<Result<_, _>>()
        .expect("columns");
    let mut schema = Schema::new();
    for (table, column, udt, nullable) in rows {
        // SQLite's implicit rowid, a column in PostgreSQL (the same queries name it).
        if table == "rating_history" && column == "rowid" {
            continue;
        }
        let class = match udt.as_str() {
            "int8" => "integer",
            "text" | "citext" => "text",
            "float8" => "real",
            "bytea" => "bytes",
            other => {
                panic!("{table}.{column} is of type {other}, which SQLite's schema has no counterpart for")
            }
        };
        schema.entry(table).or_default().insert(column, (class.to_owned(), nullable == "NO"));
    }
    schema
}

#[test]
fn the_postgresql_schema_is_sqlites() {
    let Some(url) = fresh_database() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let sqlite = sqlite_schema(&open(&dir.path().join("a.sqlite3")).expect("sqlite"));
    let pg = postgres_schema(&open_location(&Location::Postgres(url)).expect("postgres"));
    let sqlite: Schema =
        sqlite.into_iter().filter(|(t, _)| t != "rusqlite_migration" && !t.starts_with("_")).collect();
    assert!(sqlite.len() >= 9, "the SQLite schema was read: {sqlite:?}");
    assert_eq!(pg, sqlite, "every table, column, type and NOT NULL the same");
}

#[test]
fn migrations_apply_once_and_a_newer_database_is_refused() {
    let Some(url) = fresh_database() else { return };
    let location = Location::Postgres(url.clone());
    drop(open_location(&location).expect("first open migrates"));
    let conn = open_location(&location).expect("second open migrates nothing");
    let versions: i64 =
        conn.query_row("SELECT count(*) FROM bao_schema_version", [], |r| r.get(0)).expect("count");
    assert_eq!(versions, i64::try_from(MIGRATIONS.len()).expect("len"));
    conn.execute("INSERT INTO bao_schema_version (version, applied_at) VALUES (999, 0)", []).expect("insert");
    drop(conn);
    let Err(e) = open_location(&location) else { panic!("a database of a newer schema was opened") };
    assert!(e.to_string().contains("newer than this program"), "{e}");
}

#[test]
fn values_transactions_and_missing_rows_behave_as_on_sqlite() {
    let Some(url) = fresh_database() else { return };
    let mut conn = open_location(&Location::Postgres(url)).expect("open");
    let (user, token) = crate::users::create_user(&mut conn, "Alice", true).expect("create");
    assert_eq!(token.len(), 64);
    // Names compare without case (COLLATE NOCASE on SQLite, citext here).
    let (found, admin): (crate::domain::UserId, bool) = conn
        .query_row("SELECT id, is_admin FROM users WHERE name = ?1", ["alice"], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .expect("found");
    assert_eq!((found, admin), (user.id, true));
    assert!(
        crate::users::create_user(&mut conn, "ALICE", false).is_err(),
        "the name is taken, whatever its case"
    );
    // Bytes, reals, NULLs and a reused placeholder round-trip.
    let (bytes, real, null, twice): (Vec<u8>, f64, Option<i64>, i64) = conn
        .query_row(
            "SELECT ?1::bytea, ?2::float8, ?3::bigint, ?4::bigint + ?4::bigint",
            params![vec![0_u8, 255, 7], 1.5_f64, Option::<i64>::None, 21_i64],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .expect("values");
    assert_eq!((bytes, real, null, twice), (vec![0, 255, 7], 1.5, None, 42));
    // A NUL in text (a bot's, quoted in a reason) is written, as U+2400: PostgreSQL's text
    // cannot hold it, and the write must not fail (a worker's game was replayed forever).
    let id: i64 = conn
        .query_row(
            "INSERT INTO users (name, is_admin, created_at) VALUES (?1, 0, 0) RETURNING id",
            params!["a\0b"],
            |r| r.get(0),
        )
        .expect("text with a NUL is written");
    let stored: String =
        conn.query_row("SELECT name FROM users WHERE id = ?1", [id], |r| r.get(0)).expect("read");
    assert_eq!(stored, format!("a{}b", super::postgres::NUL_STAND_IN));
    conn.execute("DELETE FROM users WHERE id = ?1", [id]).expect("removed");
    // No row is `None`, not an error.
    let none: Option<i64> = conn
        .query_row("SELECT id FROM users WHERE name = ?1", ["nobody"], |r| r.get(0))
        .optional()
        .expect("query");
    assert_eq!(none, None);
    // A transaction dropped without commit leaves nothing; a committed one stays.
    {
        let tx = conn.transaction().expect("begin");
        tx.execute("INSERT INTO users (name, created_at) VALUES ('bob', 0)", []).expect("insert");
    }
    let users =
        |c: &Conn| c.query_row("SELECT count(*) FROM users", [], |r| r.get::<_, i64>(0)).expect("count");
    assert_eq!(users(&conn), 1, "rolled back");
    let tx = conn.transaction().expect("begin");
    tx.execute("INSERT INTO users (name, created_at) VALUES ('bob', 0)", []).expect("insert");
    tx.commit().expect("commit");
    assert_eq!(users(&conn), 2);
    // A failed statement inside a transaction rolls it back whole, and the connection goes on.
    {
        let tx = conn.transaction().expect("begin");
        tx.execute("INSERT INTO users (name, created_at) VALUES ('carol', 0)", []).expect("insert");
        assert!(tx.execute("INSERT INTO users (name, created_at) VALUES ('carol', 0)", []).is_err());
    }
    assert_eq!(users(&conn), 2);
}

/// Two connections (two server processes) writing at once take turns: a read-then-write
/// transaction holds the write lock from its start, so another connection's write waits
/// until it commits, as with SQLite's one writer.
#[test]
fn writers_of_two_connections_take_turns() {
    let Some(url) = fresh_database() else { return };
    let location = Location::Postgres(url);
    let mut first = open_location(&location).expect("first");
    let tx = first.transaction().expect("begin");
    let before: i64 = tx.query_row("SELECT count(*) FROM users", [], |r| r.get(0)).expect("read");
    let (wrote_tx, wrote_rx) = std::sync::mpsc::channel();
    let other = std::thread::spawn({
        let location = location.clone();
        move || {
            let second = location.connect(true).expect("second");
            second.execute("INSERT INTO users (name, created_at) VALUES ('bob', 0)", []).expect("insert");
            wrote_tx.send(()).expect("send");
        }
    });
    // The other writer cannot write while this transaction holds the lock.
    assert!(
        wrote_rx.recv_timeout(std::time::Duration::from_millis(500)).is_err(),
        "a write of another connection went through while a write transaction was open"
    );
    tx.execute("INSERT INTO users (name, created_at) VALUES (?1, 0)", [format!("user{before}")])
        .expect("write");
    tx.commit().expect("commit");
    wrote_rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("the other writer wrote after the commit");
    other.join().expect("thread");
    let users: i64 = first.query_row("SELECT count(*) FROM users", [], |r| r.get(0)).expect("count");
    assert_eq!(users, before + 2);
}

/// `sslmode=require` with the cluster's own authority (`sslrootcert=`) connects over TLS; a
/// plain URL does not use TLS; and `require` refuses a certificate no trusted authority
/// signed (here: checked against the public roots). Needs the cluster's CA file in
/// `BAO_TEST_POSTGRES_CA` (`deploy/postgres/throwaway.sh` writes DIR/ca.crt).
#[test]
fn tls_is_used_and_the_certificate_verified_when_the_url_asks() {
    let Some(url) = fresh_database() else { return };
    let Some(ca) = std::env::var("BAO_TEST_POSTGRES_CA").ok().filter(|c| !c.trim().is_empty()) else {
        assert!(
            std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"),
            "BAO_REQUIRE_ALL=1 but BAO_TEST_POSTGRES_CA is not set (the CA of a cluster with TLS: DIR/ca.crt)"
        );
        eprintln!("skipped: BAO_TEST_POSTGRES_CA is not set (the CA of the test cluster, DIR/ca.crt)");
        return;
    };
    let over_tls = |url: &str| -> i64 {
        let mut conn = super::postgres::PgConn::connect(url, false).expect("connects");
        let rows = conn
            .query(
                "SELECT CASE WHEN ssl THEN 1 ELSE 0 END FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                &[],
            )
            .expect("pg_stat_ssl");
        match rows.first().and_then(|r| r.first()) {
            Some(Value::Integer(i)) => *i,
            other => panic!("pg_stat_ssl answered {other:?}"),
        }
    };
    assert_eq!(over_tls(&url), 0, "a plain URL does not use TLS");
    let verified = format!("{url}?sslmode=require&sslrootcert={ca}");
    assert_eq!(over_tls(&verified), 1, "sslmode=require with the cluster's CA uses TLS");
    assert_eq!(
        over_tls(&format!("{url}?sslmode=verify-full&sslrootcert={ca}")),
        1,
        "libpq's verify-full too"
    );
    // The same cluster, its certificate checked against the public roots: refused.
    let err = super::postgres::PgConn::connect(&format!("{url}?sslmode=require"), false)
        .err()
        .map(|e| e.to_string())
        .expect("a certificate of an unknown authority is refused");
    assert!(err.contains("certificate"), "the refusal names the certificate: {err}");
    // And through the server's own handle, its description says so.
    let said = Location::Postgres(verified).describe();
    assert!(said.ends_with("over TLS"), "{said}");
}
