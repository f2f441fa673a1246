//! The server's error types: [`ServerError`] for the library's operations, and
//! [`ApiError`], an HTTP error with a status and a message, rendered as JSON.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// An error of a server operation (start, database, files, configuration).
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// A file or directory could not be read or written.
    #[error("{what}: {source}")]
    Io {
        /// What was being done, naming the path.
        what: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The database failed.
    #[error("database error: {0}")]
    Database(#[from] crate::db::DbError),
    /// The database schema could not be migrated.
    #[error("database migration failed: {0}")]
    Migration(#[from] rusqlite_migration::Error),
    /// `arena.toml` is invalid.
    #[error("invalid configuration {path}: {message}")]
    Config {
        /// The configuration file.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// An argument or input is invalid (a name, a language, a file).
    #[error("{0}")]
    Invalid(String),
    /// A name is already taken.
    #[error("{0}")]
    Conflict(String),
    /// Too many requests (the per-user submission limit).
    #[error("{0}")]
    RateLimited(String),
    /// Something was not found.
    #[error("{0}")]
    NotFound(String),
    /// A client request to a server failed (it could not be sent, or the answer is unreadable).
    #[error("{0}")]
    Client(String),
    /// The server answered the client's request with a refusal (its message quoted).
    #[error("{0}")]
    Refused(String),
    /// A background task failed to run.
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<rusqlite::Error> for ServerError {
    fn from(e: rusqlite::Error) -> ServerError {
        ServerError::Database(e.into())
    }
}

impl ServerError {
    /// An I/O error with a description of what was being done.
    pub fn io(what: impl Into<String>, source: std::io::Error) -> ServerError {
        ServerError::Io { what: what.into(), source }
    }
}

/// An HTTP error: a status code and a message for the client.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What went wrong, for the client.
    pub message: String,
}

/// The JSON body of every error answer: `{"error": "..."}`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// What went wrong.
    pub error: String,
}

impl ApiError {
    /// An error with the given status and message.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into() }
    }

    /// 400 Bad Request.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// 401 Unauthorized.
    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, message)
    }

    /// 403 Forbidden.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, message)
    }

    /// 404 Not Found.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }
}

impl From<ServerError> for ApiError {
    fn from(e: ServerError) -> ApiError {
        match &e {
            ServerError::Invalid(m) => ApiError::bad_request(m.clone()),
            ServerError::Conflict(m) => ApiError::new(StatusCode::CONFLICT, m.clone()),
            ServerError::NotFound(m) => ApiError::not_found(m.clone()),
            ServerError::RateLimited(m) => ApiError::new(StatusCode::TOO_MANY_REQUESTS, m.clone()),
            _ => {
                tracing::error!(error = %e, "request failed");
                ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(ErrorBody { error: self.message })).into_response()
    }
}
