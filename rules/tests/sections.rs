//! One test (or a few) per section of RULES.md, on small hand-built positions.
//!
//! Every expected value below was worked out by hand from RULES.md; the comment
//! above each assertion shows the derivation (pit by pit) so that a reader can
//! check it without running the engine. Rows in position strings are
//! `A1..A8/B1..B8/a1..a8/b1..b8`, each in its owner's numbering. South's ring is
//! A1 → … → A8 → B8 → … → B1 → A1 (`>`), North's the same with lower-case rows.
//! `A_k` faces `a_(9-k)`.

use bao_rules::{
    Direction, IllegalMove, Move, MoveText, Outcome, ParseMoveError, ParseSideError, ParseVariantError, Pit,
    Position, PositionError, Row, SetupField, Side, Stage, Variant, WinReason,
};

// ---------------------------------------------------------------- helpers

fn pos(text: &str) -> Position {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn legal(text: &str) -> Vec<String> {
    pos(text).legal_moves().iter().map(ToString::to_string).collect()
}

fn mv(position: &Position, text: &str) -> Move {
    let parsed: MoveText = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    parsed.to_move(position).unwrap_or_else(|e| panic!("{position}: {e}"))
}

/// Plays `m` (checked) and returns the next position's text and the outcome.
fn play(text: &str, m: &str) -> (String, Outcome) {
    let p = pos(text);
    let (next, outcome) = p.play(mv(&p, m)).unwrap_or_else(|e| panic!("{text} {m}: {e}"));
    (next.to_string(), outcome)
}

/// Asserts the legal moves of `text` and, for each listed `(move, next)`, the
/// position after it (with the game going on).
fn check(text: &str, expected_legal: &[&str], results: &[(&str, &str)]) {
    assert_eq!(legal(text), expected_legal, "legal moves of {text}");
    for (m, next) in results {
        assert_eq!(play(text, m), ((*next).to_owned(), Outcome::Ongoing), "{text} then {m}");
    }
}

/// The error of playing `m` (written in the mover's notation) in `text`.
fn illegal(text: &str, m: &str) -> IllegalMove {
    let parsed: MoveText = m.parse().unwrap_or_else(|e| panic!("{m}: {e}"));
    pos(text).play(parsed.to_move_unchecked()).expect_err(m)
}

const WIN: fn(Side, WinReason) -> Outcome = |winner, reason| Outcome::Win { winner, reason };

// ---------------------------------------------------------------- 1. Board

#[test]
fn s1_front_pits_face_each_other() {
    let front = |col| Pit::new(Row::Front, col).unwrap();
    for k in 1..=8 {
        assert_eq!(front(k).facing(), Some(front(9 - k)), "A{k} faces a{}", 9 - k);
    }
    assert_eq!(Pit::new(Row::Back, 3).unwrap().facing(), None);
    assert_eq!(Pit::new(Row::Front, 0), None);
    assert_eq!(Pit::new(Row::Front, 9), None);
    assert_eq!(Pit::NYUMBA.to_string(), "A5");
    assert_eq!(Pit::LEFT_KICHWA.to_string(), "A1");
    assert_eq!(Pit::RIGHT_KICHWA.to_string(), "A8");
}

#[test]
fn s1_sowing_ring_wraps_between_rows() {
    // South A2=3, A7=3; North a1=1 (faces A8, empty), b1=2. No first lap ends in a
    // non-empty front pit, so there is no capture: four takasa moves.
    let p = "kujifunza S 0,3,0,0,0,0,3,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -";
    check(
        p,
        &["A2<", "A2>", "A7<", "A7>"],
        &[
            // A2< : A1, then round the left end into B1, B2 (empty): ends.
            ("A2<", "kujifunza N 1,0,0,0,0,0,3,0/1,1,0,0,0,0,0,0/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -"),
            // A2> : A3, A4, A5 (empty): ends.
            ("A2>", "kujifunza N 0,0,1,1,1,0,3,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -"),
            // A7< : A6, A5, A4.
            ("A7<", "kujifunza N 0,3,0,1,1,1,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -"),
            // A7> : A8, then round the right end into B8, B7.
            ("A7>", "kujifunza N 0,3,0,0,0,0,0,1/0,0,0,0,0,0,1,1/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -"),
        ],
    );
}

// ---------------------------------------------------------------- 2. Initial positions

#[test]
fn s2_start_positions() {
    let kiswahili = Position::start(Variant::Kiswahili);
    assert_eq!(
        kiswahili.to_string(),
        "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -"
    );
    let kujifunza = Position::start(Variant::Kujifunza);
    assert_eq!(
        kujifunza.to_string(),
        "kujifunza S 2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 0,0 -- -"
    );
    for p in [kiswahili, kujifunza] {
        assert_eq!(p.total_seeds(), 64);
        assert_eq!(p.side_to_move(), Side::South);
        assert_eq!(p.outcome(), Outcome::Ongoing);
    }
    assert_eq!(kiswahili.hand(Side::South), 22);
    assert!(kiswahili.owns_nyumba(Side::South) && kiswahili.owns_nyumba(Side::North));
    assert!(!kujifunza.owns_nyumba(Side::South) && !kujifunza.owns_nyumba(Side::North));
}

#[test]
fn s2_kiswahili_start_moves() {
    // North's a5..a7 face A4..A2, all empty: no capture. The nyumba (6, owned) is
    // functional, so the seed goes into A6 or A7, either direction.
    check(
        &Position::start(Variant::Kiswahili).to_string(),
        &["A6<", "A6>", "A7<", "A7>"],
        &[
            // A6 becomes 3, lifted: A5 (7), A4 (1), A3 (1, was empty): ends.
            ("A6<", "kiswahili N 0,0,1,1,7,0,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 21,22 SN -"),
            // A6 becomes 3: A7 (3), A8 (1), B8 (1, was empty): ends.
            ("A6>", "kiswahili N 0,0,0,0,6,0,3,1/0,0,0,0,0,0,0,1/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 21,22 SN -"),
        ],
    );
}

// ---------------------------------------------------------------- 3. Stages

#[test]
fn s3_namua_then_mtaji() {
    // Each namua move takes one seed from hand: 22 South moves (plies 1, 3, …, 43)
    // and 22 North moves (plies 2, …, 44); from ply 45 both are in mtaji.
    let mut p = Position::start(Variant::Kiswahili);
    for ply in 1..=44 {
        let me = p.side_to_move();
        assert_eq!(p.stage(me), Stage::Namua, "ply {ply}");
        let hand = p.hand(me);
        assert_eq!(u32::from(hand), 22 - (ply - 1) / 2, "ply {ply}");
        // Always the last legal move: a fixed game that lasts past the namua stage.
        let m = *p.legal_moves().last().expect("the game lasts 44 plies");
        let (next, outcome) = p.play(m).unwrap();
        assert_eq!(outcome, Outcome::Ongoing, "ply {ply}");
        assert_eq!(next.hand(me), hand - 1, "one seed leaves the hand");
        assert_eq!(next.total_seeds(), 64);
        p = next;
    }
    assert_eq!((p.hand(Side::South), p.hand(Side::North)), (0, 0));
    assert_eq!(p.stage(Side::South), Stage::Mtaji);
    assert_eq!(p.stage(Side::North), Stage::Mtaji);
    assert_eq!(Stage::Namua.name(), "namua");
}

// ---------------------------------------------------------------- 4. Sowing primitives

#[test]
fn s4_lifting_sixteen_seeds_goes_round_into_the_lifted_pit() {
    // A3=16, the only non-empty front pit (not a kichwa): both directions.
    // 16 seeds put one into every pit of the ring, the last one into A3 itself,
    // which was empty after lifting: it holds 1, the lap ends (7.2).
    // No capture: a pit of 16 never starts one (5.3 needs 2..15).
    let p = "kujifunza S 0,0,16,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,1,0,0/2,0,0,0,0,0,0,0 0,0 -- -";
    let all_ones = "kujifunza N 1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1/0,0,0,0,0,1,0,0/2,0,0,0,0,0,0,0 0,0 -- -";
    check(p, &["A3<", "A3>"], &[("A3<", all_ones), ("A3>", all_ones)]);
}

#[test]
fn s4_captured_seeds_start_in_the_kichwa() {
    // Namua, South A2=1 faces a7=3. The seed goes into A2 (2); a7's 3 seeds are
    // sown from A1 rightwards, the first into A1: A1=1, A2=3, A3=1 (was empty): ends.
    check(
        "kiswahili S 0,1,0,0,0,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,3,0/0,0,0,0,0,0,0,0 3,3 -- -",
        &["A2>"],
        &[("A2>", "kiswahili N 1,3,1,0,0,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 2,3 -- -")],
    );
}

// ---------------------------------------------------------------- 5. Kinds of move

/// Namua, no nyumba. South A2=1 (faces a7=2), A4=2 (faces a5=3), A7=2 (faces a2=0);
/// North a3=1 (faces A6=0).
const NAMUA_CAPTURES: &str =
    "kiswahili S 0,1,0,2,0,0,2,0/0,0,0,0,0,0,0,0/0,0,1,0,3,0,2,0/0,0,0,0,0,0,0,0 5,5 -- -";

#[test]
fn s5_1_namua_capture_takes_the_facing_pit() {
    check(
        NAMUA_CAPTURES,
        // A2 and A4 are capture starts; A2 is a kimbi pit (forced `>`), A4 is central
        // (both kichwas). A7 faces an empty pit.
        &["A2>", "A4<", "A4>"],
        &[
            // Seed into A2 (2), take a7's 2: A1=1, A2=3. A2 faces a7 (now empty): relay
            // A2's 3: A3=1, A4=3, A5=1 (was empty): ends.
            ("A2>", "kiswahili N 1,0,1,3,1,0,2,0/0,0,0,0,0,0,0,0/0,0,1,0,3,0,0,0/0,0,0,0,0,0,0,0 4,5 -- -"),
            // Seed into A4 (3), take a5's 3, sown from A8 leftwards: A8=1, A7=3, A6=1 (was empty).
            ("A4<", "kiswahili N 0,1,0,3,0,1,3,1/0,0,0,0,0,0,0,0/0,0,1,0,0,0,2,0/0,0,0,0,0,0,0,0 4,5 -- -"),
            // Seed into A4 (3), take a5's 3, sown from A1 rightwards: A1=1, A2=2, A3=1 (was empty).
            ("A4>", "kiswahili N 1,2,1,3,0,0,2,0/0,0,0,0,0,0,0,0/0,0,1,0,0,0,2,0/0,0,0,0,0,0,0,0 4,5 -- -"),
        ],
    );
}

#[test]
fn s5_1_namua_capture_needs_a_non_empty_pit_before_the_seed() {
    // South A4=0 faces a5=3, A6=2 faces a3=0: putting the seed into the empty A4
    // would face a5, but A4 was empty before the seed, so it is no capture.
    // No capture at all: takasa from A6 (the only pit of 2 or more).
    check(
        "kiswahili S 0,0,0,0,0,2,0,0/0,0,0,0,0,0,0,0/0,0,0,0,3,0,0,0/0,0,0,0,0,0,0,0 5,5 -- -",
        &["A6<", "A6>"],
        // A6 becomes 3, lifted: A5, A4, A3.
        &[("A6<", "kiswahili N 0,0,1,1,1,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,3,0,0,0/0,0,0,0,0,0,0,0 4,5 -- -")],
    );
}

#[test]
fn s5_captures_are_mandatory() {
    // Namua: A7 (2, facing the empty a2) could be a takasa, but captures exist.
    assert_eq!(illegal(NAMUA_CAPTURES, "A7<"), IllegalMove::CaptureRequired(mv_unchecked("A7<")));
    // Mtaji: A1> captures (see s5_3); A1< would be a takasa.
    assert_eq!(illegal(MTAJI_CAPTURE, "A1<"), IllegalMove::CaptureRequired(mv_unchecked("A1<")));
    // The same positions without any capture on offer have takasa moves: remove
    // the facing seeds and the takasa becomes legal.
    assert!(
        legal("kujifunza S 2,0,1,0,0,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,2 0,0 -- -")
            .contains(&"A1<".to_owned())
    );
}

fn mv_unchecked(text: &str) -> Move {
    text.parse::<MoveText>().unwrap().to_move_unchecked()
}

#[test]
fn s5_2_functional_nyumba_protected_and_stops_takasa() {
    // South's nyumba A5=6 is owned: functional. No capture (A2, A5, A7 face a7, a4,
    // a2, all empty). Any non-empty front pit but the nyumba, singletons included.
    let p = "kiswahili S 0,1,0,0,6,0,1,0/0,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 5,5 SN -";
    check(
        p,
        &["A2<", "A2>", "A7<", "A7>"],
        &[
            // A2 becomes 2: A1, B1 (empty).
            ("A2<", "kiswahili N 1,0,0,0,6,0,1,0/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 SN -"),
            // A2 becomes 2: A3, A4.
            ("A2>", "kiswahili N 0,0,1,1,6,0,1,0/0,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 SN -"),
            // A7 becomes 2: A6=1, A5=7: the lap ends in the owned nyumba with 6+ seeds,
            // and a namua takasa stops there (7.4). The nyumba stays owned.
            ("A7<", "kiswahili N 0,1,0,0,7,1,0,0/0,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 SN -"),
            // A7 becomes 2: A8, B8.
            ("A7>", "kiswahili N 0,1,0,0,6,0,0,1/0,0,0,0,0,0,0,1/2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 SN -"),
        ],
    );
    assert_eq!(illegal(p, "A5<"), IllegalMove::NyumbaProtected(mv_unchecked("A5<")));
}

#[test]
fn s5_2_tax_when_the_nyumba_is_the_only_front_pit() {
    // A5=8 (owned) is South's only non-empty front pit; a4 is empty: no capture.
    // Tax: the seed goes in (9), exactly 2 are lifted (7 stay), sown either way;
    // the next front pit is empty, so the lap ends after 2 seeds. Ownership is kept.
    check(
        "kiswahili S 0,0,0,0,8,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 5,5 SN -",
        &["A5<", "A5>"],
        &[
            ("A5<", "kiswahili N 0,0,1,1,7,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 SN -"),
            ("A5>", "kiswahili N 0,0,0,0,7,1,1,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 SN -"),
        ],
    );
}

#[test]
fn s5_2_owned_nyumba_below_six_is_an_ordinary_pit() {
    // A5=3 is owned but holds fewer than 6: not functional. While the nyumba is
    // owned (whatever its seeds; Donkers' rule 2.4c) any non-empty front pit may
    // start, the singleton A2 included, and A5 itself, lifted whole, which ends
    // ownership. No capture: A2 and A5 face a7 and a4, both empty.
    let p = "kiswahili S 0,1,0,0,3,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 5,5 SN -";
    check(
        p,
        &["A2<", "A2>", "A5<", "A5>"],
        &[
            // A2 becomes 2, lifted: A1, B1 (was empty): ends. The nyumba stays owned.
            ("A2<", "kiswahili N 1,0,0,0,3,0,0,0/1,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 SN -"),
            // A2 becomes 2, lifted: A3, A4 (was empty): ends.
            ("A2>", "kiswahili N 0,0,1,1,3,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 SN -"),
            // A5 becomes 4, lifted: A4, A3, A2 (2), A1 (was empty): ends.
            ("A5<", "kiswahili N 1,2,1,1,0,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 -N -"),
            // A5 becomes 4, lifted: A6, A7, A8, B8.
            ("A5>", "kiswahili N 0,1,0,0,0,1,1,1/0,0,0,0,0,0,0,1/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 -N -"),
        ],
    );
}

#[test]
fn s5_2_no_nyumba_singleton_refused_while_a_pit_holds_two() {
    // The same board with South's nyumba not owned: the singleton A2 may not be
    // sown while A5 holds 2 or more; A5 (3, an ordinary pit) may.
    let p = "kiswahili S 0,1,0,0,3,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 5,5 -N -";
    check(
        p,
        &["A5<", "A5>"],
        &[
            // A5 becomes 4, lifted: A4, A3, A2 (2), A1 (was empty): ends.
            ("A5<", "kiswahili N 1,2,1,1,0,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 -N -"),
            // A5 becomes 4, lifted: A6, A7, A8, B8.
            ("A5>", "kiswahili N 0,1,0,0,0,1,1,1/0,0,0,0,0,0,0,1/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 -N -"),
        ],
    );
    assert_eq!(illegal(p, "A2>"), IllegalMove::Singleton(mv_unchecked("A2>")));
}

#[test]
fn s5_2_singletons_allowed_when_every_front_pit_is_one() {
    // A2=1, A4=1, no nyumba: every non-empty front pit is a singleton.
    check(
        "kiswahili S 0,1,0,1,0,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 5,5 -- -",
        &["A2<", "A2>", "A4<", "A4>"],
        &[
            // A2 becomes 2: A1, B1.
            ("A2<", "kiswahili N 1,0,0,1,0,0,0,0/1,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 -- -"),
            // A2 becomes 2: A3, A4 (2, relay): A5, A6.
            ("A2>", "kiswahili N 0,0,1,0,1,1,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 -- -"),
            // A4 becomes 2: A3, A2 (2, relay): A1, B1.
            ("A4<", "kiswahili N 1,0,1,0,0,0,0,0/1,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 -- -"),
            // A4 becomes 2: A5, A6.
            ("A4>", "kiswahili N 0,1,0,0,1,1,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 -- -"),
        ],
    );
}

#[test]
fn s5_2_lone_kichwa_sown_towards_the_centre() {
    // A1=2 is the only non-empty front pit: only `>`. A1 becomes 3: A2, A3, A4.
    let left = "kiswahili S 2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 5,5 -- -";
    check(
        left,
        &["A1>"],
        &[("A1>", "kiswahili N 0,1,1,1,0,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 -- -")],
    );
    assert_eq!(illegal(left, "A1<"), IllegalMove::LoneKichwa(mv_unchecked("A1<")));
    // A lone singleton kichwa (all singletons) likewise; at A8 only `<`.
    assert_eq!(
        legal("kiswahili S 0,0,0,0,0,0,0,1/0,0,0,0,0,0,0,0/0,1,0,0,0,0,0,0/0,0,0,0,0,0,0,0 5,5 -- -"),
        ["A8<"]
    );
}

/// Mtaji. South A1=2, A3=1 (faces a6=2); North a1=1, b8=2.
const MTAJI_CAPTURE: &str =
    "kujifunza S 2,0,1,0,0,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,2,0,0/0,0,0,0,0,0,0,2 0,0 -- -";

#[test]
fn s5_3_mtaji_capture_first_lap_ends_facing_seeds() {
    check(
        MTAJI_CAPTURE,
        // A1> ends in A3 (1 before the last seed) facing a6=2: a capture. A1< ends
        // in B2; A3 holds 1 and cannot start a mtaji move.
        &["A1>"],
        // A1>: A2=1, A3=2; take a6's 2; A3 is central and the direction is `>`, so
        // sow from A1: A1=1, A2=2. A2 faces a7 (empty): relay A2's 2: A3=3, A4=1 (empty): ends.
        &[("A1>", "kujifunza N 1,0,3,1,0,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,2 0,0 -- -")],
    );
}

#[test]
fn s5_3_kujifunza_start_captures() {
    // Every pit holds 2: a start from s captures iff s±2 (on the ring) is a front pit
    // (it holds 2 and faces 2). A1>→A3, A2>→A4, A3<→A1, A3>→A5, …, A8<→A6,
    // B1>→A2 (B1 is next to A1), B2>→A1, B7<→A8, B8<→A7; A1<, A2<, A7>, A8>
    // and the other back starts end in the back row.
    assert_eq!(
        legal(&Position::start(Variant::Kujifunza).to_string()),
        [
            "A1>", "A2>", "A3<", "A3>", "A4<", "A4>", "A5<", "A5>", "A6<", "A6>", "A7<", "A8<", "B1>", "B2>",
            "B7<", "B8<"
        ]
    );
}

#[test]
fn s5_3_capture_again_after_a_relay() {
    // South A1=2, A3=1, A4=1; North a1=1, a5=1 (faces A4), a6=2 (faces A3), b1=2.
    // A1>: A2=1, A3=2 → capture a6 (2) from A1 `>`: A1=1, A2=2 → relay A2: A3=3, A4=2
    // → A4 faces a5=1: capture (after a lap that captured nothing) from A1: A1=2 →
    // A1 faces a8 (empty): relay A1: A2=1, A3=4 → A3 faces the emptied a6: relay A3's
    // 4: A4=3, A5=1, A6=1, A7=1 (empty): ends. South holds 4 + 3 captured = 7.
    check(
        "kujifunza S 2,0,1,1,0,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,1,2,0,0/2,0,0,0,0,0,0,0 0,0 -- -",
        &["A1>"],
        &[("A1>", "kujifunza N 0,1,0,3,1,1,1,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -")],
    );
}

#[test]
fn s5_3_sixteen_seeds_never_start_a_capture() {
    // A2=16, A3=1 (faces a6=2). A pit of 16 cannot start a capture (2..15) and A3
    // holds 1: no capture, takasa from A2 both ways.
    assert_eq!(
        legal("kujifunza S 0,16,1,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,2,0,0/0,0,0,0,0,0,0,0 0,0 -- -"),
        ["A2<", "A2>"]
    );
    // With 15 seeds, A2> ends in A2+15 = A1 (ring), empty: no capture; A2< ends in
    // A3 (1, facing a6=2): a capture, and the only legal move.
    assert_eq!(
        legal("kujifunza S 0,15,1,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,2,0,0/0,0,0,0,0,0,0,0 0,0 -- -"),
        ["A2<"]
    );
}

#[test]
fn s5_4_mtaji_takasa_front_row_first() {
    // A3=2, B3=3: a front pit holds 2, so only A3 may start. No capture: A3 ends
    // in A1 or A5 (empty), B3> ends in A1 (empty), B3< in B6.
    let p = "kujifunza S 0,0,2,0,0,0,0,0/0,0,3,0,0,0,0,0/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -";
    check(
        p,
        &["A3<", "A3>"],
        &[
            ("A3<", "kujifunza N 1,1,0,0,0,0,0,0/0,0,3,0,0,0,0,0/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -"),
            ("A3>", "kujifunza N 0,0,0,1,1,0,0,0/0,0,3,0,0,0,0,0/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -"),
        ],
    );
    assert_eq!(illegal(p, "B3<"), IllegalMove::FrontRowFirst(mv_unchecked("B3<")));
}

#[test]
fn s5_4_mtaji_takasa_from_the_back_row() {
    // No front pit holds 2 (A3=1): start from the back row, never from a singleton.
    let p = "kujifunza S 0,0,1,0,0,0,0,0/0,0,3,0,0,2,0,0/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -";
    check(
        p,
        &["B3<", "B3>", "B6<", "B6>"],
        &[
            // B3 `<` (towards B4): B4, B5, B6 (3, relay): B7, B8, A8 (empty).
            ("B3<", "kujifunza N 0,0,1,0,0,0,0,1/0,0,0,1,1,0,1,1/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -"),
            // B3 `>` (towards B1): B2, B1, A1 (empty).
            ("B3>", "kujifunza N 1,0,1,0,0,0,0,0/1,1,0,0,0,2,0,0/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -"),
            // B6 `<`: B7, B8.
            ("B6<", "kujifunza N 0,0,1,0,0,0,0,0/0,0,3,0,0,0,1,1/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -"),
            // B6 `>`: B5, B4.
            ("B6>", "kujifunza N 0,0,1,0,0,0,0,0/0,0,3,1,1,0,0,0/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -"),
        ],
    );
    assert_eq!(illegal(p, "A3<"), IllegalMove::TooFewSeeds(mv_unchecked("A3<")));
}

#[test]
fn s5_4_mtaji_lone_kichwa() {
    // A8=3 is the only non-empty front pit: `<` only (A7, A6, A5), and the back row
    // is closed because a front pit holds 2 or more.
    let p = "kujifunza S 0,0,0,0,0,0,0,3/2,0,0,0,0,0,0,0/0,0,1,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -";
    check(
        p,
        &["A8<"],
        &[("A8<", "kujifunza N 0,0,0,0,1,1,1,0/2,0,0,0,0,0,0,0/0,0,1,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -")],
    );
    assert_eq!(illegal(p, "A8>"), IllegalMove::LoneKichwa(mv_unchecked("A8>")));
}

// ---------------------------------------------------------------- 6. Captures

#[test]
fn s6_namua_kimbi_capture_has_a_forced_direction() {
    assert_eq!(
        illegal(NAMUA_CAPTURES, "A2<"),
        IllegalMove::ForcedDirection(mv_unchecked("A2<"), Direction::Clockwise)
    );
}

#[test]
fn s6_right_kimbi_capture_reverses_the_direction() {
    // South A5=2, A7=1 (faces a2=3); North a2=3, a8=1, b1=2.
    // A5>: A6=1, A7=2 → capture a2's 3; A7 is in the right kimbi: sow from A8 `<`:
    // A8=1, A7=3, A6=2. A6 faces a3 (empty): relay `<` (the direction reversed):
    // A5=1, A4=1 (empty): ends. 3 + 3 = 6 seeds.
    check(
        "kujifunza S 0,0,0,0,2,0,1,0/0,0,0,0,0,0,0,0/0,3,0,0,0,0,0,1/2,0,0,0,0,0,0,0 0,0 -- -",
        &["A5>"],
        &[("A5>", "kujifunza N 0,0,0,1,1,0,3,1/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,1/2,0,0,0,0,0,0,0 0,0 -- -")],
    );
}

#[test]
fn s6_mtaji_central_capture_keeps_the_direction() {
    // South A6=1 (faces a3=2), A8=2; North a3=2, a8=1, b1=2.
    // A8<: A7=1, A6=2 → capture a3's 2; A6 is central and the direction is `<`:
    // sow from A8: A8=1, A7=2 → A7 faces a2 (empty): relay A7's 2: A6=3, A5=1: ends.
    check(
        "kujifunza S 0,0,0,0,0,1,0,2/0,0,0,0,0,0,0,0/0,0,2,0,0,0,0,1/2,0,0,0,0,0,0,0 0,0 -- -",
        &["A8<"],
        &[("A8<", "kujifunza N 0,0,0,0,1,3,0,1/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,1/2,0,0,0,0,0,0,0 0,0 -- -")],
    );
}

// ---------------------------------------------------------------- 7. The end of a lap

#[test]
fn s7_1_capture_emptying_the_front_row_wins_at_once() {
    // As in s6 but North's only front seeds are a2's 3: after the capture is sown
    // (A8=1, A7=3, A6=2) North's front row is empty: the move ends (no relay from
    // A6) and South wins.
    let (next, outcome) =
        play("kujifunza S 0,0,0,0,2,0,1,0/0,0,0,0,0,0,0,0/0,3,0,0,0,0,0,0/3,0,0,0,0,0,0,0 0,0 -- -", "A5>");
    assert_eq!(next, "kujifunza N 0,0,0,0,0,2,3,1/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/3,0,0,0,0,0,0,0 0,0 -- -");
    assert_eq!(outcome, WIN(Side::South, WinReason::FrontRowEmpty));
}

#[test]
fn s7_3_takasa_never_captures() {
    // South A1=2, A3=1, A5=1; North a4=3 (faces A5). No capture: A1's laps end in
    // A3 (facing the empty a6) or B2; singletons cannot start.
    check(
        "kujifunza S 2,0,1,0,1,0,0,0/0,0,0,0,0,0,0,0/0,0,0,3,0,0,0,0/0,0,0,0,0,0,0,0 0,0 -- -",
        &["A1<", "A1>"],
        &[
            // A1>: A2=1, A3=2 (relay): A4=1, A5=2: A5 faces a4=3 but a takasa does not
            // capture: relay A5's 2: A6=1, A7=1 (empty): ends.
            ("A1>", "kujifunza N 0,1,0,1,0,1,1,0/0,0,0,0,0,0,0,0/0,0,0,3,0,0,0,0/0,0,0,0,0,0,0,0 0,0 -- -"),
            ("A1<", "kujifunza N 0,0,1,0,1,0,0,0/1,1,0,0,0,0,0,0/0,0,0,3,0,0,0,0/0,0,0,0,0,0,0,0 0,0 -- -"),
        ],
    );
}

#[test]
fn s7_3_capture_from_the_nyumba_keeps_it() {
    // Namua: the seed goes into the nyumba A5 (7), which captures a4's 2 (A5 is
    // central: either kichwa). The nyumba is not lifted and stays owned.
    check(
        "kiswahili S 0,0,0,0,6,0,0,0/0,0,0,0,0,0,0,0/1,0,0,2,0,0,0,0/0,0,0,0,0,0,0,0 5,5 SN -",
        &["A5<", "A5>"],
        &[
            ("A5<", "kiswahili N 0,0,0,0,7,0,1,1/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 SN -"),
            ("A5>", "kiswahili N 1,1,0,0,7,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 4,5 SN -"),
        ],
    );
}

#[test]
fn s7_4_safari_or_stop() {
    // Namua. South A2=1 faces a7=5; the nyumba A5=6 is owned. Seed into A2 (2), take
    // 5, sow from A1: A1=1, A2=3, A3=1, A4=1, A5=7: the lap ends in the functional
    // nyumba (facing a4, empty) during a capture move: stop (A2>) or safari (A2>+).
    let p = "kiswahili S 0,1,0,0,6,0,0,0/0,0,0,0,0,0,0,0/2,0,0,0,0,0,5,0/0,0,0,0,0,0,0,0 3,3 SN -";
    check(
        p,
        &["A2>", "A2>+"],
        &[
            ("A2>", "kiswahili N 1,3,1,1,7,0,0,0/0,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 2,3 SN -"),
            // Safari: lift the nyumba's 7 (ownership ends): A6, A7, A8, B8, B7, B6, B5.
            ("A2>+", "kiswahili N 1,3,1,1,0,1,1,1/0,0,0,0,1,1,1,1/2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 2,3 -N -"),
        ],
    );
    // `+` on a move that never reaches the nyumba is refused.
    assert_eq!(illegal(NAMUA_CAPTURES, "A4<+"), IllegalMove::SafariNotOffered(mv_unchecked("A4<+")));
}

#[test]
fn s7_4_nyumba_stop_is_namua_only() {
    // Mtaji with South's nyumba owned (S-): A3>: A4=1, A5=7 — in mtaji the owned
    // nyumba is an ordinary pit: relay its 7 (ownership ends): A6, A7, A8, B8, B7,
    // B6, B5. No capture anywhere (North's only front seed a1 faces the empty A8).
    check(
        "kiswahili S 0,0,2,0,6,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 S- -",
        &["A3<", "A3>", "A5<", "A5>"],
        &[
            ("A3<", "kiswahili N 1,1,0,0,6,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 S- -"),
            ("A3>", "kiswahili N 0,0,0,1,0,1,1,1/0,0,0,0,1,1,1,1/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -"),
            // Lifting the nyumba as a start pit ends ownership: A4, A3 (3), A2, A1, B1, B2.
            ("A5<", "kiswahili N 1,1,3,1,0,0,0,0/1,1,0,0,0,0,0,0/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -"),
            ("A5>", "kiswahili N 0,0,2,0,0,1,1,1/0,0,0,0,0,1,1,1/1,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -"),
        ],
    );
}

// ---------------------------------------------------------------- 8. Nyumba and takasia

#[test]
fn s8_nyumba_captured_by_the_opponent() {
    // North, namua: a4=2 faces South's nyumba A5=3. North captures it (South loses
    // the nyumba); a4 is central, so North chooses the kichwa.
    let p = "kiswahili N 1,0,0,0,3,0,0,0/0,0,0,0,0,0,0,0/0,0,0,2,0,0,0,0/0,0,0,0,0,0,0,0 3,3 SN -";
    check(
        p,
        &["A4<", "A4>"],
        &[
            // Seed into a4 (3); A5's 3 sown from a8 leftwards: a8, a7, a6.
            ("A4<", "kiswahili S 1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,3,0,1,1,1/0,0,0,0,0,0,0,0 3,2 -N -"),
            // From a1 rightwards: a1, a2, a3.
            ("a4>", "kiswahili S 1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/1,1,1,3,0,0,0,0/0,0,0,0,0,0,0,0 3,2 -N -"),
        ],
    );
}

#[test]
fn s8_first_mtaji_capture_ends_both_nyumbas() {
    // As s5_3 in Kiswahili with both nyumbas owned (A5=6, a5=6; A5's laps end in
    // the back row, so A1> is still the only capture). The nyumba pits are not
    // touched, but the first capture in mtaji ends both.
    check(
        "kiswahili S 2,0,1,0,6,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,6,2,0,0/0,0,0,0,0,0,0,2 0,0 SN -",
        &["A1>"],
        &[("A1>", "kiswahili N 1,0,3,1,6,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,6,0,0,0/0,0,0,0,0,0,0,2 0,0 -- -")],
    );
}

/// Mtaji, South to move: South A1=2, A5=2; North a2=2, a4=1, a6=2. No capture for
/// South (A1 ends in A3 or B2, A5 in A3 or A7, all empty).
const TAKASIA_BEFORE: &str =
    "kiswahili S 2,0,0,0,2,0,0,0/0,0,0,0,0,0,0,0/0,2,0,1,0,2,0,0/0,0,0,0,0,0,0,0 0,0 -- -";
/// After South's A5<: North's a6 is under takasia.
const TAKASIA_AFTER: &str =
    "kiswahili N 2,0,1,1,0,0,0,0/0,0,0,0,0,0,0,0/0,2,0,1,0,2,0,0/0,0,0,0,0,0,0,0 0,0 -- A6";

#[test]
fn s8_takasia_arises_after_a_mtaji_takasa() {
    // North can capture (a2> or a6< ending in a4, facing A5) while A5 holds seeds.
    check(
        TAKASIA_BEFORE,
        &["A1<", "A1>", "A5<", "A5>"],
        &[
            // A5 keeps its 2: North has a capture, so no takasia.
            ("A1<", "kiswahili N 0,0,0,0,2,0,0,0/1,1,0,0,0,0,0,0/0,2,0,1,0,2,0,0/0,0,0,0,0,0,0,0 0,0 -- -"),
            ("A1>", "kiswahili N 0,1,1,0,2,0,0,0/0,0,0,0,0,0,0,0/0,2,0,1,0,2,0,0/0,0,0,0,0,0,0,0 0,0 -- -"),
            // A5<: A4, A3. North has no capture now (A5 is empty). South could capture
            // with A1> (ending in A3=1, facing a6=2) and with nothing else: exactly one
            // threatened pit, a6, which is not North's nyumba, not its only non-empty
            // front pit and not its only pit of 2+ (a2 holds 2): takasia on a6.
            ("A5<", TAKASIA_AFTER),
            // A5>: A6, A7. A1> would end in the empty A3: no threat, no takasia.
            ("A5>", "kiswahili N 2,0,0,0,0,1,1,0/0,0,0,0,0,0,0,0/0,2,0,1,0,2,0,0/0,0,0,0,0,0,0,0 0,0 -- -"),
        ],
    );
    assert_eq!(pos(TAKASIA_AFTER).takasia(), Pit::new(Row::Front, 6));
}

#[test]
fn s8_takasia_blocks_its_pit_and_stops_a_lap() {
    // Under takasia North may not start from a6; a2 (2) is the only other start.
    check(
        TAKASIA_AFTER,
        &["A2<", "A2>"],
        &[
            // a2<: a1, b1. South can capture again (A1> onto a6): no takasia for South;
            // North's takasia is gone (it lasts one move).
            ("A2<", "kiswahili S 2,0,1,1,0,0,0,0/0,0,0,0,0,0,0,0/1,0,0,1,0,2,0,0/1,0,0,0,0,0,0,0 0,0 -- -"),
            // a2>: a3=1, a4=2 (relay): a5=1, a6=3 — the pit under takasia: the lap stops (7.5).
            ("A2>", "kiswahili S 2,0,1,1,0,0,0,0/0,0,0,0,0,0,0,0/0,0,1,0,1,3,0,0/0,0,0,0,0,0,0,0 0,0 -- -"),
        ],
    );
    assert_eq!(illegal(TAKASIA_AFTER, "A6<"), IllegalMove::UnderTakasia(mv_unchecked("A6<")));
    // The same position without takasia: a6 may start, and a2> relays on from a6
    // (3: a7, a8, b8).
    let free = TAKASIA_AFTER.replace("-- A6", "-- -");
    check(
        &free,
        &["A2<", "A2>", "A6<", "A6>"],
        &[("A2>", "kiswahili S 2,0,1,1,0,0,0,0/0,0,0,0,0,0,0,0/0,0,1,0,1,0,1,1/0,0,0,0,0,0,0,1 0,0 -- -")],
    );
}

#[test]
fn s8_takasia_exceptions() {
    // Only pit of 2+: as TAKASIA_BEFORE with a2=1; after A5< the threatened a6 is
    // North's only front pit holding 2 or more: no takasia.
    assert_eq!(
        play("kiswahili S 2,0,0,0,2,0,0,0/0,0,0,0,0,0,0,0/0,1,0,1,0,2,0,0/0,0,0,0,0,0,0,0 0,0 -- -", "A5<").0,
        "kiswahili N 2,0,1,1,0,0,0,0/0,0,0,0,0,0,0,0/0,1,0,1,0,2,0,0/0,0,0,0,0,0,0,0 0,0 -- -"
    );
    // Owned nyumba: South A2=2, A6=2; North a1=2, a5=2. A6<: A5, A4. Now South's
    // A2> ends in A4 (1) facing a5: the only threatened pit is a5, North's nyumba.
    // North has no capture (a1 and a5 end in a3, b2, a3, a7, all empty).
    let before = "kiswahili S 0,2,0,0,0,2,0,0/0,0,0,0,0,0,0,0/2,0,0,0,2,0,0,0/0,0,0,0,0,0,0,0 0,0 NYUMBA -";
    let after = "kiswahili N 0,2,0,1,1,0,0,0/0,0,0,0,0,0,0,0/2,0,0,0,2,0,0,0/0,0,0,0,0,0,0,0 0,0 NYUMBA";
    assert_eq!(play(&before.replace("NYUMBA", "-N"), "A6<").0, after.replace("NYUMBA", "-N -"));
    // Not owned: the same threat puts a5 under takasia.
    assert_eq!(play(&before.replace("NYUMBA", "--"), "A6<").0, after.replace("NYUMBA", "-- A5"));
}

#[test]
fn s8_takasia_excludes_a_capture_start() {
    // A position given with takasia on A1, which would otherwise capture (A1> onto
    // a6): no capture remains, so takasa moves from A6 (A1 excluded).
    let with = "kiswahili S 2,0,1,0,0,2,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,2,0,0/0,0,0,0,0,0,0,2 0,0 -- A1";
    check(
        with,
        &["A6<", "A6>"],
        &[("A6<", "kiswahili N 2,0,1,1,1,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,2,0,0/0,0,0,0,0,0,0,2 0,0 -- -")],
    );
    assert_eq!(legal(&with.replace("-- A1", "-- -")), ["A1>"]);
}

// ---------------------------------------------------------------- 9. Infinite moves

/// Sows on one player's ring with relays only (sections 4 and 7.2/7.6: what a
/// takasa move does when there is no nyumba and no takasia), from ring index
/// `start` (A1..A8 = 0..7, B8..B1 = 8..15) in `step` (1 for `>`). Returns the
/// first lap end whose state repeats an earlier lap end's and that earlier lap
/// number, or `None` if the move ends within `max_laps`.
fn relay_cycle(mut ring: [u32; 16], start: usize, step: usize, max_laps: u32) -> Option<(u32, u32)> {
    let mut seen = std::collections::HashMap::new();
    let mut pit = start;
    for lap in 1..=max_laps {
        let n = std::mem::take(&mut ring[pit]);
        for _ in 0..n {
            pit = (pit + step) % 16;
            ring[pit] += 1;
        }
        if ring[pit] == 1 {
            return None;
        }
        if let Some(earlier) = seen.insert((ring, pit), lap) {
            return Some((earlier, lap));
        }
    }
    None
}

#[test]
fn s9_infinite_move_with_a_short_cycle() {
    // Kujifunza, South: A1..A8 = 4,3,2,1,4,0,2,1, B1..B8 = 1,0,5,2,3,0,1,2; North's
    // only seed is a3, facing the empty A6, so there is no capture: takasa from
    // A1, A2, A3, A5, A7 (2+ seeds) both ways.
    let p = pos("kujifunza S 4,3,2,1,4,0,2,1/1,0,5,2,3,0,1,2/0,0,1,0,0,0,0,0/0,0,0,0,0,0,0,0 0,0 -- -");
    // Ring order A1..A8, B8..B1.
    let ring = [4, 3, 2, 1, 4, 0, 2, 1, 2, 1, 0, 3, 2, 5, 0, 1];
    // A5> relays for ever: the state after lap 1 comes back after lap 71 (a cycle
    // of 70 laps). A7< cycles too (period 2,172). The others end.
    assert_eq!(relay_cycle(ring, 4, 1, 100_000), Some((1, 71)));
    assert_eq!(relay_cycle(ring, 6, 15, 100_000), Some((1, 2173)));
    for (start, step) in [(0, 15), (0, 1), (1, 15), (1, 1), (2, 15), (2, 1), (4, 15), (6, 1)] {
        assert_eq!(relay_cycle(ring, start, step, 100_000), None, "start {start} step {step}");
    }
    let moves: Vec<String> = p.legal_moves().iter().map(ToString::to_string).collect();
    assert_eq!(moves, ["A1<", "A1>", "A2<", "A2>", "A3<", "A3>", "A5<", "A7>"]);
    for m in ["A5>", "A7<"] {
        let m = mv_unchecked(m);
        assert_eq!(p.play(m), Err(IllegalMove::Infinite(m)));
        let text: MoveText = m.to_string().parse().unwrap();
        assert_eq!(text.to_move(&p), Err(IllegalMove::Infinite(m)));
    }
}

#[test]
fn s9_long_cycle_is_illegal() {
    // The position of section 9: A5< cycles with a period of 21,450,648 laps; the
    // engine calls it infinite after 10,000 laps.
    let p = pos("kujifunza N 1,0,0,0,0,0,0,1/2,1,0,3,0,0,1,1/2,3,10,5,2,1,4,1/7,0,1,2,3,4,3,6 0,0 -- -");
    let a5 = mv(&p, "A5>");
    let moves = p.legal_moves();
    assert!(moves.contains(&a5));
    let a5_left: MoveText = "a5<".parse().unwrap();
    assert!(!moves.contains(&a5_left.to_move_unchecked()));
    assert_eq!(a5_left.to_move(&p), Err(IllegalMove::Infinite(a5_left.to_move_unchecked())));
    assert_eq!(
        p.play(a5_left.to_move_unchecked()).unwrap_err().to_string(),
        "A5<: the move is infinite (it would go on past 10000 laps)"
    );
    assert_eq!(bao_rules::MAX_LAPS, 10_000);
}

// ---------------------------------------------------------------- 10. End of the game

#[test]
fn s10_empty_front_row_finishes_the_game() {
    // North's front row is empty: South has won; nothing is legal.
    let p = pos("kujifunza S 2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/5,0,0,0,0,0,0,0 0,0 -- -");
    let won = WIN(Side::South, WinReason::FrontRowEmpty);
    assert_eq!(p.outcome(), won);
    assert!(p.legal_moves().is_empty());
    assert!(!p.has_legal_move());
    let m = mv_unchecked("A1>");
    assert_eq!(p.play(m), Err(IllegalMove::GameOver(won)));
    assert_eq!(
        p.play(m).unwrap_err().to_string(),
        "the game is over (S wins (front_row_empty)): no move is legal"
    );
}

#[test]
fn s10_no_legal_move_loses() {
    // South, mtaji: front singletons only and an empty back row: nothing to lift.
    let p = pos("kujifunza S 1,0,1,0,0,0,0,0/0,0,0,0,0,0,0,0/0,2,0,0,0,0,0,0/0,0,0,0,0,0,0,0 0,0 -- -");
    assert!(p.legal_moves().is_empty());
    assert_eq!(p.outcome(), WIN(Side::North, WinReason::NoLegalMoves));
    // The move that leaves the opponent without a move reports the win: MTAJI_CAPTURE
    // without North's b8 leaves North only the singleton a1 after A1>.
    let (_, outcome) =
        play("kujifunza S 2,0,1,0,0,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,2,0,0/0,0,0,0,0,0,0,0 0,0 -- -", "A1>");
    assert_eq!(outcome, WIN(Side::South, WinReason::NoLegalMoves));
    assert_eq!(WinReason::NoLegalMoves.name(), "no_legal_moves");
    assert_eq!(WinReason::FrontRowEmpty.to_string(), "front_row_empty");
}

// ---------------------------------------------------------------- 11. Notation

#[test]
fn s11_move_notation() {
    let m: MoveText = "A6>+".parse().unwrap();
    assert_eq!(
        (m.row(), m.col(), m.direction(), m.safari(), m.lower_case()),
        (Row::Front, 6, Direction::Clockwise, true, false)
    );
    assert_eq!(m.to_string(), "A6>+");
    let b: MoveText = "b3<".parse().unwrap();
    assert_eq!(
        (b.row(), b.col(), b.direction(), b.lower_case()),
        (Row::Back, 3, Direction::AntiClockwise, true)
    );
    assert_eq!(b.pit(), Pit::new(Row::Back, 3).unwrap());
    // Lower case is kept in MoveText (round trip) but a Move always prints upper case.
    assert_eq!(b.to_string(), "b3<");
    assert_eq!(b.to_move_unchecked().to_string(), "B3<");
    // A MoveText always names a real pit: one is built from a Pit (no column 9).
    let built = MoveText::new(Pit::new(Row::Front, 8).unwrap(), Direction::Clockwise, false, true);
    assert_eq!(built.to_string(), "a8>");
    assert_eq!("a8>".parse::<MoveText>(), Ok(built));
    let from_move = MoveText::from(b.to_move_unchecked());
    assert_eq!(
        (from_move.to_string(), from_move.to_move_unchecked()),
        ("B3<".to_owned(), b.to_move_unchecked())
    );
}

#[test]
fn s11_move_parse_errors_name_the_part() {
    let err = |s: &str| s.parse::<MoveText>().unwrap_err();
    assert_eq!(err(""), ParseMoveError::Empty);
    assert_eq!(err("C5<"), ParseMoveError::Row('C'));
    assert_eq!(err("A9<"), ParseMoveError::Column("'9'".to_owned()));
    assert_eq!(err("A0<"), ParseMoveError::Column("'0'".to_owned()));
    assert_eq!(err("A"), ParseMoveError::Column("the end of the text".to_owned()));
    assert_eq!(err("A5"), ParseMoveError::Direction("the end of the text".to_owned()));
    assert_eq!(err("A5L"), ParseMoveError::Direction("'L'".to_owned()));
    assert_eq!(err("A5<x"), ParseMoveError::Trailing("x".to_owned()));
    assert_eq!(err("A5< "), ParseMoveError::Trailing(" ".to_owned()));
    assert_eq!(err(" A5<"), ParseMoveError::Row(' '));
    assert_eq!(err("A9<").to_string(), "bad column in move: expected a digit 1..8, found '9'");
    assert_eq!(err("x").to_string(), "bad row 'x' in move: expected A or B (a or b for North)");
}

#[test]
fn s11_lower_case_rows_only_for_north() {
    // North to move (the section 12 position after A7<): `a5<` and `A5<` are the same move.
    let north = pos("kiswahili N 0,0,0,1,7,3,0,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 21,22 SN -");
    assert_eq!(mv(&north, "a5<"), mv(&north, "A5<"));
    // South: lower case is refused, with a message that says why.
    let south = Position::start(Variant::Kiswahili);
    let text: MoveText = "a6<".parse().unwrap();
    let e = text.to_move(&south).unwrap_err();
    assert_eq!(e, IllegalMove::LowerCaseForSouth(text));
    assert_eq!(e.to_string(), "a6<: a lower-case row is accepted only for North's moves");
    assert!("A6<".parse::<MoveText>().unwrap().to_move(&south).is_ok());
}

#[test]
fn s11_side_and_variant_names() {
    for (text, side) in
        [("S", Side::South), ("N", Side::North), ("south", Side::South), ("North", Side::North)]
    {
        assert_eq!(text.parse::<Side>(), Ok(side), "{text}");
    }
    for side in Side::ALL {
        assert_eq!(side.to_string().parse::<Side>(), Ok(side));
        assert_eq!(serde_json::to_string(&side).unwrap(), format!("\"{side}\""));
        assert_eq!(serde_json::from_str::<Side>(&format!("\"{side}\"")).unwrap(), side);
    }
    for bad in ["", "s", "n", "W", "S ", "southern"] {
        let e: ParseSideError = bad.parse::<Side>().unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("unknown side {bad:?}: expected \"S\" or \"N\" (or \"south\", \"north\")")
        );
    }
    let e: ParseVariantError = "chess".parse::<Variant>().unwrap_err();
    assert_eq!(e, ParseVariantError("chess".to_owned()));
}

