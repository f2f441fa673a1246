//! The web pages: leaderboard, bot, version, game, every game, live games, a
//! signed-in entrant's bots, log in and out, and the submission form. Lists of
//! games come a page at a time (`?page=N`). Pages read the session cookie; forms carry the
//! session's CSRF token.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::Router;
use axum::extract::{Form, Multipart, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum_extra::extract::CookieJar;
use axum_extra::extract::cookie::{Cookie, SameSite};
use minijinja::context;
use serde::{Deserialize, Serialize};

use crate::arena::SharedArena;
use crate::auth::{PageSession, SESSION_COOKIE, check_form, check_origin};
use crate::domain::{GameId, GameState, UserId, VersionId};
use crate::error::{ApiError, ServerError};
use crate::games::{self, Game, GameFilter};
use crate::pages::format_time;
use crate::paging::{GAMES_PER_PAGE, Paging};
use crate::submit::{self, Submission};
use crate::users::Session;
use crate::versions;

/// The pages' routes.
pub fn routes() -> Router<SharedArena> {
    Router::new()
        .route("/", get(leaderboard))
        .route("/bots/{name}", get(bot))
        .route("/versions/{id}", get(version))
        .route("/versions/{id}/promote", axum::routing::post(promote))
        .route("/games", get(games_index))
        .route("/games/{id}", get(game))
        .route("/my/bots", get(my_bots))
        .route("/admin/workers", get(admin_workers))
        .route("/games/{id}/replay", get(replay))
        // Live pages and streams: crate::live_pages.
        .route("/live", get(crate::live_pages::live_index))
        .route("/live/events", get(crate::live_pages::live_all_events))
        .route("/live/{id}", get(crate::live_pages::live_game))
        .route("/live/{id}/events", get(crate::live_pages::live_game_events))
        .route("/leaderboard/body", get(crate::live_pages::leaderboard_body))
        .route("/login", get(login_form).post(login))
        .route("/logout", axum::routing::post(logout))
        .route("/submit", get(submit_form).post(submit_post))
}

fn who(s: &PageSession) -> (Option<String>, Option<String>) {
    s.0.as_ref().map_or((None, None), |s| (Some(s.user.name.to_string()), Some(s.csrf.clone())))
}

fn failed(arena: &SharedArena, session: &PageSession, e: impl Into<ApiError>) -> Response {
    let e = e.into();
    arena.templates.error(e.status, &e.message, session.0.as_ref().map(|s| s.user.name.as_str()))
}

async fn leaderboard(State(arena): State<SharedArena>, session: PageSession, headers: HeaderMap) -> Response {
    // Built in the background (crate::leaderboard_snapshot): visitors without a
    // session share one page; a session's page wraps the shared body in its header.
    let snapshot = match crate::leaderboard_snapshot::latest(&arena).await {
        Ok(s) => s,
        Err(e) => return failed(&arena, &session, e),
    };
    let (user, csrf) = who(&session);
    if user.is_none() {
        return crate::leaderboard_snapshot::answer(
            &headers,
            "text/html; charset=utf-8",
            &snapshot.page,
            &snapshot.page_gzip,
        );
    }
    match crate::leaderboard_snapshot::render_page(&arena, &snapshot.body, user.as_deref(), csrf.as_deref()) {
        Ok(html) => axum::response::Html(html).into_response(),
        Err(e) => failed(&arena, &session, e),
    }
}

/// A version as the bot page lists it.
#[derive(Debug, Serialize)]
struct VersionRow {
    #[serde(flatten)]
    version: versions::Version,
    submitted: String,
}

/// The page number of a request's `?page=`, or the error page that says what was wrong with it.
#[expect(clippy::result_large_err, reason = "the error is the response itself, returned at once")]
fn page_number(
    arena: &SharedArena,
    session: &PageSession,
    query: &[(String, String)],
) -> Result<u32, Response> {
    crate::paging::requested_page(query).map_err(|e| failed(arena, session, e))
}

/// One page of the games a filter matches, newest first, and where it is in the list.
fn games_page(
    c: &crate::db::Conn,
    filter: GameFilter,
    requested: u32,
) -> Result<(Vec<Game>, Paging), ServerError> {
    let paging = Paging::new(requested, games::count(c, &filter)?, GAMES_PER_PAGE);
    let page = GameFilter { limit: GAMES_PER_PAGE, offset: paging.offset(), ..filter };
    Ok((games::list(c, &page)?, paging))
}

/// Every game, newest first, a page at a time.
async fn games_index(
    State(arena): State<SharedArena>,
    session: PageSession,
    Query(query): Query<Vec<(String, String)>>,
) -> Response {
    let requested = match page_number(&arena, &session, &query) {
        Ok(n) => n,
        Err(page) => return page,
    };
    let (user, csrf) = who(&session);
    match arena.db.read(move |c| games_page(c, GameFilter::default(), requested)).await {
        Ok((games, paging)) => {
            arena.templates.page("games.html", context! { games, paging, page_path => "/games", user, csrf })
        }
        Err(e) => failed(&arena, &session, e),
    }
}

async fn bot(
    State(arena): State<SharedArena>,
    session: PageSession,
    Path(name): Path<String>,
    Query(query): Query<Vec<(String, String)>>,
) -> Response {
    let requested = match page_number(&arena, &session, &query) {
        Ok(n) => n,
        Err(page) => return page,
    };
    let n = name.clone();
    let data = arena
        .db
        .read(move |c| {
            let Some(bot) = versions::bot_by_name(c, &n)? else { return Ok(None) };
            let versions = versions::versions_of_bot(c, bot.id)?;
            let (games, paging) =
                games_page(c, GameFilter { bot_id: Some(bot.id), ..GameFilter::default() }, requested)?;
            let h2h = crate::head_to_head::of_bot(c, bot.id)?;
            let history = crate::rating_history::newest_of_bot(c, bot.id, 2000)?;
            let board = crate::standings::leaderboard(c)?;
            let on_board = board.len();
            let standing = board.into_iter().find(|s| s.bot == bot.name);
            let people = crate::play::records::score_against_people(c, bot.id)?;
            Ok(Some((bot, versions, games, paging, h2h, history, standing, on_board, people)))
        })
        .await;
    let (user, csrf) = who(&session);
    match data {
        Ok(Some((bot, versions, games, paging, h2h, history, standing, on_board, people))) => {
            let rows: Vec<VersionRow> = versions
                .into_iter()
                .map(|v| VersionRow { submitted: format_time(v.submitted_at), version: v })
                .collect();
            arena.templates.page(
                "bot.html",
                context! {
                    bot, versions => rows, games, paging, head_to_head => h2h,
                    plot => crate::rating_plot::plot(&history), standing, on_board, people, user, csrf
                },
            )
        }
        Ok(None) => failed(&arena, &session, ApiError::not_found(format!("no bot is named {name:?}"))),
        Err(e) => failed(&arena, &session, e),
    }
}

/// A signed-in entrant's bots: versions, states, builds and gates, places on the board.
async fn my_bots(State(arena): State<SharedArena>, session: PageSession) -> Response {
    let Some(s) = &session.0 else { return Redirect::to("/login").into_response() };
    let id = s.user.id;
    let (user, csrf) = who(&session);
    match arena.db.read(move |c| crate::my_bots::of_user(c, id)).await {
        Ok(bots) => arena.templates.page("my_bots.html", context! { bots, user, csrf }),
        Err(e) => failed(&arena, &session, e),
    }
}

/// The workers (`bao-referee worker`) as they last reported: host, version, architecture,
/// games running, load, and how long ago; for administrators only.
async fn admin_workers(State(arena): State<SharedArena>, session: PageSession) -> Response {
    let Some(s) = &session.0 else { return Redirect::to("/login").into_response() };
    if !s.user.is_admin {
        return failed(&arena, &session, ApiError::forbidden("only administrators see the workers"));
    }
    let (user, csrf) = who(&session);
    match arena.db.read(|c| crate::worker::status::seen(c, None)).await {
        Ok(workers) => {
            // Ages on the database's clock, as the workers' reports are stamped.
            let rows: Vec<_> = workers
                .into_iter()
                .map(|seen| {
                    let (ago, silent) = (seen.age_ms.max(0) / 1000, seen.silent());
                    let w = seen.report;
                    context! { w, ago, silent }
                })
                .collect();
            let silent_after = crate::worker::status::SEEN_MS / 1000;
            arena.templates.page("workers.html", context! { rows, silent_after, user, csrf })
        }
        Err(e) => failed(&arena, &session, e),
    }
}

async fn version(
    State(arena): State<SharedArena>,
    session: PageSession,
    Path(id): Path<VersionId>,
) -> Response {
    let detail = match arena.db.read(move |c| versions::version_detail(c, id)).await {
        Ok(Some(d)) => d,
        Ok(None) => return failed(&arena, &session, ApiError::not_found(format!("no version has id {id}"))),
        Err(e) => return failed(&arena, &session, e),
    };
    let owner = detail.version.owner.clone();
    let may_see = session.0.as_ref().is_some_and(|s| s.user.is_admin || s.user.name == owner);
    let c = &arena.config.candidate;
    let lower = (c.beta / (1.0 - c.alpha)).ln();
    let upper = ((1.0 - c.beta) / c.alpha).ln();
    let (user, csrf) = who(&session);
    let v = detail.version.clone();
    arena.templates.page(
        "version.html",
        context! { v, detail => may_see.then_some(detail), sprt_lower => lower, sprt_upper => upper, user, csrf },
    )
}

async fn promote(
    State(arena): State<SharedArena>,
    session: PageSession,
    headers: HeaderMap,
    Path(id): Path<VersionId>,
    Form(form): Form<CsrfForm>,
) -> Response {
    let Some(s) = &session.0 else { return failed(&arena, &session, ApiError::unauthorized("log in first")) };
    if let Err(e) = check_form(s, &form.csrf, &headers, arena.config.public_url.as_deref()) {
        return failed(&arena, &session, e);
    }
    match crate::http::api::promote_as(&arena, &s.user, id).await {
        Ok(_) => Redirect::to(&format!("/versions/{id}")).into_response(),
        Err(e) => failed(&arena, &session, e),
    }
}

/// What the game page shows of a log: the moves and, for their owners, the stderr.
#[derive(Debug, Default, Serialize)]
struct LogView {
    moves: Vec<String>,
    stderr: Vec<StderrView>,
}

#[derive(Debug, Serialize)]
struct StderrView {
    side: String,
    text: String,
}

fn read_log(text: &str, show_south: bool, show_north: bool) -> LogView {
    let mut view = LogView::default();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        match v.get("type").and_then(|t| t.as_str()) {
            Some("ply") => {
                let side = v.get("side").and_then(|s| s.as_str()).unwrap_or("?");
                let mv = v.get("move").and_then(|s| s.as_str()).unwrap_or("?");
                // In record notation: North's row in lower case, as a game record writes it.
                let mover = if side == "N" { bao_rules::Side::North } else { bao_rules::Side::South };
                view.moves.push(bao_viewer::record_form(mover, mv));
            }
            Some("stderr") => {
                let side = v.get("side").and_then(|s| s.as_str()).unwrap_or("?");
                let text = v.get("text").and_then(|s| s.as_str()).unwrap_or("");
                if (side == "S" && show_south) || (side == "N" && show_north) {
                    view.stderr.push(StderrView {
                        side: if side == "S" { "South".into() } else { "North".into() },
                        text: text.to_owned(),
                    });
                }
            }
            _ => {}
        }
    }
    view
}

