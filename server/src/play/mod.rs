//! People playing Bao in the browser on the server, with no account (`/play`): against the
//! reference rungs built into the referee, a ladder bot whose owner allows it, or a friend
//! through a shared link (docs/play.md).
//!
//! The game is `bao-play`'s: the same judge as every game (a person sits in a human seat of
//! `bao-game` and answers the referee's `legal` list), the viewer's board, a WebSocket per page
//! whose events carry versions. An entrant's bot runs in the server's sandbox with the limits
//! of a ladder game. The games and their logs are kept apart from the ladder's (`human_games`,
//! the arena's `play/` folder): never rated.

pub mod hub;
pub mod opponents;
pub mod records;
pub mod routes;
pub mod settings;

use axum::Router;
use axum::routing::get;

use crate::arena::SharedArena;

/// The routes of `/play` (the API's switch is mounted with the API: [`routes::set_playable`]).
pub fn routes() -> Router<SharedArena> {
    Router::new()
        .route("/play", get(routes::choose))
        .route("/play/new", get(routes::new_game))
        .route("/play/game/{token}", get(routes::game_page))
        .route("/play/game/{token}/ws", get(routes::socket))
        .route("/play/game/{token}/log", get(routes::log))
        .route("/play/game/{token}/info", get(routes::info))
}
