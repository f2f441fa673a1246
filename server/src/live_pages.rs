//! The live pages and their server-sent event streams.
//!
//! - `/live/{id}`: the viewer's board (bao-viewer's replay page, animated) of
//!   a game as far as it has gone, both clocks, the move list in record
//!   notation, and a script that follows the game from the last ply the page
//!   holds (`/live/{id}/events?from=N`; a reconnecting browser sends
//!   `Last-Event-ID`, the number of the last ply it got, which wins).
//! - `/live`: the running games, kept up to date in place from `/live/events`
//!   (a snapshot of the running games first, then each start and end).
//! - `/leaderboard/body`: the leaderboard's table alone, which the leaderboard
//!   page fetches to update itself in place.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use futures_util::Stream;
use minijinja::context;
use serde::Deserialize;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

use crate::arena::SharedArena;
use crate::auth::PageSession;
use crate::domain::{GameId, GameState};
use crate::error::ApiError;
use crate::games::{self, Game};
use crate::live::{LiveEvent, LiveHub, RunningGame};
use crate::paging::{GAMES_PER_PAGE, Paging};

/// The script of a live game page (follows the stream into the viewer's page).
const LIVE_GAME_JS: &str = include_str!("../templates/live_game.js");
/// Its stylesheet (the clocks and the bar above the board; the replay page's bar too).
pub(crate) const LIVE_GAME_CSS: &str = include_str!("../templates/live_game.css");

fn failed(arena: &SharedArena, session: &PageSession, e: impl Into<ApiError>) -> Response {
    let e = e.into();
    arena.templates.error(e.status, &e.message, session.0.as_ref().map(|s| s.user.name.as_str()))
}

/// The arena names of a game's two versions (`bot v1`).
fn names(g: &Game) -> (String, String) {
    (format!("{} v{}", g.south.bot, g.south.number), format!("{} v{}", g.north.bot, g.north.number))
}

/// The running games, newest first, a page at a time ([`GAMES_PER_PAGE`], `?page=N` as on the
/// other lists of games), kept up to date in place from `/live/events`. The list is the live
/// hub's, the one the event stream's snapshot sends: the games started and not yet ended.
pub async fn live_index(
    State(arena): State<SharedArena>,
    session: PageSession,
    Query(query): Query<Vec<(String, String)>>,
) -> Response {
    let requested = match crate::paging::requested_page(&query) {
        Ok(n) => n,
        Err(e) => return failed(&arena, &session, e),
    };
    let user = session.0.as_ref().map(|s| s.user.name.clone());
    let csrf = session.0.as_ref().map(|s| s.csrf.clone());
    let (games, paging) = running_page(arena.live.running(), requested);
    arena.templates.page(
        "live.html",
        context! { games, paging, page_path => "/live", per_page => GAMES_PER_PAGE, user, csrf },
    )
}

/// Page `requested` of the running games (oldest first in `running`), newest first.
fn running_page(mut running: Vec<RunningGame>, requested: u32) -> (Vec<RunningGame>, Paging) {
    let paging = Paging::new(requested, running.len() as u64, GAMES_PER_PAGE);
    running.reverse();
    let games = running
        .into_iter()
        .skip(usize::try_from(paging.offset()).unwrap_or(usize::MAX))
        .take(usize::try_from(paging.per_page).unwrap_or(usize::MAX))
        .collect();
    (games, paging)
}

/// What the live script of a game page starts from.
#[derive(Debug, serde::Serialize)]
struct LiveStart {
    game: i64,
    /// The last ply the page holds.
    from: usize,
    /// Both clocks after that ply (ms), South then North.
    clock_ms: [u64; 2],
    running: bool,
}

