//! The pages and sockets of `/play`: the choice of a game, `/play/new` (a game started by
//! URL), the game page with its WebSocket (`bao-play`'s), the stored log, and the owner's
//! switch that lets people play a bot.

use std::net::SocketAddr;

use axum::Json;
use axum::extract::{ConnectInfo, Path, Query, State, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum_extra::extract::CookieJar;
use axum_extra::extract::cookie::{Cookie, SameSite};
use bao_game::GameConfig;
use bao_play::page::{PageConfig, game_page_of};
use bao_play::socket::MAX_CLIENT_MESSAGE_BYTES;
use bao_rules::Side;
use bao_supervise::BotSpec;
use serde::{Deserialize, Serialize};

use crate::arena::{Arena, SharedArena};
use crate::auth::{ApiUser, PageSession};
use crate::error::ApiError;
use crate::play::hub::{HumanTable, Opening, Role};
use crate::play::opponents::{self, GameChoices, NewGameQuery, OpponentName, RUNGS};
use crate::play::records::{self, NewHumanGame};

/// The client's address (from the listener; unspecified when a test calls the router
/// directly).
pub struct ClientAddress(pub std::net::IpAddr);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Self, Self::Rejection> {
        let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
        Ok(ClientAddress(peer.unwrap_or(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED))))
    }
}

/// The name a person's seat has in the log.
const GUEST: &str = "guest";

/// The cookie holding a seat's secret for the game `token`.
fn seat_cookie(token: &str) -> String {
    format!("bao_seat_{token}")
}

