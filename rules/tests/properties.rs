//! Properties of the engine over random legal play from both start positions and
//! over arbitrary (validated) positions.
//!
//! Case counts are chosen so that the whole file runs in a few seconds in the
//! test profile (bao-rules itself is built with opt-level 3 there).

use bao_rules::{
    Direction, IllegalMove, Move, MoveText, Outcome, Pit, Position, Row, Setup, Side, Variant, WinReason,
};
use proptest::prelude::*;

/// Every move that can be written: 16 pits × 2 directions × with/without `+`.
fn every_move() -> Vec<Move> {
    let mut out = Vec::with_capacity(64);
    for row in [Row::Front, Row::Back] {
        for col in 1..=8 {
            let pit = Pit::new(row, col).expect("1..=8");
            for dir in Direction::ALL {
                for safari in [false, true] {
                    out.push(Move::new(pit, dir, safari));
                }
            }
        }
    }
    out
}

/// The move's text as a bot would write it: North's rows in lower case when
/// `lower` is set.
fn written(m: Move, side: Side, lower: bool) -> String {
    let text = m.to_string();
    if side == Side::North && lower { text.to_ascii_lowercase() } else { text }
}

/// A game played from `variant`'s start, choosing `choices[i] % legal.len()` at
/// ply i, until the game ends or the choices run out. Checks, at every position:
/// seeds conserved, position text round trip, every legal move plays (checked and
/// unchecked, agreeing with `successors`), move text round trip.
/// Returns the moves played, the final position and the last outcome.
fn play_game(variant: Variant, choices: &[u16]) -> (Vec<Move>, Position, Outcome) {
    let mut position = Position::start(variant);
    let mut outcome = Outcome::Ongoing;
    let mut played = Vec::new();
    for (ply, &choice) in choices.iter().enumerate() {
        check_position(&position, ply);
        let moves = position.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[usize::from(choice) % moves.len()];
        let (next, o) = position.play(m).expect("a listed move is legal");
        played.push(m);
        position = next;
        outcome = o;
        if outcome.is_over() {
            break;
        }
    }
    (played, position, outcome)
}

fn check_position(position: &Position, ply: usize) {
    assert_eq!(position.total_seeds(), 64, "ply {ply}: {position}");
    let text = position.to_string();
    assert_eq!(text.parse::<Position>().as_ref(), Ok(position), "ply {ply}: parse(format(p)) != p");
    let setup: Setup = text.parse().expect("parses");
    assert_eq!(setup.to_string(), text);
    let moves = position.legal_moves();
    let successors = position.successors();
    assert_eq!(moves.len(), successors.len());
    assert_eq!(position.has_legal_move(), !moves.is_empty());
    let me = position.side_to_move();
    for (&m, (sm, after)) in moves.iter().zip(&successors) {
        assert_eq!(m, *sm);
        let (next, outcome) = position.play(m).unwrap_or_else(|e| panic!("ply {ply}: {position} {m}: {e}"));
        assert_eq!(&next, after, "{position} {m}: successors disagree with play");
        assert_eq!(position.play_unchecked(m), next, "{position} {m}: play_unchecked disagrees");
        assert_eq!(position.play_without_outcome(m), Ok(next), "{position} {m}: play_without_outcome");
        assert_eq!(outcome.is_over(), next.legal_moves().is_empty(), "{position} {m}: over iff no moves");
        assert_eq!(next.total_seeds(), 64);
        assert_eq!(next.side_to_move(), me.opponent());
        match outcome {
            Outcome::Ongoing => assert_eq!(next.outcome(), Outcome::Ongoing),
            Outcome::Win { winner, .. } => {
                assert_eq!(winner, me, "only the mover can win by moving");
                assert_eq!(next.outcome(), outcome);
            }
        }
        // Move text round trip, upper and (for North) lower case.
        for lower in [false, true] {
            let text = written(m, me, lower);
            let parsed: MoveText = text.parse().expect("a printed move parses");
            assert_eq!(parsed.to_string(), text);
            assert_eq!(parsed.to_move(position), Ok(m), "{position} {text}");
        }
    }
    // Moves are listed in byte order of their notation, without duplicates.
    let texts: Vec<String> = moves.iter().map(ToString::to_string).collect();
    assert!(texts.windows(2).all(|w| w[0] < w[1]), "{texts:?}");
}

