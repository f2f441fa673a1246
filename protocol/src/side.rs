//! The two players as they appear on the wire: `"S"` and `"N"`. The type is the rules
//! engine's [`Side`] (one definition for the whole project); this module adds [`PerSide`].

use serde::{Deserialize, Serialize};

pub use bao_rules::Side;

/// One value for each player, written `{"S": ..., "N": ...}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct PerSide<T> {
    /// South's value.
    #[serde(rename = "S")]
    pub south: T,
    /// North's value.
    #[serde(rename = "N")]
    pub north: T,
}

impl<T> PerSide<T> {
    /// The value of `side`.
    #[must_use]
    pub const fn get(&self, side: Side) -> &T {
        match side {
            Side::South => &self.south,
            Side::North => &self.north,
        }
    }
}
