//! The PostgreSQL side of [`super::conn::Conn`]: a connection from a `postgres://` URL, the
//! server's queries run unchanged (rusqlite's `?1` placeholders become `$1`), values mapped
//! to and from PostgreSQL's types, SQLite's one-writer rule kept across processes with an
//! advisory lock, and the schema migrations of `server/migrations/postgres/`.

use std::collections::HashMap;
use std::error::Error;

use bytes::BytesMut;
use postgres::types::{FromSql, IsNull, ToSql, Type};
use postgres::{Client, NoTls, Statement};
use rusqlite::types::Value;

use super::conn::{Behavior, DbError, DbResult};

/// The schema migrations for PostgreSQL, in order: the same tables, columns and checks as
/// SQLite's (`server/migrations/*.sql`), in PostgreSQL's words.
const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/postgres/0001_initial.sql"),
    include_str!("../../migrations/postgres/0002_candidate_verdict.sql"),
    include_str!("../../migrations/postgres/0003_play.sql"),
    include_str!("../../migrations/postgres/0004_workers.sql"),
    include_str!("../../migrations/postgres/0005_build_tasks.sql"),
];

/// The advisory lock every write transaction holds: one writer at a time across every
/// server process, as SQLite has (the server's read-then-write transactions rely on it).
const WRITE_LOCK: i64 = 0x0042_616f_5772;
/// `BEGIN` and taking the write lock, as one batch (one round trip to the server).
fn begin_write() -> String {
    format!("BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK})")
}

/// Whether `sql`'s first word is `word` (case aside): a statement's kind.
fn starts_with_word(sql: &str, word: &str) -> bool {
    let sql = sql.trim_start();
    sql.len() >= word.len()
        && sql.as_bytes()[..word.len()].eq_ignore_ascii_case(word.as_bytes())
        && sql[word.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric() && c != '_')
}

/// The advisory lock held while the schema is migrated (servers starting together).
const MIGRATION_LOCK: i64 = 0x0042_616f_4d67;

/// One connection to PostgreSQL.
pub struct PgConn {
    /// The client; taken only when the connection is dropped.
    client: Option<Client>,
    statements: HashMap<String, Statement>,
    in_transaction: bool,
    serialize_writes: bool,
}

/// Where a `postgres://` URL points, without its password (for messages and logs).
#[must_use]
pub fn describe(url: &str) -> String {
    match super::tls::target(url) {
        Ok(super::tls::PgTarget { config: c, tls }) => {
            let hosts: Vec<String> = c
                .get_hosts()
                .iter()
                .map(|h| match h {
                    postgres::config::Host::Tcp(h) => h.clone(),
                    postgres::config::Host::Unix(p) => p.display().to_string(),
                })
                .collect();
            let over = if tls.is_some() { " over TLS" } else { "" };
            format!(
                "PostgreSQL database {} on {}{over}",
                c.get_dbname().unwrap_or("(default)"),
                hosts.join(",")
            )
        }
        Err(_) => "a PostgreSQL database (unreadable URL)".into(),
    }
}

impl PgConn {
    /// Connects. A connection whose autocommit statements must take the write lock (the
    /// server's writer) has `serialize_writes`.
    pub fn connect(url: &str, serialize_writes: bool) -> DbResult<PgConn> {
        let super::tls::PgTarget { mut config, tls } = super::tls::target(url)?;
        // Named after the process, for operators (and tests) reading pg_stat_activity.
        if config.get_application_name().is_none() {
            config.application_name(&format!("bao-referee {}", std::process::id()));
        }
        let open = move || match tls {
            Some(tls) => config.connect(tls),
            None => config.connect(NoTls),
        };
        // The synchronous client runs a runtime of its own, which cannot start inside
        // another's context: from an async thread, it connects from a thread of its own.
        let client = if tokio::runtime::Handle::try_current().is_ok() {
            std::thread::scope(|s| s.spawn(open).join())
                .map_err(|_| DbError::Value("the PostgreSQL connection thread failed".into()))??
        } else {
            open()?
        };
        Ok(PgConn {
            client: Some(client),
            statements: HashMap::new(),
            in_transaction: false,
            serialize_writes,
        })
    }