/// Plays every writable move on `p` (checked and unchecked): nothing panics,
/// `play` succeeds exactly for the listed moves, seeds are conserved (hands
/// included) and the reported outcome is the next position's.
fn check_every_move(p: &Position) {
    let total = p.total_seeds();
    let legal = p.legal_moves();
    assert_eq!(p.has_legal_move(), !legal.is_empty(), "{p}");
    assert_eq!(p.outcome().is_over(), legal.is_empty(), "{p}");
    for m in every_move() {
        let unchecked = p.play_unchecked(m);
        match p.play(m) {
            Ok((next, outcome)) => {
                assert!(legal.contains(&m), "{p} {m} plays but is not listed");
                assert_eq!(next.total_seeds(), total, "{p} {m}");
                assert_eq!(next.outcome(), outcome, "{p} {m}");
                assert_eq!(unchecked, next, "{p} {m}");
                assert_eq!(p.play_without_outcome(m), Ok(next), "{p} {m}");
            }
            Err(e) => {
                assert_eq!(p.play_without_outcome(m), Err(e), "{p} {m}");
                assert!(!legal.contains(&m), "{p} {m} is listed but: {e}");
                assert!(!e.to_string().is_empty());
            }
        }
    }
}

/// Positions to mutate: both starts and positions with namua captures, safari,
/// takasia and the long cycle of RULES.md section 9.
const SEED_POSITIONS: [&str; 6] = [
    "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -",
    "kujifunza S 2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 0,0 -- -",
    "kiswahili S 0,1,0,2,0,0,2,0/0,0,0,0,0,0,0,0/0,0,1,0,3,0,2,0/0,0,0,0,0,0,0,0 5,5 -- -",
    "kiswahili S 0,1,0,0,6,0,0,0/0,0,0,0,0,0,0,0/2,0,0,0,0,0,5,0/0,0,0,0,0,0,0,0 3,3 SN -",
    "kiswahili N 2,0,1,1,0,0,0,0/0,0,0,0,0,0,0,0/0,2,0,1,0,2,0,0/0,0,0,0,0,0,0,0 0,0 -- A6",
    "kujifunza N 1,0,0,0,0,0,0,1/2,1,0,3,0,0,1,1/2,3,10,5,2,1,4,1/7,0,1,2,3,4,3,6 0,0 -- -",
];

/// Characters inserted or substituted by the mutation test.
const EDIT_CHARS: [char; 20] = [
    '0', '1', '2', '5', '9', ',', '/', ' ', '-', 'S', 'N', 'A', 'B', 'a', 'k', 'z', '\n', '\u{e9}', '+', '6',
];

fn variant() -> impl Strategy<Value = Variant> {
    prop_oneof![Just(Variant::Kiswahili), Just(Variant::Kujifunza)]
}

/// A seed count: mostly small, sometimes large, rarely anything.
fn count() -> impl Strategy<Value = u8> {
    prop_oneof![6 => 0u8..=3, 3 => 0u8..=17, 1 => any::<u8>()]
}

/// Any `Setup` the notation can express (it need not validate).
fn setup() -> impl Strategy<Value = Setup> {
    let row = || prop::array::uniform8(count());
    let pit = (prop_oneof![Just(Row::Front), Just(Row::Back)], 1u8..=8).prop_map(|(r, c)| Pit::new(r, c));
    (
        variant(),
        prop_oneof![Just(Side::South), Just(Side::North)],
        [row(), row(), row(), row()],
        [prop_oneof![3 => Just(0u8), 1 => 0u8..=22], prop_oneof![3 => Just(0u8), 1 => 0u8..=22]],
        [any::<bool>(), any::<bool>()],
        prop::option::weighted(0.3, pit),
    )
        .prop_map(|(variant, to_move, rows, hands, nyumba, takasia)| Setup {
            variant,
            to_move,
            rows,
            hands,
            nyumba,
            takasia: takasia.flatten(),
        })
}

