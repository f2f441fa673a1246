//! The protocol messages the game loop sends, built from rules types.

use std::time::Duration;

use bao_protocol::{
    Clock as WireClock, GameOver, MoveRequest, PerSide, PositionJson, RefereeMessage, Rows, Side as WireSide,
    TimeControl as WireTimeControl,
};
use bao_rules::{Position, Side, Stage};

use crate::{Reason, TimeControl};

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The protocol's side for a rules side.
#[must_use]
pub fn wire_side(side: Side) -> WireSide {
    match side {
        Side::South => WireSide::South,
        Side::North => WireSide::North,
    }
}

/// The protocol's view of a time control.
#[must_use]
pub fn wire_time_control(tc: &TimeControl) -> WireTimeControl {
    WireTimeControl {
        base_ms: tc.base.map(millis),
        increment_ms: millis(tc.increment),
        move_time_ms: tc.move_time.map(millis),
        startup_ms: millis(tc.startup),
        margin_ms: millis(tc.margin),
    }
}

/// The position as sent in a move request: notation plus plain fields.
#[must_use]
pub fn position_json(position: &Position) -> PositionJson {
    let per_side = |f: &dyn Fn(Side) -> u8| PerSide { south: f(Side::South), north: f(Side::North) };
    PositionJson {
        notation: position.to_string(),
        variant: position.variant().to_string(),
        to_move: wire_side(position.side_to_move()),
        rows: Rows {
            south_front: position.front_row(Side::South),
            south_back: position.back_row(Side::South),
            north_front: position.front_row(Side::North),
            north_back: position.back_row(Side::North),
        },
        hands: per_side(&|s| position.hand(s)),
        stage: match position.stage(position.side_to_move()) {
            Stage::Namua => "namua",
            Stage::Mtaji => "mtaji",
        }
        .to_owned(),
        nyumba: PerSide {
            south: position.owns_nyumba(Side::South),
            north: position.owns_nyumba(Side::North),
        },
        takasia: position.takasia().map(|p| p.to_string()),
    }
}

/// The hello line for the bot playing `side`.
#[must_use]
pub fn hello_line(side: Side, start: &Position, tc: &TimeControl) -> String {
    RefereeMessage::hello(wire_side(side), start.variant().name(), &start.to_string(), wire_time_control(tc))
        .to_line()
}

/// A move request line; `legal` is the position's legal moves in notation.
#[must_use]
#[expect(clippy::too_many_arguments, reason = "one argument per field of the message")]
pub fn move_request_line(
    id: u64,
    ply: u32,
    position: &Position,
    legal: Vec<String>,
    opponent_move: Option<&str>,
    you: Duration,
    opponent: Duration,
    tc: &TimeControl,
) -> String {
    RefereeMessage::MoveRequest(MoveRequest {
        id,
        ply,
        position: position_json(position),
        legal,
        opponent_move: opponent_move.map(str::to_owned),
        clock: WireClock {
            you_ms: millis(you),
            opponent_ms: millis(opponent),
            increment_ms: millis(tc.increment),
            move_time_ms: tc.move_time.map(millis),
        },
    })
    .to_line()
}

/// The game_over line.
#[must_use]
pub fn game_over_line(result: &str, winner: Option<Side>, reason: Reason, plies: u32) -> String {
    RefereeMessage::GameOver(GameOver {
        result: result.to_owned(),
        winner: winner.map(wire_side),
        reason: reason.name().to_owned(),
        plies,
    })
    .to_line()
}

/// The quit line.
#[must_use]
pub fn quit_line() -> String {
    RefereeMessage::Quit.to_line()
}