    /// Whether PostgreSQL closed the connection.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.client.as_ref().is_none_or(Client::is_closed)
    }

    fn client(&mut self) -> Result<&mut Client, DbError> {
        self.client.as_mut().ok_or_else(|| DbError::Value("the PostgreSQL connection is closed".into()))
    }

    fn statement(&mut self, sql: &str) -> DbResult<Statement> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client()?.prepare(&placeholders(sql))?;
        self.statements.insert(sql.to_owned(), s.clone());
        Ok(s)
    }

    /// Runs a query; returns its rows as values.
    pub fn query(&mut self, sql: &str, params: &[Value]) -> DbResult<Vec<Vec<Value>>> {
        let stmt = self.statement(sql)?;
        let args: Vec<Param<'_>> = params.iter().map(Param).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a as &(dyn ToSql + Sync)).collect();
        // A plain read needs no write lock, even on the writer (as on SQLite).
        let read = starts_with_word(sql, "SELECT");
        let rows = if read {
            self.client()?.query(&stmt, &refs)?
        } else {
            self.locked(|client| client.query(&stmt, &refs))?
        };
        rows.iter()
            .map(|row| {
                (0..row.len())
                    .map(|i| row.try_get::<_, Cell>(i).map(|c| c.0).map_err(DbError::from))
                    .collect()
            })
            .collect()
    }

    /// Runs a statement; returns the number of rows it changed.
    pub fn execute(&mut self, sql: &str, params: &[Value]) -> DbResult<usize> {
        let stmt = self.statement(sql)?;
        let args: Vec<Param<'_>> = params.iter().map(Param).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a as &(dyn ToSql + Sync)).collect();
        let n = self.locked(|client| client.execute(&stmt, &refs))?;
        usize::try_from(n).map_err(|_| DbError::Value(format!("{n} rows changed")))
    }

    /// Runs `f`; on the writer outside a transaction, inside one that holds the write lock.
    fn locked<T>(&mut self, f: impl FnOnce(&mut Client) -> Result<T, postgres::Error>) -> DbResult<T> {
        if !self.serialize_writes || self.in_transaction {
            return Ok(f(self.client()?)?);
        }
        let client = self.client()?;
        // BEGIN and the lock in one round trip; then the statement, then COMMIT.
        let r = client.batch_execute(&begin_write()).and_then(|()| f(client));
        match r {
            Ok(out) => {
                client.batch_execute("COMMIT")?;
                Ok(out)
            }
            Err(e) => {
                // The statement's error is the one to report; the rollback's adds nothing.
                let _ = client.batch_execute("ROLLBACK");
                Err(e.into())
            }
        }
    }

    /// Runs statements without parameters; `COMMIT` and `ROLLBACK` end the transaction.
    pub fn batch(&mut self, sql: &str) -> DbResult<()> {
        let ends = matches!(sql.trim().to_ascii_uppercase().as_str(), "COMMIT" | "ROLLBACK");
        let r = self.client()?.batch_execute(sql);
        if ends {
            self.in_transaction = false;
        }
        Ok(r?)
    }

    /// Begins a transaction: [`Behavior::Immediate`] takes the write lock, a deferred one is
    /// a repeatable-read snapshot.
    pub fn begin(&mut self, behavior: Behavior) -> DbResult<()> {
        match behavior {
            Behavior::Immediate => {
                // BEGIN and the lock in one round trip; a failure leaves no transaction open.
                let client = self.client()?;
                if let Err(e) = client.batch_execute(&begin_write()) {
                    let _ = client.batch_execute("ROLLBACK");
                    return Err(e.into());
                }
                self.in_transaction = true;
            }
            Behavior::Deferred => {
                self.client()?.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ")?;
                self.in_transaction = true;
            }
        }
        Ok(())
    }

    /// Brings the schema to the latest version (under a lock: servers starting at once
    /// migrate one after the other). Refuses a database of a newer version than this program.
    pub fn migrate(&mut self) -> DbResult<()> {
        self.client()?.execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])?;
        let r = self.migrate_locked();
        let unlock = self.client()?.execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK]);
        r?;
        unlock?;
        Ok(())
    }

    fn migrate_locked(&mut self) -> DbResult<()> {
        let client = self.client()?;
        client.batch_execute(
            "CREATE TABLE IF NOT EXISTS bao_schema_version (
                 version    BIGINT PRIMARY KEY,
                 applied_at BIGINT NOT NULL
             )",
        )?;
        let done: i64 =
            client.query_one("SELECT coalesce(max(version), 0) FROM bao_schema_version", &[])?.get(0);
        let known = i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX);
        if done > known {
            return Err(DbError::Value(format!(
                "the database's schema is version {done}, newer than this program's {known}: upgrade the program"
            )));
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(usize::try_from(done).unwrap_or(usize::MAX)) {
            let version = i64::try_from(i + 1).unwrap_or(i64::MAX);
            let mut tx = client.transaction()?;
            tx.batch_execute(sql)?;
            tx.execute(
                "INSERT INTO bao_schema_version (version, applied_at) VALUES ($1, $2)",
                &[&version, &super::now_ms()],
            )?;
            tx.commit()?;
        }
        Ok(())
    }
}

