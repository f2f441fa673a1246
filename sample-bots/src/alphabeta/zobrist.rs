//! A Zobrist key of a position, computed from scratch (a Bao move changes many pits, so
//! keys are not updated incrementally). Behind [`position_key`] so that it can be
//! switched to the rules engine's own key when that exists.

use bao_rules::{Position, Side, Variant};

use crate::board::Rings;

/// splitmix64: a fixed, well-mixed sequence for the tables.
const fn splitmix(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `PITS[side][pit][count]`.
static PITS: [[[u64; 256]; 16]; 2] = {
    let mut table = [[[0u64; 256]; 16]; 2];
    let mut i = 0;
    while i < 2 * 16 * 256 {
        table[i / 4096][(i / 256) % 16][i % 256] = splitmix(i as u64 * 0x1000_0000_01B3 + 17);
        i += 1;
    }
    table
};

/// `HANDS[side][count]`.
static HANDS: [[u64; 256]; 2] = {
    let mut table = [[0u64; 256]; 2];
    let mut i = 0;
    while i < 512 {
        table[i / 256][i % 256] = splitmix(0xA5A5_0000 + i as u64);
        i += 1;
    }
    table
};

const NORTH_TO_MOVE: u64 = splitmix(1);
const KUJIFUNZA: u64 = splitmix(2);
const NYUMBA: [u64; 2] = [splitmix(3), splitmix(4)];
const TAKASIA: [u64; 16] = {
    let mut table = [0u64; 16];
    let mut i = 0;
    while i < 16 {
        table[i] = splitmix(100 + i as u64);
        i += 1;
    }
    table
};

/// The key of `position`, whose board is `rings`.
#[must_use]
pub fn position_key(position: &Position, rings: &Rings) -> u64 {
    let mut key = 0;
    for side in Side::ALL {
        let s = side.index();
        for (pit, &count) in rings[s].iter().enumerate() {
            key ^= PITS[s][pit][usize::from(count)];
        }
        key ^= HANDS[s][usize::from(position.hand(side))];
        if position.owns_nyumba(side) {
            key ^= NYUMBA[s];
        }
    }
    if position.side_to_move() == Side::North {
        key ^= NORTH_TO_MOVE;
    }
    if position.variant() == Variant::Kujifunza {
        key ^= KUJIFUNZA;
    }
    if let Some(pit) = position.takasia() {
        key ^= TAKASIA[pit.index()];
    }
    key
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::board::rings;

    #[test]
    fn keys_tell_the_positions_of_random_games_apart() {
        let mut seen: HashMap<u64, Position> = HashMap::new();
        for data in [
            include_str!("../../../rules/tests/data/random-kiswahili.jsonl"),
            include_str!("../../../rules/tests/data/random-kujifunza.jsonl"),
        ] {
            for line in data.lines() {
                let text =
                    line.split("\"position\": \"").nth(1).and_then(|r| r.split('"').next()).expect("field");
                let p: Position = text.parse().expect("valid");
                let key = position_key(&p, &rings(&p));
                if let Some(other) = seen.insert(key, p) {
                    assert_eq!(other, p, "two positions share key {key:#x}");
                }
            }
        }
        assert!(seen.len() > 1500, "{} distinct positions", seen.len());
    }
}