async fn game(State(arena): State<SharedArena>, session: PageSession, Path(id): Path<GameId>) -> Response {
    let g = match arena.db.read(move |c| games::game(c, id)).await {
        Ok(Some(g)) => g,
        Ok(None) => return failed(&arena, &session, ApiError::not_found(format!("no game has id {id}"))),
        Err(e) => return failed(&arena, &session, e),
    };
    let me = session.0.as_ref().map(|s| &s.user);
    let sees = |owner: UserId| me.is_some_and(|u| u.is_admin || u.id == owner);
    let text = crate::worker::logs::read_text(&arena, id).await.unwrap_or_default();
    let view = read_log(&text, sees(g.south.owner_id), sees(g.north.owner_id));
    let (user, csrf) = who(&session);
    arena.templates.page("game.html", context! { g, moves => view.moves, stderr => view.stderr, user, csrf })
}

/// The replay page of `bao-viewer` for a finished or aborted game, under a bar with the
/// way back to the site and the result in words (`?embed=1`, as the game page embeds it: without).
async fn replay(
    State(arena): State<SharedArena>,
    session: PageSession,
    Path(id): Path<GameId>,
    Query(query): Query<Vec<(String, String)>>,
) -> Response {
    let embedded = query.iter().any(|(k, v)| k == "embed" && v == "1");
    let g = match arena.db.read(move |c| games::game(c, id)).await {
        Ok(Some(g)) => g,
        Ok(None) => return failed(&arena, &session, ApiError::not_found(format!("no game has id {id}"))),
        Err(e) => return failed(&arena, &session, e),
    };
    if g.state == GameState::Running {
        return Redirect::to(&format!("/live/{id}")).into_response();
    }
    let me = session.0.as_ref().map(|s| &s.user);
    let full = me.is_some_and(|u| u.is_admin || u.id == g.south.owner_id || u.id == g.north.owner_id);
    let text = match crate::worker::logs::read_text(&arena, id).await {
        Ok(t) if full => t,
        Ok(t) => super::log_privacy::public_log(&t, &arena.dir),
        Err(e) => {
            return failed(
                &arena,
                &session,
                ApiError::not_found(format!("the log of game {id} is not on the server ({e})")),
            );
        }
    };
    let words = crate::result_words::game_in_words(g.state, g.result, &g.reason, false);
    // Titled with the arena's names of the versions, not the names the bots gave themselves.
    let (south, north) =
        (format!("{} v{}", g.south.bot, g.south.number), format!("{} v{}", g.north.bot, g.north.number));
    match tokio::task::spawn_blocking(move || {
        bao_viewer::replay_from_log(&text).map(|mut d| {
            d.title = Some(format!("Game #{id}: {south} vs {north}"));
            d.south_name = south;
            d.north_name = north;
            let html = crate::result_words::replay_html(&d);
            if embedded { html } else { with_result_bar(&html, id, &words) }
        })
    })
    .await
    {
        Ok(Ok(html)) => axum::response::Html(html).into_response(),
        Ok(Err(e)) => failed(
            &arena,
            &session,
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("the log of game {id} cannot be replayed: {e}"),
            ),
        ),
        Err(e) => failed(&arena, &session, ServerError::Internal(format!("replay task: {e}"))),
    }
}