/// A `Setup` adjusted towards validity (kujifunza fields cleared, takasia only
/// on a front pit of a player with an empty hand), so that most cases reach play.
fn valid_leaning_setup() -> impl Strategy<Value = Setup> {
    setup().prop_map(|mut s| {
        if s.variant == Variant::Kujifunza {
            s.hands = [0, 0];
            s.nyumba = [false, false];
            s.takasia = None;
        }
        if s.takasia.is_some() {
            s.hands[s.to_move.index()] = 0;
            s.takasia = s.takasia.and_then(|p| Pit::new(Row::Front, p.col()));
        }
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Random legal play from both starts: every position conserves the 64 seeds,
    /// round-trips through its text, and every legal move plays without error.
    #[test]
    fn random_play_is_consistent(variant in variant(), choices in prop::collection::vec(any::<u16>(), 1..400)) {
        play_game(variant, &choices);
    }

    /// A finished game stays finished: re-querying, re-parsing and replaying the
    /// same moves give the same final position and outcome.
    #[test]
    fn finished_game_outcome_is_stable(variant in variant(), choices in prop::collection::vec(any::<u16>(), 400)) {
        let (moves, last, outcome) = play_game(variant, &choices);
        prop_assume!(outcome.is_over());
        prop_assert_eq!(last.outcome(), outcome);
        prop_assert_eq!(last.outcome(), outcome);
        prop_assert!(last.legal_moves().is_empty());
        prop_assert!(!last.has_legal_move());
        let reparsed: Position = last.to_string().parse().unwrap();
        prop_assert_eq!(reparsed.outcome(), outcome);
        let mut replay = Position::start(variant);
        let mut replay_outcome = Outcome::Ongoing;
        for m in &moves {
            let (next, o) = replay.play(*m).unwrap();
            replay = next;
            replay_outcome = o;
        }
        prop_assert_eq!(replay, last);
        prop_assert_eq!(replay_outcome, outcome);
        if let Outcome::Win { reason: WinReason::FrontRowEmpty, winner } = outcome {
            prop_assert!(last.front_row(winner.opponent()).iter().all(|&c| c == 0));
            for m in every_move() {
                prop_assert_eq!(last.play(m), Err(IllegalMove::GameOver(outcome)));
            }
        }
    }

    /// Setup text round trip for any setup the notation can express.
    #[test]
    fn setup_text_round_trip(s in setup()) {
        let text = s.to_string();
        prop_assert_eq!(text.parse::<Setup>(), Ok(s.clone()));
        // And a valid one round-trips as a position too.
        if let Ok(p) = Position::try_from(s) {
            prop_assert_eq!(p.to_string(), text);
        }
    }

    /// On any position that validates, nothing panics: outcome, legal moves, and
    /// playing every writable move (checked and unchecked). `play` succeeds exactly
    /// for the listed moves, and its outcome agrees with the next position.
    #[test]
    fn play_never_panics_on_parsed_positions(s in valid_leaning_setup()) {
        if let Ok(p) = Position::try_from(s) {
            check_every_move(&p);
        }
    }

    /// The fuzz target `parse_position` without a fuzzer: valid position texts
    /// with a few random edits. What parses prints back the same; what validates
    /// plays every writable move without panicking.
    #[test]
    fn mutated_position_text_never_panics(
        base in prop::sample::select(SEED_POSITIONS.as_slice()),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, prop::sample::select(EDIT_CHARS.as_slice())), 1..4),
    ) {
        let mut text: Vec<char> = base.chars().collect();
        for (at, kind, c) in edits {
            match kind {
                0 if !text.is_empty() => { let i = at.index(text.len()); text[i] = c; }
                1 => { let i = at.index(text.len() + 1); text.insert(i, c); }
                _ if !text.is_empty() => { let i = at.index(text.len()); text.remove(i); }
                _ => {}
            }
        }
        let text: String = text.into_iter().collect();
        if let Ok(setup) = text.parse::<Setup>() {
            prop_assert_eq!(setup.to_string(), text.clone());
        }
        if let Ok(p) = text.parse::<Position>() {
            prop_assert_eq!(p.to_string(), text);
            check_every_move(&p);
        }
    }

    /// Any text: parsing a move or a position never panics, and what parses
    /// prints back as the same text.
    #[test]
    fn parsing_arbitrary_text_never_panics(text in "[ABab0-9<>+ SNkiswahlujfz,/-]{0,24}") {
        if let Ok(m) = text.parse::<MoveText>() {
            prop_assert_eq!(m.to_string(), text.clone());
        }
        if let Ok(s) = text.parse::<Setup>() {
            prop_assert_eq!(s.to_string(), text);
        }
    }
}
