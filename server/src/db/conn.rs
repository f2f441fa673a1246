//! One database connection, SQLite or PostgreSQL, behind one small API shaped like
//! rusqlite's (`execute`, `query_row`, `prepare_cached(..).query_map`, `transaction`), so
//! that every query of the server is written once, in the SQL both databases accept, and
//! runs unchanged on either.
//!
//! Values cross the boundary as rusqlite's [`Value`]s: parameters are turned into them with
//! rusqlite's [`ToSql`] (the domain types' one conversion), rows come back as them and are
//! read with rusqlite's [`FromSql`]. The PostgreSQL side ([`super::postgres`]) maps them to
//! and from its column types.

use std::cell::RefCell;

use rusqlite::types::{FromSql, ToSql, ToSqlOutput, Value};

use super::postgres::PgConn;

/// A database failure.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// SQLite failed (or a value could not be converted).
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL failed.
    #[error("PostgreSQL: {}", postgres_words(.0))]
    Postgres(#[from] postgres::Error),
    /// A query that must return a row returned none.
    #[error("the query returned no row")]
    NoRow,
    /// A value could not be passed to or read from the database.
    #[error("{0}")]
    Value(String),
}

impl DbError {
    /// Whether the connection itself is gone (the server closed it, the network failed):
    /// the caller may retry on a new connection.
    #[must_use]
    pub fn connection_lost(&self) -> bool {
        match self {
            DbError::Postgres(e) => e.is_closed() || e.as_db_error().is_none() && e.code().is_none(),
            _ => false,
        }
    }
}

/// A PostgreSQL error in words: the server's message, detail and code when it sent them.
fn postgres_words(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => {
            let mut s = format!("{} ({})", db.message(), db.code().code());
            if let Some(detail) = db.detail() {
                s.push_str(&format!("; {detail}"));
            }
            s
        }
        // The client's own failures say what went wrong in their sources (the TLS handshake's
        // "invalid peer certificate: UnknownIssuer", the socket's "connection refused").
        None => {
            let mut s = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(cause) = source {
                s.push_str(&format!(": {cause}"));
                source = cause.source();
            }
            s
        }
    }
}

/// The result of a database operation.
pub type DbResult<T> = Result<T, DbError>;

/// `query_row(..).optional()`: no row is `None`, not an error.
pub trait OptionalExtension<T> {
    /// `Ok(None)` for [`DbError::NoRow`].
    fn optional(self) -> DbResult<Option<T>>;
}

impl<T> OptionalExtension<T> for DbResult<T> {
    fn optional(self) -> DbResult<Option<T>> {
        match self {
            Ok(v) => Ok(Some(v)),
            Err(DbError::NoRow) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// The parameters of a statement: `params![a, b]`, `[a]`, `[]`, or a list of [`Value`]s.
pub trait Params {
    /// The parameters as values, in order.
    fn values(self) -> DbResult<Vec<Value>>;
}

fn to_value(p: &dyn ToSql) -> DbResult<Value> {
    Ok(match p.to_sql()? {
        ToSqlOutput::Borrowed(v) => v.into(),
        ToSqlOutput::Owned(v) => v,
        other => return Err(DbError::Value(format!("unsupported parameter {other:?}"))),
    })
}

impl Params for &[&dyn ToSql] {
    fn values(self) -> DbResult<Vec<Value>> {
        self.iter().map(|p| to_value(*p)).collect()
    }
}

impl Params for [&dyn ToSql; 0] {
    fn values(self) -> DbResult<Vec<Value>> {
        Ok(Vec::new())
    }
}

impl Params for Vec<Value> {
    fn values(self) -> DbResult<Vec<Value>> {
        Ok(self)
    }
}

macro_rules! array_params {
    ($($n:literal)*) => {$(
        impl<T: ToSql> Params for [T; $n] {
            fn values(self) -> DbResult<Vec<Value>> {
                self.iter().map(|p| to_value(p)).collect()
            }
        }
    )*};
}
array_params!(1 2 3 4 5 6 7 8);

/// A row of a result: its values, read by position with rusqlite's [`FromSql`].
pub struct Row<'a> {
    values: &'a [Value],
}

/// A column position (a `usize`, as rusqlite's `Row::get` takes).
pub trait ColumnIndex {
    /// The position.
    fn index(self) -> usize;
}

impl ColumnIndex for usize {
    fn index(self) -> usize {
        self
    }
}

impl Row<'_> {
    /// The value of column `idx` converted to `T` (errors name the column and the type).
    pub fn get<I: ColumnIndex, T: FromSql>(&self, idx: I) -> rusqlite::Result<T> {
        let idx = idx.index();
        let value = self.values.get(idx).ok_or(rusqlite::Error::InvalidColumnIndex(idx))?;
        T::column_result(value.into()).map_err(|e| match e {
            rusqlite::types::FromSqlError::InvalidType => {
                rusqlite::Error::InvalidColumnType(idx, format!("column {idx}"), value.data_type())
            }
            rusqlite::types::FromSqlError::OutOfRange(i) => rusqlite::Error::IntegralValueOutOfRange(idx, i),
            other => rusqlite::Error::FromSqlConversionFailure(idx, value.data_type(), Box::new(other)),
        })
    }
}

/// How a transaction begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behavior {
    /// Takes the write lock at once: no other writer (of any process) runs until it ends.
    Immediate,
    /// A read snapshot that takes no write lock.
    Deferred,
}

