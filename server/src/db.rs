//! The arena database: SQLite in WAL mode, schema migrations from
//! `server/migrations/`, and a handle that runs queries off the async threads.

use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

use crate::error::ServerError;

/// The schema migrations, in order (files in `server/migrations/`).
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/0001_initial.sql"),
    include_str!("../migrations/0002_candidate_verdict.sql"),
];

/// Opens (creating if needed) the database at `path`, sets WAL mode and
/// migrates the schema to the latest version.
pub fn open(path: &Path) -> Result<Connection, ServerError> {
    // Created private (mode 600) before SQLite opens it; its journal files take its mode.
    if !path.exists() {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| ServerError::io(format!("cannot create {}", path.display()), e))?;
    }
    make_private(path, 0o600)?;
    let mut conn = Connection::open(path)?;
    configure(&mut conn)?;
    let migrations = Migrations::new(MIGRATIONS.iter().map(|sql| M::up(sql)).collect());
    migrations.to_latest(&mut conn)?;
    Ok(conn)
}

/// Sets the mode of `path` (the arena folder: 700, the database: 600) if it is
/// not already that.
pub fn make_private(path: &Path, mode: u32) -> Result<(), ServerError> {
    let meta =
        std::fs::metadata(path).map_err(|e| ServerError::io(format!("cannot read {}", path.display()), e))?;
    if meta.permissions().mode() & 0o7777 != mode {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(|e| {
            ServerError::io(format!("cannot make {} private (mode {mode:o})", path.display()), e)
        })?;
    }
    Ok(())
}

/// A busy timeout, WAL journal, full synchronisation of commits, foreign keys, and
/// immediate transactions.
///
/// Transactions take the write lock when they begin: a deferred transaction that
/// reads and then writes fails at once with "database is locked" (the busy
/// handler is not called) when another process — `serve user revoke` beside the
/// running server — wrote in between.
fn configure(conn: &mut Connection) -> Result<(), ServerError> {
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.set_transaction_behavior(rusqlite::TransactionBehavior::Immediate);
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(ServerError::Internal(format!("the database refused WAL mode (journal_mode = {mode})")));
    }
    conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")?;
    Ok(())
}

/// A shared handle on the database: one connection for writes and one for
/// reads (WAL lets readers run beside the writer), each used on tokio's
/// blocking threads.
#[derive(Clone)]
pub struct Db {
    writer: Arc<Mutex<Connection>>,
    reader: Arc<Mutex<Connection>>,
}

impl Db {
    /// Opens the database at `path` (see [`open`]) with a second connection for reads.
    pub fn open(path: &Path) -> Result<Db, ServerError> {
        let writer = open(path)?;
        let mut reader = Connection::open(path)?;
        configure(&mut reader)?;
        // The reader's transactions only read: a snapshot that takes no write lock.
        reader.set_transaction_behavior(rusqlite::TransactionBehavior::Deferred);
        Ok(Db { writer: Arc::new(Mutex::new(writer)), reader: Arc::new(Mutex::new(reader)) })
    }

    /// Runs `f` on the write connection, on a blocking thread.
    pub async fn write<T, F>(&self, f: F) -> Result<T, ServerError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, ServerError> + Send + 'static,
    {
        run_on(self.writer.clone(), f).await
    }

    /// Runs `f` on the read connection, on a blocking thread.
    pub async fn read<T, F>(&self, f: F) -> Result<T, ServerError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, ServerError> + Send + 'static,
    {
        run_on(self.reader.clone(), f).await
    }

    /// Runs `f` on the write connection in the calling thread (for commands
    /// that run without the server, and for tests).
    pub fn write_blocking<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, ServerError>,
    ) -> Result<T, ServerError> {
        let mut conn =
            self.writer.lock().map_err(|_| ServerError::Internal("database lock poisoned".into()))?;
        f(&mut conn)
    }
}

async fn run_on<T, F>(conn: Arc<Mutex<Connection>>, f: F) -> Result<T, ServerError>
where
    T: Send + 'static,
    F: FnOnce(&mut Connection) -> Result<T, ServerError> + Send + 'static,
{
    tokio::task::spawn_blocking(move || {
        let mut conn = conn.lock().map_err(|_| ServerError::Internal("database lock poisoned".into()))?;
        f(&mut conn)
    })
    .await
    .map_err(|e| ServerError::Internal(format!("database task failed: {e}")))?
}

/// The current time in Unix milliseconds.
#[must_use]
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_valid() {
        let migrations = Migrations::new(MIGRATIONS.iter().map(|sql| M::up(sql)).collect());
        migrations.validate().expect("migrations apply to an empty database");
    }

    #[test]
    fn the_database_and_the_arena_are_private() {
        let dir = tempfile::tempdir().expect("tempdir");
        let arena = dir.path().join("arena");
        std::fs::create_dir(&arena).expect("mkdir");
        std::fs::set_permissions(&arena, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let opened = crate::arena::Arena::open(&arena).expect("opens");
        let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode(&arena), 0o700);
        let db = arena.join(crate::arena::DB_FILE);
        assert_eq!(mode(&db), 0o600);
        drop(opened);
        // An old database readable by others is made private at the next open.
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        drop(open(&db).expect("reopens"));
        assert_eq!(mode(&db), 0o600);
    }

    #[test]
    fn open_sets_wal_and_reopens() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.sqlite3");
        let conn = open(&path).expect("open");
        let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).expect("pragma");
        assert_eq!(mode, "wal");
        drop(conn);
        let conn = open(&path).expect("reopen migrates nothing");
        let n: i64 = conn.query_row("SELECT count(*) FROM users", [], |r| r.get(0)).expect("users table");
        assert_eq!(n, 0);
    }

    /// `serve user revoke` beside the running server: a transaction that reads and then
    /// writes, while another connection commits a write in between, must wait for the
    /// lock, not fail with "database is locked".
    #[test]
    fn a_read_then_write_transaction_survives_a_concurrent_writer() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.sqlite3");
        let mut cli = open(&path).expect("open");
        crate::users::create_user(&mut cli, "alice", false).expect("alice");
        let tx = cli.transaction().expect("begin");
        let before: i64 = tx.query_row("SELECT count(*) FROM tokens", [], |r| r.get(0)).expect("read");
        let server = std::thread::spawn({
            let path = path.clone();
            move || {
                let mut server = open(&path).expect("second connection");
                crate::users::create_user(&mut server, "bob", false).map(|_| ())
            }
        });
        // Give the other writer time to commit if it could (it cannot: the lock is held).
        std::thread::sleep(std::time::Duration::from_millis(300));
        let deleted = tx.execute("DELETE FROM tokens", []).expect("the write after the read is not refused");
        tx.commit().expect("commit");
        assert_eq!(deleted as i64, before);
        server.join().expect("thread").expect("the other writer waited and then wrote");
        let users: i64 = cli.query_row("SELECT count(*) FROM users", [], |r| r.get(0)).expect("users");
        assert_eq!(users, 2);
    }
}