#[test]
fn s11_illegal_move_messages() {
    let cases: [(&str, &str, &str); 12] = [
        (NAMUA_CAPTURES, "A7<", "A7<: captures are mandatory and this move does not start with a capture"),
        (NAMUA_CAPTURES, "A2<", "A2<: a capture from A2 sows from the left kichwa; write A2>"),
        (
            NAMUA_CAPTURES,
            "B2<",
            "B2<: in namua the seed from hand goes into a front pit (row A), not the back row",
        ),
        (NAMUA_CAPTURES, "A1<", "A1<: pit A1 is empty"),
        (
            NAMUA_CAPTURES,
            "A4<+",
            "A4<+: safari ('+') is only for a namua capture whose lap ends in the functional nyumba",
        ),
        (
            "kiswahili S 0,1,0,0,6,0,1,0/0,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 5,5 SN -",
            "A5>",
            "A5>: the functional nyumba may be sown (taxed) only when it is the only non-empty front pit",
        ),
        (
            "kiswahili S 0,1,0,0,3,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 5,5 -N -",
            "A2<",
            "A2<: pit A2 holds 1 seed; without a nyumba, a takasa starts from a pit of 2 or more while one exists",
        ),
        (
            "kiswahili S 2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 5,5 -- -",
            "A1<",
            "A1<: A1 is the only non-empty front pit, so it must be sown towards the centre",
        ),
        (TAKASIA_AFTER, "A6>", "A6>: pit A6 is under takasia for this move"),
        (TAKASIA_AFTER, "A4>", "A4>: pit A4 holds fewer than 2 seeds; a mtaji move lifts 2 or more"),
        (
            "kujifunza S 0,0,2,0,0,0,0,0/0,0,3,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 0,0 -- -",
            "B3>",
            "B3>: a takasa starts from the front row while a front pit holds 2 or more seeds",
        ),
        (MTAJI_CAPTURE, "A1<", "A1<: captures are mandatory and this move does not start with a capture"),
    ];
    for (position, m, message) in cases {
        assert_eq!(illegal(position, m).to_string(), message, "{position} {m}");
    }
}