/// A game's public ids: 32 hex digits.
fn valid_token(token: &str) -> bool {
    token.len() == 32 && token.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

fn error(arena: &Arena, session: &PageSession, status: StatusCode, message: &str) -> Response {
    arena.templates.error(status, message, session.0.as_ref().map(|s| s.user.name.as_str()))
}

/// `GET /play`: the choice of a game.
pub async fn choose(State(arena): State<SharedArena>, session: PageSession) -> Response {
    if !arena.config.play.enabled {
        return error(&arena, &session, StatusCode::NOT_FOUND, "playing in the browser is not offered here");
    }
    let bots = match arena.db.read(|c| records::playable_bots(c)).await {
        Ok(b) => b,
        Err(e) => return error(&arena, &session, StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    };
    let (user, csrf) =
        session.0.as_ref().map_or((None, None), |s| (Some(s.user.name.to_string()), Some(s.csrf.clone())));
    let ctx = minijinja::context! {
        user => user, csrf => csrf, rungs => RUNGS, bots => bots,
        max_clock => arena.config.play.max_clock_minutes,
    };
    arena.templates.page("play.html", ctx)
}

/// The seats' clocks and bot for `choices`, and the seats' names.
fn game_config(
    arena: &Arena,
    choices: &GameChoices,
    you: Side,
    bot: Option<(BotSpec, bool)>,
) -> (GameConfig, [String; 2], [Option<String>; 2]) {
    let person = |name: &str| BotSpec {
        name: Some(name.to_owned()),
        program: bao_game::runner::HUMAN_COMMAND.to_owned(),
        args: Vec::new(),
        dir: None,
    };
    let mut people = [None, None];
    let (south, north, names) = match &bot {
        Some((spec, _)) => {
            people[you.index()] = Some(GUEST.to_owned());
            let name = spec.display_name();
            if you == Side::South {
                (person(GUEST), spec.clone(), [GUEST.to_owned(), name])
            } else {
                (spec.clone(), person(GUEST), [name, GUEST.to_owned()])
            }
        }
        None => {
            let names = [format!("{GUEST} (South)"), format!("{GUEST} (North)")];
            people = [Some(names[0].clone()), Some(names[1].clone())];
            (person(&names[0]), person(&names[1]), names)
        }
    };
    let mut config = GameConfig::new(south, north, choices.variant);
    config.seed = rand::random();
    config.max_plies = Some(arena.config.play.human_max_plies);
    if bot.is_some() {
        config.time = bao_play::bot_clock(choices.clock);
        config.side_time[you.index()] = Some(bao_play::person_clock(choices.clock));
    } else {
        // Two people: one clock for both, the log header's time control.
        config.time = bao_play::person_clock(choices.clock);
    }
    if let Some((_, true)) = bot {
        // An entrant's bot: in the sandbox, with the limits of arena.toml, as in a ladder game.
        let profile = crate::sandbox::Profile::bot(&arena.config);
        config.limits = profile.limits;
        config.isolation = profile.options.isolation;
        config.sandbox = profile.options.sandbox;
        config.time.startup = std::time::Duration::from_millis(arena.config.games.startup_ms);
    }
    (config, names, people)
}

/// The opponent's program: a rung (this executable's `sample-bot`), or a ladder bot's active
/// version in the sandbox (`true`).
async fn opponent_spec(
    arena: &Arena,
    name: &OpponentName,
) -> Result<Option<(BotSpec, bool, Option<crate::domain::VersionId>)>, ApiError> {
    match name {
        OpponentName::Friend => Ok(None),
        OpponentName::Rung(rung) => {
            let rung = opponents::rung(rung).ok_or_else(|| ApiError::not_found("no such reference bot"))?;
            let exe = std::env::current_exe().map_err(|e| {
                ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("cannot find the referee: {e}"))
            })?;
            let mut args = vec!["sample-bot".to_owned()];
            args.extend(rung.args.iter().map(|a| (*a).to_owned()));
            let spec = BotSpec {
                name: Some(format!("reference {}", rung.name)),
                program: exe.display().to_string(),
                args,
                dir: None,
            };
            Ok(Some((spec, false, None)))
        }
        OpponentName::Bot(bot) => {
            let wanted = bot.clone();
            let found = arena.db.read(move |c| records::playable_bot(c, &wanted)).await?;
            let Some(found) = found else {
                return Err(ApiError::not_found(format!(
                    "no reference bot, and no bot people may play, is called {:?}",
                    bot.chars().take(40).collect::<String>()
                )));
            };
            let id = found.version_id;
            let version = arena
                .db
                .read(move |c| crate::versions::version(c, id))
                .await?
                .ok_or_else(|| ApiError::not_found("the bot's version has gone"))?;
            let dir = crate::worker::artifacts::served_dir(arena, &version).await?;
            let built = crate::scheduler::built_in(&arena.config, &version, dir)?;
            Ok(Some((crate::sandbox::Profile::bot(&arena.config).bot_spec(&built), true, Some(id))))
        }
    }
}

/// `GET /play/new?opponent=NAME&side=S|N|random&variant=kiswahili|kujifunza&tc=none|10+5`:
/// starts a game and sends the person to its page, their seat's secret in a cookie.
pub async fn new_game(
    State(arena): State<SharedArena>,
    session: PageSession,
    ClientAddress(peer): ClientAddress,
    Query(query): Query<NewGameQuery>,
    jar: CookieJar,
) -> Response {
    let play = &arena.config.play;
    if !play.enabled {
        return error(&arena, &session, StatusCode::NOT_FOUND, "playing in the browser is not offered here");
    }
    let choices = match GameChoices::from_query(&query, play) {
        Ok(c) => c,
        Err(e) => return error(&arena, &session, StatusCode::BAD_REQUEST, &e.to_string()),
    };
    let bot = match opponent_spec(&arena, &choices.opponent).await {
        Ok(b) => b,
        Err(e) => return error(&arena, &session, e.status, &e.message),
    };
    if let Err(refused) = arena.play.admit(peer, play) {
        let mut answer = error(&arena, &session, StatusCode::TOO_MANY_REQUESTS, &refused.to_string());
        answer.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from_static("60"));
        return answer;
    }
    let you = choices.side.draw();
    let version_id = bot.as_ref().and_then(|(_, _, v)| *v);
    let (config, names, people) =
        game_config(&arena, &choices, you, bot.map(|(s, sandboxed, _)| (s, sandboxed)));
    let token = crate::play::hub::new_secret();
    let record = NewHumanGame {
        token: token.clone(),
        variant: choices.variant.to_string(),
        opponent: choices.opponent.stored().to_owned(),
        version_id,
        person_side: if you == Side::South { "S" } else { "N" },
        clock: opponents::clock_text(choices.clock),
        log_path: arena.dir.join("play").join(format!("{token}.jsonl")).display().to_string(),
    };
    let friends = choices.opponent == OpponentName::Friend;
    let opening = Opening {
        table: bao_play::Table::new(config, people),
        token: token.clone(),
        names,
        rematch: format!(
            "/play/new?opponent={}&side={}&variant={}&tc={}",
            query.opponent.as_deref().map_or_else(
                || "random".to_owned(),
                |o| percent_encoding::utf8_percent_encode(o, percent_encoding::NON_ALPHANUMERIC).to_string()
            ),
            if you == Side::South { "N" } else { "S" },
            choices.variant,
            opponents::clock_text(choices.clock).replace('+', "%2B"),
        ),
        person_side: you,
        timed: choices.clock.is_some(),
        friends,
        record,
    };
    let secret = arena.play.open(&arena, peer, opening);
    let jar = jar.add(seat(&arena, &token, secret));
    (jar, Redirect::to(&format!("/play/game/{token}"))).into_response()
}

