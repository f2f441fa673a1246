//! The board as plain arrays, and the capture facts the evaluation and the search need.
//!
//! bao-rules keeps its board private; this reads it once through [`Position::count`]
//! into `rings[side][ring index]` (A1..A8 = 0..7, B8..B1 = 8..15, clockwise = +1).

use bao_rules::{Pit, Position, Side, Stage};

/// Seeds per pit: `[side index][ring index]`.
pub type Rings = [[u8; 16]; 2];

/// The board of `position` as two rings.
#[must_use]
pub fn rings(position: &Position) -> Rings {
    let mut rings = [[0u8; 16]; 2];
    for side in Side::ALL {
        for (i, pit) in rings[side.index()].iter_mut().enumerate() {
            #[expect(clippy::cast_possible_truncation, reason = "ring indices are < 16")]
            if let Some(p) = Pit::from_index(i as u8) {
                *pit = position.count(side, p);
            }
        }
    }
    rings
}

/// What `side` could capture if it were to move now, by the start conditions of its
/// stage (RULES.md 5.1 and 5.3; takasia and infinite moves are ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Captures {
    /// Capture moves (pit and direction pairs).
    pub moves: u32,
    /// The most seeds one capture takes (its first capture only).
    pub best: u32,
    /// Bit `t` set for each front pit `t` of the opponent that a capture would take.
    pub targets: u8,
}

/// The captures open to `side` in `rings` at `stage`.
#[must_use]
pub fn captures(rings: &Rings, side: Side, stage: Stage) -> Captures {
    let me = &rings[side.index()];
    let opp = &rings[side.opponent().index()];
    let mut found = Captures::default();
    let take = |e: usize, found: &mut Captures| {
        let facing = 7 - e;
        found.moves += 1;
        found.best = found.best.max(u32::from(opp[facing]));
        found.targets |= 1 << facing;
    };
    match stage {
        Stage::Namua => {
            for p in 0..8 {
                if me[p] > 0 && opp[7 - p] > 0 {
                    take(p, &mut found);
                }
            }
        }
        Stage::Mtaji => {
            for (s, &n) in me.iter().enumerate() {
                if !(2..=15).contains(&n) {
                    continue;
                }
                for step in [1, 15] {
                    let e = (s + usize::from(n) * step) & 15;
                    if e < 8 && me[e] > 0 && opp[7 - e] > 0 {
                        take(e, &mut found);
                    }
                }
            }
        }
    }
    found
}

/// Whether the player to move in `position` has a capture move (start conditions only).
#[must_use]
pub fn mover_can_capture(position: &Position) -> bool {
    let me = position.side_to_move();
    captures(&rings(position), me, position.stage(me)).moves > 0
}

/// Seeds on `side`'s 16 pits.
#[must_use]
pub fn board_seeds(rings: &Rings, side: Side) -> u32 {
    rings[side.index()].iter().map(|&c| u32::from(c)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rings_follow_the_ring_order() {
        let p: Position =
            "kiswahili S 1,2,3,4,5,6,7,8/9,0,0,0,0,0,0,1/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 2,2 SN -"
                .parse()
                .expect("valid");
        let r = rings(&p);
        assert_eq!(r[0], [1, 2, 3, 4, 5, 6, 7, 8, 1, 0, 0, 0, 0, 0, 0, 9]);
        assert_eq!(board_seeds(&r, Side::South), 46);
        assert_eq!(board_seeds(&r, Side::North), 10);
    }

    #[test]
    fn captures_match_the_engine_on_the_worked_cases() {
        // Whenever the engine's legal moves are captures, the start conditions say so.
        for line in include_str!("../../rules/tests/data/random-kiswahili.jsonl").lines().take(400) {
            let position: Position = line
                .split("\"position\": \"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .expect("a position field")
                .parse()
                .expect("valid");
            let me = position.side_to_move();
            let found = captures(&rings(&position), me, position.stage(me));
            let before = board_seeds(&rings(&position), me.opponent());
            let captured = position
                .successors()
                .iter()
                .any(|(_, next)| board_seeds(&rings(next), me.opponent()) < before);
            if position.takasia().is_none() {
                assert_eq!(found.moves > 0, captured, "{position}");
            }
        }
    }
}