#[test]
fn s11_position_round_trip() {
    for text in [
        NAMUA_CAPTURES,
        TAKASIA_AFTER,
        "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -",
        "kiswahili N 0,0,0,0,0,0,0,1/0,0,0,0,0,0,0,0/254,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 0,0 S- -",
    ] {
        assert_eq!(pos(text).to_string(), text);
    }
    let setup: bao_rules::Setup = TAKASIA_AFTER.parse().unwrap();
    assert_eq!(setup.rows[2], [0, 2, 0, 1, 0, 2, 0, 0], "row a in North's numbering");
    assert_eq!(setup.takasia, Pit::new(Row::Front, 6));
    let p = Position::try_from(setup).unwrap();
    assert_eq!(p.front_row(Side::North), [0, 2, 0, 1, 0, 2, 0, 0]);
    assert_eq!(p.count(Side::North, Pit::new(Row::Front, 6).unwrap()), 2);
    assert_eq!(p.back_row(Side::South), [0; 8]);
}

#[test]
fn s11_position_parse_errors_name_the_field() {
    let start = "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -";
    let rows = "0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0";
    let field = |text: &str| match text.parse::<Position>() {
        Err(PositionError::Parse(e)) => (e.field, e.to_string()),
        other => panic!("{text}: {other:?}"),
    };
    let cases: Vec<(String, SetupField, &str)> = vec![
        (
            format!("kiswahili S {rows} 22,22 SN"),
            SetupField::Line,
            "position: expected 6 fields separated by single spaces (variant, to-move, rows, hands, nyumba, takasia), found 5",
        ),
        (
            start.replace("S 0", "S  0"),
            SetupField::Line,
            "position: expected 6 fields separated by single spaces (variant, to-move, rows, hands, nyumba, takasia), found 7",
        ),
        (
            start.replace("kiswahili", "bao"),
            SetupField::Variant,
            "field 1 (variant): unknown variant \"bao\": expected \"kiswahili\" or \"kujifunza\"",
        ),
        (start.replace(" S ", " s "), SetupField::ToMove, "field 2 (to-move): expected S or N, found \"s\""),
        (
            start.replace("/0,0,0,0,0,0,0,0 22", " 22"),
            SetupField::Rows,
            "field 3 (rows): expected 4 rows separated by '/' (A/B/a/b), found 3",
        ),
        (
            start.replacen("0,0,0,0,6,2,2,0/", "0,0,0,6,2,2,0/", 1),
            SetupField::Rows,
            "field 3 (rows): row A has 7 counts, expected 8",
        ),
        (
            start.replacen("6,2,2", "6,x,2", 1),
            SetupField::Rows,
            "field 3 (rows): pit A6: \"x\" is not a seed count (digits, no leading zeros)",
        ),
        (
            start.replacen("6,2,2,0/0,0", "6,2,2,0/0,01", 1),
            SetupField::Rows,
            "field 3 (rows): pit B2: \"01\" is not a seed count (digits, no leading zeros)",
        ),
        (
            start.replacen("6,2,2,0/0,0,0,0,0,0,0,0 22", "6,2,2,0/0,0,0,0,0,0,0,256 22", 1),
            SetupField::Rows,
            "field 3 (rows): pit b8: 256 is more than 255 seeds",
        ),
        (
            start.replace("22,22", "22"),
            SetupField::Hands,
            "field 4 (hands): expected two counts \"S,N\", found \"22\"",
        ),
        (
            start.replace("22,22", "22,-1"),
            SetupField::Hands,
            "field 4 (hands): North's hand: \"-1\" is not a seed count (digits, no leading zeros)",
        ),
        (
            start.replace(" SN ", " NS "),
            SetupField::Nyumba,
            "field 5 (nyumba): expected SN, S-, -N or --, found \"NS\"",
        ),
        (
            start.replace(" SN -", " SN a3"),
            SetupField::Takasia,
            "field 6 (takasia): expected - or a pit such as A3, found \"a3\"",
        ),
        (
            start.replace(" SN -", " SN A9"),
            SetupField::Takasia,
            "field 6 (takasia): expected - or a pit such as A3, found \"A9\"",
        ),
    ];
    for (text, expected_field, message) in cases {
        assert_eq!(field(&text), (expected_field, message.to_owned()), "{text}");
    }
}

