//! `Position::sowing_steps`: the steps of a move, checked against `play` by an
//! independent applier (counts, hands and nyumba flags only) over random games of
//! both variants, plus hand-derived step lists and the JSON form.

use bao_rules::{
    BoardPit, Direction, IllegalMove, Move, MoveText, Pit, Position, Row, Side, SowStep, Variant,
};
use proptest::prelude::*;

/// The board as the applier sees it: counts by absolute pit, hands, nyumba flags.
#[derive(Debug, PartialEq, Eq)]
struct Board {
    counts: [[u8; 16]; 2],
    hands: [u8; 2],
    nyumba: [bool; 2],
}

fn board(p: &Position) -> Board {
    let mut counts = [[0; 16]; 2];
    for side in Side::ALL {
        for (i, count) in counts[side.index()].iter_mut().enumerate() {
            *count = p.count(side, Pit::from_index(u8::try_from(i).unwrap()).unwrap());
        }
    }
    Board {
        counts,
        hands: [p.hand(Side::South), p.hand(Side::North)],
        nyumba: [p.owns_nyumba(Side::South), p.owns_nyumba(Side::North)],
    }
}

/// Applies `steps` of a move by `mover` to `b`, checking that transit never goes
/// negative, that laps start with nothing in transit, that seeds are sown into the
/// mover's pits and captured from the opponent's, and that transit ends empty.
fn apply(b: &mut Board, mover: Side, steps: &[SowStep]) -> Result<(), String> {
    let mut transit: u32 = 0;
    for (i, step) in steps.iter().enumerate() {
        let at = |what: &str| format!("step {i} ({step:?}): {what}");
        match *step {
            SowStep::Hand => {
                if i != 0 {
                    return Err(at("a seed from hand only as the first step"));
                }
                let hand = &mut b.hands[mover.index()];
                *hand = hand.checked_sub(1).ok_or_else(|| at("empty hand"))?;
                transit += 1;
            }
            SowStep::Pick { pit, seeds } => {
                if transit != 0 || pit.side() != mover || seeds == 0 {
                    return Err(at("a lap starts with nothing in transit, from a mover's pit"));
                }
                let c = &mut b.counts[pit.side().index()][pit.pit().index()];
                *c = c.checked_sub(seeds).ok_or_else(|| at("more seeds than the pit holds"))?;
                transit += u32::from(seeds);
            }
            SowStep::Capture { pit, seeds } => {
                if transit != 0 || pit.side() == mover || seeds == 0 {
                    return Err(at("a capture starts a lap, from an opponent's pit"));
                }
                let c = &mut b.counts[pit.side().index()][pit.pit().index()];
                if *c != seeds {
                    return Err(at(&format!("the pit holds {c}, not the seeds captured")));
                }
                *c = 0;
                transit += u32::from(seeds);
            }
            SowStep::Drop { pit } => {
                if pit.side() != mover {
                    return Err(at("seeds are sown only into the mover's pits"));
                }
                transit = transit.checked_sub(1).ok_or_else(|| at("nothing in transit"))?;
                b.counts[pit.side().index()][pit.pit().index()] += 1;
            }
            SowStep::Kichwa { pit } => {
                let kichwa = pit.pit() == Pit::LEFT_KICHWA || pit.pit() == Pit::RIGHT_KICHWA;
                if !(kichwa && pit.side() == mover && transit > 0) {
                    return Err(at("captured seeds in transit, sown from a mover's kichwa"));
                }
                if !matches!(
                    steps.get(i.wrapping_sub(1)),
                    Some(SowStep::Capture { .. } | SowStep::NyumbaLost { .. })
                ) || steps.get(i + 1) != Some(&SowStep::Drop { pit })
                {
                    return Err(at("a kichwa comes after a capture and is sown into first"));
                }
            }
            SowStep::Safari { pit } => {
                if pit != BoardPit::new(mover, Pit::NYUMBA) || transit != 0 || !b.nyumba[mover.index()] {
                    return Err(at("safari from the mover's owned nyumba, between laps"));
                }
                if !matches!(steps.get(i + 1), Some(SowStep::Pick { pit: p, .. }) if *p == pit) {
                    return Err(at("the safari lifts the nyumba next"));
                }
            }
            SowStep::NyumbaLost { pit } => {
                let flag = &mut b.nyumba[pit.side().index()];
                if pit.pit() != Pit::NYUMBA || !*flag {
                    return Err(at("only an owned nyumba is lost"));
                }
                *flag = false;
            }
        }
    }
    if transit != 0 {
        return Err(format!("{transit} seeds still in transit after the last step"));
    }
    Ok(())
}

