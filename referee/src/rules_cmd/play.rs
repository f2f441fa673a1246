//! `rules play POSITION MOVE...` and its stdin form `POSITION<TAB>MOVE`.

use std::io::{Read, Write};

use bao_rules::{IllegalMove, MoveText, Outcome, Position};

use super::lines::{for_each_line, write_line};
use super::{Failure, input};

/// Plays `moves` from `position` in order; prints the final position and
/// `result: ...`. With no moves, prints the position and its own result.
///
/// Every move's text is checked before any is played, so a typo is reported
/// as malformed input (exit 2) even after an illegal move.
pub(crate) fn run_args(position: &str, moves: &[String], out: &mut impl Write) -> Result<(), Failure> {
    let mut current = input::position_arg(position)?;
    let count = moves.len();
    let texts = moves
        .iter()
        .enumerate()
        .map(|(i, text)| {
            input::move_text(text).map_err(|f| f.prefixed(&format!("move {} of {count}: ", i + 1)))
        })
        .collect::<Result<Vec<MoveText>, Failure>>()?;
    let mut outcome = current.outcome();
    for (i, (text, written)) in texts.iter().zip(moves).enumerate() {
        (current, outcome) = play_one(&current, text).map_err(|e| {
            Failure::Illegal(format!(
                "move {} of {count} ({written}) is illegal: {e}\n  position: {current}",
                i + 1
            ))
        })?;
    }
    write_line(out, format_args!("{current}\nresult: {outcome}"))
}

/// Reads lines `POSITION<TAB>MOVE` from `stdin`; prints `NEXT<TAB>RESULT` for each.
pub(crate) fn run_batch(stdin: impl Read, out: &mut impl Write) -> Result<(), Failure> {
    for_each_line(stdin, out, |line, out| {
        let Some((position, written)) = line.split_once('\t') else {
            return Err(Failure::Malformed("expected POSITION<TAB>MOVE, found no tab".to_owned()));
        };
        if written.contains('\t') {
            return Err(Failure::Malformed("expected POSITION<TAB>MOVE, found more than one tab".to_owned()));
        }
        let position = input::position(position)?;
        let text = input::move_text(written)?;
        let (next, outcome) = play_one(&position, &text).map_err(|e| {
            Failure::Illegal(format!("move {written} is illegal: {e}\n  position: {position}"))
        })?;
        write_line(out, format_args!("{next}\t{outcome}"))
    })
}

/// Plays one move; a finished game says so rather than blaming the move.
fn play_one(position: &Position, text: &MoveText) -> Result<(Position, Outcome), IllegalMove> {
    let over = |e| match position.outcome() {
        outcome @ Outcome::Win { .. } => IllegalMove::GameOver(outcome),
        Outcome::Ongoing => e,
    };
    let m = text.to_move(position).map_err(over)?;
    position.play(m).map_err(over)
}
