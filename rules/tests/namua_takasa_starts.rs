//! RULES.md section 5.2 (Donkers' rule 2.4c) as a property: in every namua position in which
//! the player to move owns the nyumba, the legal moves are exactly these.
//!
//! - If a capture exists (section 5: a non-empty front pit facing a non-empty opponent pit),
//!   only captures: every legal move starts from such a pit, and no other pit starts one.
//! - Otherwise the takasa starts are every non-empty front pit, singletons included, less the
//!   nyumba when it is functional (owned and holding 6 or more) — unless the functional
//!   nyumba is the only non-empty front pit, when it alone is the start (the tax). Both
//!   directions, except that a lone kichwa is sown towards the centre; no safari. A move that
//!   meets these conditions is legal unless it is infinite (section 9).
//!
//! The expected set is computed here from the rules text alone, over positions built so that
//! singletons, an owned nyumba of fewer than 6 seeds and positions without a capture are
//! common.

use bao_rules::{Direction, IllegalMove, Move, Pit, Position, Row, Setup, Side, Variant};
use proptest::prelude::*;

/// A front pit's count: mostly empty or a singleton.
fn front_count() -> impl Strategy<Value = u8> {
    prop_oneof![4 => Just(0u8), 4 => Just(1u8), 2 => 2u8..=4, 1 => 5u8..=12]
}

/// The nyumba's count: on both sides of 6.
fn nyumba_count() -> impl Strategy<Value = u8> {
    prop_oneof![2 => Just(0u8), 2 => Just(1u8), 4 => 2u8..=5, 3 => 6u8..=12]
}

/// One column of the two front rows, as (mine, the opponent's facing pit): often only one
/// side non-empty, so that positions without a capture are common.
fn column() -> impl Strategy<Value = (u8, u8)> {
    prop_oneof![
        3 => Just((0u8, 0u8)),
        4 => front_count().prop_map(|c| (c, 0)),
        3 => front_count().prop_map(|c| (0, c)),
        1 => (front_count(), front_count()),
    ]
}

/// A Kiswahili namua position: the player to move has seeds in hand and owns the nyumba.
fn owned_namua_position() -> impl Strategy<Value = Position> {
    (
        prop_oneof![Just(Side::South), Just(Side::North)],
        prop::array::uniform8(column()),
        nyumba_count(),
        prop::array::uniform8(0u8..=3),
        prop::array::uniform8(0u8..=3),
        1u8..=22,
        0u8..=22,
        any::<bool>(),
    )
        .prop_filter_map(
            "both front rows non-empty",
            |(to_move, columns, nyumba, my_back, their_back, my_hand, their_hand, their_nyumba)| {
                let mut mine = [0u8; 8];
                let mut theirs = [0u8; 8];
                for (k, &(m, t)) in columns.iter().enumerate() {
                    // My pit k faces their pit 7 - k.
                    mine[k] = m;
                    theirs[7 - k] = t;
                }
                mine[4] = nyumba;
                if mine.iter().all(|&c| c == 0) || theirs.iter().all(|&c| c == 0) {
                    return None;
                }
                let (me, them) = (to_move.index(), to_move.opponent().index());
                let mut rows = [[0u8; 8]; 4];
                rows[2 * me] = mine;
                rows[2 * me + 1] = my_back;
                rows[2 * them] = theirs;
                rows[2 * them + 1] = their_back;
                let mut hands = [0u8; 2];
                hands[me] = my_hand;
                hands[them] = their_hand;
                let mut owned = [false; 2];
                owned[me] = true;
                owned[them] = their_nyumba;
                let setup =
                    Setup { variant: Variant::Kiswahili, to_move, rows, hands, nyumba: owned, takasia: None };
                Position::try_from(setup).ok()
            },
        )
}

/// The front pit in column `col` (1-based).
fn front(col: usize) -> Pit {
    Pit::new(Row::Front, u8::try_from(col).expect("1..=8")).expect("1..=8")
}

