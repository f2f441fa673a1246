//! A bot that plays the move leaving it the most seeds on the board, relative to its opponent.

use bao_sdk::{Bot, Deadline, Identity, Info, Move, MoveList, Position, Side};

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

/// The best move for the player to move in `position`, with its score: an immediate win
/// scores highest, then [`evaluate`] after the move. Ties go to the move first in notation
/// order. `None` when there is no legal move.
#[must_use]
pub fn greedy_choice(position: &Position) -> Option<(Move, i32)> {
    let me = position.side_to_move();
    let mut best: Option<(Move, i32)> = None;
    for (m, next) in position.successors() {
        let opponent = next.side_to_move();
        let wins = next.front_row_empty(opponent) || !next.has_legal_move();
        let score = if wins { WIN_SCORE } else { evaluate(&next, me) };
        if best.is_none_or(|(_, b)| score > b) {
            best = Some((m, score));
        }
    }
    best
}

/// Plays [`greedy_choice`]. Deterministic.
#[derive(Debug, Clone, Default)]
pub struct GreedyBot {
    info: Vec<Info>,
}

impl Bot for GreedyBot {
    fn identity(&self) -> Identity {
        Identity::new("greedy").with_author("bao-referee").with_version(env!("CARGO_PKG_VERSION"))
    }

    fn choose_move(&mut self, position: &Position, legal: &MoveList, _deadline: &Deadline) -> Move {
        let (m, score) = greedy_choice(position).unwrap_or((legal[0], 0));
        self.info.push(Info {
            depth: Some(1),
            score: Some(i64::from(score)),
            nodes: Some(legal.len() as u64),
            comment: None,
        });
        m
    }

    fn take_info(&mut self) -> Vec<Info> {
        std::mem::take(&mut self.info)
    }
}

#[cfg(test)]
mod tests {
    use bao_rules::{Outcome, Variant};

    use super::*;

    fn position(notation: &str) -> Position {
        notation.parse().expect("valid test position")
    }

    /// North to move; of 8 legal moves only `B1>` wins (it empties South's front row).
    const NORTH_WINS: &str =
        "kujifunza N 1,1,1,2,4,4,3,0/0,1,3,3,0,3,0,1/0,1,0,1,1,1,5,3/5,0,6,3,6,2,1,2 0,0 -- -";

    #[test]
    fn prefers_the_immediate_win() {
        let pos = position(NORTH_WINS);
        let legal: Vec<String> = pos.legal_moves().iter().map(ToString::to_string).collect();
        assert_eq!(legal, ["A7<", "A8<", "B1>", "B3<", "B3>", "B5<", "B5>", "B8<"]);
        let (m, score) = greedy_choice(&pos).expect("a choice");
        assert_eq!((m.to_string(), score), ("B1>".to_owned(), i32::MAX));
        assert!(matches!(pos.play(m), Ok((_, Outcome::Win { winner: Side::North, .. }))));
    }

    #[test]
    fn prefers_the_capture_that_gains_most_material() {
        // South in namua with three capture moves: after A2> South is 17 seeds behind on
        // the board, after A4< 15, after A4> only 7.
        let pos = position(
            "kiswahili S 0,1,0,1,0,4,0,0/0,0,0,0,0,0,0,1/1,3,0,5,2,3,1,3/1,1,1,1,1,1,1,2 15,15 -- -",
        );
        let scores: Vec<i32> = pos.successors().iter().map(|(_, next)| evaluate(next, Side::South)).collect();
        assert_eq!(scores, [-17, -15, -7]);
        assert_eq!(evaluate(&pos, Side::South), -20, "every capture gains seeds");
        let (m, score) = greedy_choice(&pos).expect("a choice");
        assert_eq!((m.to_string(), score), ("A4>".to_owned(), -7));
    }

    #[test]
    fn ties_go_to_the_move_first_in_notation_order() {
        // At the start every move puts one seed from hand on the board: a four-way tie.
        let pos = Position::start(Variant::Kiswahili);
        let scores: Vec<(Move, i32)> =
            pos.successors().iter().map(|(m, next)| (*m, evaluate(next, Side::South))).collect();
        let top = scores.iter().map(|s| s.1).max().expect("moves");
        let tied: Vec<Move> = scores.iter().filter(|s| s.1 == top).map(|s| s.0).collect();
        assert_eq!(tied.len(), 4, "a tie to break: {scores:?}");
        assert_eq!(tied[0].to_string(), "A6<");
        assert_eq!(greedy_choice(&pos), Some((tied[0], top)));
    }

    #[test]
    fn evaluate_is_antisymmetric_and_zero_at_the_start() {
        for variant in [Variant::Kiswahili, Variant::Kujifunza] {
            assert_eq!(evaluate(&Position::start(variant), Side::South), 0);
        }
        let pos = position(NORTH_WINS);
        assert_eq!(evaluate(&pos, Side::North), -evaluate(&pos, Side::South));
    }

    #[test]
    fn self_play_only_ever_picks_legal_moves() {
        let mut pos = Position::start(Variant::Kiswahili);
        let mut bot = GreedyBot::default();
        let mut plies = 0;
        while plies < 400 && !pos.outcome().is_over() {
            let legal = pos.legal_moves();
            let m = bot.choose_move(&pos, &legal, &Deadline::unlimited());
            assert!(legal.contains(&m));
            pos = pos.play(m).expect("legal").0;
            plies += 1;
        }
        assert!(plies > 0);
        assert_eq!(bot.take_info().len(), plies);
    }
}
