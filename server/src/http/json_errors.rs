//! Every error answer of the API is JSON with a message: this layer rewrites
//! the plain-text answers axum gives for rejected requests (bad query, bad
//! path, body too large, wrong method) into `{"error": "..."}`.

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::arena::SharedArena;
use crate::error::ApiError;

/// Rewrites a non-JSON error answer into a JSON one.
pub async fn to_json(State(arena): State<SharedArena>, response: Response) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        return response;
    }
    let allow = response.headers().get(header::ALLOW).cloned();
    let text = match axum::body::to_bytes(response.into_body(), 16 * 1024).await {
        Ok(b) => String::from_utf8_lossy(&b).trim().to_owned(),
        Err(_) => String::new(),
    };
    let message = match status {
        StatusCode::PAYLOAD_TOO_LARGE => {
            format!("the request body is larger than the limit of {} bytes", arena.config.limits.upload_bytes)
        }
        StatusCode::METHOD_NOT_ALLOWED => "this method is not allowed on this path".to_owned(),
        _ if text.is_empty() => status.canonical_reason().unwrap_or("error").to_owned(),
        _ => text,
    };
    let mut out = ApiError::new(status, message).into_response();
    if let Some(allow) = allow {
        out.headers_mut().insert(header::ALLOW, allow);
    }
    out
}
