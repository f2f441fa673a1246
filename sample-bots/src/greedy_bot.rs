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
                eprintln!(
                    "greedy: cannot read the position {:?}: {e}; playing the first legal move",
                    request.position.notation
                );
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

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use bao_protocol::sdk::run_with_io;
    use bao_protocol::{BotMessage, Clock, MoveReply, PerSide, PositionJson, RefereeMessage, Rows};
    use bao_rules::Variant;

    use super::*;

    fn position(notation: &str) -> Position {
        notation.parse().expect("valid test position")
    }

    fn legal(position: &Position) -> Vec<String> {
        position.legal_moves().iter().map(ToString::to_string).collect()
    }

    /// North to move; of 8 legal moves only `B1>` wins (it empties South's front row).
    const NORTH_WINS: &str =
        "kujifunza N 1,1,1,2,4,4,3,0/0,1,3,3,0,3,0,1/0,1,0,1,1,1,5,3/5,0,6,3,6,2,1,2 0,0 -- -";

    #[test]
    fn prefers_the_immediate_win() {
        let pos = position(NORTH_WINS);
        let legal = legal(&pos);
        assert_eq!(legal, ["A7<", "A8<", "B1>", "B3<", "B3>", "B5<", "B5>", "B8<"]);
        let choice = greedy_choice(&pos, &legal).expect("a choice");
        assert_eq!(choice, GreedyChoice { move_text: "B1>", score: i32::MAX, skipped: 0 });
        let m = "B1>".parse::<MoveText>().map(|t| t.to_move_unchecked()).expect("notation");
        assert!(matches!(pos.play(m), Ok((_, Outcome::Win { winner: Side::North, .. }))));
    }

    #[test]
    fn prefers_the_capture_that_gains_most_material() {
        // South in namua with three capture moves: after A2> South is 17 seeds behind on
        // the board, after A4< 15, after A4> only 7.
        let pos = position(
            "kiswahili S 0,1,0,1,0,4,0,0/0,0,0,0,0,0,0,1/1,3,0,5,2,3,1,3/1,1,1,1,1,1,1,2 15,15 -- -",
        );
        let legal = legal(&pos);
        assert_eq!(legal, ["A2>", "A4<", "A4>"]);
        let scores: Vec<i32> = pos.successors().iter().map(|(_, next)| evaluate(next, Side::South)).collect();
        assert_eq!(scores, [-17, -15, -7]);
        assert_eq!(evaluate(&pos, Side::South), -20, "every capture gains seeds");
        let choice = greedy_choice(&pos, &legal).expect("a choice");
        assert_eq!((choice.move_text, choice.score), ("A4>", -7));
    }

    #[test]
    fn ties_go_to_the_move_listed_first_and_bad_entries_are_skipped() {
        // In this position A4<, A5< and B2> all leave North level on the board.
        let pos =
            position("kujifunza N 6,1,4,1,4,4,1,5/0,2,2,2,2,2,2,0/3,1,0,3,3,0,0,0/2,2,2,2,2,2,2,2 0,0 -- -");
        let tied = |list: &[&str]| {
            let list: Vec<String> = list.iter().map(|m| (*m).to_owned()).collect();
            greedy_choice(&pos, &list).map(|c| (c.move_text.to_owned(), c.score, c.skipped))
        };
        assert_eq!(tied(&["A4<", "A5<", "B2>"]), Some(("A4<".into(), 0, 0)));
        assert_eq!(tied(&["B2>", "A5<", "A4<"]), Some(("B2>".into(), 0, 0)));
        assert_eq!(tied(&["Z9?", "A3>", "B2>"]), Some(("B2>".into(), 0, 2)), "garbage and illegal skipped");
        assert_eq!(tied(&["nonsense"]), None);
    }

    #[test]
    fn evaluate_is_antisymmetric_and_zero_at_the_start() {
        for variant in [Variant::Kiswahili, Variant::Kujifunza] {
            let start = Position::start(variant);
            assert_eq!(evaluate(&start, Side::South), 0);
        }
        let pos = position(NORTH_WINS);
        assert_eq!(evaluate(&pos, Side::North), -evaluate(&pos, Side::South));
    }

    #[test]
    fn self_play_only_ever_picks_listed_legal_moves() {
        let mut pos = Position::start(Variant::Kiswahili);
        let mut plies = 0;
        while plies < 400 && !pos.outcome().is_over() {
            let legal = legal(&pos);
            let choice = greedy_choice(&pos, &legal).expect("a legal move exists");
            assert_eq!(choice.skipped, 0);
            assert!(legal.iter().any(|m| m == choice.move_text));
            let m = choice.move_text.parse::<MoveText>().expect("notation").to_move(&pos).expect("legal");
            pos = pos.play(m).expect("legal").0;
            plies += 1;
        }
        assert!(plies > 0);
    }

    #[test]
    fn answers_a_move_request_through_the_sdk() {
        let pos = position(NORTH_WINS);
        let request = RefereeMessage::MoveRequest(bao_protocol::MoveRequest {
            id: 5,
            ply: 40,
            position: PositionJson {
                notation: NORTH_WINS.into(),
                variant: "kujifunza".into(),
                to_move: bao_protocol::Side::North,
                rows: Rows::default(),
                hands: PerSide::default(),
                stage: "mtaji".into(),
                nyumba: PerSide::default(),
                takasia: None,
            },
            legal: legal(&pos),
            opponent_move: Some("A1>".into()),
            clock: Clock { you_ms: 100, opponent_ms: 100, increment_ms: 0, move_time_ms: None },
        });
        let input = format!("{}\n{}\n", request.to_line(), RefereeMessage::Quit.to_line());
        let mut output = Vec::new();
        run_with_io(GreedyBot, Cursor::new(input.into_bytes()), &mut output).expect("clean run");
        let lines: Vec<BotMessage> = String::from_utf8(output)
            .expect("UTF-8")
            .lines()
            .map(|l| BotMessage::parse(l).expect("valid line"))
            .collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(matches!(&lines[0], BotMessage::Info(i) if i.score == Some(i64::from(i32::MAX))));
        assert_eq!(lines[1], BotMessage::Move(MoveReply { id: 5, move_text: "B1>".into() }));
    }

    #[test]
    fn an_unreadable_position_falls_back_to_the_first_legal_move() {
        let mut bot = GreedyBot;
        let request = bao_protocol::MoveRequest {
            id: 1,
            ply: 0,
            position: PositionJson {
                notation: "not a position".into(),
                variant: "kiswahili".into(),
                to_move: bao_protocol::Side::South,
                rows: Rows::default(),
                hands: PerSide::default(),
                stage: "namua".into(),
                nyumba: PerSide::default(),
                takasia: None,
            },
            legal: vec!["A6<".into(), "A7<".into()],
            opponent_move: None,
            clock: Clock { you_ms: 100, opponent_ms: 100, increment_ms: 0, move_time_ms: None },
        };
        let mut sink_out = Vec::new();
        let input = format!("{}\n", RefereeMessage::MoveRequest(request).to_line());
        run_with_io(&mut bot, Cursor::new(input.into_bytes()), &mut sink_out).expect("clean run");
        let text = String::from_utf8(sink_out).expect("UTF-8");
        assert_eq!(text, "{\"type\":\"move\",\"id\":1,\"move\":\"A6<\"}\n");
    }
}
