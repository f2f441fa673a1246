//! The arena database: SQLite in WAL mode in the arena directory (the default), or a
//! PostgreSQL server shared by several server processes (`--database postgres://…`).
//! Schema migrations come from `server/migrations/` (and `server/migrations/postgres/`, the
//! same schema in PostgreSQL's words). The handle runs queries off the async threads: one
//! writer, and a pool of readers that do not wait for each other.

mod conn;
mod postgres;
#[cfg(test)]
pub(crate) mod postgres_tests;
mod tls;

use std::cell::RefCell;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite_migration::{M, Migrations};

pub use conn::{Behavior, ColumnIndex, Conn, DbError, DbResult, OptionalExtension, Params, Row, Stmt, Tx};
pub use rusqlite::params;
pub use rusqlite::types::Value;

use crate::error::ServerError;

/// The schema migrations, in order (files in `server/migrations/`).
const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/0001_initial.sql"),
    include_str!("../../migrations/0002_candidate_verdict.sql"),
    include_str!("../../migrations/0003_play.sql"),
    include_str!("../../migrations/0004_workers.sql"),
    include_str!("../../migrations/0005_build_tasks.sql"),
];

/// Where the database is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file (the arena's `arena.sqlite3`).
    Sqlite(PathBuf),
    /// A PostgreSQL server: its `postgres://` URL.
    Postgres(String),
}

impl Location {
    /// The database named by `--database` (a `postgres://` or `postgresql://` URL), or
    /// without one the SQLite file `default`.
    pub fn from_option(database: Option<&str>, default: &Path) -> Result<Location, ServerError> {
        match database.map(str::trim) {
            None | Some("") => Ok(Location::Sqlite(default.to_owned())),
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Ok(Location::Postgres(url.to_owned()))
            }
            Some(_) => Err(ServerError::Invalid(
                "--database takes a postgres:// URL (without it, the arena keeps its SQLite file)".into(),
            )),
        }
    }

    /// The database in words, without a password.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Location::Sqlite(p) => format!("SQLite file {}", p.display()),
            Location::Postgres(url) => postgres::describe(url),
        }
    }

    /// A new connection: the writer's (`writer`: its autocommit writes take the write lock)
    /// or a reader's.
    pub(crate) fn connect(&self, writer: bool) -> Result<Conn, ServerError> {
        match self {
            Location::Sqlite(path) => {
                let mut conn = rusqlite::Connection::open(path)?;
                configure(&mut conn)?;
                Ok(Conn::Sqlite(conn))
            }
            Location::Postgres(url) => postgres::PgConn::connect(url, writer)
                .map(|c| Conn::Postgres(Box::new(RefCell::new(c))))
                .map_err(|e| {
                    ServerError::Internal(format!("cannot connect to the {}: {e}", self.describe()))
                }),
        }
    }
}

/// Opens (creating if needed) the SQLite database at `path`, sets WAL mode and
/// migrates the schema to the latest version.
pub fn open(path: &Path) -> Result<Conn, ServerError> {
    open_location(&Location::Sqlite(path.to_owned()))
}

/// Opens the database at `location` for writing and migrates its schema to the latest
/// version. A SQLite file is created private (mode 600) if missing.
pub fn open_location(location: &Location) -> Result<Conn, ServerError> {
    match location {
        Location::Sqlite(path) => {
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
            let mut conn = rusqlite::Connection::open(path)?;
            configure(&mut conn)?;
            let migrations = Migrations::new(MIGRATIONS.iter().map(|sql| M::up(sql)).collect());
            migrations.to_latest(&mut conn)?;
            Ok(Conn::Sqlite(conn))
        }
        Location::Postgres(_) => {
            let conn = location.connect(true)?;
            if let Conn::Postgres(pg) = &conn {
                pg.borrow_mut().migrate().map_err(|e| {
                    ServerError::Internal(format!("cannot migrate the {}: {e}", location.describe()))
                })?;
            }
            Ok(conn)
        }
    }
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

/// A busy timeout, WAL journal, full synchronisation of commits and foreign keys.
///
/// Write transactions take the write lock when they begin ([`Behavior::Immediate`]): a
/// deferred transaction that reads and then writes fails at once with "database is locked"
/// (the busy handler is not called) when another process — `serve user revoke` beside the
/// running server — wrote in between.
fn configure(conn: &mut rusqlite::Connection) -> Result<(), ServerError> {
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
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
/// writer; on PostgreSQL its write transactions hold a lock shared by every server
/// process) and a pool of [`READERS`] connections for reads, each used on tokio's
/// blocking threads.
#[derive(Clone)]
pub struct Db {
    location: Arc<Location>,
    writer: Arc<Mutex<Conn>>,
    readers: r2d2::Pool<ReadConnections>,
}

/// Opens the pool's read connections.
#[derive(Debug)]
struct ReadConnections {
    location: Location,
}

impl r2d2::ManageConnection for ReadConnections {
    type Connection = Conn;
    type Error = ServerError;

    fn connect(&self) -> Result<Conn, ServerError> {
        self.location.connect(false)
    }

    fn is_valid(&self, conn: &mut Conn) -> Result<(), ServerError> {
        conn.execute_batch("")?;
        Ok(())
    }

    fn has_broken(&self, conn: &mut Conn) -> bool {
        conn.is_broken()
    }
}

impl Db {
    /// Opens the SQLite database at `path` (see [`open`]) with a pool of connections for reads.
    pub fn open(path: &Path) -> Result<Db, ServerError> {
        Db::open_location(&Location::Sqlite(path.to_owned()))
    }

    /// Opens the database at `location` (see [`open_location`]) with a pool of
    /// connections for reads.
    pub fn open_location(location: &Location) -> Result<Db, ServerError> {
        let writer = open_location(location)?;
        let readers = r2d2::Pool::builder()
            .max_size(READERS)
            // One at once (a command line needs no more); the others when reads overlap.
            .min_idle(Some(1))
            .connection_timeout(std::time::Duration::from_secs(30))
            .build(ReadConnections { location: location.clone() })
            .map_err(|e| {
                ServerError::Internal(format!("cannot open the {} for reading: {e}", location.describe()))
            })?;
        Ok(Db { location: Arc::new(location.clone()), writer: Arc::new(Mutex::new(writer)), readers })
    }

    /// Where the database is.
    #[must_use]
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// Runs `f` on the write connection, on a blocking thread.
    pub async fn write<T, F>(&self, f: F) -> Result<T, ServerError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Conn) -> Result<T, ServerError> + Send + 'static,
    {
        let db = self.clone();
        blocking(move || db.write_blocking(f)).await
    }

    /// Runs `f` on a read connection of the pool, on a blocking thread (waiting
    /// for one only when [`READERS`] reads are under way).
    pub async fn read<T, F>(&self, f: F) -> Result<T, ServerError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Conn) -> Result<T, ServerError> + Send + 'static,
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
    /// that run without the server, and for tests). A PostgreSQL connection found
    /// closed is opened again first.
    pub fn write_blocking<T>(
        &self,
        f: impl FnOnce(&mut Conn) -> Result<T, ServerError>,
    ) -> Result<T, ServerError> {
        let mut conn =
            self.writer.lock().map_err(|_| ServerError::Internal("database lock poisoned".into()))?;
        if conn.is_broken() {
            *conn = self.location.connect(true)?;
        }
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
