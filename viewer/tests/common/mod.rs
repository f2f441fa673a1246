//! Test fixtures: a real game played with `bao-rules`, turned into replay data.
//!
//! The moves are chosen deterministically (South greedy on material, North by a fixed
//! pseudo-random sequence), so the game, and every snapshot of it, is the same on every run.
//! Timings and clocks are made up (fixed numbers). The sowing `steps` are the rules engine's
//! own (`Position::sowing_steps`), with one unknown op added that the page must skip.

use bao_rules::{Position, Side, Variant};
use bao_viewer::{BoardJson, InfoData, PlyData, ReplayData, ResultData, Step};

/// Plies after which the fixture game is adjudicated a draw.
pub const MAX_PLIES: usize = 400;

/// One fixture game: the replay data and every position (`positions[0]` is the start).
pub struct Game {
    pub data: ReplayData,
    pub positions: Vec<Position>,
}

fn material(position: &Position, side: Side) -> i32 {
    let own: i32 =
        position.front_row(side).iter().chain(&position.back_row(side)).map(|&c| i32::from(c)).sum();
    own + i32::from(position.hand(side))
}

/// The real sowing steps of `mv` from the rules engine, plus one op the page does not know
/// (which it must skip).
fn real_steps(before: &Position, mv: bao_rules::Move) -> Vec<Step> {
    let mut steps: Vec<Step> =
        before.sowing_steps(mv).expect("a legal move has steps").into_iter().map(Step::from).collect();
    steps.push(Step::Other);
    steps
}

/// Plays the fixture game between bots called `south` and `north`.
pub fn play_game(variant: Variant, south: &str, north: &str) -> Game {
    let mut position = Position::start(variant);
    let mut positions = vec![position];
    let mut plies = Vec::new();
    let mut clocks = [60_000u64, 60_000u64];
    let mut lcg: u64 = 0x2545_f491_4f6c_dd1d;
    let mut result = None;
    for number in 1..=MAX_PLIES as u32 {
        let moves = position.legal_moves();
        let mover = position.side_to_move();
        let choice = match mover {
            Side::South => {
                let mut best = 0;
                let mut best_score = i32::MIN;
                for (i, &m) in moves.iter().enumerate() {
                    let (next, _) = position.play(m).expect("legal moves play");
                    let score = material(&next, Side::South) - material(&next, Side::North);
                    if score > best_score {
                        best = i;
                        best_score = score;
                    }
                }
                best
            }
            Side::North => {
                lcg = lcg.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                (lcg >> 33) as usize % moves.len()
            }
        };
        let mv = moves[choice];
        let (next, outcome) = position.play(mv).expect("legal moves play");
        let mut ply = PlyData::from_positions(number, &position, mv, &next);
        let time_us = 150 + u64::from(number % 7) * 1_130 + if number % 11 == 0 { 1_250_000 } else { 0 };
        let clock = &mut clocks[mover.index()];
        *clock = clock.saturating_sub(time_us / 1000).saturating_add(100);
        ply.time_us = time_us;
        ply.clock_ms = Some(clocks);
        if mover == Side::South {
            ply.info = vec![
                InfoData { depth: Some(1), score: Some(0), nodes: Some(4), ..InfoData::default() },
                InfoData {
                    depth: Some(2),
                    score: Some(i64::from(material(&next, Side::South) - material(&next, Side::North))),
                    nodes: Some(moves.len() as u64 * 3),
                    pv: vec![ply.mv.clone()],
                    comment: Some("greedy <material>".to_owned()),
                },
            ];
        }
        ply.steps = real_steps(&position, mv);
        plies.push(ply);
        positions.push(next);
        position = next;
        if let bao_rules::Outcome::Win { winner, reason } = outcome {
            result = Some(ResultData {
                winner: Some(winner),
                reason: reason.name().to_owned(),
                detail: match reason {
                    bao_rules::WinReason::FrontRowEmpty => {
                        format!("{}'s front row is empty", winner.opponent())
                    }
                    bao_rules::WinReason::NoLegalMoves => format!("{} has no legal move", winner.opponent()),
                },
            });
            break;
        }
    }
    let result = result.unwrap_or_else(|| ResultData {
        winner: None,
        reason: "max_plies".to_owned(),
        detail: format!("no result after {MAX_PLIES} plies"),
    });
    let data = ReplayData {
        variant: variant.name().to_owned(),
        south_name: south.to_owned(),
        north_name: north.to_owned(),
        start: BoardJson::from_position(&positions[0]),
        plies,
        result: Some(result),
        title: None,
        back_href: None,
    };
    Game { data, positions }
}
