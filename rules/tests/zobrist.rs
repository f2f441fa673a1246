//! `Position::hash_key`: equal positions hash equal, and positions that differ
//! (in random games of both variants, and by every single-feature change of
//! them) hash differently.

use std::collections::HashMap;

use bao_rules::{Pit, Position, Row, Setup, Side, Variant};
use proptest::prelude::*;

/// The positions of a game choosing `choices[i] % legal.len()` at ply i.
fn game(variant: Variant, choices: &[u16]) -> Vec<Position> {
    let mut p = Position::start(variant);
    let mut out = vec![p];
    for &choice in choices {
        let moves = p.legal_moves();
        if moves.is_empty() {
            break;
        }
        p = p.play_without_outcome(moves[usize::from(choice) % moves.len()]).unwrap();
        out.push(p);
    }
    out
}

/// Every valid position one feature away from `p`: one seed moved between two
/// pits (of either side), a hand changed by one, a nyumba flag flipped, the side
/// to move or the takasia pit changed.
fn neighbours(p: &Position) -> Vec<Position> {
    let setup = p.to_setup();
    let mut variants: Vec<Setup> = Vec::new();
    let cells: Vec<(usize, usize)> = (0..4).flat_map(|r| (0..8).map(move |c| (r, c))).collect();
    for &(r, c) in &cells {
        if setup.rows[r][c] == 0 {
            continue;
        }
        for &(r2, c2) in &cells {
            if (r2, c2) != (r, c) {
                let mut s = setup.clone();
                s.rows[r][c] -= 1;
                s.rows[r2][c2] += 1;
                variants.push(s);
            }
        }
    }
    for side in 0..2 {
        let mut s = setup.clone();
        s.hands[side] = s.hands[side].wrapping_add(1);
        variants.push(s);
        let mut s = setup.clone();
        s.nyumba[side] = !s.nyumba[side];
        variants.push(s);
    }
    let mut s = setup.clone();
    s.to_move = s.to_move.opponent();
    variants.push(s);
    for col in 1..=8 {
        let mut s = setup.clone();
        s.takasia = if s.takasia == Pit::new(Row::Front, col) { None } else { Pit::new(Row::Front, col) };
        variants.push(s);
    }
    let mut s = setup.clone();
    s.variant = match s.variant {
        Variant::Kiswahili => Variant::Kujifunza,
        Variant::Kujifunza => Variant::Kiswahili,
    };
    variants.push(s);
    variants.into_iter().filter_map(|s| Position::try_from(s).ok()).filter(|q| q != p).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Every position one feature away from a position of a random game hashes
    /// differently from it.
    #[test]
    fn one_feature_changes_the_hash(
        kujifunza in any::<bool>(),
        choices in proptest::collection::vec(any::<u16>(), 0..80),
    ) {
        let variant = if kujifunza { Variant::Kujifunza } else { Variant::Kiswahili };
        for p in game(variant, &choices) {
            let near = neighbours(&p);
            prop_assert!(near.len() > 30, "{p}: only {} neighbours", near.len());
            for q in near {
                prop_assert_ne!(p.hash_key(), q.hash_key(), "{} and {}", p, q);
            }
        }
    }
}

/// Over many random games of both variants: a position always has the same hash
/// (transpositions and text round trips included), and no two different
/// positions share one.
#[test]
fn hashes_identify_positions_in_random_games() {
    let mut by_hash: HashMap<u64, Position> = HashMap::new();
    let mut state: u64 = 7;
    let mut repeats = 0;
    for g in 0..400 {
        let choices: Vec<u16> = (0..150)
            .map(|_| {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                u16::try_from(state >> 48).unwrap()
            })
            .collect();
        let variant = if g % 2 == 0 { Variant::Kiswahili } else { Variant::Kujifunza };
        for p in game(variant, &choices) {
            let reparsed: Position = p.to_string().parse().unwrap();
            assert_eq!(reparsed.hash_key(), p.hash_key());
            match by_hash.insert(p.hash_key(), p) {
                Some(q) if q != p => panic!("{p} and {q} share the hash {:#x}", p.hash_key()),
                Some(_) if p != Position::start(variant) => repeats += 1,
                Some(_) => {}
                None => {}
            }
        }
    }
    assert!(by_hash.len() > 10_000, "{} positions", by_hash.len());
    assert!(repeats > 0, "no position besides the starts was reached twice");
}

#[test]
fn starts_and_sides() {
    let kiswahili = Position::start(Variant::Kiswahili);
    let kujifunza = Position::start(Variant::Kujifunza);
    assert_eq!(kiswahili.hash_key(), Position::start(Variant::Kiswahili).hash_key());
    assert_ne!(kiswahili.hash_key(), kujifunza.hash_key());
    // The same board with the other side to move.
    let mut setup = kujifunza.to_setup();
    setup.to_move = Side::North;
    let north = Position::try_from(setup).unwrap();
    assert_ne!(north.hash_key(), kujifunza.hash_key());
    // The keys are compile-time constants: these values are the same in every build.
    assert_eq!(kiswahili.hash_key(), KISWAHILI_START);
    assert_eq!(kujifunza.hash_key(), KUJIFUNZA_START);
}

/// The start positions' hashes (as computed by this crate when the keys were
/// fixed; a change means stored hashes are no longer valid).
const KISWAHILI_START: u64 = 15_493_188_251_876_755_948;
const KUJIFUNZA_START: u64 = 1_365_044_371_748_207_301;
