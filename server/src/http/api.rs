//! The JSON API's handlers (documented in the OpenAPI document at `/api/openapi.json`).

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use crate::arena::SharedArena;
use crate::auth::{ApiUser, MaybeApiUser};
use crate::domain::{GameId, GameState, UserId, VersionId};
use crate::error::{ApiError, ErrorBody};
use crate::games::{self, Game, GameFilter};
use crate::languages::Language;
use crate::standings::Standing;
use crate::submit::{self, Submission, SubmitParams};
use crate::users::{Revoked, User};
use crate::versions::{self, Bot, Version, VersionDetail};

/// The user the token belongs to.
#[utoipa::path(get, path = "/api/me", tag = "users",
    responses((status = 200, body = User), (status = 401, body = ErrorBody)),
    security(("token" = [])))]
pub async fn me(ApiUser(user): ApiUser) -> Json<User> {
    Json(user)
}

/// Revokes every API token and web session of a user: the user themselves or an admin.
/// The user can do nothing more until an operator gives them a new token
/// (`bao-referee serve user token NAME`).
#[utoipa::path(post, path = "/api/users/{name}/revoke", tag = "users",
    params(("name" = String, Path, description = "The user's name")),
    responses((status = 200, body = Revoked), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)),
    security(("token" = [])))]
pub async fn revoke(
    State(arena): State<SharedArena>,
    ApiUser(user): ApiUser,
    Path(name): Path<String>,
) -> Result<Json<Revoked>, ApiError> {
    if !(user.is_admin || user.name.eq_ignore_ascii_case(&name)) {
        return Err(ApiError::forbidden("only an admin may revoke another user's tokens"));
    }
    let revoked = arena.db.write(move |c| crate::users::revoke_user(c, &name)).await?;
    Ok(Json(revoked))
}

/// The languages this arena accepts.
#[utoipa::path(get, path = "/api/languages", tag = "bots", responses((status = 200, body = [Language])))]
pub async fn languages(State(arena): State<SharedArena>) -> Json<Vec<Language>> {
    Json(arena.config.languages.clone())
}

/// Every bot.
#[utoipa::path(get, path = "/api/bots", tag = "bots", responses((status = 200, body = [Bot])))]
pub async fn bots(State(arena): State<SharedArena>) -> Result<Json<Vec<Bot>>, ApiError> {
    Ok(Json(arena.db.read(|c| versions::all_bots(c)).await?))
}

/// A bot and its versions.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct BotWithVersions {
    /// The bot.
    pub bot: Bot,
    /// Its versions, newest first.
    pub versions: Vec<Version>,
}

/// A bot with its versions.
#[utoipa::path(get, path = "/api/bots/{name}", tag = "bots",
    params(("name" = String, Path, description = "The bot's name")),
    responses((status = 200, body = BotWithVersions), (status = 404, body = ErrorBody)))]
pub async fn bot(
    State(arena): State<SharedArena>,
    Path(name): Path<String>,
) -> Result<Json<BotWithVersions>, ApiError> {
    let n = name.clone();
    let found = arena
        .db
        .read(move |c| {
            let Some(bot) = versions::bot_by_name(c, &n)? else { return Ok(None) };
            let versions = versions::versions_of_bot(c, bot.id)?;
            Ok(Some(BotWithVersions { bot, versions }))
        })
        .await?;
    found.map(Json).ok_or_else(|| ApiError::not_found(format!("no bot is named {name:?}")))
}

/// Submits a new version of a bot (creating the bot on its first submission).
/// The body is the file itself (a source file, an executable, or a .zip,
/// .tar, .tar.gz archive).
#[utoipa::path(post, path = "/api/bots/{name}/versions", tag = "bots",
    params(("name" = String, Path, description = "The bot's name"), SubmitParams),
    request_body(content = Vec<u8>, content_type = "application/octet-stream"),
    responses((status = 201, body = Version), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 413, body = ErrorBody), (status = 429, body = ErrorBody)),
    security(("token" = [])))]
pub async fn submit(
    State(arena): State<SharedArena>,
    ApiUser(user): ApiUser,
    Path(name): Path<String>,
    Query(params): Query<SubmitParams>,
    body: Bytes,
) -> Result<(StatusCode, Json<Version>), ApiError> {
    let sub = Submission {
        bot: name,
        language: params.language,
        file_name: params.file_name.unwrap_or_else(|| "upload".into()),
        bytes: body.to_vec(),
        candidate: params.candidate,
        auto_promote: params.auto_promote,
    };
    let v = submit::submit(&arena, &user, sub).await?;
    Ok((StatusCode::CREATED, Json(v)))
}

/// A version, or (with its owner's or an admin's token) a version with its build log and check report.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum VersionView {
    /// Its owner sees the logs.
    Detail(VersionDetail),
    /// Others see the record.
    Public(Version),
}

/// A version; its owner (or an admin) also sees its build log and check report.
#[utoipa::path(get, path = "/api/versions/{id}", tag = "bots",
    params(("id" = i64, Path, description = "The version's id")),
    responses((status = 200, body = VersionView), (status = 404, body = ErrorBody)))]
pub async fn version(
    State(arena): State<SharedArena>,
    MaybeApiUser(user): MaybeApiUser,
    Path(id): Path<VersionId>,
) -> Result<Json<VersionView>, ApiError> {
    let detail = arena
        .db
        .read(move |c| versions::version_detail(c, id))
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no version has id {id}")))?;
    let owner_id = arena
        .db
        .read(move |c| {
            Ok(c.query_row(
                "SELECT b.owner_id FROM versions v JOIN bots b ON b.id = v.bot_id WHERE v.id = ?1",
                [id],
                |r| r.get::<_, UserId>(0),
            )?)
        })
        .await?;
    let may_see = user.is_some_and(|u| u.is_admin || u.id == owner_id);
    Ok(Json(if may_see { VersionView::Detail(detail) } else { VersionView::Public(detail.version) }))
}

