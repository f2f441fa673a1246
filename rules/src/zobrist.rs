//! Zobrist hashing of positions: one fixed random key per feature of a
//! position, generated at compile time by a const splitmix64 generator (no
//! randomness at run time: the keys, and so every hash, are the same in every
//! build and on every machine).

use crate::{Position, Side, Variant};

/// The keys: one per (side, pit, count), per (side, hand count), per owned
/// nyumba, per takasia pit, and one each for North to move and for Kujifunza.
struct Keys {
    pits: [[[u64; 256]; 16]; 2],
    hands: [[u64; 256]; 2],
    nyumba: [u64; 2],
    takasia: [u64; 16],
    north_to_move: u64,
    kujifunza: u64,
}

/// The generator's seed (the first 64 bits of the fractional part of pi).
const SEED: u64 = 0x243F_6A88_85A3_08D3;

/// One step of splitmix64: the next state and its output.
const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// Draws the keys in a fixed order: pits, hands, nyumba, takasia, side, variant.
const fn generate() -> Keys {
    let mut keys = Keys {
        pits: [[[0; 256]; 16]; 2],
        hands: [[0; 256]; 2],
        nyumba: [0; 2],
        takasia: [0; 16],
        north_to_move: 0,
        kujifunza: 0,
    };
    let mut state = SEED;
    let mut key;
    let mut side = 0;
    while side < 2 {
        let mut pit = 0;
        while pit < 16 {
            let mut count = 0;
            while count < 256 {
                (state, key) = splitmix64(state);
                keys.pits[side][pit][count] = key;
                count += 1;
            }
            pit += 1;
        }
        side += 1;
    }
    let mut side = 0;
    while side < 2 {
        let mut count = 0;
        while count < 256 {
            (state, key) = splitmix64(state);
            keys.hands[side][count] = key;
            count += 1;
        }
        (state, key) = splitmix64(state);
        keys.nyumba[side] = key;
        side += 1;
    }
    let mut pit = 0;
    while pit < 16 {
        (state, key) = splitmix64(state);
        keys.takasia[pit] = key;
        pit += 1;
    }
    (state, key) = splitmix64(state);
    keys.north_to_move = key;
    (_, key) = splitmix64(state);
    keys.kujifunza = key;
    keys
}

/// The keys, computed at compile time.
static KEYS: Keys = generate();

impl Position {
    /// The position's Zobrist hash: the exclusive or of one fixed 64-bit key
    /// per feature — every pit's count (per side and pit), both hands, each
    /// owned nyumba, the pit under takasia, North to move, the variant.
    ///
    /// Equal positions have equal keys; positions that differ in anything
    /// [`PartialEq`] compares differ in at least one feature, so their keys
    /// differ unless two different sets of keys happen to have the same
    /// exclusive or (about one chance in 2^64 for two given positions). The
    /// keys are constants generated at compile time, the same in every build
    /// and on every machine. Computing the hash reads all 32 pits; there is no
    /// incremental update.
    #[must_use]
    pub fn hash_key(&self) -> u64 {
        let keys = &KEYS;
        let mut hash = 0;
        for side in Side::ALL {
            let s = side.index();
            for (pit, &count) in self.pits[s].iter().enumerate() {
                hash ^= keys.pits[s][pit][usize::from(count)];
            }
            hash ^= keys.hands[s][usize::from(self.hands[s])];
            if self.nyumba[s] {
                hash ^= keys.nyumba[s];
            }
        }
        if let Some(pit) = self.takasia {
            hash ^= keys.takasia[pit.index()];
        }
        if self.to_move == Side::North {
            hash ^= keys.north_to_move;
        }
        if self.variant == Variant::Kujifunza {
            hash ^= keys.kujifunza;
        }
        hash
    }
}