/// A game's live page: the viewer's board as far as the game has gone, and the script that follows it.
pub async fn live_game(
    State(arena): State<SharedArena>,
    session: PageSession,
    Path(id): Path<i64>,
) -> Response {
    let g = match arena.db.read(move |c| games::game(c, GameId::new(id))).await {
        Ok(Some(g)) => g,
        Ok(None) => return failed(&arena, &session, ApiError::not_found(format!("no game has id {id}"))),
        Err(e) => return failed(&arena, &session, e),
    };
    let text = crate::worker::logs::read_text(&arena, GameId::new(id)).await.unwrap_or_default();
    let base = arena.config.games.base_ms;
    let variant = arena.config.variant();
    let running = g.state == GameState::Running;
    let (south, north) = names(&g);
    let built = tokio::task::spawn_blocking(move || {
        let mut data = bao_viewer::replay_from_log(&text).unwrap_or_else(|_| {
            // No header yet (the bots are starting): the board of the variant's start.
            let start = bao_viewer::BoardJson::from_position(&bao_rules::Position::start(variant));
            bao_viewer::ReplayData {
                variant: variant.to_string(),
                south_name: String::new(),
                north_name: String::new(),
                start,
                plies: Vec::new(),
                result: None,
                title: None,
                back_href: None,
            }
        });
        data.title = Some(format!("Game #{id}: {south} vs {north}"));
        data.south_name = south;
        data.north_name = north;
        let clock_ms = data.plies.last().and_then(|p| p.clock_ms).unwrap_or([base, base]);
        let start = LiveStart {
            game: id,
            from: data.plies.len(),
            clock_ms,
            running: running && data.result.is_none(),
        };
        // A game already over when the page is made says so as the stream's end would.
        let over = data.result.as_ref().map_or_else(
            || "over".to_owned(),
            |r| {
                format!(
                    "over: {}",
                    crate::result_words::result_in_words(r.winner, &r.reason, &r.detail, false)
                )
            },
        );
        live_page(&crate::result_words::replay_html(&data), &start, id, &over)
    })
    .await;
    match built {
        Ok(html) => Html(html).into_response(),
        Err(e) => {
            failed(&arena, &session, crate::error::ServerError::Internal(format!("live page task: {e}")))
        }
    }
}

/// The viewer's page with the live bar, the clocks' style and the live script.
fn live_page(replay: &str, start: &LiveStart, id: i64, over: &str) -> String {
    let bar = format!(
        "<nav class=\"live-bar\"><a href=\"/\">Bao arena</a> · <a href=\"/live\">Live games</a> · \
         <a href=\"/games/{id}\">game #{id}</a> · <span id=\"live-status\">{}</span></nav>",
        if start.running { "live".to_owned() } else { bao_viewer::escape_html(over) }
    );
    let script = format!(
        "<script type=\"application/json\" id=\"bao-live\">{}</script>\n<script>\n{LIVE_GAME_JS}\n</script>\n",
        bao_viewer::script_json(start)
    );
    let mut html = replay.replacen("</head>", &format!("<style>\n{LIVE_GAME_CSS}\n</style>\n</head>"), 1);
    html = html.replacen("<body>", &format!("<body>\n{bar}"), 1);
    match html.rfind("</body>") {
        Some(at) => html.insert_str(at, &script),
        None => html.push_str(&script),
    }
    html
}

/// Where a stream starts: after ply `from`.
#[derive(Debug, Deserialize)]
pub struct FromQuery {
    /// The last ply the page has (0: from the first).
    #[serde(default)]
    from: u32,
}

fn sse_event(e: &LiveEvent) -> Event {
    let data = serde_json::to_string(e).unwrap_or_default();
    let event = Event::default().event(e.kind).data(data);
    if e.kind == "start" { event } else { event.id(e.ply.to_string()) }
}

/// A stream following one game.
struct GameStream {
    id: i64,
    hub: LiveHub,
    backlog: VecDeque<Arc<LiveEvent>>,
    receiver: Option<broadcast::Receiver<Arc<LiveEvent>>>,
    last: u32,
    done: bool,
    shutdown: CancellationToken,
}

fn game_stream(st: GameStream) -> impl Stream<Item = Result<Event, Infallible>> {
    futures_util::stream::unfold(st, |mut st| async move {
        loop {
            if st.done {
                return None;
            }
            if let Some(ev) = st.backlog.pop_front() {
                if ev.kind == "move" {
                    if ev.ply <= st.last {
                        continue;
                    }
                    st.last = ev.ply;
                }
                if ev.kind == "end" {
                    st.done = true;
                }
                return Some((Ok(sse_event(&ev)), st));
            }
            let GameStream { receiver, shutdown, .. } = &mut st;
            let rx = receiver.as_mut()?;
            let next = tokio::select! {
                () = shutdown.cancelled() => return None,
                r = rx.recv() => r,
            };
            match next {
                Ok(ev) if ev.game_id != st.id || ev.kind == "start" => {}
                // A ply beyond the next one: some were missed, read them from the feed.
                Ok(ev) if ev.kind == "move" && ev.ply > st.last + 1 => {
                    st.backlog.extend(st.hub.plies_after(st.id, st.last));
                }
                Ok(ev) => st.backlog.push_back(ev),
                Err(RecvError::Lagged(_)) => st.backlog.extend(st.hub.plies_after(st.id, st.last)),
                Err(RecvError::Closed) => return None,
            }
        }
    })
}