#[test]
fn s11_position_validation_errors() {
    let err = |s: &str| s.parse::<Position>().unwrap_err();
    let kuj = "kujifunza S 2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2";
    assert_eq!(err(&format!("{kuj} 1,0 -- -")), PositionError::KujifunzaHands);
    assert_eq!(err(&format!("{kuj} 0,0 S- -")), PositionError::KujifunzaNyumba);
    assert_eq!(err(&format!("{kuj} 0,0 -- A1")), PositionError::KujifunzaTakasia);
    assert_eq!(
        err("kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN A3"),
        PositionError::TakasiaInNamua
    );
    // North to move with an empty hand may have takasia even if South holds seeds.
    assert!(
        "kiswahili N 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 3,0 SN A3"
            .parse::<Position>()
            .is_ok()
    );
    assert_eq!(
        err("kiswahili S 2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 0,0 -- B3"),
        PositionError::TakasiaBackRow(Pit::new(Row::Back, 3).unwrap())
    );
    assert_eq!(
        err("kujifunza S 0,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0 0,0 -- -"),
        PositionError::BothFrontRowsEmpty
    );
    assert_eq!(
        err("kiswahili S 200,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/56,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 0,0 -- -"),
        PositionError::TooManySeeds(256)
    );
    assert_eq!(
        err(&format!("{kuj} 1,0 -- -")).to_string(),
        "field 4 (hands): a kujifunza position has no seeds in hand (0,0)"
    );
}

