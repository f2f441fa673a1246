//! Arbitrary text → `Setup` → `Position`. Whatever parses must print back as the
//! same text; on a valid position, listing and playing every writable move must
//! not panic, `play` must succeed exactly for the listed moves, and seeds are
//! conserved.

#![no_main]

use bao_rules::{Direction, Move, Pit, Position, Row, Setup};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(setup) = text.parse::<Setup>() else { return };
    assert_eq!(setup.to_string(), text, "Setup text round trip");
    let Ok(position) = Position::try_from(setup) else { return };
    assert_eq!(position.to_string(), text, "Position text round trip");

    let total = position.total_seeds();
    let legal = position.legal_moves();
    assert_eq!(position.has_legal_move(), !legal.is_empty());
    assert_eq!(position.outcome().is_over(), legal.is_empty());
    for row in [Row::Front, Row::Back] {
        for col in 1..=8 {
            let pit = Pit::new(row, col).expect("1..=8");
            for dir in Direction::ALL {
                for safari in [false, true] {
                    let m = Move::new(pit, dir, safari);
                    let _ = position.play_unchecked(m);
                    match position.play(m) {
                        Ok((next, outcome)) => {
                            assert!(legal.contains(&m), "{position} {m}: plays but is not listed");
                            assert_eq!(next.total_seeds(), total, "{position} {m}: seeds not conserved");
                            assert_eq!(next.outcome(), outcome, "{position} {m}: outcome disagrees");
                        }
                        Err(e) => {
                            assert!(!legal.contains(&m), "{position} {m}: listed but {e}");
                            let _ = e.to_string();
                        }
                    }
                }
            }
        }
    }
});