impl Drop for PgConn {
    fn drop(&mut self) {
        // Closing blocks on the client's own runtime, which cannot run inside another's
        // context (the server's, when an arena is dropped at the end of `serve`).
        if let Some(client) = self.client.take()
            && tokio::runtime::Handle::try_current().is_ok()
        {
            std::thread::spawn(move || drop(client));
        }
    }
}

/// rusqlite's placeholders (`?1`, `?`) as PostgreSQL's (`$1`), outside quotes and comments.
fn placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut chars = sql.chars().peekable();
    let mut highest = 0_u32;
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                out.push(c);
                for d in chars.by_ref() {
                    out.push(d);
                    if d == c {
                        break;
                    }
                }
            }
            '-' if chars.peek() == Some(&'-') => {
                out.push(c);
                for d in chars.by_ref() {
                    out.push(d);
                    if d == '\n' {
                        break;
                    }
                }
            }
            '?' => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
                    digits.push(d);
                    chars.next();
                }
                let n = if digits.is_empty() { highest + 1 } else { digits.parse().unwrap_or(0) };
                highest = highest.max(n);
                out.push('$');
                out.push_str(&n.to_string());
            }
            _ => out.push(c),
        }
    }
    out
}

type BoxError = Box<dyn Error + Sync + Send>;

/// A parameter: a value written as the type PostgreSQL expects in its place.
#[derive(Debug)]
struct Param<'a>(&'a Value);

/// What a NUL in a text value is written as on PostgreSQL: the symbol for null, U+2400.
pub const NUL_STAND_IN: &str = "\u{2400}";

fn is_text(ty: &Type) -> bool {
    matches!(*ty, Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN)
        || ty.name() == "citext"
}

