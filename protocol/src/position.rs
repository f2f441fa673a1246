//! A position as sent in `move_request`: the notation plus the same facts as plain fields.

use serde::{Deserialize, Serialize};

use crate::{PerSide, Side};

/// A position on the wire. `notation` is authoritative (RULES.md section 11);
/// the other fields repeat it in a form that needs no parser.
///
/// This crate does not depend on the rules engine: the referee fills the fields.
///
/// ```json
/// {"notation":"kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -",
///  "variant":"kiswahili","to_move":"S",
///  "rows":{"A":[0,0,0,0,6,2,2,0],"B":[0,0,0,0,0,0,0,0],"a":[0,0,0,0,6,2,2,0],"b":[0,0,0,0,0,0,0,0]},
///  "hands":{"S":22,"N":22},"stage":"namua","nyumba":{"S":true,"N":true},"takasia":null}
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionJson {
    /// The position in the one-line notation of RULES.md section 11.
    pub notation: String,
    /// `"kiswahili"` or `"kujifunza"`.
    pub variant: String,
    /// The player to move.
    pub to_move: Side,
    /// The four rows, each in its owner's numbering.
    pub rows: Rows,
    /// Seeds in each player's hand.
    pub hands: PerSide<u8>,
    /// The stage of the player to move: `"namua"` (seeds in hand) or `"mtaji"`.
    pub stage: String,
    /// Whether each player still owns their nyumba.
    pub nyumba: PerSide<bool>,
    /// The pit of the player to move that is under takasia, in that player's notation
    /// (`"A3"`), or `null`.
    pub takasia: Option<String>,
}

/// The four rows of the board, each a list of 8 seed counts from its owner's
/// left (index 0 is column 1): `{"A":[...],"B":[...],"a":[...],"b":[...]}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Rows {
    /// Row `A`: South's front row.
    #[serde(rename = "A")]
    pub south_front: [u8; 8],
    /// Row `B`: South's back row.
    #[serde(rename = "B")]
    pub south_back: [u8; 8],
    /// Row `a`: North's front row.
    #[serde(rename = "a")]
    pub north_front: [u8; 8],
    /// Row `b`: North's back row.
    #[serde(rename = "b")]
    pub north_back: [u8; 8],
}

impl Rows {
    /// `side`'s front row.
    #[must_use]
    pub const fn front(&self, side: Side) -> &[u8; 8] {
        match side {
            Side::South => &self.south_front,
            Side::North => &self.north_front,
        }
    }

    /// `side`'s back row.
    #[must_use]
    pub const fn back(&self, side: Side) -> &[u8; 8] {
        match side {
            Side::South => &self.south_back,
            Side::North => &self.north_back,
        }
    }
}
