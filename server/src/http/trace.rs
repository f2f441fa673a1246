//! A structured log line for every request (method, path, status, latency).

use std::time::Instant;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;

/// Logs the request when its answer is ready.
pub async fn trace(request: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let response = next.run(request).await;
    let status = response.status().as_u16();
    let micros = u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX);
    if status >= 500 {
        tracing::warn!(%method, %path, status, micros, "request");
    } else {
        tracing::debug!(%method, %path, status, micros, "request");
    }
    response
}