fn seat(arena: &Arena, token: &str, secret: String) -> Cookie<'static> {
    Cookie::build((seat_cookie(token), secret))
        .path(format!("/play/game/{token}"))
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(arena.config.secure_cookies)
        .build()
}

/// The address people reach the server at, for the share link.
fn origin(arena: &Arena, headers: &HeaderMap) -> String {
    if let Some(url) = &arena.config.public_url {
        return url.trim_end_matches('/').to_owned();
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("localhost");
    format!("http://{host}")
}

/// `GET /play/game/{token}`: the game's page (a seat's or a watcher's; a friend's first visit
/// takes the free seat), or, once its pages are no longer live, the replay of its log.
pub async fn game_page(
    State(arena): State<SharedArena>,
    session: PageSession,
    Path(token): Path<String>,
    headers: HeaderMap,
    jar: CookieJar,
) -> Response {
    if !valid_token(&token) {
        return error(&arena, &session, StatusCode::NOT_FOUND, "no such game");
    }
    let Some(game) = arena.play.game(&token) else { return replay(&arena, &session, &token).await };
    let secret = jar.get(&seat_cookie(&token)).map(|c| c.value().to_owned());
    let (role, new_secret) = game.role(secret.as_deref());
    let page = page_of(&arena, &game, &role, &headers);
    let jar = match new_secret {
        Some(secret) => jar.add(seat(&arena, &token, secret)),
        None => jar,
    };
    (jar, [(header::CACHE_CONTROL, "no-store")], Html(page)).into_response()
}

fn page_of(arena: &Arena, game: &HumanTable, role: &Role, headers: &HeaderMap) -> String {
    let token = &game.token;
    let (you, watching) = match role {
        Role::Seat(side) => (*side, false),
        Role::Watcher => (game.person_side, true),
    };
    let config = PageConfig {
        socket_path: format!("/play/game/{token}/ws"),
        you: if you == Side::South { "S" } else { "N" },
        timed: game.timed,
        two_people: game.friends,
        watching,
        share_link: game.friends.then(|| format!("{}/play/game/{token}", origin(arena, headers))),
        new_game_href: (!watching).then(|| game.rematch.clone()),
    };
    let title = format!("{} vs {}", game.names[0], game.names[1]);
    game_page_of(&game.start, [&game.names[0], &game.names[1]], &title, Some("/play".to_owned()), &config)
}

/// The replay of a stored game, or why there is none.
async fn replay(arena: &Arena, session: &PageSession, token: &str) -> Response {
    let wanted = token.to_owned();
    let stored = match arena.db.read(move |c| records::game(c, &wanted)).await {
        Ok(Some(g)) => g,
        Ok(None) => return error(arena, session, StatusCode::NOT_FOUND, "no such game"),
        Err(e) => return error(arena, session, StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    };
    let text = match tokio::fs::read_to_string(&stored.log_path).await {
        Ok(t) => crate::http::log_privacy::public_log(&t, &arena.dir),
        Err(_) => {
            return error(arena, session, StatusCode::NOT_FOUND, "this game's log is not on the server");
        }
    };
    let title = format!("Game {} ({}, {})", &token[..8], stored.state, stored.reason);
    match tokio::task::spawn_blocking(move || {
        bao_viewer::replay_from_log(&text).map(|mut d| {
            d.title = Some(title);
            d.back_href = Some("/play".to_owned());
            bao_viewer::replay_html(&d)
        })
    })
    .await
    {
        Ok(Ok(html)) => Html(html).into_response(),
        Ok(Err(e)) => {
            error(arena, session, StatusCode::INTERNAL_SERVER_ERROR, &format!("the log does not replay: {e}"))
        }
        Err(e) => error(arena, session, StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

/// `GET /play/game/{token}/ws`: the game's WebSocket for the page's seat (by its cookie) or
/// for a watcher.
pub async fn socket(
    State(arena): State<SharedArena>,
    ClientAddress(peer): ClientAddress,
    Path(token): Path<String>,
    headers: HeaderMap,
    jar: CookieJar,
    upgrade: WebSocketUpgrade,
) -> Response {
    // Another site's page may not open a seat's socket with the visitor's cookie.
    if let Err(e) = crate::auth::check_origin(&headers, arena.config.public_url.as_deref()) {
        return (e.status, format!("{}\n", e.message)).into_response();
    }
    let Some(game) = arena.play.game(&token) else {
        return (StatusCode::NOT_FOUND, "no such game is being played\n").into_response();
    };
    let secret = jar.get(&seat_cookie(&token)).map(|c| c.value().to_owned());
    // A socket never takes a seat: only the page does (and sets the cookie).
    let role = match secret {
        Some(secret) => match game.role(Some(&secret)) {
            (Role::Seat(side), None) => Role::Seat(side),
            _ => Role::Watcher,
        },
        None => Role::Watcher,
    };
    let live = game.live(&role);
    let Some(slot) = crate::play::hub::PlayHub::socket_slot(&arena, peer) else {
        return (StatusCode::TOO_MANY_REQUESTS, "too many game sockets open from your address\n")
            .into_response();
    };
    upgrade.max_message_size(MAX_CLIENT_MESSAGE_BYTES).max_frame_size(MAX_CLIENT_MESSAGE_BYTES).on_upgrade(
        move |ws| async move {
            bao_play::socket::serve(ws, live).await;
            drop(slot);
        },
    )
}

/// `GET /play/game/{token}/log`: a stored game's log (JSON Lines, the arena's paths left out).
pub async fn log(State(arena): State<SharedArena>, Path(token): Path<String>) -> Response {
    let wanted = token.clone();
    let stored = match arena.db.read(move |c| records::game(c, &wanted)).await {
        Ok(Some(g)) => g,
        Ok(None) => return (StatusCode::NOT_FOUND, "no such game\n").into_response(),
        Err(e) => return (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")).into_response(),
    };
    match tokio::fs::read_to_string(&stored.log_path).await {
        Ok(t) => {
            let text = crate::http::log_privacy::public_log(&t, &arena.dir);
            ([(header::CONTENT_TYPE, "application/x-ndjson"), (header::CACHE_CONTROL, "no-store")], text)
                .into_response()
        }
        Err(_) => (StatusCode::NOT_FOUND, "this game's log is not on the server\n").into_response(),
    }
}

/// `GET /play/game/{token}/info`: a game's record (state, result, reason), as JSON.
pub async fn info(
    State(arena): State<SharedArena>,
    Path(token): Path<String>,
) -> Result<Json<records::HumanGame>, ApiError> {
    let wanted = token.clone();
    arena
        .db
        .read(move |c| records::game(c, &wanted))
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found("no such game was recorded"))
}

/// A bot's score against people: its finished games with people, from the bot's side (for its
/// page).
#[utoipa::path(get, path = "/api/bots/{name}/people", tag = "bots",
    params(("name" = String, Path, description = "The bot's name")),
    responses((status = 200, body = records::ScoreAgainstPeople), (status = 404, body = crate::error::ErrorBody)))]
pub async fn score_against_people(
    State(arena): State<SharedArena>,
    Path(name): Path<String>,
) -> Result<Json<records::ScoreAgainstPeople>, ApiError> {
    let wanted = name.clone();
    let bot = arena.db.read(move |c| crate::versions::bot_by_name(c, &wanted)).await?.ok_or_else(|| {
        ApiError::not_found(format!("no bot is called {:?}", name.chars().take(40).collect::<String>()))
    })?;
    let id = bot.id;
    Ok(Json(arena.db.read(move |c| records::score_against_people(c, id)).await?))
}

/// Whether people may play a bot.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Playable {
    /// `true`: anyone may play the bot's active version at `/play`.
    pub playable: bool,
}

/// Lets people play the bot at `/play` (or stops it): the bot's owner or an admin.
#[utoipa::path(post, path = "/api/bots/{name}/playable", tag = "bots",
    params(("name" = String, Path, description = "The bot's name")),
    request_body = Playable,
    responses((status = 200, body = Playable), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)),
    security(("token" = [])))]
pub async fn set_playable(
    State(arena): State<SharedArena>,
    ApiUser(user): ApiUser,
    Path(name): Path<String>,
    Json(body): Json<Playable>,
) -> Result<Json<Playable>, ApiError> {
    let wanted = name.clone();
    let bot = arena.db.read(move |c| crate::versions::bot_by_name(c, &wanted)).await?.ok_or_else(|| {
        ApiError::not_found(format!("no bot is called {:?}", name.chars().take(40).collect::<String>()))
    })?;
    if !(user.is_admin || bot.owner_id == user.id) {
        return Err(ApiError::forbidden("only the bot's owner may say whether people may play it"));
    }
    let id = bot.id;
    arena.db.write(move |c| records::set_playable(c, id, body.playable)).await?;
    let playable = arena.db.read(move |c| records::is_playable(c, id)).await?;
    Ok(Json(Playable { playable }))
}
