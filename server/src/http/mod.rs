//! The HTTP server: the router of the JSON API, the web pages and the
//! operations endpoints, and the layers every request passes through.

pub mod api;
pub mod event_streams;
pub mod json_errors;
pub mod listener;
pub mod log_privacy;
pub mod ops;
pub mod pages;
pub mod settings;
pub mod trace;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::routing::{get, post};
use tower_http::timeout::{RequestBodyTimeoutLayer, TimeoutLayer};

use crate::arena::SharedArena;
use settings::MetricsAccess;

/// The whole application.
pub fn router(arena: SharedArena) -> Router {
    let body_limit = arena.config.limits.upload_bytes + 64 * 1024;
    let api = Router::new()
        .route("/openapi.json", get(ops::openapi))
        .route("/me", get(api::me))
        .route("/users/{name}/revoke", post(api::revoke))
        .route("/languages", get(api::languages))
        .route("/bots", get(api::bots))
        .route("/bots/{name}", get(api::bot))
        .route("/bots/{name}/versions", post(api::submit))
        .route("/versions/{id}", get(api::version))
        .route("/versions/{id}/promote", post(api::promote))
        .route("/bots/{name}/playable", post(crate::play::routes::set_playable))
        .route("/bots/{name}/people", get(crate::play::routes::score_against_people))
        .route("/leaderboard", get(api::leaderboard))
        .route("/games", get(api::games))
        .route("/games/{id}", get(api::game))
        .route("/games/{id}/log", get(api::game_log))
        .fallback(api::not_found)
        .layer(axum::middleware::map_response_with_state(arena.clone(), json_errors::to_json));
    let http = &arena.config.http;
    let streams = event_streams::EventStreams::new(http.max_event_streams);
    let mut app = Router::new().nest("/api", api).route("/healthz", get(ops::healthz));
    // `/metrics` on its own address when one is set (see `metrics_router`), else here.
    if http.metrics_listen.is_none() {
        app = match http.metrics {
            MetricsAccess::Admin => app.route("/metrics", get(ops::metrics_for_admins)),
            MetricsAccess::Public => app.route("/metrics", get(ops::metrics)),
        };
    }
    app.merge(pages::routes())
        .merge(crate::play::routes())
        .layer(axum::middleware::from_fn(move |request, next| {
            event_streams::limit(streams.clone(), request, next)
        }))
        .layer(DefaultBodyLimit::max(body_limit))
        // A body that stalls is cut; a request must be answered (headers) in time.
        .layer(RequestBodyTimeoutLayer::new(http.body_timeout()))
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, http.request_timeout()))
        .layer(axum::middleware::from_fn(trace::trace))
        .with_state(arena)
}

/// The router of the separate metrics address (`http.metrics_listen`): `/metrics` only.
pub fn metrics_router(arena: SharedArena) -> Router {
    Router::new().route("/metrics", get(ops::metrics)).with_state(arena)
}
