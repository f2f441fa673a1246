//! The searching bots play only legal moves: from every position of the rules cases
//! (rules/tests/data: namua, mtaji, takasia, tax, safari, infinite-move, owned-nyumba and
//! Kujifunza positions), called directly through the typed SDK's `Bot` trait.

use bao_rules::{Position, Stage, Variant};
use bao_sample_bots::{AlphaBetaBot, GameSeed, Level, MctsBot};
use bao_sdk::{Bot, Deadline};

/// Every distinct position of the rules cases that has a legal move.
fn case_positions() -> Vec<Position> {
    let mut positions: Vec<Position> = Vec::new();
    for data in [
        include_str!("../../rules/tests/data/special.jsonl"),
        include_str!("../../rules/tests/data/owned-nyumba.jsonl"),
        include_str!("../../rules/tests/data/random-kiswahili.jsonl"),
        include_str!("../../rules/tests/data/random-kujifunza.jsonl"),
    ] {
        for line in data.lines().filter(|l| !l.trim().is_empty()) {
            let case: serde_json::Value = serde_json::from_str(line).expect("a JSON case");
            for field in ["position", "next"] {
                let Some(text) = case[field].as_str() else { continue };
                let position: Position = text.parse().expect("a valid case position");
                if !position.legal_moves().is_empty() && !positions.contains(&position) {
                    positions.push(position);
                }
            }
        }
    }
    positions
}

#[test]
fn the_cases_cover_every_kind_of_position() {
    let positions = case_positions();
    let me = |p: &Position| p.side_to_move();
    let count = |f: &dyn Fn(&Position) -> bool| positions.iter().filter(|p| f(p)).count();
    assert!(count(&|p| p.variant() == Variant::Kiswahili && p.stage(me(p)) == Stage::Namua) >= 100);
    assert!(count(&|p| p.variant() == Variant::Kiswahili && p.stage(me(p)) == Stage::Mtaji) >= 100);
    assert!(count(&|p| p.takasia().is_some()) >= 5);
    assert!(count(&|p| p.variant() == Variant::Kujifunza) >= 100);
}

#[test]
fn alphabeta_plays_a_legal_move_from_every_case() {
    let mut bots = [
        AlphaBetaBot::new(Level::Depth(2), GameSeed::new(Some(1))),
        AlphaBetaBot::new(Level::Nodes(300), GameSeed::new(Some(2))).with_capture_plies(4),
    ];
    for position in case_positions() {
        let legal = position.legal_moves();
        for bot in &mut bots {
            let m = bot.choose_move(&position, &legal, &Deadline::unlimited());
            assert!(legal.contains(&m), "{m} is not legal in {position}");
            let info = bot.take_info();
            if legal.len() > 1 {
                assert!(info.iter().any(|i| i.depth.is_some() && i.nodes.is_some()), "{info:?}");
            }
        }
    }
}

#[test]
fn mcts_plays_a_legal_move_from_every_case() {
    let mut bot = MctsBot::new(Level::Nodes(40), GameSeed::new(Some(3)));
    for position in case_positions() {
        let legal = position.legal_moves();
        let m = bot.choose_move(&position, &legal, &Deadline::unlimited());
        assert!(legal.contains(&m), "{m} is not legal in {position}");
    }
}

#[test]
fn fixed_depth_with_a_fixed_seed_is_reproducible() {
    let play = || {
        let mut bot = AlphaBetaBot::new(Level::Depth(3), GameSeed::new(Some(11)));
        let mut position = Position::start(Variant::Kiswahili);
        let mut moves = Vec::new();
        while moves.len() < 60 {
            let legal = position.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = bot.choose_move(&position, &legal, &Deadline::unlimited());
            moves.push(m);
            let (next, outcome) = position.play(m).expect("legal");
            position = next;
            if outcome.is_over() {
                break;
            }
        }
        moves
    };
    let first = play();
    assert!(first.len() > 10, "{} plies", first.len());
    assert_eq!(first, play());
}