/// One connection to the database.
pub enum Conn {
    /// A SQLite file.
    Sqlite(rusqlite::Connection),
    /// A PostgreSQL server.
    Postgres(Box<RefCell<PgConn>>),
}

impl Conn {
    fn run(&self, sql: &str, params: Vec<Value>) -> DbResult<Vec<Vec<Value>>> {
        match self {
            Conn::Sqlite(c) => {
                let mut stmt = c.prepare_cached(sql)?;
                let n = stmt.column_count();
                let rows = stmt.query_map(rusqlite::params_from_iter(params), |r| {
                    (0..n).map(|i| r.get::<_, Value>(i)).collect::<rusqlite::Result<Vec<_>>>()
                })?;
                Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
            }
            Conn::Postgres(c) => c.borrow_mut().query(sql, &params),
        }
    }

    /// Runs one statement; returns the number of rows it changed.
    pub fn execute<P: Params>(&self, sql: &str, params: P) -> DbResult<usize> {
        let params = params.values()?;
        match self {
            Conn::Sqlite(c) => Ok(c.prepare_cached(sql)?.execute(rusqlite::params_from_iter(params))?),
            Conn::Postgres(c) => c.borrow_mut().execute(sql, &params),
        }
    }

    /// Runs statements separated by `;`, without parameters.
    pub fn execute_batch(&self, sql: &str) -> DbResult<()> {
        match self {
            Conn::Sqlite(c) => Ok(c.execute_batch(sql)?),
            Conn::Postgres(c) => c.borrow_mut().batch(sql),
        }
    }

    /// The first row of a query, read by `f`; [`DbError::NoRow`] if there is none.
    pub fn query_row<T, P: Params>(
        &self,
        sql: &str,
        params: P,
        f: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
    ) -> DbResult<T> {
        let rows = self.run(sql, params.values()?)?;
        let first = rows.first().ok_or(DbError::NoRow)?;
        Ok(f(&Row { values: first })?)
    }

    /// A statement to run with [`Stmt::query_map`] (the name rusqlite gives it; statements
    /// are cached per connection on both databases).
    pub fn prepare_cached<'c>(&'c self, sql: &str) -> DbResult<Stmt<'c>> {
        Ok(Stmt { conn: self, sql: sql.to_owned() })
    }

    /// The same as [`Conn::prepare_cached`].
    pub fn prepare<'c>(&'c self, sql: &str) -> DbResult<Stmt<'c>> {
        self.prepare_cached(sql)
    }

    /// Begins a transaction that takes the write lock at once ([`Behavior::Immediate`]).
    pub fn transaction(&mut self) -> DbResult<Tx<'_>> {
        self.transaction_with_behavior(Behavior::Immediate)
    }

    /// Begins a transaction. It rolls back when dropped without [`Tx::commit`].
    pub fn transaction_with_behavior(&mut self, behavior: Behavior) -> DbResult<Tx<'_>> {
        match self {
            Conn::Sqlite(c) => c.execute_batch(match behavior {
                Behavior::Immediate => "BEGIN IMMEDIATE",
                Behavior::Deferred => "BEGIN DEFERRED",
            })?,
            Conn::Postgres(c) => c.get_mut().begin(behavior)?,
        }
        Ok(Tx { conn: self, open: true })
    }

    /// Which database this is, for messages: "SQLite" or "PostgreSQL".
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Conn::Sqlite(_) => "SQLite",
            Conn::Postgres(_) => "PostgreSQL",
        }
    }

    /// Whether the connection is known to be unusable (PostgreSQL closed it).
    #[must_use]
    pub fn is_broken(&self) -> bool {
        match self {
            Conn::Sqlite(_) => false,
            Conn::Postgres(c) => c.borrow().is_closed(),
        }
    }
}

/// A statement of a connection.
pub struct Stmt<'c> {
    conn: &'c Conn,
    sql: String,
}

impl Stmt<'_> {
    /// Every row of the query, each read by `f`.
    pub fn query_map<T, P: Params>(
        &mut self,
        params: P,
        mut f: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
    ) -> DbResult<std::vec::IntoIter<rusqlite::Result<T>>> {
        let rows = self.conn.run(&self.sql, params.values()?)?;
        Ok(rows.iter().map(|values| f(&Row { values })).collect::<Vec<_>>().into_iter())
    }

    /// Runs the statement; returns the number of rows it changed.
    pub fn execute<P: Params>(&mut self, params: P) -> DbResult<usize> {
        self.conn.execute(&self.sql, params)
    }

    /// The first row of the query, read by `f`.
    pub fn query_row<T, P: Params>(
        &mut self,
        params: P,
        f: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
    ) -> DbResult<T> {
        self.conn.query_row(&self.sql, params, f)
    }
}

/// A transaction under way: statements run through it (it dereferences to the connection);
/// dropped without [`Tx::commit`], it rolls back.
pub struct Tx<'c> {
    conn: &'c mut Conn,
    open: bool,
}

impl Tx<'_> {
    /// Commits.
    pub fn commit(mut self) -> DbResult<()> {
        self.open = false;
        self.conn.execute_batch("COMMIT")
    }
}

impl std::ops::Deref for Tx<'_> {
    type Target = Conn;
    fn deref(&self) -> &Conn {
        self.conn
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if self.open {
            // Nothing more to do if this fails: the connection is gone, and so is the transaction.
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}