/// Promotes a candidate whose SPRT found it better: it replaces the bot's active version.
#[utoipa::path(post, path = "/api/versions/{id}/promote", tag = "bots",
    params(("id" = i64, Path, description = "The candidate's id")),
    responses((status = 200, body = Version), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("token" = [])))]
pub async fn promote(
    State(arena): State<SharedArena>,
    ApiUser(user): ApiUser,
    Path(id): Path<VersionId>,
) -> Result<Json<Version>, ApiError> {
    Ok(Json(promote_as(&arena, &user, id).await?))
}

/// Promotes version `id` on behalf of `user` (its owner or an admin).
pub async fn promote_as(arena: &SharedArena, user: &User, id: VersionId) -> Result<Version, ApiError> {
    let v = arena
        .db
        .read(move |c| versions::version(c, id))
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no version has id {id}")))?;
    let bot = v.bot.clone();
    let owner = arena.db.read(move |c| versions::bot_by_name(c, &bot)).await?.map(|b| b.owner_id);
    if !(user.is_admin || owner == Some(user.id)) {
        return Err(ApiError::forbidden("only the bot's owner may promote its versions"));
    }
    arena.db.write(move |c| crate::candidate::promote(c, id)).await?;
    arena.game_wake.notify_one();
    arena.leaderboard.changed();
    arena
        .db
        .read(move |c| versions::version(c, id))
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no version has id {id}")))
}

/// The leaderboard.
#[utoipa::path(get, path = "/api/leaderboard", tag = "ratings", responses((status = 200, body = [Standing])))]
pub async fn leaderboard(
    State(arena): State<SharedArena>,
    headers: axum::http::HeaderMap,
) -> Result<Response, ApiError> {
    // Built in the background (crate::leaderboard_snapshot): a request only shares its bytes.
    let s = crate::leaderboard_snapshot::latest(&arena).await?;
    Ok(crate::leaderboard_snapshot::answer(&headers, "application/json", &s.json, &s.json_gzip))
}

/// Which games to list.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct GamesQuery {
    /// Only games of this bot.
    pub bot: Option<String>,
    /// Only games in this state: running, finished or aborted.
    pub state: Option<String>,
    /// At most this many (default 50, at most 1000).
    pub limit: Option<u32>,
    /// Only games with a smaller id (for paging).
    pub before: Option<i64>,
}

/// Games, newest first.
#[utoipa::path(get, path = "/api/games", tag = "games", params(GamesQuery),
    responses((status = 200, body = [Game]), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn games(
    State(arena): State<SharedArena>,
    Query(q): Query<GamesQuery>,
) -> Result<Json<Vec<Game>>, ApiError> {
    let state = q.state.as_deref().map(str::parse::<GameState>).transpose().map_err(|e| {
        ApiError::bad_request(format!("state must be running, finished or aborted, not {:?}", e.text))
    })?;
    let bot_id = match q.bot.clone() {
        None => None,
        Some(name) => {
            let n = name.clone();
            let bot = arena.db.read(move |c| versions::bot_by_name(c, &n)).await?;
            Some(bot.ok_or_else(|| ApiError::not_found(format!("no bot is named {name:?}")))?.id)
        }
    };
    let filter = GameFilter {
        bot_id,
        state,
        limit: q.limit.unwrap_or(50),
        before: q.before.map(GameId::new),
        ..GameFilter::default()
    };
    Ok(Json(arena.db.read(move |c| games::list(c, &filter)).await?))
}

/// One game.
#[utoipa::path(get, path = "/api/games/{id}", tag = "games",
    params(("id" = i64, Path, description = "The game's id")),
    responses((status = 200, body = Game), (status = 404, body = ErrorBody)))]
pub async fn game(State(arena): State<SharedArena>, Path(id): Path<GameId>) -> Result<Json<Game>, ApiError> {
    arena
        .db
        .read(move |c| games::game(c, id))
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found(format!("no game has id {id}")))
}

/// A game's log (JSON lines, verifiable with `bao-referee verify`). Without the token of an
/// owner of either bot or of an administrator it has no stderr and no server folder.
#[utoipa::path(get, path = "/api/games/{id}/log", tag = "games",
    params(("id" = i64, Path, description = "The game's id")),
    responses((status = 200, content_type = "application/x-ndjson", body = String), (status = 404, body = ErrorBody)))]
pub async fn game_log(
    State(arena): State<SharedArena>,
    Path(id): Path<GameId>,
    MaybeApiUser(user): MaybeApiUser,
) -> Result<Response, ApiError> {
    let game = arena
        .db
        .read(move |c| games::game(c, id))
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no game has id {id}")))?;
    if game.state == GameState::Running {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            format!("game {id} is still running: watch it on /live/{id}"),
        ));
    }
    let bytes = crate::worker::logs::read(&arena, id)
        .await
        .map_err(|e| ApiError::not_found(format!("the log of game {id} is not on the server ({e})")))?;
    // The whole log for the owner of either bot and for administrators; for anyone else no
    // stderr and no server folder.
    let full = user.is_some_and(|u| u.is_admin || u.id == game.south.owner_id || u.id == game.north.owner_id);
    let bytes = if full {
        bytes
    } else {
        super::log_privacy::public_log(&String::from_utf8_lossy(&bytes), &arena.dir).into_bytes()
    };
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-ndjson".to_owned()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"game-{id}.jsonl\"")),
        ],
        bytes,
    )
        .into_response())
}

/// Any other path under /api.
pub async fn not_found() -> ApiError {
    ApiError::not_found("no such API endpoint: see /api/openapi.json")
}