/// The viewer's replay page under a bar: the site, the game's page and its result in words.
fn with_result_bar(replay: &str, id: GameId, words: &str) -> String {
    let bar = format!(
        "<nav class=\"live-bar\"><a href=\"/\">Bao arena</a> · <a href=\"/games/{id}\">game #{id}</a> · \
         <strong id=\"result-words\">{}</strong></nav>",
        bao_viewer::escape_html(words)
    );
    let css = crate::live_pages::LIVE_GAME_CSS;
    replay.replacen("</head>", &format!("<style>\n{css}\n</style>\n</head>"), 1).replacen(
        "<body>",
        &format!("<body>\n{bar}"),
        1,
    )
}

async fn login_form(State(arena): State<SharedArena>, session: PageSession) -> Response {
    let (user, csrf) = who(&session);
    arena.templates.page("login.html", context! { user, csrf })
}

/// The log-in form.
#[derive(Debug, Deserialize)]
struct LoginForm {
    token: String,
}

fn session_cookie(arena: &SharedArena, value: String, max_age: Duration) -> Cookie<'static> {
    Cookie::build((SESSION_COOKIE, value))
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(arena.config.secure_cookies)
        .path("/")
        .max_age(time::Duration::seconds(i64::try_from(max_age.as_secs()).unwrap_or(i64::MAX)))
        .build()
}