/// The events of a game from the log of a game the hub no longer holds.
async fn events_from_log(arena: &SharedArena, id: i64, after: u32) -> Vec<Arc<LiveEvent>> {
    let g = arena.db.read(move |c| games::game(c, GameId::new(id))).await.ok().flatten();
    let Some(g) = g else { return Vec::new() };
    if g.state == GameState::Running {
        // Between the game's row and its first record: the browser retries shortly.
        return Vec::new();
    }
    let text = crate::worker::logs::read_text(arena, GameId::new(id)).await.unwrap_or_default();
    let replay =
        tokio::task::spawn_blocking(move || bao_viewer::replay_from_log(&text).ok()).await.ok().flatten();
    let mut out: Vec<Arc<LiveEvent>> = Vec::new();
    if let Some(r) = &replay {
        for p in r.plies.iter().filter(|p| p.number > after) {
            out.push(Arc::new(LiveEvent {
                game_id: id,
                kind: "move",
                ply: p.number,
                text: p.record.clone(),
                data: serde_json::to_value(p).unwrap_or_default(),
            }));
        }
    }
    let plies = replay.as_ref().map_or(0, |r| u32::try_from(r.plies.len()).unwrap_or(u32::MAX));
    let result = replay.and_then(|r| r.result).unwrap_or(bao_viewer::ResultData {
        winner: None,
        reason: g.state.to_string(),
        detail: g.reason.clone(),
    });
    out.push(Arc::new(LiveEvent {
        game_id: id,
        kind: "end",
        ply: plies,
        text: crate::result_words::game_in_words(g.state, g.result, &g.reason, false),
        data: crate::result_words::result_json(&result),
    }));
    out
}

/// The events of one game after the page's last ply: `Last-Event-ID` if the
/// browser reconnects, else `?from=N`.
pub async fn live_game_events(
    State(arena): State<SharedArena>,
    Path(id): Path<i64>,
    Query(q): Query<FromQuery>,
    headers: HeaderMap,
) -> Response {
    let last_event =
        headers.get("last-event-id").and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse().ok());
    let after: u32 = last_event.unwrap_or(q.from);
    let follow = arena.live.follow(id, after);
    let backlog: VecDeque<Arc<LiveEvent>> =
        if follow.known { follow.backlog.into() } else { events_from_log(&arena, id, after).await.into() };
    let stream = game_stream(GameStream {
        id,
        hub: arena.live.clone(),
        backlog,
        receiver: follow.receiver,
        last: after,
        done: false,
        shutdown: arena.shutdown.clone(),
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}

/// Starts and ends of every game, after a snapshot of the running ones.
pub async fn live_all_events(State(arena): State<SharedArena>) -> Response {
    let (running, rx) = arena.live.follow_all();
    let first = Event::default().event("snapshot").data(serde_json::to_string(&running).unwrap_or_default());
    let hub = arena.live.clone();
    let shutdown = arena.shutdown.clone();
    let rest = futures_util::stream::unfold((rx, shutdown, hub), |(mut rx, shutdown, hub)| async move {
        loop {
            let next = tokio::select! {
                () = shutdown.cancelled() => return None,
                r = rx.recv() => r,
            };
            match next {
                Ok(ev) if ev.kind == "move" => {}
                Ok(ev) => return Some((Ok::<_, Infallible>(sse_event(&ev)), (rx, shutdown, hub))),
                Err(RecvError::Lagged(_)) => {
                    // Missed starts or ends: send the whole list again.
                    let (running, _) = hub.follow_all();
                    let e = Event::default()
                        .event("snapshot")
                        .data(serde_json::to_string(&running).unwrap_or_default());
                    return Some((Ok(e), (rx, shutdown, hub)));
                }
                Err(RecvError::Closed) => return None,
            }
        }
    });
    let stream = futures_util::StreamExt::chain(futures_util::stream::once(async move { Ok(first) }), rest);
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}

/// The leaderboard's body alone (the table and the recent games), for the page to update in place.
pub async fn leaderboard_body(State(arena): State<SharedArena>) -> Response {
    match crate::leaderboard_snapshot::latest(&arena).await {
        Ok(s) => ([(header::CACHE_CONTROL, "no-store")], Html(s.body.to_string())).into_response(),
        Err(e) => {
            let e: ApiError = e.into();
            (StatusCode::from_u16(e.status.as_u16()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR), e.message)
                .into_response()
        }
    }
}
