//! Turns the judge's log records into the page's events: each ply with its sowing steps, and
//! the result in words.

use bao_game::log::{LogRecord, ResultRecord};
use bao_game::runner::GameObserver;
use bao_rules::{Position, Side};

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

fn side_name(side: Side) -> &'static str {
    match side {
        Side::South => "South",
        Side::North => "North",
    }
}

/// The result in words: `South wins: North's front row is empty`.
#[must_use]
pub(crate) fn result_words(result: &ResultRecord) -> String {
    use bao_protocol::Reason;
    let Some(winner) = result.winner else {
        return match result.reason {
            Reason::MaxPlies => format!("Draw: {}", result.detail),
            _ => format!("No result: {}", result.detail),
        };
    };
    let loser = side_name(winner.opponent());
    let why = match result.reason {
        Reason::FrontRowEmpty => format!("{loser}'s front row is empty"),
        Reason::NoLegalMoves => format!("{loser} has no legal move"),
        Reason::Timeout => format!("{loser} ran out of time"),
        _ if result.detail.ends_with(bao_game::human::RESIGNED) => format!("{loser} resigned"),
        _ => format!("{loser} lost by {}: {}", result.reason, result.detail),
    };
    format!("{} wins: {why}", side_name(winner))
}
