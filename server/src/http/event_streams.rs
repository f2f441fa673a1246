//! The cap on event streams (the live pages' `.../events`) open at once: each holds a
//! connection for as long as the viewer stays, so they get a share of the connections, not
//! all of them. A stream over the cap is answered 503 with a `Retry-After`; the browser's
//! `EventSource` tries again by itself.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt as _;
use tokio::sync::Semaphore;

/// The places for event streams.
#[derive(Debug, Clone)]
pub struct EventStreams(Arc<Semaphore>);

impl EventStreams {
    /// Room for `max` streams at once.
    #[must_use]
    pub fn new(max: usize) -> EventStreams {
        EventStreams(Arc::new(Semaphore::new(max)))
    }
}

/// Whether a path is an event stream: `/live/events` or `/live/{id}/events`.
fn is_event_stream(path: &str) -> bool {
    path.starts_with("/live/") && path.ends_with("/events")
}

/// Takes a place for an event stream, held until its body ends or the client leaves.
pub async fn limit(streams: EventStreams, request: Request, next: Next) -> Response {
    if !is_event_stream(request.uri().path()) {
        return next.run(request).await;
    }
    let Ok(permit) = streams.0.try_acquire_owned() else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "10")],
            "too many live viewers at the moment: try again in a few seconds\n",
        )
            .into_response();
    };
    let response = next.run(request).await;
    let (parts, body) = response.into_parts();
    let body = body.into_data_stream().map(move |chunk| {
        // The place is given back when the stream (and this closure) is dropped.
        let _held = &permit;
        chunk
    });
    Response::from_parts(parts, Body::from_stream(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_live_streams_are_counted() {
        assert!(is_event_stream("/live/events"));
        assert!(is_event_stream("/live/12/events"));
        assert!(!is_event_stream("/live"));
        assert!(!is_event_stream("/live/12"));
        assert!(!is_event_stream("/api/games"));
    }
}
