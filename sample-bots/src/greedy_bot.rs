//! A bot that plays the move leaving it the most seeds on the board, relative to its opponent.

use bao_protocol::sdk::{Bot, Identity, InfoSink};
use bao_protocol::{Info, MoveRequest};
use bao_rules::{MoveText, Outcome, Position, Side};

/// The score of a move that wins the game at once.
const WIN_SCORE: i32 = i32::MAX;

/// Seeds on `side`'s half of the board minus seeds on the opponent's half.
///
/// Seeds in hand are not counted: every namua move takes exactly one from hand,
/// so they cannot tell two moves of the same player apart.
#[must_use]
pub fn evaluate(position: &Position, side: Side) -> i32 {
    let on_board = |s: Side| -> i32 {
        position.front_row(s).iter().chain(position.back_row(s).iter()).map(|&c| i32::from(c)).sum()
    };
    on_board(side) - on_board(side.opponent())
}

/// The best of `legal` (moves in notation) for the player to move in `position`, with its score:
/// an immediate win scores highest, then [`evaluate`] after the move. Ties go to the move
/// listed first. Entries that do not name a legal move are skipped (`skipped` counts them).
#[must_use]
pub fn greedy_choice<'a>(position: &Position, legal: &'a [String]) -> Option<GreedyChoice<'a>> {
    let me = position.side_to_move();
    let mut best: Option<GreedyChoice<'a>> = None;
    let mut skipped = 0;
    for text in legal {
        let Some(score) = score_move(position, me, text) else {
            skipped += 1;
            continue;
        };
        if best.as_ref().is_none_or(|b| score > b.score) {
            best = Some(GreedyChoice { move_text: text, score, skipped: 0 });
        }
    }
    best.map(|b| GreedyChoice { skipped, ..b })
}

/// The move picked by [`greedy_choice`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GreedyChoice<'a> {
    /// The move, as listed.
    pub move_text: &'a str,
    /// Its score: `i32::MAX` for a win, else [`evaluate`] after it.
    pub score: i32,
    /// Entries of the list that could not be played.
    pub skipped: usize,
}

/// The score of playing `text` as `me`, or `None` if it is not a legal move here.
fn score_move(position: &Position, me: Side, text: &str) -> Option<i32> {
    let m = text.parse::<MoveText>().ok()?.to_move(position).ok()?;
    let (next, outcome) = position.play(m).ok()?;
    Some(match outcome {
        Outcome::Win { winner, .. } if winner == me => WIN_SCORE,
        _ => evaluate(&next, me),
    })
}

/// Plays [`greedy_choice`] on the position of each request. Deterministic.
#[derive(Debug, Clone, Copy, Default)]
pub struct GreedyBot;

impl Bot for GreedyBot {
    fn identity(&self) -> Identity {
        Identity::new("greedy").with_author("bao-referee").with_version(env!("CARGO_PKG_VERSION"))
    }

    fn choose_move(&mut self, request: &MoveRequest, info: &mut InfoSink<'_>) -> String {
        let fallback = || request.legal.first().cloned().unwrap_or_default();
        let position = match request.position.notation.parse::<Position>() {
            Ok(position) => position,
            Err(e) => {
                eprintln!("greedy: cannot read the position {:?}: {e}; playing the first legal move", request.position.notation);
                return fallback();
            }
        };
        let Some(choice) = greedy_choice(&position, &request.legal) else {
            eprintln!("greedy: none of the listed moves is legal on this engine; playing the first one");
            return fallback();
        };
        if choice.skipped > 0 {
            eprintln!("greedy: {} listed moves could not be played on this engine", choice.skipped);
        }
        info.send(&Info {
            depth: Some(1),
            score: Some(i64::from(choice.score)),
            nodes: Some(request.legal.len() as u64),
            comment: None,
        });
        choice.move_text.to_owned()
    }
}
