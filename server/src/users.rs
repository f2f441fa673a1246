//! Users, their API tokens and their web sessions (all secrets stored hashed).

use crate::db::{Conn, OptionalExtension, params};
use serde::Serialize;

use crate::db::now_ms;
use crate::domain::{UserId, UserName};
use crate::error::ServerError;
use crate::token;

/// How long a web session lasts, in milliseconds (14 days).
pub const SESSION_MS: i64 = 14 * 24 * 3600 * 1000;

/// A user of the arena.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct User {
    /// Database id.
    pub id: UserId,
    /// The user's name.
    pub name: UserName,
    /// Whether the user is an administrator.
    pub is_admin: bool,
}

/// Creates a user and its first API token; returns the user and the token
/// (shown once: only its hash is stored).
pub fn create_user(conn: &mut Conn, name: &str, admin: bool) -> Result<(User, String), ServerError> {
    let name = UserName::try_from(name).map_err(|e| ServerError::Invalid(e.to_string()))?;
    let tx = conn.transaction()?;
    let exists: Option<UserId> =
        tx.query_row("SELECT id FROM users WHERE name = ?1", [&name], |r| r.get(0)).optional()?;
    if exists.is_some() {
        return Err(ServerError::Conflict(format!("user {name:?} already exists")));
    }
    let id: UserId = tx.query_row(
        "INSERT INTO users (name, is_admin, created_at) VALUES (?1, ?2, ?3) RETURNING id",
        params![name, admin, now_ms()],
        |r| r.get(0),
    )?;
    let secret = token::new_secret();
    tx.execute(
        "INSERT INTO tokens (user_id, hash, created_at) VALUES (?1, ?2, ?3)",
        params![id, token::hash(&secret), now_ms()],
    )?;
    tx.commit()?;
    Ok((User { id, name, is_admin: admin }, secret))
}

/// The user an API token belongs to.
pub fn user_by_token(conn: &Conn, secret: &str) -> Result<Option<User>, ServerError> {
    Ok(conn
        .query_row(
            "SELECT u.id, u.name, u.is_admin FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ?1",
            [token::hash(secret)],
            |r| Ok(User { id: r.get(0)?, name: r.get(1)?, is_admin: r.get(2)? }),
        )
        .optional()?)
}

/// What revoking a user's access removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Revoked {
    /// API tokens deleted.
    pub tokens: usize,
    /// Web sessions ended.
    pub sessions: usize,
}

/// Revokes every API token and web session of the user `name` (who can then do
/// nothing until given a new token with [`new_token`]).
pub fn revoke_user(conn: &mut Conn, name: &str) -> Result<Revoked, ServerError> {
    let tx = conn.transaction()?;
    let id = user_id(&tx, name)?;
    let tokens = tx.execute("DELETE FROM tokens WHERE user_id = ?1", [id])?;
    let sessions = tx.execute("DELETE FROM sessions WHERE user_id = ?1", [id])?;
    tx.commit()?;
    Ok(Revoked { tokens, sessions })
}

/// Gives the user `name` a new API token (its other tokens stay valid); returns the
/// token, shown once.
pub fn new_token(conn: &Conn, name: &str) -> Result<String, ServerError> {
    let id = user_id(conn, name)?;
    let secret = token::new_secret();
    conn.execute(
        "INSERT INTO tokens (user_id, hash, created_at) VALUES (?1, ?2, ?3)",
        params![id, token::hash(&secret), now_ms()],
    )?;
    Ok(secret)
}

fn user_id(conn: &Conn, name: &str) -> Result<UserId, ServerError> {
    conn.query_row("SELECT id FROM users WHERE name = ?1", [name], |r| r.get(0))
        .optional()?
        .ok_or_else(|| ServerError::NotFound(format!("no user is named {name:?}")))
}

/// A web session: who is logged in, and the CSRF token its forms carry.
#[derive(Debug, Clone)]
pub struct Session {
    /// The user.
    pub user: User,
    /// The CSRF token of the session's forms.
    pub csrf: String,
}