/// The moves that meet the start conditions of 5.1/5.2 by the rules text, without safari.
fn expected_candidates(p: &Position) -> (bool, Vec<Move>) {
    let me = p.side_to_move();
    let mine = p.front_row(me);
    let theirs = p.front_row(me.opponent());
    // Section 1: A_k faces a_(9-k); index k faces index 7 - k.
    let capture_starts: Vec<usize> = (0..8).filter(|&k| mine[k] > 0 && theirs[7 - k] > 0).collect();
    if !capture_starts.is_empty() {
        // Section 11: a capture's direction is forced `>` in columns 1-2 and `<` in 7-8.
        let mut moves = Vec::new();
        for k in capture_starts {
            let dirs: &[Direction] = match k {
                0 | 1 => &[Direction::Clockwise],
                6 | 7 => &[Direction::AntiClockwise],
                _ => &Direction::ALL,
            };
            moves.extend(dirs.iter().map(|&d| Move::new(front(k + 1), d, false)));
        }
        return (true, moves);
    }
    let nonempty: Vec<usize> = (0..8).filter(|&k| mine[k] > 0).collect();
    let functional = p.owns_nyumba(me) && mine[4] >= 6;
    let starts: Vec<usize> = if functional && nonempty == [4] {
        vec![4]
    } else {
        nonempty.iter().copied().filter(|&k| !(functional && k == 4)).collect()
    };
    let mut moves = Vec::new();
    for k in starts {
        let dirs: &[Direction] = match (k, nonempty.as_slice()) {
            (0, [0]) => &[Direction::Clockwise],
            (7, [7]) => &[Direction::AntiClockwise],
            _ => &Direction::ALL,
        };
        moves.extend(dirs.iter().map(|&d| Move::new(front(k + 1), d, false)));
    }
    (false, moves)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn namua_starts_with_an_owned_nyumba(p in owned_namua_position()) {
        let (capture, expected) = expected_candidates(&p);
        let legal = p.legal_moves();
        let plain: Vec<Move> = legal.iter().filter(|m| !m.safari()).copied().collect();
        // Every legal move meets the start conditions.
        for m in &plain {
            prop_assert!(expected.contains(m), "{p}: {m} is legal but does not meet 5.1/5.2");
        }
        // Every move that meets them is legal, or infinite.
        for &m in &expected {
            if !plain.contains(&m) {
                prop_assert_eq!(p.play(m).err(), Some(IllegalMove::Infinite(m)), "{} {} not listed", p, m);
            }
        }
        if !capture {
            // A takasa never goes on safari.
            prop_assert!(legal.iter().all(|m| !m.safari()), "{p}: safari on a takasa");
        }
    }
}

/// The property's generator reaches the cases it is about: an owned nyumba below 6 with a
/// singleton and no capture, a functional nyumba, and the tax.
#[test]
fn the_generator_covers_the_cases_of_5_2() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = owned_namua_position();
    let (mut below_six_with_singleton, mut functional, mut tax) = (0, 0, 0);
    for _ in 0..2048 {
        let p = strategy.new_tree(&mut runner).expect("a position").current();
        let (capture, expected) = expected_candidates(&p);
        if capture {
            continue;
        }
        let row = p.front_row(p.side_to_move());
        if row[4] < 6 && row.iter().enumerate().any(|(k, &c)| c == 1 && k != 4) {
            below_six_with_singleton += 1;
        }
        if row[4] >= 6 {
            functional += 1;
            if expected.iter().all(|m| m.pit() == Pit::NYUMBA) {
                tax += 1;
            }
        }
    }
    assert!(below_six_with_singleton >= 100, "{below_six_with_singleton} positions of rule 2.4c's case");
    assert!(functional >= 100, "{functional} positions with a functional nyumba");
    assert!(tax >= 5, "{tax} tax positions");
}
