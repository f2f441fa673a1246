//! Turns the judge's log records into the page's events: each ply with its sowing steps, and
//! the result in words.

use bao_game::log::{LogRecord, ResultRecord};
use bao_game::runner::GameObserver;
use bao_rules::Position;

use crate::events::Event;
use crate::live::LiveGame;

/// Pushes a ply event for every ply record and a result event for the result record, to every
/// page's game (each seat's and the watchers').
pub(crate) struct PageObserver {
    pub(crate) games: Vec<LiveGame>,
    /// The position before the next ply.
    pub(crate) position: Position,
}

impl GameObserver for PageObserver {
    fn on_record(&mut self, record: &LogRecord) {
        match record {
            LogRecord::Ply(ply) => match bao_viewer::ply_data(&self.position, ply) {
                Ok((data, after)) => {
                    self.position = after;
                    for game in &self.games {
                        game.push(Event::Ply { ply: Box::new(data.clone()) });
                    }
                }
                // The judge wrote it: it replays, or the rules engine disagrees with itself.
                Err(e) => tracing::error!("cannot draw ply {}: {e}", ply.ply),
            },
            LogRecord::Result(result) => {
                let words = result_words(result);
                let data = bao_viewer::result_data(result);
                for game in &self.games {
                    game.push(Event::Result { result: data.clone(), words: words.clone() });
                }
            }
            _ => {}
        }
    }
}

/// The result in words (`bao_viewer::result_in_words`, the server's too): `South wins:
/// North's front row is empty`.
#[must_use]
pub(crate) fn result_words(result: &ResultRecord) -> String {
    bao_viewer::result_in_words(result.winner, result.reason.name(), &result.detail, false)
}
