//! The arena database: SQLite in WAL mode, schema migrations from
//! `server/migrations/`, and a handle that runs queries off the async threads:
//! one writer, and a pool of readers that do not wait for each other.

use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

use crate::error::ServerError;

/// The schema migrations, in order (files in `server/migrations/`).
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/0001_initial.sql"),
    include_str!("../migrations/0002_candidate_verdict.sql"),
    include_str!("../migrations/0003_play.sql"),
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

/// How many connections read at the same time: page and API reads do not
/// wait for each other below this many (WAL lets them all run beside the writer).
pub const READERS: u32 = 8;

/// A shared handle on the database: one connection for writes (SQLite has one
/// writer) and a pool of [`READERS`] connections for reads, each used on
/// tokio's blocking threads.
#[derive(Clone)]
pub struct Db {
    writer: Arc<Mutex<Connection>>,
    readers: r2d2::Pool<ReadConnections>,
}

/// Opens the pool's read connections, each configured like the writer
/// ([`configure`]) but with deferred transactions: a reader's transaction is a
/// snapshot that takes no write lock.
#[derive(Debug)]
struct ReadConnections {
    path: PathBuf,
}

impl r2d2::ManageConnection for ReadConnections {
    type Connection = Connection;
    type Error = ServerError;

    fn connect(&self) -> Result<Connection, ServerError> {
        let mut conn = Connection::open(&self.path)?;
        configure(&mut conn)?;
        conn.set_transaction_behavior(rusqlite::TransactionBehavior::Deferred);
        Ok(conn)
    }

    fn is_valid(&self, conn: &mut Connection) -> Result<(), ServerError> {
        conn.execute_batch("")?;
        Ok(())
    }

    fn has_broken(&self, _conn: &mut Connection) -> bool {
        false
    }
}

impl Db {
    /// Opens the database at `path` (see [`open`]) with a pool of connections for reads.
    pub fn open(path: &Path) -> Result<Db, ServerError> {
        let writer = open(path)?;
        let readers = r2d2::Pool::builder()
            .max_size(READERS)
            // One at once (a command line needs no more); the others when reads overlap.
            .min_idle(Some(1))
            .connection_timeout(std::time::Duration::from_secs(30))
            .build(ReadConnections { path: path.to_owned() })
            .map_err(|e| ServerError::Internal(format!("cannot open {} for reading: {e}", path.display())))?;
        Ok(Db { writer: Arc::new(Mutex::new(writer)), readers })
    }

    /// Runs `f` on the write connection, on a blocking thread.
    pub async fn write<T, F>(&self, f: F) -> Result<T, ServerError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, ServerError> + Send + 'static,
    {
        let writer = self.writer.clone();
        blocking(move || {
            let mut conn =
                writer.lock().map_err(|_| ServerError::Internal("database lock poisoned".into()))?;
            f(&mut conn)
        })
        .await
    }

    /// Runs `f` on a read connection of the pool, on a blocking thread (waiting
    /// for one only when [`READERS`] reads are under way).
    pub async fn read<T, F>(&self, f: F) -> Result<T, ServerError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, ServerError> + Send + 'static,
    {
        let readers = self.readers.clone();
        blocking(move || {
            let mut conn = readers
                .get()
                .map_err(|e| ServerError::Internal(format!("no database connection to read with: {e}")))?;
            f(&mut conn)
        })
        .await
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

/// Runs `f` on one of tokio's blocking threads.
async fn blocking<T, F>(f: F) -> Result<T, ServerError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ServerError> + Send + 'static,
{
    tokio::task::spawn_blocking(f)
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

    /// Reads do not queue behind reads: [`READERS`] reads each keep their connection
    /// until all of them are inside at once. With one shared read connection the first
    /// would hold it, waiting for the others that wait for it, and give up.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn reads_run_at_the_same_time() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(&dir.path().join("a.sqlite3")).expect("open");
        let inside = Arc::new((Mutex::new(0_u32), std::sync::Condvar::new()));
        let reads: Vec<_> = (0..READERS)
            .map(|_| {
                let (db, inside) = (db.clone(), inside.clone());
                tokio::spawn(async move {
                    db.read(move |c| {
                        let users: i64 = c.query_row("SELECT count(*) FROM users", [], |r| r.get(0))?;
                        let (count, arrived) = &*inside;
                        let mut count = count.lock().expect("lock");
                        *count += 1;
                        arrived.notify_all();
                        let (count, _) = arrived
                            .wait_timeout_while(count, std::time::Duration::from_secs(30), |n| *n < READERS)
                            .expect("lock");
                        Ok((users, *count))
                    })
                    .await
                })
            })
            .collect();
        for read in reads {
            let (users, seen) = read.await.expect("task").expect("read");
            assert_eq!(users, 0);
            assert_eq!(seen, READERS, "every read held its connection while the others ran");
        }
    }

    /// Each pooled connection is configured like the writer (busy timeout, WAL,
    /// foreign keys), and reads a snapshot: a write transaction under way neither
    /// blocks it nor shows it its rows before the commit.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn pooled_readers_are_configured_and_do_not_wait_for_the_writer() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(&dir.path().join("a.sqlite3")).expect("open");
        let settings = db
            .read(|c| {
                let timeout: i64 = c.query_row("PRAGMA busy_timeout", [], |r| r.get(0))?;
                let keys: i64 = c.query_row("PRAGMA foreign_keys", [], |r| r.get(0))?;
                let mode: String = c.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
                Ok((timeout, keys, mode))
            })
            .await
            .expect("read");
        assert_eq!(settings, (10_000, 1, "wal".to_owned()));
        let (inserted_tx, inserted_rx) = std::sync::mpsc::channel();
        let (commit_tx, commit_rx) = std::sync::mpsc::channel::<()>();
        let writer = std::thread::spawn({
            let db = db.clone();
            move || {
                db.write_blocking(|c| {
                    let tx = c.transaction()?;
                    tx.execute("INSERT INTO users (name, created_at) VALUES ('alice', 0)", [])?;
                    inserted_tx.send(()).expect("send");
                    commit_rx.recv_timeout(std::time::Duration::from_secs(30)).expect("told to commit");
                    tx.commit()?;
                    Ok(())
                })
            }
        });
        inserted_rx.recv_timeout(std::time::Duration::from_secs(30)).expect("the writer inserted");
        let count = |db: Db| async move {
            db.read(|c| Ok(c.query_row("SELECT count(*) FROM users", [], |r| r.get::<_, i64>(0))?)).await
        };
        assert_eq!(count(db.clone()).await.expect("read beside the writer"), 0, "not committed yet");
        commit_tx.send(()).expect("send");
        writer.join().expect("thread").expect("write");
        assert_eq!(count(db).await.expect("read"), 1);
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
