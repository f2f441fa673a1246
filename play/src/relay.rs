//! Carries the judge's lines to the person's page: `hello` is answered with the seat's
//! `ready`, each `move_request` becomes a `your_turn` event with the referee's legal list.

use bao_game::human::HumanRelay;
use bao_protocol::{BotMessage, Ready, RefereeMessage};

use crate::live::LiveGame;

/// Relays until the judge closes the seat.
pub(crate) async fn relay(mut relay: HumanRelay, name: String, game: LiveGame) {
    while let Some(line) = relay.from_judge.recv().await {
        match RefereeMessage::parse(&line) {
            Ok(RefereeMessage::Hello(_)) => {
                game.ready(BotMessage::Ready(Ready::named(name.clone())).to_line());
            }
            Ok(RefereeMessage::MoveRequest(request)) => {
                let clock = [request.clock.you_ms, request.clock.opponent_ms];
                game.ask(request.id, request.ply, request.legal, clock);
            }
            // game_over and quit: the result comes from the log's record (see `observer`).
            Ok(_) => {}
            Err(e) => tracing::warn!("the judge wrote a line the relay cannot read: {e}"),
        }
    }
}