/// Every move that can be written: 16 pits × 2 directions × with/without `+`.
fn every_move() -> Vec<Move> {
    let mut out = Vec::with_capacity(64);
    for row in [Row::Front, Row::Back] {
        for col in 1..=8 {
            for dir in Direction::ALL {
                for safari in [false, true] {
                    out.push(Move::new(Pit::new(row, col).unwrap(), dir, safari));
                }
            }
        }
    }
    out
}

/// Checks every legal move of `p` against `play`, and that illegal moves are
/// refused with `play`'s error. Returns the kinds of step seen.
fn check_position(p: &Position, seen: &mut [bool; 7]) -> Result<(), String> {
    let legal = p.legal_moves();
    for m in every_move() {
        let steps = p.sowing_steps(m);
        match p.play(m) {
            Err(e) => {
                if steps != Err(e) {
                    return Err(format!("{p} {m}: play says {e}, sowing_steps {steps:?}"));
                }
            }
            Ok((next, _)) => {
                let steps = steps.map_err(|e| format!("{p} {m}: legal, but sowing_steps says {e}"))?;
                if !legal.contains(&m) {
                    return Err(format!("{p} {m}: plays but is not listed"));
                }
                let mut b = board(p);
                apply(&mut b, p.side_to_move(), &steps).map_err(|e| format!("{p} {m}: {e}"))?;
                if b != board(&next) {
                    return Err(format!("{p} {m}: the steps give {b:?}, play gives {next}"));
                }
                for s in &steps {
                    seen[kind(s)] = true;
                }
            }
        }
    }
    Ok(())
}

fn kind(step: &SowStep) -> usize {
    match step {
        SowStep::Hand => 0,
        SowStep::Pick { .. } => 1,
        SowStep::Drop { .. } => 2,
        SowStep::Capture { .. } => 3,
        SowStep::Kichwa { .. } => 4,
        SowStep::Safari { .. } => 5,
        SowStep::NyumbaLost { .. } => 6,
    }
}