// ---------------------------------------------------------------- 12. Worked check

#[test]
fn s12_worked_example_ramadhan_v_kijumbe() {
    let start = Position::start(Variant::Kiswahili);
    // South: no capture; seed into A7 (3), lift, `<`: A6=3, A5=7, A4=1 (was empty): ends.
    let a7 = mv(&start, "A7<");
    let (after_south, outcome) = start.play(a7).unwrap();
    assert_eq!(outcome, Outcome::Ongoing);
    assert_eq!(
        after_south.to_string(),
        "kiswahili N 0,0,0,1,7,3,0,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 21,22 SN -"
    );
    // North: a5 (6) faces A4 (1), the only capture (a6, a7 face the empty A3, A2);
    // a5 is central: both kichwas are on offer.
    let moves: Vec<String> = after_south.legal_moves().iter().map(ToString::to_string).collect();
    assert_eq!(moves, ["A5<", "A5>"]);
    // `a5<`: seed into a5 (7), take A4's 1, sow it into a8 (was empty): ends.
    let (after_north, outcome) = after_south.play(mv(&after_south, "a5<")).unwrap();
    assert_eq!(outcome, Outcome::Ongoing);
    assert_eq!(after_north.front_row(Side::South), [0, 0, 0, 0, 7, 3, 0, 0]);
    assert_eq!(after_north.front_row(Side::North), [0, 0, 0, 0, 7, 2, 2, 1]);
    assert_eq!((after_north.hand(Side::South), after_north.hand(Side::North)), (21, 21));
    assert!(after_north.owns_nyumba(Side::South) && after_north.owns_nyumba(Side::North));
    assert_eq!(
        after_north.to_string(),
        "kiswahili S 0,0,0,0,7,3,0,0/0,0,0,0,0,0,0,0/0,0,0,0,7,2,2,1/0,0,0,0,0,0,0,0 21,21 SN -"
    );
}
