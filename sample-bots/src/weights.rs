//! The evaluation weights: the tuned set in use, and the hand-set one tuning started from.

use crate::eval::Weights;

/// The hand-set weights the first self-play data were generated with.
pub const HAND_SET: Weights = [
    [100, 40, 100, 40, 10, 30, -30, 30, -40, 30, 200, 50, 0, -400],
    [100, 40, 0, 40, 30, 30, -30, 30, -40, 30, 0, 0, -100, -400],
];

/// The weights in use. See docs/ladder.md for how they were tuned.
pub const TUNED: Weights = HAND_SET;