/// Starts a session for a user; returns the cookie value (a secret).
pub fn create_session(conn: &Conn, user_id: UserId) -> Result<String, ServerError> {
    let secret = token::new_secret();
    let now = now_ms();
    conn.execute("DELETE FROM sessions WHERE expires_at < ?1", [now])?;
    conn.execute(
        "INSERT INTO sessions (user_id, hash, csrf, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![user_id, token::hash(&secret), token::new_secret(), now, now + SESSION_MS],
    )?;
    Ok(secret)
}

/// The live session a cookie value names.
pub fn session_by_cookie(conn: &Conn, secret: &str) -> Result<Option<Session>, ServerError> {
    Ok(conn
        .query_row(
            "SELECT u.id, u.name, u.is_admin, s.csrf FROM sessions s JOIN users u ON u.id = s.user_id
             WHERE s.hash = ?1 AND s.expires_at > ?2",
            params![token::hash(secret), now_ms()],
            |r| {
                Ok(Session {
                    user: User { id: r.get(0)?, name: r.get(1)?, is_admin: r.get(2)? },
                    csrf: r.get(3)?,
                })
            },
        )
        .optional()?)
}

/// Ends the session a cookie value names.
pub fn delete_session(conn: &Conn, secret: &str) -> Result<(), ServerError> {
    conn.execute("DELETE FROM sessions WHERE hash = ?1", [token::hash(secret)])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> (tempfile::TempDir, Conn) {
        let dir = tempfile::tempdir().expect("tempdir");
        let conn = crate::db::open(&dir.path().join("db")).expect("open");
        (dir, conn)
    }

    #[test]
    fn token_finds_its_user_and_only_the_hash_is_stored() {
        let (_d, mut conn) = db();
        let (user, secret) = create_user(&mut conn, "alice", true).expect("create");
        let found = user_by_token(&conn, &secret).expect("query").expect("found");
        assert_eq!(found.id, user.id);
        assert!(found.is_admin);
        assert!(user_by_token(&conn, "wrong").expect("query").is_none());
        let stored: Vec<u8> = conn.query_row("SELECT hash FROM tokens", [], |r| r.get(0)).expect("row");
        assert_ne!(stored, secret.as_bytes());
        assert_eq!(stored, token::hash(&secret));
    }

    #[test]
    fn duplicate_and_bad_names_are_refused() {
        let (_d, mut conn) = db();
        create_user(&mut conn, "bob", false).expect("create");
        assert!(matches!(create_user(&mut conn, "BOB", false), Err(ServerError::Conflict(_))));
        assert!(matches!(create_user(&mut conn, "<b>", false), Err(ServerError::Invalid(_))));
    }

    #[test]
    fn revoking_ends_every_token_and_session_and_a_new_token_works() {
        let (_d, mut conn) = db();
        let (user, first) = create_user(&mut conn, "dave", false).expect("create");
        let second = new_token(&conn, "Dave").expect("names ignore case");
        let cookie = create_session(&conn, user.id).expect("session");
        let (_, other) = create_user(&mut conn, "erin", false).expect("create");
        assert_eq!(revoke_user(&mut conn, "dave").expect("revoke"), Revoked { tokens: 2, sessions: 1 });
        assert!(user_by_token(&conn, &first).expect("query").is_none());
        assert!(user_by_token(&conn, &second).expect("query").is_none());
        assert!(session_by_cookie(&conn, &cookie).expect("query").is_none());
        assert!(user_by_token(&conn, &other).expect("query").is_some(), "other users keep their tokens");
        let third = new_token(&conn, "dave").expect("token");
        assert_eq!(user_by_token(&conn, &third).expect("query").map(|u| u.id), Some(user.id));
        assert!(matches!(revoke_user(&mut conn, "nobody"), Err(ServerError::NotFound(_))));
        assert!(matches!(new_token(&conn, "nobody"), Err(ServerError::NotFound(_))));
    }

    #[test]
    fn sessions_log_in_and_out() {
        let (_d, mut conn) = db();
        let (user, _) = create_user(&mut conn, "carol", false).expect("create");
        let cookie = create_session(&conn, user.id).expect("session");
        let s = session_by_cookie(&conn, &cookie).expect("query").expect("live");
        assert_eq!(s.user.name, "carol");
        assert_eq!(s.csrf.len(), 64);
        delete_session(&conn, &cookie).expect("delete");
        assert!(session_by_cookie(&conn, &cookie).expect("query").is_none());
    }
}