impl ToSql for Param<'_> {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        match self.0 {
            Value::Null => Ok(IsNull::Yes),
            Value::Integer(i) => match *ty {
                Type::INT8 => i.to_sql(ty, out),
                Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
                Type::BOOL => (*i != 0).to_sql(ty, out),
                #[expect(
                    clippy::cast_precision_loss,
                    reason = "SQLite compares integers with reals the same way"
                )]
                Type::FLOAT8 => (*i as f64).to_sql(ty, out),
                _ if is_text(ty) => i.to_string().as_str().to_sql(&Type::TEXT, out),
                _ => Err(format!("an integer where PostgreSQL expects {ty}").into()),
            },
            Value::Real(f) => match *ty {
                Type::FLOAT8 => f.to_sql(ty, out),
                #[expect(
                    clippy::cast_possible_truncation,
                    reason = "a REAL column is FLOAT8; FLOAT4 is not used"
                )]
                Type::FLOAT4 => (*f as f32).to_sql(ty, out),
                _ => Err(format!("a real number where PostgreSQL expects {ty}").into()),
            },
            // PostgreSQL's text cannot hold NUL (SQLite's can): written as U+2400 (␀), so that
            // a bot's NUL, quoted in a reason or a report, never makes the write fail.
            Value::Text(s) if is_text(ty) && s.contains('\0') => {
                out.extend_from_slice(s.replace('\0', NUL_STAND_IN).as_bytes());
                Ok(IsNull::No)
            }
            Value::Text(s) if is_text(ty) => {
                out.extend_from_slice(s.as_bytes());
                Ok(IsNull::No)
            }
            Value::Text(_) => Err(format!("text where PostgreSQL expects {ty}").into()),
            Value::Blob(b) if *ty == Type::BYTEA => {
                out.extend_from_slice(b);
                Ok(IsNull::No)
            }
            Value::Blob(_) => Err(format!("bytes where PostgreSQL expects {ty}").into()),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

/// A column's value read from PostgreSQL as the SQLite value it stands for.
struct Cell(Value);

impl<'a> FromSql<'a> for Cell {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Cell, BoxError> {
        Ok(Cell(match *ty {
            Type::BOOL => Value::Integer(i64::from(bool::from_sql(ty, raw)?)),
            Type::INT2 => Value::Integer(i64::from(i16::from_sql(ty, raw)?)),
            Type::INT4 => Value::Integer(i64::from(i32::from_sql(ty, raw)?)),
            Type::INT8 => Value::Integer(i64::from_sql(ty, raw)?),
            Type::FLOAT4 => Value::Real(f64::from(f32::from_sql(ty, raw)?)),
            Type::FLOAT8 => Value::Real(f64::from_sql(ty, raw)?),
            Type::BYTEA => Value::Blob(raw.to_vec()),
            _ if is_text(ty) => Value::Text(std::str::from_utf8(raw)?.to_owned()),
            _ => {
                return Err(format!(
                    "a column of type {ty}, which the server does not read (cast it to BIGINT, DOUBLE PRECISION or TEXT)"
                )
                .into());
            }
        }))
    }

    fn from_sql_null(_: &Type) -> Result<Cell, BoxError> {
        Ok(Cell(Value::Null))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::{placeholders, starts_with_word};

    #[test]
    fn a_statement_s_kind_is_its_first_word() {
        assert!(starts_with_word("  select id FROM games", "SELECT"));
        assert!(starts_with_word("SELECT\n1", "SELECT"));
        assert!(!starts_with_word("SELECTED", "SELECT"));
        assert!(!starts_with_word("UPDATE t SET x = 1 RETURNING (SELECT 1)", "SELECT"));
        assert!(!starts_with_word("WITH d AS (DELETE FROM t RETURNING *) SELECT 1", "SELECT"));
        assert!(!starts_with_word("SEL", "SELECT"));
    }

    #[test]
    fn placeholders_outside_quotes_become_dollars() {
        assert_eq!(placeholders("SELECT ?1, ?2 WHERE a = ?1"), "SELECT $1, $2 WHERE a = $1");
        assert_eq!(placeholders("VALUES (?, ?, ?)"), "VALUES ($1, $2, $3)");
        assert_eq!(placeholders("SELECT '?1', \"a?\" -- ?3\n, ?2"), "SELECT '?1', \"a?\" -- ?3\n, $2");
        assert_eq!(placeholders("SELECT 'it''s ?', ?1"), "SELECT 'it''s ?', $1");
    }
}
