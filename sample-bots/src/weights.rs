//! The evaluation weights: the tuned set in use, and the hand-set one tuning started from.

use crate::eval::Weights;

/// The hand-set weights the first self-play data were generated with.
pub const HAND_SET: Weights = [
    [100, 40, 100, 40, 10, 30, -30, 30, -40, 30, 200, 50, 0, -400],
    [100, 40, 0, 40, 30, 30, -30, 30, -40, 30, 0, 0, -100, -400],
];

/// The weights in use: two rounds of Texel tuning (see docs/ladder.md), the second fitted
/// on the self-play data of both rounds:
/// `bao-tune fit tuning/selfplay-hand-d4.tsv tuning/selfplay-round1-d4.tsv`.
pub const TUNED: Weights = [
    [195, -160, 542, 11, -22, 130, -132, 31, -18, -4, 550, 164, 0, -313],
    [215, -140, 0, 192, -57, 310, -62, 44, -11, -38, 454, 454, -13, 282],
];

/// The weights of round 1 (fitted on `tuning/selfplay-hand-d4.tsv` alone), which
/// generated `tuning/selfplay-round1-d4.tsv`.
pub const ROUND_1: Weights = [
    [174, -136, 557, 23, -28, 81, -101, 92, -49, 23, -1138, 1752, 0, -283],
    [206, -134, 0, 256, -63, 265, 0, 31, 6, -60, 279, 279, -32, 449],
];
