//! Serving one game on a local address: the judge on its own thread, the person's seat
//! relayed to the page, the page and its WebSocket.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State, WebSocketUpgrade};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use bao_game::log::GameLog;
use bao_game::{GameConfig, GameResult};
use bao_rules::Side;
use tokio_util::sync::CancellationToken;

use crate::live::LiveGame;
use crate::page::{PageConfig, game_page};
use crate::socket::{self, MAX_CLIENT_MESSAGE_BYTES};
use crate::table::Table;

/// What [`start`] needs.
#[derive(Debug, Clone)]
pub struct PlayOptions {
    /// The game: the bot in the seat opposite `you` (the spec in `you`'s seat is not run).
    pub config: GameConfig,
    /// The person's side.
    pub you: Side,
    /// The person's name, as the log records the seat.
    pub person: String,
    /// Whether the person's clock runs (shown on the page).
    pub timed: bool,
    /// Where the game log goes.
    pub log: PathBuf,
    /// The address to listen on (port 0: any free port).
    pub listen: SocketAddr,
}

/// Why the game could not be served.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The game log could not be created.
    #[error("cannot create the game log {path}: {source}")]
    Log {
        /// The log's path.
        path: PathBuf,
        /// Why.
        source: bao_game::GameError,
    },
    /// The judge's thread could not be started.
    #[error("cannot start the judge's thread: {0}")]
    Thread(std::io::Error),
    /// The judge failed: the log could not be written, or it had no runtime.
    #[error("the judge failed: {0}")]
    Judge(String),
}

/// A game being served.
#[derive(Debug)]
pub struct Running {
    /// The page's address, secret included: `http://127.0.0.1:PORT/game/TOKEN`.
    pub url: String,
    /// The address listened on.
    pub addr: SocketAddr,
    /// The game.
    pub game: LiveGame,
    /// Ends the game (recorded as aborted) if it is still being played.
    pub cancel: CancellationToken,
    table: Table,
    server: tokio::task::JoinHandle<()>,
    stop: CancellationToken,
}

impl Running {
    /// Waits for the game to end (the log is then complete) and returns its result. Safe to
    /// cancel (in a `select!`) and call again; after it has returned the result, later calls
    /// say so.
    ///
    /// # Errors
    /// The judge's failure (the log could not be written, no runtime).
    pub async fn finished(&mut self) -> Result<GameResult, PlayError> {
        self.table.finished().await
    }

    /// Stops serving the page (the game must be over or cancelled first).
    pub async fn stop(self) {
        self.stop.cancel();
        let _ = self.server.await;
    }
}

/// The shared state of the routes.
struct App {
    token: String,
    page: String,
    game: LiveGame,
}

/// Starts serving one game: binds `options.listen`, starts the judge and the bot, and returns
/// at once; the person opens [`Running::url`].
///
/// # Errors
/// The address cannot be bound, the log cannot be created, or no thread can be started.
pub async fn start(options: PlayOptions) -> Result<Running, PlayError> {
    let listener = tokio::net::TcpListener::bind(options.listen)
        .await
        .map_err(|source| PlayError::Listen { addr: options.listen, source })?;
    let addr = listener.local_addr().map_err(|source| PlayError::Listen { addr: options.listen, source })?;
    let log = GameLog::create(&options.log)
        .map_err(|source| PlayError::Log { path: options.log.clone(), source })?;
    let token = format!("{:032x}", rand::random::<u128>());
    let mut people = [None, None];
    people[options.you.index()] = Some(options.person.clone());
    let bot_side = options.you.opponent();
    let bot_spec = if bot_side == Side::South { &options.config.south } else { &options.config.north };
    let page_config = PageConfig {
        socket_path: format!("/game/{token}/ws"),
        you: if options.you == Side::South { "S" } else { "N" },
        timed: options.timed,
        ..PageConfig::default()
    };
    let page = game_page(
        &options.config.start,
        options.you,
        &options.person,
        &bot_spec.display_name(),
        &page_config,
    );
    let mut table = Table::new(options.config, people);
    let Some(game) = table.seats[options.you.index()].clone() else {
        return Err(PlayError::Judge("the person's seat was not made".to_owned()));
    };
    table.start(log)?;

    let app = Arc::new(App { token: token.clone(), page, game: game.clone() });
    let router = Router::new()
        .route("/game/{token}", get(page_route))
        .route("/game/{token}/ws", get(socket_route))
        .with_state(app);
    let stop = CancellationToken::new();
    let server = {
        let stop = stop.clone();
        tokio::spawn(async move {
            let serving = axum::serve(listener, router).with_graceful_shutdown(stop.cancelled_owned());
            if let Err(e) = serving.await {
                tracing::error!("the play server stopped: {e}");
            }
        })
    };
    Ok(Running {
        url: format!("http://{addr}/game/{token}"),
        addr,
        game,
        cancel: table.cancel.clone(),
        table,
        server,
        stop,
    })
}

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "no such game: open the address bao-referee play printed\n").into_response()
}

async fn page_route(State(app): State<Arc<App>>, Path(token): Path<String>) -> Response {
    if token != app.token {
        return not_found();
    }
    ([(header::CACHE_CONTROL, "no-store")], Html(app.page.clone())).into_response()
}

async fn socket_route(
    State(app): State<Arc<App>>,
    Path(token): Path<String>,
    upgrade: WebSocketUpgrade,
) -> Response {
    if token != app.token {
        return not_found();
    }
    let game = app.game.clone();
    upgrade
        .max_message_size(MAX_CLIENT_MESSAGE_BYTES)
        .max_frame_size(MAX_CLIENT_MESSAGE_BYTES)
        .on_upgrade(move |ws| socket::serve(ws, game))
}