async fn login(
    State(arena): State<SharedArena>,
    headers: HeaderMap,
    jar: CookieJar,
    Form(form): Form<LoginForm>,
) -> Response {
    if let Err(e) = check_origin(&headers, arena.config.public_url.as_deref()) {
        return arena.templates.error(e.status, &e.message, None);
    }
    let token = form.token.trim().to_owned();
    let result = arena
        .db
        .write(move |c| match crate::users::user_by_token(c, &token)? {
            Some(u) => Ok(Some(crate::users::create_session(c, u.id)?)),
            None => Ok(None),
        })
        .await;
    match result {
        Ok(Some(cookie)) => {
            let ms = u64::try_from(crate::users::SESSION_MS).unwrap_or(0);
            let jar = jar.add(session_cookie(&arena, cookie, Duration::from_millis(ms)));
            (jar, Redirect::to("/")).into_response()
        }
        Ok(None) => {
            let page = arena.templates.render(
                "login.html",
                context! { message => "That token is not valid.", user => None::<String> },
            );
            match page {
                Ok(html) => (StatusCode::UNAUTHORIZED, axum::response::Html(html)).into_response(),
                Err(e) => arena.templates.error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string(), None),
            }
        }
        Err(e) => failed(&arena, &PageSession(None), e),
    }
}

/// A form with only the CSRF token.
#[derive(Debug, Deserialize)]
struct CsrfForm {
    csrf: String,
}

