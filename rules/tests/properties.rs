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
        let Ok(p) = Position::try_from(s) else { return Ok(()) };
        let total = p.total_seeds();
        let legal = p.legal_moves();
        prop_assert_eq!(p.has_legal_move(), !legal.is_empty());
        let outcome = p.outcome();
        prop_assert_eq!(outcome.is_over(), legal.is_empty());
        for m in every_move() {
            let _ = p.play_unchecked(m);
            match p.play(m) {
                Ok((next, o)) => {
                    prop_assert!(legal.contains(&m), "{} {} plays but is not listed", p, m);
                    // Seeds in hand count too: a namua move moves one from hand to board.
                    prop_assert_eq!(next.total_seeds(), total);
                    prop_assert_eq!(next.outcome(), o);
                    prop_assert_eq!(p.play_unchecked(m), next);
                }
                Err(e) => {
                    prop_assert!(!legal.contains(&m), "{} {} is listed but: {}", p, m, e);
                    prop_assert!(!e.to_string().is_empty());
                }
            }
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
