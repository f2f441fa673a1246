//! The HTTP server: the router of the JSON API, the web pages and the
//! operations endpoints, and the layers every request passes through.

pub mod api;
pub mod json_errors;
pub mod ops;
pub mod pages;
pub mod trace;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};

use crate::arena::SharedArena;

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
        .route("/leaderboard", get(api::leaderboard))
        .route("/games", get(api::games))
        .route("/games/{id}", get(api::game))
        .route("/games/{id}/log", get(api::game_log))
        .fallback(api::not_found)
        .layer(axum::middleware::map_response_with_state(arena.clone(), json_errors::to_json));
    Router::new()
        .nest("/api", api)
        .route("/healthz", get(ops::healthz))
        .route("/metrics", get(ops::metrics))
        .merge(pages::routes())
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(axum::middleware::from_fn(trace::trace))
        .with_state(arena)
}
