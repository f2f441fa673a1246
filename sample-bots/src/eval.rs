//! The evaluation: a weighted sum of Bao features, from the point of view of the player
//! to move, with one weight set for the namua stage and one for mtaji.
//!
//! The weights ([`crate::weights::TUNED`]) were fitted by the Texel method on positions
//! labelled with self-play results (see `sample-bots/tuning/` and docs/ladder.md). The
//! unit is a thousandth of a logit: an evaluation of 1000 means the side to move wins
//! about 73% of the time.

use bao_rules::{Position, Side, Stage};

use crate::board::{Rings, board_seeds, captures, rings};

/// How many features there are per stage.
pub const FEATURES: usize = 14;

/// The features' names, in order (for the tuner's output and for documentation).
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "board seeds (me - opponent)",
    "front-row seeds (me - opponent)",
    "seeds in hand (me - opponent)",
    "non-empty front pits (me - opponent)",
    "pits of 2 or more seeds (me - opponent)",
    "capture moves of the side to move",
    "capture moves of the opponent",
    "largest capture of the side to move",
    "largest capture of the opponent",
    "my front seeds the opponent threatens - the reverse",
    "functional nyumba (owned, 6 or more; me - opponent)",
    "nyumba owned (me - opponent)",
    "side to move is under takasia",
    "front row down to 2 pits or fewer (me - opponent)",
];

/// The feature values of a position.
pub type Features = [i32; FEATURES];

/// One weight per feature, per stage of the side to move: `[namua, mtaji]`.
pub type Weights = [[i32; FEATURES]; 2];

/// 0 for namua (the side to move has seeds in hand), 1 for mtaji.
#[must_use]
pub fn phase(position: &Position) -> usize {
    match position.stage(position.side_to_move()) {
        Stage::Namua => 0,
        Stage::Mtaji => 1,
    }
}

fn front_seeds(r: &Rings, s: Side) -> i32 {
    r[s.index()][..8].iter().map(|&c| i32::from(c)).sum()
}

fn occupied_front(r: &Rings, s: Side) -> i32 {
    r[s.index()][..8].iter().filter(|&&c| c > 0).count() as i32
}

fn pits_of_two(r: &Rings, s: Side) -> i32 {
    r[s.index()].iter().filter(|&&c| c >= 2).count() as i32
}

/// Seeds of `victim`'s front pits in `targets`.
fn threatened(r: &Rings, victim: Side, targets: u8) -> i32 {
    (0..8).filter(|t| targets & (1 << t) != 0).map(|t| i32::from(r[victim.index()][t])).sum()
}

/// The features of `position`, from the side to move's point of view.
#[must_use]
pub fn features(position: &Position) -> Features {
    let r = rings(position);
    features_of(position, &r)
}

/// [`features`] with the rings already read.
#[must_use]
pub fn features_of(position: &Position, r: &Rings) -> Features {
    let me = position.side_to_move();
    let op = me.opponent();
    let mine = captures(r, me, position.stage(me));
    let theirs = captures(r, op, position.stage(op));
    let board = |s: Side| i32::try_from(board_seeds(r, s)).unwrap_or(i32::MAX);
    let hand = |s: Side| i32::from(position.hand(s));
    let functional = |s: Side| i32::from(position.owns_nyumba(s) && r[s.index()][4] >= 6);
    let owned = |s: Side| i32::from(position.owns_nyumba(s));
    let thin = |s: Side| i32::from(occupied_front(r, s) <= 2);
    [
        board(me) - board(op),
        front_seeds(r, me) - front_seeds(r, op),
        hand(me) - hand(op),
        occupied_front(r, me) - occupied_front(r, op),
        pits_of_two(r, me) - pits_of_two(r, op),
        mine.moves as i32,
        theirs.moves as i32,
        mine.best as i32,
        theirs.best as i32,
        threatened(r, me, theirs.targets) - threatened(r, op, mine.targets),
        functional(me) - functional(op),
        owned(me) - owned(op),
        i32::from(position.takasia().is_some()),
        thin(me) - thin(op),
    ]
}

/// The evaluation of `position` for the side to move with `weights`.
#[must_use]
pub fn evaluate_with(position: &Position, weights: &Weights) -> i32 {
    let f = features(position);
    let w = &weights[phase(position)];
    f.iter().zip(w).map(|(f, w)| f * w).sum()
}

/// The evaluation of `position` for the side to move, with the tuned weights.
#[must_use]
pub fn evaluate(position: &Position) -> i32 {
    evaluate_with(position, &crate::weights::TUNED)
}

#[cfg(test)]
mod tests {
    use bao_rules::Variant;

    use super::*;

    #[test]
    fn the_start_is_level_and_features_are_antisymmetric() {
        for variant in [Variant::Kiswahili, Variant::Kujifunza] {
            let f = features(&Position::start(variant));
            // Only the side-to-move counts differ from zero at the start.
            assert_eq!(f[0..5], [0; 5]);
            assert_eq!(f[9..], [0; 5]);
        }
        let p: Position =
            "kujifunza N 1,1,1,2,4,4,3,0/0,1,3,3,0,3,0,1/0,1,0,1,1,1,5,3/5,0,6,3,6,2,1,2 0,0 -- -"
                .parse()
                .expect("valid");
        let f = features(&p);
        assert_eq!(f[0], 37 - 27, "North has 12 + 25 seeds, South 16 + 11");
        assert_eq!(f[1], 12 - 16);
        assert_eq!(f[13], 0);
    }

    #[test]
    fn material_dominates_a_lost_position() {
        // South has one seed left in front; North has plenty.
        let p: Position =
            "kujifunza S 0,0,0,0,0,0,0,1/0,0,0,0,0,0,0,0/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 0,0 -- -"
                .parse()
                .expect("valid");
        assert!(evaluate(&p) < -2000, "{}", evaluate(&p));
    }
}