async fn logout(
    State(arena): State<SharedArena>,
    session: PageSession,
    headers: HeaderMap,
    jar: CookieJar,
    Form(form): Form<CsrfForm>,
) -> Response {
    let Some(s) = &session.0 else { return Redirect::to("/").into_response() };
    if let Err(e) = check_form(s, &form.csrf, &headers, arena.config.public_url.as_deref()) {
        return failed(&arena, &session, e);
    }
    if let Some(cookie) = jar.get(SESSION_COOKIE).map(|c| c.value().to_owned()) {
        let _ = arena.db.write(move |c| crate::users::delete_session(c, &cookie)).await;
    }
    let jar = jar.add(session_cookie(&arena, String::new(), Duration::ZERO));
    (jar, Redirect::to("/")).into_response()
}

async fn submit_form(State(arena): State<SharedArena>, session: PageSession) -> Response {
    let (user, csrf) = who(&session);
    arena.templates.page("submit.html", context! { languages => arena.config.languages.clone(), user, csrf })
}

/// A failed upload: over the size limit it is a 413 that says the limit (the body limit
/// stops the read), anything else a 400 with the parser's words.
fn upload_error(e: &axum::extract::multipart::MultipartError, upload_bytes: usize) -> ApiError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the file is too large: uploads are limited to {} KiB ({upload_bytes} bytes); \
                 make it smaller (an archive?) and submit again",
                upload_bytes / 1024
            ),
        );
    }
    ApiError::bad_request(format!("bad upload: {}", e.body_text()))
}

async fn read_submission(mut form: Multipart, upload_bytes: usize) -> Result<(Submission, String), ApiError> {
    let mut fields: BTreeMap<String, String> = BTreeMap::new();
    let mut file: Option<(String, Vec<u8>)> = None;
    while let Some(field) = form.next_field().await.map_err(|e| upload_error(&e, upload_bytes))? {
        let name = field.name().unwrap_or_default().to_owned();
        if name == "file" {
            let file_name = field.file_name().unwrap_or("upload").to_owned();
            let bytes = field.bytes().await.map_err(|e| upload_error(&e, upload_bytes))?;
            file = Some((file_name, bytes.to_vec()));
        } else {
            let text = field
                .text()
                .await
                .map_err(|e| ApiError::bad_request(format!("bad form field {name}: {e}")))?;
            fields.insert(name, text);
        }
    }
    let (file_name, bytes) = file.ok_or_else(|| ApiError::bad_request("the form has no file"))?;
    let get = |k: &str| fields.get(k).cloned().unwrap_or_default();
    let sub = Submission {
        bot: get("bot"),
        language: get("language"),
        file_name,
        bytes,
        candidate: get("candidate") == "true",
        auto_promote: get("auto_promote") == "true",
    };
    Ok((sub, get("csrf")))
}

async fn submit_post(
    State(arena): State<SharedArena>,
    session: PageSession,
    headers: HeaderMap,
    form: Multipart,
) -> Response {
    let Some(s): Option<&Session> = session.0.as_ref() else {
        return failed(&arena, &session, ApiError::unauthorized("log in first"));
    };
    let (sub, csrf) = match read_submission(form, arena.config.limits.upload_bytes).await {
        Ok(x) => x,
        // The form again, with what was wrong, rather than an error page that loses it.
        Err(e) if e.status == StatusCode::PAYLOAD_TOO_LARGE => {
            let (user, csrf) = who(&session);
            let page = arena.templates.render(
                "submit.html",
                context! { languages => arena.config.languages.clone(), message => e.message.clone(), user, csrf },
            );
            return match page {
                Ok(html) => (e.status, axum::response::Html(html)).into_response(),
                Err(render) => failed(&arena, &session, render),
            };
        }
        Err(e) => return failed(&arena, &session, e),
    };
    if let Err(e) = check_form(s, &csrf, &headers, arena.config.public_url.as_deref()) {
        return failed(&arena, &session, e);
    }
    match submit::submit(&arena, &s.user, sub).await {
        Ok(v) => Redirect::to(&format!("/versions/{}", v.id)).into_response(),
        Err(e @ (ServerError::Invalid(_) | ServerError::Conflict(_) | ServerError::RateLimited(_))) => {
            let (user, csrf) = who(&session);
            let page = arena.templates.render(
                "submit.html",
                context! { languages => arena.config.languages.clone(), message => e.to_string(), user, csrf },
            );
            match page {
                Ok(html) => (ApiError::from(e).status, axum::response::Html(html)).into_response(),
                Err(e) => failed(&arena, &session, e),
            }
        }
        Err(e) => failed(&arena, &session, e),
    }
}
