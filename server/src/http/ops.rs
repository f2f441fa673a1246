//! Operations endpoints: `/healthz`, `/metrics`, `/api/openapi.json`.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use crate::arena::SharedArena;
use crate::auth::ApiUser;
use crate::domain::VersionState;
use crate::error::ApiError;

/// `ok` when the database answers.
pub async fn healthz(State(arena): State<SharedArena>) -> Result<&'static str, ApiError> {
    arena.db.read(|c| Ok(c.query_row("SELECT 1", [], |r| r.get::<_, i64>(0))?)).await?;
    Ok("ok\n")
}

/// The Prometheus metrics (versions per state and the workers are counted at each scrape).
pub async fn metrics(State(arena): State<SharedArena>) -> Result<impl IntoResponse, ApiError> {
    let counts: Vec<(VersionState, i64)> = arena
        .db
        .read(|c| {
            let mut stmt = c.prepare_cached("SELECT state, count(*) FROM versions GROUP BY state")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await?;
    for s in VersionState::ALL {
        let n = counts.iter().find(|(state, _)| state == s).map_or(0, |(_, n)| *n);
        arena.metrics.versions.with_label_values(&[s.as_str()]).set(n);
    }
    let metrics = arena.metrics.clone();
    arena.db.read(move |c| crate::worker::status::fill_metrics(c, &metrics)).await?;
    let text = arena.metrics.render()?;
    Ok(([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text))
}

/// The Prometheus metrics, for administrators only (`http.metrics = "admin"`).
pub async fn metrics_for_admins(
    State(arena): State<SharedArena>,
    ApiUser(user): ApiUser,
) -> Result<impl IntoResponse, ApiError> {
    if !user.is_admin {
        return Err(ApiError::forbidden("/metrics is for administrators (arena.toml: http.metrics)"));
    }
    metrics(State(arena)).await
}

/// The OpenAPI document, generated from the handlers.
pub async fn openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(crate::openapi::document())
}
