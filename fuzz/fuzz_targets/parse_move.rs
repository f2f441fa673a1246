//! Arbitrary text → `MoveText`. Whatever parses must print back as the same
//! text, and converting it against positions must not panic and must agree with
//! the legal move lists.

#![no_main]

use bao_rules::{MoveText, Position, Side, Variant};
use libfuzzer_sys::fuzz_target;

/// Positions with namua, mtaji, takasia and safari on offer.
const POSITIONS: [&str; 4] = [
    "kiswahili N 0,0,0,1,7,3,0,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 21,22 SN -",
    "kiswahili S 0,1,0,0,6,0,0,0/0,0,0,0,0,0,0,0/2,0,0,0,0,0,5,0/0,0,0,0,0,0,0,0 3,3 SN -",
    "kiswahili N 2,0,1,1,0,0,0,0/0,0,0,0,0,0,0,0/0,2,0,1,0,2,0,0/0,0,0,0,0,0,0,0 0,0 -- A6",
    "kujifunza N 1,0,0,0,0,0,0,1/2,1,0,3,0,0,1,1/2,3,10,5,2,1,4,1/7,0,1,2,3,4,3,6 0,0 -- -",
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(parsed) = text.parse::<MoveText>() else { return };
    assert_eq!(parsed.to_string(), text, "MoveText round trip");
    let m = parsed.to_move_unchecked();
    assert_eq!(m.to_string(), text.to_ascii_uppercase(), "Move prints upper case");
    let starts = [Position::start(Variant::Kiswahili), Position::start(Variant::Kujifunza)];
    let others = POSITIONS.map(|p| p.parse::<Position>().expect("valid"));
    for position in starts.iter().chain(&others) {
        let legal = position.legal_moves();
        match parsed.to_move(position) {
            Ok(found) => {
                assert_eq!(found, m);
                assert!(legal.contains(&m), "{position} {text}: accepted but not listed");
                assert!(!(parsed.lower_case() && position.side_to_move() == Side::South));
            }
            Err(e) => {
                let lower_for_south = parsed.lower_case() && position.side_to_move() == Side::South;
                assert!(lower_for_south || !legal.contains(&m), "{position} {text}: listed but {e}");
            }
        }
    }
});