/// Plays a game choosing `choices[i] % legal.len()` at ply i, checking every
/// position on the way.
fn check_game(variant: Variant, choices: &[u16], seen: &mut [bool; 7]) -> Result<(), String> {
    let mut p = Position::start(variant);
    for &choice in choices {
        check_position(&p, seen)?;
        let moves = p.legal_moves();
        if moves.is_empty() {
            break;
        }
        let (next, outcome) = p.play(moves[usize::from(choice) % moves.len()]).map_err(|e| e.to_string())?;
        if outcome.is_over() {
            break;
        }
        p = next;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn steps_replay_play_kiswahili(choices in proptest::collection::vec(any::<u16>(), 1..120)) {
        let result = check_game(Variant::Kiswahili, &choices, &mut [false; 7]);
        prop_assert!(result.is_ok(), "{}", result.unwrap_err());
    }

    #[test]
    fn steps_replay_play_kujifunza(choices in proptest::collection::vec(any::<u16>(), 1..120)) {
        let result = check_game(Variant::Kujifunza, &choices, &mut [false; 7]);
        prop_assert!(result.is_ok(), "{}", result.unwrap_err());
    }
}

/// The random games above are not vacuous: over fixed games every kind of step
/// (safari included) occurs.
#[test]
fn fixed_games_show_every_kind_of_step() {
    let mut seen = [false; 7];
    let mut state: u64 = 1;
    for game in 0..60 {
        let choices: Vec<u16> = (0..200)
            .map(|_| {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                u16::try_from(state >> 48).unwrap()
            })
            .collect();
        let variant = if game % 2 == 0 { Variant::Kiswahili } else { Variant::Kujifunza };
        check_game(variant, &choices, &mut seen).unwrap();
    }
    assert_eq!(seen, [true; 7], "hand, pick, drop, capture, kichwa, safari, nyumba_lost");
}

fn at(text: &str) -> BoardPit {
    text.parse().unwrap_or_else(|e| panic!("{e}"))
}

fn drops(pits: &[&str]) -> Vec<SowStep> {
    pits.iter().map(|p| SowStep::Drop { pit: at(p) }).collect()
}

fn steps(position: &str, m: &str) -> Vec<SowStep> {
    let p: Position = position.parse().unwrap();
    let m = m.parse::<MoveText>().unwrap().to_move(&p).unwrap();
    p.sowing_steps(m).unwrap()
}

#[test]
fn kiswahili_start_takasa() {
    // A seed into A6 (3), lift it, sow A5, A4, A3: A3 was empty, the move ends.
    let start = Position::start(Variant::Kiswahili).to_string();
    let mut expected =
        vec![SowStep::Hand, SowStep::Drop { pit: at("A6") }, SowStep::Pick { pit: at("A6"), seeds: 3 }];
    expected.extend(drops(&["A5", "A4", "A3"]));
    assert_eq!(steps(&start, "A6<"), expected);
}

#[test]
fn north_moves_name_north_pits_in_lower_case() {
    // After South's A6< (A3=1, A4=1, A5=7, A7=2), North's a6 faces A3: North's A6< puts
    // a seed in a6, captures A3's 1 and sows it from North's right kichwa a8.
    let p = "kiswahili N 0,0,1,1,7,0,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 21,22 SN -";
    let expected = vec![
        SowStep::Hand,
        SowStep::Drop { pit: at("a6") },
        SowStep::Capture { pit: at("A3"), seeds: 1 },
        SowStep::Kichwa { pit: at("a8") },
        SowStep::Drop { pit: at("a8") },
    ];
    assert_eq!(steps(p, "a6<"), expected);
    let mut after = Position::start(Variant::Kiswahili);
    after = after.play(after.legal_moves()[0]).unwrap().0;
    assert_eq!(after.to_string(), p, "the position after South's first listed move, A6<");
}

#[test]
fn safari_steps() {
    // The position of rules/tests/sections.rs s7_4: A2>+ takes a7's 5, sows them from
    // A1 to A5 (7, functional), goes on safari: lifts the nyumba's 7 (ownership ends).
    let p = "kiswahili S 0,1,0,0,6,0,0,0/0,0,0,0,0,0,0,0/2,0,0,0,0,0,5,0/0,0,0,0,0,0,0,0 3,3 SN -";
    let mut expected = vec![
        SowStep::Hand,
        SowStep::Drop { pit: at("A2") },
        SowStep::Capture { pit: at("a7"), seeds: 5 },
        SowStep::Kichwa { pit: at("A1") },
    ];
    expected.extend(drops(&["A1", "A2", "A3", "A4", "A5"]));
    expected.extend([
        SowStep::Safari { pit: at("A5") },
        SowStep::Pick { pit: at("A5"), seeds: 7 },
        SowStep::NyumbaLost { pit: at("A5") },
    ]);
    expected.extend(drops(&["A6", "A7", "A8", "B8", "B7", "B6", "B5"]));
    assert_eq!(steps(p, "A2>+"), expected);
    // Without `+` the move stops after the first lap.
    assert_eq!(steps(p, "A2>"), expected[..9]);
}

#[test]
fn tax_lifts_exactly_two() {
    // South's only front seeds are the functional nyumba's 6: a seed in (7), lift 2, sow A4, A3.
    // (North's a1 faces the empty A8: no capture.)
    let p = "kiswahili S 0,0,0,0,6,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 5,5 SN -";
    let mut expected =
        vec![SowStep::Hand, SowStep::Drop { pit: at("A5") }, SowStep::Pick { pit: at("A5"), seeds: 2 }];
    expected.extend(drops(&["A4", "A3"]));
    assert_eq!(steps(p, "A5<"), expected);
}

#[test]
fn a_lap_of_sixteen_or_more_drops_every_seed() {
    // Mtaji: A1 holds 17: B1 first (<), round the ring (A1 itself 16th) to B1 again.
    let p = "kujifunza S 17,0,0,0,0,0,0,1/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,1/0,0,0,0,0,0,0,0 0,0 -- -";
    let position: Position = p.parse().unwrap();
    let all = steps(p, "A1<");
    assert_eq!(all[0], SowStep::Pick { pit: at("A1"), seeds: 17 });
    let first_lap: Vec<SowStep> = all[1..18].to_vec();
    let ring = [
        "B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "A8", "A7", "A6", "A5", "A4", "A3", "A2", "A1", "B1",
    ];
    assert_eq!(first_lap, drops(&ring));
    let mut b = board(&position);
    apply(&mut b, Side::South, &all).unwrap();
    let (next, _) = position.play("A1<".parse::<MoveText>().unwrap().to_move(&position).unwrap()).unwrap();
    assert_eq!(b, board(&next));
}

#[test]
fn illegal_and_infinite_moves_are_refused() {
    // RULES.md section 9: A5< is infinite here.
    let p: Position = "kujifunza N 1,0,0,0,0,0,0,1/2,1,0,3,0,0,1,1/2,3,10,5,2,1,4,1/7,0,1,2,3,4,3,6 0,0 -- -"
        .parse()
        .unwrap();
    let a5 = Move::new(Pit::NYUMBA, Direction::AntiClockwise, false);
    assert_eq!(p.sowing_steps(a5), Err(IllegalMove::Infinite(a5)));
    let start = Position::start(Variant::Kiswahili);
    let b1 = Move::new(Pit::new(Row::Back, 1).unwrap(), Direction::Clockwise, false);
    assert_eq!(start.sowing_steps(b1), Err(IllegalMove::NamuaBackRow(b1)));
}

#[test]
fn json_form() {
    let json = |s: &SowStep| serde_json::to_string(s).unwrap();
    assert_eq!(json(&SowStep::Hand), r#"{"op":"hand"}"#);
    assert_eq!(json(&SowStep::Pick { pit: at("A5"), seeds: 6 }), r#"{"op":"pick","pit":"A5","seeds":6}"#);
    assert_eq!(json(&SowStep::Drop { pit: at("a3") }), r#"{"op":"drop","pit":"a3"}"#);
    assert_eq!(
        json(&SowStep::Capture { pit: at("b8"), seeds: 2 }),
        r#"{"op":"capture","pit":"b8","seeds":2}"#
    );
    assert_eq!(json(&SowStep::Kichwa { pit: at("A8") }), r#"{"op":"kichwa","pit":"A8"}"#);
    assert_eq!(json(&SowStep::Safari { pit: at("a5") }), r#"{"op":"safari","pit":"a5"}"#);
    assert_eq!(json(&SowStep::NyumbaLost { pit: at("A5") }), r#"{"op":"nyumba_lost","pit":"A5"}"#);
    let back: SowStep = serde_json::from_str(r#"{"op":"drop","pit":"B1"}"#).unwrap();
    assert_eq!(back, SowStep::Drop { pit: at("B1") });
    assert!(serde_json::from_str::<SowStep>(r#"{"op":"drop","pit":"C1"}"#).is_err());
}

#[test]
fn board_pit_names() {
    let mut names = Vec::new();
    for side in Side::ALL {
        for i in 0..16 {
            let pit = BoardPit::new(side, Pit::from_index(i).unwrap());
            let name = pit.to_string();
            assert_eq!(name.parse::<BoardPit>(), Ok(pit));
            names.push(name);
        }
    }
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 32);
    assert_eq!(BoardPit::new(Side::North, Pit::new(Row::Back, 3).unwrap()).to_string(), "b3");
    assert_eq!(BoardPit::new(Side::South, Pit::RIGHT_KICHWA).to_string(), "A8");
    for bad in ["", "A", "A0", "A9", "C1", "a10", "A1 ", "1A"] {
        let e = bad.parse::<BoardPit>().unwrap_err();
        assert_eq!(e.to_string(), format!("bad pit {bad:?}: expected A1..B8 (South) or a1..b8 (North)"));
    }
}
